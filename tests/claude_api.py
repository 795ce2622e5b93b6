"""A local stand-in for the Anthropic Messages API, for driving the real Claude Code CLI.

The model is the one part of a Claude Code session a test may script. This server
listens on 127.0.0.1, records every request the client sends (path, headers, JSON
body), and answers ``POST /v1/messages`` with the next scripted turn: plain text, or
a tool call the client then runs (its hooks included) and reports back in the next
request. Streaming requests get the server-sent events the client parses
(``message_start``, content blocks, ``message_delta``, ``message_stop``); others get
the JSON message. ``count_tokens`` answers with a rough count. Requests the script did
not foresee get a short text reply, so a client's side calls (titles, summaries) never
hang a test.

A turn is a :class:`Turn`; a script is a callable that gets the request's body and
returns the turn, or a list of turns taken in order by the main conversation's
requests (those Claude Code sends with its tools). Requests from anyone else (memdir's
own background jobs reach the same ``ANTHROPIC_BASE_URL`` when they spend the key
Claude Code exports to its hooks) are recorded and answered, but never take a turn:
:attr:`Recorded.from_claude_code` tells them apart by the user agent. A new script
for the next client run replaces the old one with :meth:`StandIn.script`.

The requests outside the conversation (side calls, and the ``claude -p`` children of
memdir's ``claude-code`` provider, which offer no tools) are answered by a second
script, :meth:`StandIn.script_side` (by default a short text). A turn with ``error``
set is answered with that HTTP status and an Anthropic-style error body instead.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "Recorded",
    "StandIn",
    "Turn",
    "request_texts",
    "run_stand_in",
    "system_text",
    "user_texts",
]


@dataclass(frozen=True, kw_only=True)
class Turn:
    """One scripted model turn: text, optionally followed by one tool call."""

    text: str = ""
    tool: str | None = None
    tool_input: dict[str, Any] = field(default_factory=dict)
    error: int | None = None  # answer with this HTTP status (401: authentication_error)


@dataclass(frozen=True, kw_only=True)
class Recorded:
    """One request the client sent."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def from_claude_code(self) -> bool:
        """Sent by the Claude Code CLI (its user agent is ``claude-cli/<version> ...``)."""
        return self.headers.get("user-agent", "").startswith("claude-cli/")

    @property
    def is_conversation(self) -> bool:
        """A main-loop request of Claude Code: it offers the client's tools (side calls
        offer none)."""
        return (
            self.from_claude_code
            and bool(self.body.get("tools"))
            and self.path.startswith("/v1/messages")
        )


Script = Callable[[dict[str, Any]], Turn]


