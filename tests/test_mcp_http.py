"""The MCP server over real transports: streamable HTTP behind a bearer token, and stdio."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcputil import HTTP_HEADERS, serving_http
from memdir.api import Memdir
from memdir.hosts.probes import INITIALIZE
from memdir.mcp.http import TOKEN_FILE, resolve_token

TOKEN = "right-token-for-tests"


@pytest.fixture
def url(project: Path, mem: Memdir) -> Iterator[str]:
    """The server running in a thread on a free loopback port."""
    mem.write(name="Deploy window", description="Deploys on Tuesdays", type="project")
    with serving_http(project, TOKEN) as url:
        yield url


def post(url: str, headers: dict[str, str]) -> httpx2.Response:
    return httpx2.post(url, json=INITIALIZE, headers={**HTTP_HEADERS, **headers}, timeout=30)


def test_a_request_without_a_token_is_refused_with_401(url: str) -> None:
    response = post(url, {})
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "header",
    ["Bearer wrong", f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}", TOKEN, f"Basic {TOKEN}",
     f"bearer  {TOKEN}"],
)  # fmt: skip
def test_a_wrong_token_is_refused_with_401(url: str, header: str) -> None:
    assert post(url, {"authorization": header}).status_code == 401


def test_the_scheme_is_case_insensitive(url: str) -> None:
    assert post(url, {"authorization": f"bearer {TOKEN}"}).status_code == 200


def test_the_right_token_reaches_the_tools(url: str) -> None:
    async def main() -> str:
        async with (
            httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            result = await client.call_tool("view", {})
            block = result.content[0]
            assert block.type == "text"
            return block.text

    assert "[Deploy window](deploy_window.md)" in anyio.run(main)


def test_a_generated_token_is_stored_0600_and_reused(memdir_home: Path) -> None:
    first = resolve_token(memdir_home)
    path = memdir_home / TOKEN_FILE
    assert len(first) >= 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert resolve_token(memdir_home) == first
    assert resolve_token(memdir_home, "given") == "given"
    assert path.read_text().strip() == first


def test_serve_on_stdio_answers_a_client(project: Path, mem: Memdir) -> None:
    from mcp import StdioServerParameters

    mem.write(name="Deploy window", description="Deploys on Tuesdays", type="project")
    code = "import sys; from memdir.cli.serve import serve; serve(sys.argv[1:])"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", code, "--project", str(project)],
        env={**os.environ},
    )

    async def main() -> str:
        async with Client(params) as client:
            result = await client.call_tool("search", {"query": "deploys tuesdays"})
            block = result.content[0]
            assert block.type == "text"
            return block.text

    assert anyio.run(main).startswith("- deploy_window.md [project]")


def test_a_websocket_without_the_token_is_closed_before_it_reaches_the_app() -> None:
    from memdir.mcp.http import BearerAuth

    reached: list[str] = []
    sent: list[dict[str, object]] = []

    async def app(scope: object, receive: object, send: object) -> None:
        reached.append("app")

    async def receive() -> dict[str, object]:
        return {"type": "websocket.connect"}

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    guard = BearerAuth(app, TOKEN)
    scope = {"type": "websocket", "headers": [(b"authorization", b"Bearer wrong")]}
    anyio.run(guard, scope, receive, send)  # type: ignore[arg-type]
    assert reached == [] and sent == [{"type": "websocket.close", "code": 1008}]
    good = {"type": "websocket", "headers": [(b"authorization", f"Bearer {TOKEN}".encode())]}
    anyio.run(guard, good, receive, send)  # type: ignore[arg-type]
    assert reached == ["app"]


def test_a_busy_port_fails_before_any_banner(project: Path) -> None:
    import socket

    from click.testing import CliRunner

    from memdir.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        args = ["serve", "--http", "--port", str(port), "--token", "t", "--project", str(project)]
        result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert f"cannot serve on 127.0.0.1:{port}: the port is in use" in result.stderr
    assert f"--port {port + 1}" in result.stderr
    assert "MCP server on" not in result.stderr  # no banner for a server that never ran


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", ""])
def test_a_body_that_is_not_json_gets_415(url: str, content_type: str) -> None:
    headers = {**HTTP_HEADERS, "authorization": f"Bearer {TOKEN}", "content-type": content_type}
    response = httpx2.post(url, content=b'{"jsonrpc": "2.0"}', headers=headers, timeout=30)
    assert response.status_code == 415
    assert "application/json" in response.json()["hint"]
    # JSON with a charset parameter is JSON; and without the token, 401 comes first.
    assert (
        post(
            url,
            {"authorization": f"Bearer {TOKEN}", "content-type": "application/json; charset=utf-8"},
        ).status_code
        == 200
    )
    assert (
        httpx2.post(
            url, content=b"x", headers={"content-type": content_type}, timeout=30
        ).status_code
        == 401
    )
