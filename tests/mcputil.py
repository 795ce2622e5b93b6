"""memdir's MCP server for tests: one tool call in memory, or a real server over HTTP.

:func:`call_tool` calls one tool on a fresh server over the in-memory transport;
:func:`serving_http` runs the server over streamable HTTP, in a thread, for tests
that need a real one, and doctor's ``INITIALIZE`` request with ``HTTP_HEADERS`` opens a
session on it.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import uvicorn
from mcp import Client

from memdir.mcp.http import MCP_PATH, http_app
from memdir.mcp.server import build_server

# The headers streamable HTTP wants on every request (JSON in, JSON or an event stream
# out); MCP's first request is the one doctor's probe sends (memdir.hosts.probes.INITIALIZE).
HTTP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def call_tool(project: Path, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    """Call tool ``name`` on a fresh server for ``project``: (is it an error, its text)."""

    async def call() -> tuple[bool, str]:
        async with Client(build_server(project)) as client:
            result = await client.call_tool(name, arguments)
            block = result.content[0]
            assert block.type == "text"
            return bool(result.is_error), block.text

    return anyio.run(call)


@contextlib.contextmanager
def serving_http(project: Path, token: str) -> Iterator[str]:
    """The server of ``project`` on a free loopback port; yields its MCP URL.

    The socket listens before the server starts, so a client that connects early
    waits in the backlog: no polling for readiness. The server must stop on exit.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    app = http_app(build_server(project), token)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}{MCP_PATH}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
    assert not thread.is_alive()
