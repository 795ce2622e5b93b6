"""Feeding an agent: the owner of a session's background memory work.

An agent loop calls :meth:`MemoryHost.after_turn` with its whole conversation
so far after every model turn. The host decides, cheaply and in the caller's thread, what
is due (a session-notes update by the notes trigger; an extraction after a
final answer) and hands it to that job's :class:`~memdir.agents.runner.SerialRunner`,
which runs it in a named non-daemon thread, one run at a time, coalescing what
arrives mid-run into one trailing run. Nothing here sleeps: :meth:`drain`
waits on the runners' conditions, and :meth:`close` drains and refuses more
work. Failures are logged and kept in the reports, never raised to the agent.

Messages are :class:`~memdir.transcripts.turns.Turn` values or plain dicts
``{"role", "content", "tool_calls"?, "uuid"?}`` (content a string or a list
of Messages-API blocks; tool calls as ``{"id", "name", "input"}`` or in the
OpenAI ``{"id", "function": {"name", "arguments"}}`` shape).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from memdir.agents.extract import ExtractionReport, MemoryExtractor
from memdir.agents.session.notes import NotesUpdate, SessionNotes
from memdir.history.project import ProjectMemory
from memdir.llm.base import Provider
from memdir.transcripts.turns import Role, ToolCall, Turn

__all__ = ["MemoryHost", "Messages", "Scheduled", "as_turns"]

log = logging.getLogger("memdir.agents.host")

Messages = Sequence[Turn | Mapping[str, Any]]


@dataclass(frozen=True, kw_only=True)
class Scheduled:
    """What one :meth:`MemoryHost.after_turn` call started (or coalesced)."""

    session_notes: bool = False
    extraction: bool = False


class MemoryHost:
    """Session notes and memory extraction for one session, run in the background."""

    def __init__(
        self,
        memdir: ProjectMemory,
        provider: Provider,
        session_id: str,
        *,
        session_notes: bool = True,
        extraction: bool = True,
        notes: SessionNotes | None = None,
        extractor: MemoryExtractor | None = None,
    ) -> None:
        self.memdir = memdir
        self.session_id = session_id
        self.notes = notes or SessionNotes.for_session(
            layout=memdir.layout, settings=memdir.settings, provider=provider, session_id=session_id
        )
        self.extractor = extractor or MemoryExtractor(memdir, provider, session_id)
        self.session_notes_enabled = session_notes
        self.extraction_enabled = extraction

    def after_turn(self, messages: Messages) -> Scheduled:
        """Look at the conversation after a model turn; start what is due in the background."""
        turns = as_turns(messages)
        notes = self.session_notes_enabled and self.notes.should_update(turns)
        if notes:
            self.notes.submit(turns)
        extract = self.extraction_enabled and self.extractor.should_run(turns)
        if extract:
            self.extractor.submit(turns)
        return Scheduled(session_notes=notes, extraction=extract)

    @property
    def notes_updates(self) -> list[NotesUpdate]:
        """Reports of the notes updates run so far (background or direct), oldest first."""
        return list(self.notes.history)

    @property
    def extractions(self) -> list[ExtractionReport]:
        """Reports of the extractions run so far (background or direct), oldest first."""
        return list(self.extractor.history)

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until no background work is running or pending; False on timeout."""
        return self.notes.drain(timeout) and self.extractor.drain(timeout)

    def close(self, timeout: float | None = None) -> bool:
        """Refuse new work and drain what is running; False on timeout."""
        closed_notes = self.notes.runner.close(timeout)
        closed_extract = self.extractor.runner.close(timeout)
        return closed_notes and closed_extract

    def __enter__(self) -> MemoryHost:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if not self.close(timeout=None):
            log.warning("background memory work was still running at exit")


# --- message normalisation -------------------------------------------------------------


def as_turns(messages: Messages) -> list[Turn]:
    """Turns from turns or plain dicts; dicts are numbered by their position."""
    return [
        message if isinstance(message, Turn) else _dict_turn(index, message)
        for index, message in enumerate(messages)
    ]


def _dict_turn(index: int, message: Mapping[str, Any]) -> Turn:
    given = message.get("role")
    texts, calls, results = _content(message.get("content"))
    calls.extend(_calls(message.get("tool_calls")))
    if given == "tool" and isinstance(message.get("tool_call_id"), str):
        results.append(message["tool_call_id"])
    role: Role = "assistant" if given == "assistant" else "user"
    if given == "tool" or (results and role == "user"):
        role = "tool"
    texts.extend(_render_call(call) for call in calls)
    uuid = message.get("uuid") or message.get("id")
    return Turn(
        index=index,
        uuid=uuid if isinstance(uuid, str) and uuid else None,
        parent_uuid=None,
        role=role,
        text="\n\n".join(t for t in texts if t),
        tool_calls=tuple(calls) if role == "assistant" else (),
        tool_results=tuple(results),
    )


def _content(content: Any) -> tuple[list[str], list[ToolCall], list[str]]:
    if isinstance(content, str):
        return [content], [], []
    texts: list[str] = []
    calls: list[ToolCall] = []
    results: list[str] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "tool_use":
            calls.extend(_calls([block]))
        elif kind == "tool_result":
            results.append(str(block.get("tool_use_id", "")))
            texts.append(_result_text(block.get("content")))
    return texts, calls, results


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", "")) for b in content if isinstance(b, Mapping) and "text" in b
        )
    return ""


def _calls(value: Any) -> list[ToolCall]:
    calls: list[ToolCall] = []
    for item in value if isinstance(value, list) else []:
        if not isinstance(item, Mapping):
            continue
        function = item.get("function")
        source = function if isinstance(function, Mapping) else item
        name = source.get("name")
        if not isinstance(name, str) or not name:
            continue
        raw = source.get("input", source.get("arguments"))
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except ValueError:
                raw = {}
        call_id = item.get("id")
        calls.append(
            ToolCall(
                id=call_id if isinstance(call_id, str) else "",
                name=name,
                input=dict(raw) if isinstance(raw, Mapping) else {},
            )
        )
    return calls


def _render_call(call: ToolCall) -> str:
    arguments = json.dumps(call.input, ensure_ascii=False, separators=(",", ":"), default=str)
    return f"[tool_use {call.name}: {arguments[:200]}]"
