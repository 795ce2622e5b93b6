"""`memdir serve` end to end: the real MCP client SDK drives the real command.

The server is the `memdir` command line in a child process, as an MCP host
starts it: over stdio, and over streamable HTTP behind a bearer token. Each
session initializes, lists the tools, writes a memory, finds it by search
and reads it back with view: the whole round trip a host makes.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from memdir.mcp.http import MCP_PATH

TOKEN = "e2e-bearer-token-0123456789abcdef"
TOOLS = {"view", "search", "recall", "write", "edit", "delete", "log"}


def _text(result: Any) -> str:
    assert not result.is_error, result
    block = result.content[0]
    assert block.type == "text"
    return str(block.text)


async def _round_trip(client: Client) -> dict[str, Any]:
    """What a host does first: tools, then write, search, view."""
    tools = await client.list_tools()
    written = _text(
        await client.call_tool(
            "write",
            {
                "name": "Release train",
                "description": "Releases leave every second Thursday from the main branch",
                "type": "project",
                "body": "Cut the branch on Wednesday evening.\n",
            },
        )
    )
    found = _text(await client.call_tool("search", {"query": "second Thursday releases"}))
    viewed = _text(await client.call_tool("view", {"path": "release_train.md"}))
    index = _text(await client.call_tool("view", {}))
    return {
        "server": client.server_info.name if client.server_info else "",
        "protocol": client.protocol_version,
        "tools": {tool.name for tool in tools.tools},
        "schemas": {tool.name: tool.input_schema for tool in tools.tools},
        "written": written,
        "found": found,
        "viewed": viewed,
        "index": index,
    }


def _check(session: dict[str, Any]) -> None:
    assert session["server"] and session["protocol"]
    assert session["tools"] >= TOOLS
    assert session["schemas"]["write"]["type"] == "object"
    assert "release_train.md" in session["written"]
    assert session["found"].startswith("- release_train.md [project]")
    assert "Cut the branch on Wednesday evening." in session["viewed"]
    assert "[Release train](release_train.md)" in session["index"]


def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parent.parent / "src")
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{path}" if path else src}


def test_memdir_serve_on_stdio_answers_the_mcp_client_sdk(project: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memdir", "serve", "--project", str(project)],
        env=_env(),
    )

    async def main() -> dict[str, Any]:
        async with Client(params) as client:
            return await _round_trip(client)

    _check(anyio.run(main))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_url(project: Path) -> Iterator[str]:
    """`memdir serve --http` in a child process, once it accepts connections."""
    port = _free_port()
    child = subprocess.Popen(
        [
            *(sys.executable, "-m", "memdir", "serve", "--http", "--port", str(port)),
            *("--token", TOKEN, "--project", str(project)),
        ],
        env=_env(),
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120  # a readiness wait on a busy machine, not a check
        while True:
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}{MCP_PATH}"
    finally:
        child.terminate()
        child.wait(timeout=60)
        if child.stderr:
            child.stderr.close()


def test_memdir_serve_over_http_answers_the_mcp_client_sdk_with_the_token_only(
    http_url: str,
) -> None:
    async def without_token() -> None:
        async with (
            httpx2.AsyncClient(timeout=60) as http,
            Client(streamable_http_client(http_url, http_client=http)) as client,
        ):
            await client.list_tools()

    with pytest.raises(Exception):  # noqa: B017 - the SDK wraps the refusal in groups
        anyio.run(without_token)
    assert httpx2.post(http_url, json={}, timeout=60).status_code == 401

    async def main() -> dict[str, Any]:
        headers = {"authorization": f"Bearer {TOKEN}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(http_url, http_client=http)) as client,
        ):
            return await _round_trip(client)

    _check(anyio.run(main))
