"""A local stand-in for the OpenAI Responses API, for driving the real Codex CLI.

Codex speaks one wire API to a model provider: ``POST {base_url}/responses`` with a
JSON body (``model``, ``input`` items, ``tools``, ``stream: true``) and reads the
answer as server-sent events (``response.created``, ``response.output_item.added`` /
``.done`` per output item, text deltas, ``response.completed`` with the usage). This
server listens on 127.0.0.1, records every request (path, headers, JSON body), and
answers each with the next scripted :class:`Turn`: a text message, or a function call
Codex then runs (its hooks included) and reports back as a ``function_call_output``
item in the next request. Requests the script did not foresee get a short text reply,
so a side call never hangs a test. ``GET`` requests (a model list) get an empty list.

A call to an MCP tool names the tool and the namespace Codex offered it in
(``mcp__<server>`` with the server's name, ``-`` written ``_``): :meth:`Turn.mcp`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from stand_in_api import JsonHandler, Request, ScriptedServer, ToolTurn, content_texts, serving, sse

__all__ = [
    "Recorded",
    "StandIn",
    "Turn",
    "request_texts",
    "run_stand_in",
    "tool_names",
    "tool_outputs",
]


@dataclass(frozen=True, kw_only=True)
class Turn(ToolTurn):
    """One scripted model turn: text, or one function call (in ``namespace``, for MCP)."""

    namespace: str | None = None
    freeform: str | None = None  # a custom tool's input text (apply_patch's patch)
    search: str | None = None  # a query for Codex's tool search (its deferred MCP tools)

    @staticmethod
    def shell(command: str) -> Turn:
        """The model runs ``command`` with Codex's shell tool."""
        return Turn(tool="exec_command", tool_input={"cmd": command})

    @staticmethod
    def find_tools(query: str) -> Turn:
        """The model asks Codex's ``tool_search`` for tools (where Codex defers MCP tools)."""
        return Turn(search=query)

    @staticmethod
    def patch(text: str) -> Turn:
        """The model edits files with Codex's ``apply_patch`` tool (a freeform patch)."""
        return Turn(tool="apply_patch", freeform=text)

    @staticmethod
    def mcp(server: str, tool: str, arguments: dict[str, Any] | None = None) -> Turn:
        """The model calls MCP server ``server``'s ``tool``."""
        return Turn(
            tool=tool, tool_input=arguments or {}, namespace="mcp__" + server.replace("-", "_")
        )


@dataclass(frozen=True, kw_only=True)
class Recorded(Request):
    """One request the client sent."""

    @property
    def is_turn(self) -> bool:
        """A request of the conversation: it offers Codex's tools (side calls offer none)."""
        return self.path.endswith("/responses") and bool(self.body.get("tools"))


Script = Callable[[dict[str, Any]], Turn]


class StandIn(ScriptedServer[Turn, Recorded]):
    """The running server: its URL, the requests it recorded, and its script."""

    def __init__(self, script: Script | Sequence[Turn]) -> None:
        super().__init__(script, text_turn=Turn, handler=_handler(self))
        self.url = f"http://127.0.0.1:{self.port}/v1"


def run_stand_in(script: Script | Sequence[Turn]) -> AbstractContextManager[StandIn]:
    """Serve ``script`` on a free loopback port for the length of the block."""
    return serving(StandIn(script))


def _handler(owner: StandIn) -> type[JsonHandler]:
    class Handler(JsonHandler):
        def do_GET(self) -> None:
            owner.record(self.request_as(Recorded, {}))
            self.send_json(200, {"object": "list", "data": [], "models": []})

        def do_POST(self) -> None:
            recorded = self.request_as(Recorded, self.read_body()[1])
            if not recorded.path.endswith("/responses"):
                owner.record(recorded)
                self.send_json(404, {"error": {"message": "not found", "type": "not_found"}})
                return
            turn = owner.reply_for(recorded, recorded.body, conversation=recorded.is_turn)
            self.send_events(b"".join(sse(e["type"], e) for e in _response_events(owner, turn)))

    return Handler


def _item(owner: StandIn, turn: Turn) -> dict[str, Any]:
    if turn.search is not None:
        return {
            "type": "tool_search_call",
            "id": f"ts_{owner.next_id():06d}",
            "call_id": f"call_{owner.next_id():06d}",
            "execution": "client",
            "arguments": {"query": turn.search},
            "status": "completed",
        }
    if turn.tool is None:
        return {
            "type": "message",
            "id": f"msg_{owner.next_id():06d}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": turn.text or "Done.", "annotations": []}],
        }
    if turn.freeform is not None:
        return {
            "type": "custom_tool_call",
            "id": f"ctc_{owner.next_id():06d}",
            "call_id": f"call_{owner.next_id():06d}",
            "name": turn.tool,
            "input": turn.freeform,
            "status": "completed",
        }
    call: dict[str, Any] = {
        "type": "function_call",
        "id": f"fc_{owner.next_id():06d}",
        "call_id": f"call_{owner.next_id():06d}",
        "name": turn.tool,
        "arguments": json.dumps(turn.tool_input),
        "status": "completed",
    }
    if turn.namespace is not None:
        call["namespace"] = turn.namespace
    return call


def _response_events(owner: StandIn, turn: Turn) -> list[dict[str, Any]]:
    response_id = f"resp_{owner.next_id():06d}"
    item = _item(owner, turn)
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": response_id}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
    ]
    if item["type"] == "message":
        text = item["content"][0]["text"]
        events.append(
            {
                "type": "response.output_text.delta",
                "item_id": item["id"],
                "output_index": 0,
                "content_index": 0,
                "delta": text,
            }
        )
    events.append({"type": "response.output_item.done", "output_index": 0, "item": item})
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    }
    events.append({"type": "response.completed", "response": {"id": response_id, "usage": usage}})
    return events


def tool_names(body: dict[str, Any]) -> list[str]:
    """The tools a request offers the model, a namespace's as ``<namespace>.<tool>``."""
    names: list[str] = []
    for tool in body.get("tools", []):
        if not isinstance(tool, dict):
            continue
        name = str(tool.get("name") or tool.get("type"))
        inner = tool.get("tools")
        if isinstance(inner, list):
            names.extend(f"{name}.{t.get('name')}" for t in inner if isinstance(t, dict))
        else:
            names.append(name)
    return names


def _content_texts(content: Any) -> list[str]:
    return content_texts(content, _block_text)


def _block_text(block: dict[str, Any]) -> list[str]:
    text = block.get("text")
    return [text] if isinstance(text, str) else []


_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def tool_outputs(body: dict[str, Any]) -> list[str]:
    """The output of every tool call the request reports back, in order; a tool search's
    is the tools it found, one name a line."""
    outputs: list[str] = []
    for item in body.get("input", []):
        if not isinstance(item, dict):
            continue
        if item.get("type") in _OUTPUTS:
            outputs.append("\n".join(_content_texts(item.get("output"))))
        elif item.get("type") == "tool_search_output":
            outputs.append("\n".join(tool_names({"tools": item.get("tools", [])})))
    return outputs


def request_texts(body: dict[str, Any]) -> list[str]:
    """Every text the model reads in the request: the instructions, then every message's
    text (developer, user and assistant), then the tool outputs."""
    texts = [body["instructions"]] if isinstance(body.get("instructions"), str) else []
    for item in body.get("input", []):
        if isinstance(item, dict) and item.get("type", "message") == "message":
            texts.extend(_content_texts(item.get("content")))
    return texts + tool_outputs(body)
