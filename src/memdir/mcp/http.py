"""The MCP server on streamable HTTP, behind a bearer token.

The server binds to loopback unless told otherwise, and every HTTP request
must carry ``Authorization: Bearer <token>``; anything else gets 401 before
it reaches the MCP app. The token is compared in constant time. When none is
given (``--token``, ``MEMDIR_MCP_TOKEN``), one is generated with
:func:`secrets.token_urlsafe` and kept in ``<memdir home>/mcp-token`` (0600),
so clients configured once keep working across restarts. A POST whose body
is not declared JSON gets 415 (Unsupported Media Type); a tool call whose
arguments are not UTF-8 text gets its tool error, naming the argument
(:func:`~memdir.mcp.arguments.refused_call`), where the SDK's reader would
answer a parse error without the call's id.
"""

from __future__ import annotations

import hmac
import json
import socket

from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memdir.mcp.arguments import refused_call
from memdir.mcp.context import MemdirContext
from memdir.storage.local_server import bind, resolve_token

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "MCP_PATH",
    "TOKEN_FILE",
    "BearerAuth",
    "JsonBodies",
    "bind",
    "http_app",
    "resolve_token",
    "serve_http",
]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MCP_PATH = "/mcp"
TOKEN_FILE = "mcp-token"
_MAX_READ = 4 << 20  # bytes of a body read to check its text; the SDK refuses longer ones
# resolve_token and bind live in memdir.storage.local_server (memdir ui uses them too);
# they stay importable from here.


class BearerAuth:
    """ASGI middleware: HTTP requests without the right bearer token get 401.

    A websocket without it is closed before it is accepted; only lifespan
    events pass unchecked.
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("an empty bearer token would let anyone in")
        self.app = app
        self._expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorised(scope):
            await _unauthorised(send)
            return
        if scope["type"] == "websocket" and not self._authorised(scope):
            await send({"type": "websocket.close", "code": 1008})  # policy violation
            return
        await self.app(scope, receive, send)

    def _authorised(self, scope: Scope) -> bool:
        headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
        given = next((v for k, v in headers if k.lower() == b"authorization"), b"")
        scheme, _, value = given.partition(b" ")
        # compare_digest takes as long whatever the first differing byte.
        matches = hmac.compare_digest(value, self._expected)
        return scheme.lower() == b"bearer" and matches


async def _unauthorised(send: Send) -> None:
    await _answer(
        send,
        401,
        {"error": "unauthorized", "hint": "send 'Authorization: Bearer <token>'"},
        ((b"www-authenticate", b'Bearer realm="memdir"'),),
    )


async def _answer(
    send: Send, status: int, data: dict[str, str], extra: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    await _send(send, status, json.dumps(data).encode(), extra)


async def _send(
    send: Send, status: int, body: bytes, extra: tuple[tuple[bytes, bytes], ...]
) -> None:
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class JsonBodies:
    """ASGI middleware: a POST whose body is not declared JSON gets 415.

    MCP's streamable HTTP carries JSON-RPC in the body; the SDK answers another
    content type with a 400, which tells a client the request was malformed
    rather than sent in the wrong media type. A JSON body is read whole (up to
    :data:`_MAX_READ` bytes) before the app sees it, so that a tool call whose
    arguments are not UTF-8 text gets its tool error from here.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") == "POST":
            headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
            given = next((v for k, v in headers if k.lower() == b"content-type"), b"")
            media = given.split(b";", 1)[0].strip().lower()
            if media != b"application/json":
                shown = given.decode("latin-1")[:80] or "none"
                await _answer(
                    send,
                    415,
                    {
                        "error": "unsupported media type",
                        "hint": f"send 'Content-Type: application/json' (got {shown!r})",
                    },
                    ((b"accept-post", b"application/json"),),
                )
                return
            await self._checked(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _checked(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Read the body; a tool call with arguments that are not text is answered here."""
        chunks: list[bytes] = []
        size, more = 0, True
        while more and size <= _MAX_READ:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before its body was whole
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = bool(message.get("more_body", False))
        body = b"".join(chunks)
        answer = None if more else refused_call(body)
        if answer is not None:
            await _send(send, 200, answer, ())
            return
        await self.app(scope, _replay(body, more, receive), send)


def _replay(body: bytes, more: bool, receive: Receive) -> Receive:
    """A receive that gives ``body`` first (``more``: the rest still to come), then
    whatever the client sends next (its disconnect)."""
    given = False

    async def replayed() -> Message:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": more}

    return replayed


def http_app(server: MCPServer[MemdirContext], token: str, *, host: str = DEFAULT_HOST) -> ASGIApp:
    """The server's streamable HTTP app at :data:`MCP_PATH`, wrapped in :class:`BearerAuth`."""
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    return BearerAuth(JsonBodies(app), token)


def serve_http(
    server: MCPServer[MemdirContext],
    *,
    token: str,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    sock: socket.socket | None = None,
) -> None:
    """Serve until interrupted (``sock``: an already bound listening socket to use)."""
    import uvicorn

    config = uvicorn.Config(
        http_app(server, token, host=host), host=host, port=port, log_level="warning"
    )
    uvicorn.Server(config).run(sockets=[sock] if sock is not None else None)