class StandIn:
    """The running server: its URL, the requests it recorded, and its script."""

    def __init__(self, script: Script | Sequence[Turn]) -> None:
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._script: Script = _as_script(script)
        self._side: Script = _side_default
        self._server = _Server(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def script(self, script: Script | Sequence[Turn]) -> None:
        """Answer the conversation's next requests with ``script`` from now on."""
        with self._lock:
            self._script = _as_script(script)

    def script_side(self, script: Script | Sequence[Turn]) -> None:
        """Answer the requests outside the conversation with ``script`` from now on."""
        with self._lock:
            self._side = _as_script(script)

    def recorded(self) -> list[Recorded]:
        """Every request so far, in the order they arrived."""
        with self._lock:
            return list(self.requests)

    def conversation(self) -> list[Recorded]:
        """The main-loop requests, in the order they arrived."""
        with self._lock:
            return [r for r in self.requests if r.is_conversation]

    def reply_for(self, recorded: Recorded) -> Turn:
        with self._lock:
            self.requests.append(recorded)
            script = self._script if recorded.is_conversation else self._side
        return script(recorded.body)

    def next_id(self) -> int:
        return next(self._ids)

    def serve(self) -> threading.Thread:
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class _Server(ThreadingHTTPServer):
    """The HTTP server, quiet about a client that left before its answer (a stopped child)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _side_default(body: dict[str, Any]) -> Turn:
    return Turn(text="memdir test")


def _as_script(script: Script | Sequence[Turn]) -> Script:
    if callable(script):
        return script
    turns = list(script)
    lock = threading.Lock()

    def scripted(body: dict[str, Any]) -> Turn:
        with lock:
            return turns.pop(0) if turns else Turn(text="Done.")

    return scripted


@contextmanager
def run_stand_in(script: Script | Sequence[Turn]) -> Iterator[StandIn]:
    """Serve ``script`` on a free loopback port for the length of the block."""
    server = StandIn(script)
    server.serve()
    try:
        yield server
    finally:
        server.close()


def _handler(owner: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the recorded requests are the log

        def do_GET(self) -> None:
            self._send_json(404, {"type": "error", "error": {"type": "not_found_error"}})

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            path = self.path.split("?", 1)[0]
            headers = {k.lower(): v for k, v in self.headers.items()}
            if path.endswith("/count_tokens"):
                with owner._lock:
                    owner.requests.append(Recorded(path=path, headers=headers, body=body))
                self._send_json(200, {"input_tokens": max(1, len(raw) // 4)})
                return
            if not path.startswith("/v1/messages"):
                with owner._lock:
                    owner.requests.append(Recorded(path=path, headers=headers, body=body))
                self._send_json(404, {"type": "error", "error": {"type": "not_found_error"}})
                return
            turn = owner.reply_for(Recorded(path=path, headers=headers, body=body))
            if turn.error is not None:
                kind = "authentication_error" if turn.error == 401 else "api_error"
                self._send_json(
                    turn.error, {"type": "error", "error": {"type": kind, "message": "refused"}}
                )
                return
            message = _message(owner, body, turn)
            if body.get("stream"):
                self._send_stream(message)
            else:
                self._send_json(200, message)

        def _send_json(self, status: int, data: dict[str, Any]) -> None:
            payload = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _send_stream(self, message: dict[str, Any]) -> None:
            chunks = b"".join(_sse(name, data) for name, data in _events(message))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("content-length", str(len(chunks)))
            self.end_headers()
            self.wfile.write(chunks)

    return Handler


def _message(owner: StandIn, body: dict[str, Any], turn: Turn) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if turn.text or turn.tool is None:
        content.append({"type": "text", "text": turn.text or "Done."})
    if turn.tool is not None:
        content.append(
            {
                "type": "tool_use",
                "id": f"toolu_{owner.next_id():06d}",
                "name": turn.tool,
                "input": turn.tool_input,
            }
        )
    return {
        "id": f"msg_{owner.next_id():06d}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude-test"),
        "content": content,
        "stop_reason": "tool_use" if turn.tool else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _events(message: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    start = {**message, "content": [], "stop_reason": None}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            empty: dict[str, Any] = {"type": "text", "text": ""}
            delta: dict[str, Any] = {"type": "text_delta", "text": block["text"]}
        else:
            empty = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": empty,
            },
        )
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _sse(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def system_text(body: dict[str, Any]) -> str:
    """The request's system prompt as one text."""
    system = body.get("system")
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(b.get("text", "") for b in system if isinstance(b, dict))
    return ""


def user_texts(body: dict[str, Any]) -> list[str]:
    """Every text block of every user message, in order (tool results included)."""
    texts: list[str] = []
    for message in body.get("messages", []):
        if message.get("role") == "user":
            texts.extend(_content_texts(message.get("content")))
    return texts


def request_texts(body: dict[str, Any]) -> list[str]:
    """Every text the model reads in the request: the system prompt, then every text
    block of every message whatever its role (Claude Code sends hook context as
    ``system`` messages), tool results included."""
    texts = [system_text(body)]
    for message in body.get("messages", []):
        texts.extend(_content_texts(message.get("content")))
    return texts


def _content_texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    texts: list[str] = []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            texts.append(block.get("text", ""))
        elif block.get("type") == "tool_result":
            texts.extend(_content_texts(block.get("content")))
    return texts
