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

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from typing import Any

from stand_in_api import JsonHandler, Request, ScriptedServer, ToolTurn, content_texts, serving, sse

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
class Turn(ToolTurn):
    """One scripted model turn: text, optionally followed by one tool call."""

    error: int | None = None  # answer with this HTTP status (401: authentication_error)


@dataclass(frozen=True, kw_only=True)
class Recorded(Request):
    """One request the client sent."""

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


class StandIn(ScriptedServer[Turn, Recorded]):
    """The running server: its URL, the requests it recorded, and its scripts."""

    def __init__(self, script: Script | Sequence[Turn]) -> None:
        super().__init__(script, text_turn=Turn, handler=_handler(self), server_class=_Server)
        self.url = f"http://127.0.0.1:{self.port}"

    def conversation(self) -> list[Recorded]:
        """The main-loop requests, in the order they arrived."""
        return [r for r in self.recorded() if r.is_conversation]


class _Server(ThreadingHTTPServer):
    """The HTTP server, quiet about a client that left before its answer (a stopped child)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def run_stand_in(script: Script | Sequence[Turn]) -> AbstractContextManager[StandIn]:
    """Serve ``script`` on a free loopback port for the length of the block."""
    return serving(StandIn(script))


_NOT_FOUND = {"type": "error", "error": {"type": "not_found_error"}}


def _handler(owner: StandIn) -> type[JsonHandler]:
    class Handler(JsonHandler):
        def do_GET(self) -> None:
            self.send_json(404, _NOT_FOUND)

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            raw, body = self.read_body()
            recorded = self.request_as(Recorded, body)
            if recorded.path.endswith("/count_tokens"):
                owner.record(recorded)
                self.send_json(200, {"input_tokens": max(1, len(raw) // 4)})
                return
            if not recorded.path.startswith("/v1/messages"):
                owner.record(recorded)
                self.send_json(404, _NOT_FOUND)
                return
            turn = owner.reply_for(recorded, body, conversation=recorded.is_conversation)
            if turn.error is not None:
                kind = "authentication_error" if turn.error == 401 else "api_error"
                self.send_json(
                    turn.error, {"type": "error", "error": {"type": kind, "message": "refused"}}
                )
                return
            message = _message(owner, body, turn)
            if body.get("stream"):
                self.send_events(b"".join(sse(name, data) for name, data in _events(message)))
            else:
                self.send_json(200, message)

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
    return content_texts(content, _block_texts)


def _block_texts(block: dict[str, Any]) -> list[str]:
    """A text block's text; a tool result's texts, its content read as a message's."""
    if block.get("type") == "text":
        return [block.get("text", "")]
    if block.get("type") == "tool_result":
        return _content_texts(block.get("content"))
    return []
