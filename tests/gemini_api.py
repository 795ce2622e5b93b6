"""A local stand-in for the Gemini API, for driving the real Gemini CLI.

Gemini CLI, signed in with an API key, speaks the Gemini API's REST form to
``GOOGLE_GEMINI_BASE_URL`` (a loopback address may be plain HTTP):
``POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`` for the
conversation and ``...:generateContent`` for its side calls (routing, checks), each
with a JSON body of ``contents`` (turns of ``parts``: ``text``, ``functionCall``,
``functionResponse``), ``systemInstruction`` and ``tools`` (``functionDeclarations``).
A streamed answer is server-sent events, each ``data:`` line one
``GenerateContentResponse`` (``candidates[0].content.parts``, a ``finishReason`` in
the last, ``usageMetadata``).

This server listens on 127.0.0.1, records every request (path, headers, JSON body)
and answers each streamed request of the conversation (one that offers tools) with
the next scripted :class:`Turn`: a text, or a function call Gemini then runs (its
hooks included) and reports back as a ``functionResponse`` part of the next request.
Side calls, and requests the script did not foresee, get a short text, so none of
them hangs a test. ``countTokens`` gets a count; any ``GET`` an empty answer.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from stand_in_api import JsonHandler, Request, ScriptedServer, serving

__all__ = [
    "Recorded",
    "StandIn",
    "Turn",
    "function_responses",
    "request_texts",
    "run_stand_in",
    "tool_names",
]


@dataclass(frozen=True, kw_only=True)
class Turn:
    """One scripted model turn: text, or one function call."""

    text: str = ""
    tool: str | None = None
    args: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def shell(command: str) -> Turn:
        """The model runs ``command`` with Gemini's shell tool."""
        return Turn(tool="run_shell_command", args={"command": command})

    @staticmethod
    def write(path: str, content: str) -> Turn:
        """The model writes a file with Gemini's ``write_file`` tool."""
        return Turn(tool="write_file", args={"file_path": path, "content": content})

    @staticmethod
    def mcp(server: str, tool: str, arguments: dict[str, Any] | None = None) -> Turn:
        """The model calls MCP server ``server``'s ``tool`` (Gemini names it
        ``mcp_<server>_<tool>``)."""
        return Turn(tool=f"mcp_{server}_{tool}", args=arguments or {})


@dataclass(frozen=True, kw_only=True)
class Recorded(Request):
    """One request the client sent."""

    received: float = field(default_factory=time.monotonic)  # when it arrived

    @property
    def is_turn(self) -> bool:
        """A request of the conversation: streamed, offering Gemini's tools."""
        return ":streamGenerateContent" in self.path and bool(tool_names(self.body))


Script = Callable[[dict[str, Any]], Turn]


class StandIn(ScriptedServer[Turn, Recorded]):
    """The running server: its URL, the requests it recorded, and its script."""

    def __init__(self, script: Script | Sequence[Turn]) -> None:
        super().__init__(script, text_turn=Turn, handler=_handler(self))
        self.url = f"http://127.0.0.1:{self.port}"


def run_stand_in(script: Script | Sequence[Turn]) -> AbstractContextManager[StandIn]:
    """Serve ``script`` on a free loopback port for the length of the block."""
    return serving(StandIn(script))


_USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


def _handler(owner: StandIn) -> type[JsonHandler]:
    class Handler(JsonHandler):
        def do_GET(self) -> None:
            owner.record(self.request_as(Recorded, {}))
            self.send_json(200, {})

        def do_POST(self) -> None:
            recorded = self.request_as(Recorded, self.read_body()[1])
            if recorded.path.endswith(":countTokens"):
                owner.record(recorded)
                self.send_json(200, {"totalTokens": 10})
                return
            if not recorded.path.endswith(("GenerateContent", ":generateContent")):
                owner.record(recorded)
                self.send_json(404, {"error": {"code": 404, "message": "not found"}})
                return
            turn = owner.reply_for(recorded, recorded.body, conversation=recorded.is_turn)
            answer = _response(turn)
            if ":streamGenerateContent" in recorded.path:
                self.send_events(f"data: {json.dumps(answer)}\r\n\r\n".encode())
            else:
                self.send_json(200, answer)

    return Handler


def _response(turn: Turn) -> dict[str, Any]:
    if turn.tool is None:
        part: dict[str, Any] = {"text": turn.text or "Done."}
    else:
        part = {"functionCall": {"name": turn.tool, "args": turn.args}}
    candidate = {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
    return {"candidates": [candidate], "usageMetadata": _USAGE, "modelVersion": "stand-in"}


def tool_names(body: dict[str, Any]) -> list[str]:
    """The functions a request offers the model."""
    names: list[str] = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        for declaration in tool.get("functionDeclarations") or []:
            if isinstance(declaration, dict) and isinstance(declaration.get("name"), str):
                names.append(declaration["name"])
    return names


def _parts(body: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for content in body.get("contents") or []:
        if isinstance(content, dict):
            yield from (p for p in content.get("parts") or [] if isinstance(p, dict))


def function_responses(body: dict[str, Any]) -> list[str]:
    """What each function call in the request's history returned, in order, as text."""
    outputs: list[str] = []
    for part in _parts(body):
        answer = part.get("functionResponse")
        if isinstance(answer, dict):
            response = answer.get("response")
            outputs.append(json.dumps(response, ensure_ascii=False))
    return outputs


def request_texts(body: dict[str, Any]) -> list[str]:
    """Every text the model reads in the request: the system instruction, each turn's
    text, then the function responses."""
    texts: list[str] = []
    system = body.get("systemInstruction")
    if isinstance(system, dict):
        texts += [p["text"] for p in system.get("parts") or [] if isinstance(p.get("text"), str)]
    elif isinstance(system, str):
        texts.append(system)
    texts += [p["text"] for p in _parts(body) if isinstance(p.get("text"), str)]
    return texts + function_responses(body)
