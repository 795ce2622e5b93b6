"""What the local stand-ins for the model APIs have in common, whatever API they speak.

Each stand-in (:mod:`claude_api`, :mod:`codex_api`, :mod:`gemini_api`) is an HTTP server
on 127.0.0.1 that records every request and answers the client's conversation with the
next scripted turn. The wire formats differ; the rest does not, and lives here:

- :class:`ScriptedServer` holds the recorded requests, the conversation's script and the
  script for everything else (side calls: a short text unless a test sets one), behind
  one lock, since the server answers each request on its own thread.
- :func:`as_script` turns a list of turns into a script that hands them out in order,
  then a plain "Done." for any request the list did not foresee, so none hangs a test.
- :class:`Request` is what a stand-in records of a request (method, path, headers, JSON
  body); a stand-in's own ``Recorded`` adds what it tells apart (a turn of the
  conversation, a side call) and :meth:`JsonHandler.request_as` makes one.
- :class:`JsonHandler` reads a request's JSON body (``{}`` when it is not a JSON
  object) and sends a JSON answer or a stream of server-sent events, each with its
  length, since the clients keep the connection open (HTTP/1.1); :func:`sse` writes
  one named event.
- :func:`serving` runs a server for the length of a ``with`` block.
- :func:`content_texts` reads the texts of a message's content, a string or a list of
  blocks; which texts a block holds is the API's own.

A stand-in's module keeps its own ``Turn`` and ``Recorded`` types and what its API
writes on the wire; :class:`ScriptedServer` is generic over both.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Generic, TypeVar

__all__ = [
    "JsonHandler",
    "Request",
    "ScriptedServer",
    "ToolTurn",
    "as_script",
    "content_texts",
    "serving",
    "sse",
]

TurnT = TypeVar("TurnT")
RecordedT = TypeVar("RecordedT")
ServerT = TypeVar("ServerT", bound="ScriptedServer[Any, Any]")
RequestT = TypeVar("RequestT", bound="Request")
Body = dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class Request:
    """One request the client sent."""

    method: str
    path: str  # without its query
    headers: dict[str, str]  # their names in lower case
    body: Body


@dataclass(frozen=True, kw_only=True)
class ToolTurn:
    """What a scripted model turn says at the least: text, or a call of ``tool``."""

    text: str = ""
    tool: str | None = None
    tool_input: dict[str, Any] = field(default_factory=dict)


def as_script(
    script: Callable[[Body], TurnT] | Sequence[TurnT], text_turn: Callable[..., TurnT]
) -> Callable[[Body], TurnT]:
    """``script`` itself when it is a function; else its turns in order, then "Done."."""
    if callable(script):
        return script
    turns = list(script)
    lock = threading.Lock()

    def scripted(body: Body) -> TurnT:
        with lock:
            return turns.pop(0) if turns else text_turn(text="Done.")

    return scripted


class ScriptedServer(Generic[TurnT, RecordedT]):
    """A loopback server's requests and scripts; a stand-in adds its URL and its wire."""

    def __init__(
        self,
        script: Callable[[Body], TurnT] | Sequence[TurnT],
        *,
        text_turn: Callable[..., TurnT],
        handler: type[BaseHTTPRequestHandler],
        server_class: type[ThreadingHTTPServer] = ThreadingHTTPServer,
    ) -> None:
        self.requests: list[RecordedT] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._text_turn = text_turn
        self._script = as_script(script, text_turn)
        self._side: Callable[[Body], TurnT] = lambda body: text_turn(text="memdir test")
        self._server = server_class(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]

    def script(self, script: Callable[[Body], TurnT] | Sequence[TurnT]) -> None:
        """Answer the conversation's next requests with ``script`` from now on."""
        with self._lock:
            self._script = as_script(script, self._text_turn)

    def script_side(self, script: Callable[[Body], TurnT] | Sequence[TurnT]) -> None:
        """Answer the requests outside the conversation with ``script`` from now on."""
        with self._lock:
            self._side = as_script(script, self._text_turn)

    def recorded(self) -> list[RecordedT]:
        """Every request so far, in the order they arrived."""
        with self._lock:
            return list(self.requests)

    def record(self, recorded: RecordedT) -> None:
        """Keep a request that takes no turn (a token count, an unknown path)."""
        with self._lock:
            self.requests.append(recorded)

    def reply_for(self, recorded: RecordedT, body: Body, *, conversation: bool) -> TurnT:
        """Keep the request and take its answer from the conversation's script or the
        side script."""
        with self._lock:
            self.requests.append(recorded)
            script = self._script if conversation else self._side
        return script(body)

    def next_id(self) -> int:
        """A number no other id of this server's answers has had."""
        return next(self._ids)

    def serve(self) -> threading.Thread:
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def sse(name: str, data: dict[str, Any]) -> bytes:
    """One server-sent event named ``name`` carrying ``data`` as JSON."""
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def content_texts(content: Any, block_texts: Callable[[Body], list[str]]) -> list[str]:
    """The texts of a message's ``content``: the string itself, or the texts
    ``block_texts`` finds in each of its blocks (what is not an object passed over)."""
    if isinstance(content, str):
        return [content]
    blocks = [block for block in content or [] if isinstance(block, dict)]
    return [text for block in blocks for text in block_texts(block)]


@contextmanager
def serving(server: ServerT) -> Iterator[ServerT]:
    """``server`` answering for the length of the block."""
    server.serve()
    try:
        yield server
    finally:
        server.close()


class JsonHandler(BaseHTTPRequestHandler):
    """Reading a JSON request and writing a JSON or server-sent-events answer."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the recorded requests are the log

    def read_body(self) -> tuple[bytes, Body]:
        """The request's raw bytes and its JSON object (``{}`` when it is none)."""
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        return raw, body if isinstance(body, dict) else {}

    def request_path(self) -> str:
        """The path without its query."""
        return self.path.split("?", 1)[0]

    def request_headers(self) -> dict[str, str]:
        """The headers, their names in lower case."""
        return {k.lower(): v for k, v in self.headers.items()}

    def request_as(self, kind: type[RequestT], body: Body) -> RequestT:
        """This request as a stand-in records it, ``body`` its JSON."""
        return kind(
            method=self.command,
            path=self.request_path(),
            headers=self.request_headers(),
            body=body,
        )

    def send_json(self, status: int, data: dict[str, Any]) -> None:
        self._send(status, "application/json", json.dumps(data).encode())

    def send_events(self, payload: bytes) -> None:
        """An event stream already written as bytes, sent whole."""
        self._send(200, "text/event-stream", payload, ("cache-control", "no-cache"))

    def _send(self, status: int, kind: str, payload: bytes, *extra: tuple[str, str]) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        for name, value in extra:
            self.send_header(name, value)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
