"""Conversation transcripts read as a stream of turns (:mod:`memdir.transcripts.turns`).

Two formats are read, told apart line by line so a file is never loaded whole:

- **Claude Code JSONL** (``~/.claude/projects/<slug>/<session>.jsonl``): one event
  per line (``user``, ``assistant``, ``system``, ``summary``, snapshots, ...).
  An assistant reply streamed as several lines sharing one ``message.id`` becomes
  one turn, even when tool results arrive between its lines (the results are
  emitted right after it). Tool results carried by ``user`` lines become
  ``tool`` turns; ``isMeta`` lines and slash-command wrappers are dropped;
  a ``compact_boundary`` line becomes a marker turn.
- **Plain JSONL**: ``{"role", "content", "timestamp"}`` per line, content a
  string or a list of blocks in the Messages API shape; an optional
  ``speaker`` (or the chat API's ``name``) names who spoke in a conversation
  of more than two parties.

Reading never fails on content: a line that is not a JSON object, or a
conversation line without a usable message, is skipped and counted
(``Transcript.skipped_lines``); event types memdir does not know are ignored
silently, because the writer adds new ones often. Only a file that cannot be
opened or read raises (:class:`TranscriptError`).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdir.errors import TranscriptError
from memdir.transcripts.turns import Role, ToolCall, Transcript, TranscriptFormat, Turn

__all__ = ["MAX_TOOL_RESULT_CHARS", "iter_turns", "read_transcript"]

# A tool result (a whole file read, a build log) can be megabytes; the turn
# text keeps enough to search and summarise, and says what it dropped.
MAX_TOOL_RESULT_CHARS = 2_000
MAX_TOOL_INPUT_CHARS = 200

# User lines whose text is only one of these wrappers are slash-command
# plumbing written by the coding agent, not something the user said.
_COMMAND_WRAPPERS = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
)
_CLAUDE_EVENT_KEYS = ("message", "sessionId", "uuid", "parentUuid", "isSidechain")


def read_transcript(path: str | Path) -> Transcript:
    """Read a transcript file (format auto-detected) into a :class:`Transcript`.

    Raises :class:`TranscriptError` when the file cannot be read; malformed
    lines are counted in ``skipped_lines``, never raised.
    """
    reader = _Reader(Path(path))
    turns = tuple(reader)
    return Transcript(
        path=reader.path,
        format=reader.format or "claude-code",
        turns=turns,
        skipped_lines=reader.skipped,
        session_id=reader.session_id,
    )


def iter_turns(path: str | Path) -> Iterator[Turn]:
    """Yield the turns of a transcript one by one, reading the file as a stream."""
    return iter(_Reader(Path(path)))


# --- the streaming reader -------------------------------------------------------


class _Reader:
    """Reads one file, line by line, keeping the counters a Transcript reports.

    Merging needs one turn of look-ahead: an assistant turn is held until a
    line that cannot extend it arrives; tool turns that answer it meanwhile are
    held with it and released after it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.format: TranscriptFormat | None = None
        self.skipped = 0
        self.session_id: str | None = None
        self._count = 0
        self._held: _Pending | None = None
        self._tool_names: dict[str, str] = {}

    def __iter__(self) -> Iterator[Turn]:
        for raw in self._lines():
            yield from self._feed(raw)
        yield from self._flush()

    def _lines(self) -> Iterator[bytes]:
        try:
            with self.path.open("rb") as stream:
                yield from stream
        except OSError as exc:
            raise TranscriptError(
                f"cannot read transcript: {exc.strerror or exc}",
                path=self.path,
                hint="check that the file exists and is readable",
            ) from exc

    def _feed(self, raw: bytes) -> Iterator[Turn]:
        if not raw.strip():
            return
        event = _decode(raw)
        if event is None:
            self.skipped += 1
            return
        kind = _classify(event)
        if kind is None:
            self.skipped += 1
            return
        if self.format is None:
            self.format = kind
        if kind == "plain":
            pieces = _plain_pieces(event)
        else:
            self._note_session(event)
            pieces = _claude_pieces(event)
        if pieces is None:
            self.skipped += 1
            return
        for piece in pieces:
            yield from self._accept(piece)

    def _note_session(self, event: dict[str, Any]) -> None:
        session = event.get("sessionId")
        if self.session_id is None and isinstance(session, str) and session:
            self.session_id = session

    def _accept(self, piece: _Piece) -> Iterator[Turn]:
        held = self._held
        if held is not None and held.absorbs(piece):
            if piece.role == "assistant":
                held.merge(piece)
            else:
                held.followers.append(piece)
            return
        yield from self._flush()
        if piece.role == "assistant":
            self._held = _Pending(piece)
        else:
            yield self._emit(piece)

    def _flush(self) -> Iterator[Turn]:
        held, self._held = self._held, None
        if held is None:
            return
        for call in held.head.tool_calls:
            self._tool_names[call.id] = call.name
        yield from self._emit_all([held.head, *held.followers])

    def _emit_all(self, pieces: list[_Piece]) -> Iterator[Turn]:
        for piece in pieces:
            # A reply that was only thinking says nothing memory can use.
            if piece.role == "assistant" and not piece.text and not piece.tool_calls:
                continue
            yield self._emit(piece)

    def _emit(self, piece: _Piece) -> Turn:
        text = piece.text if piece.role != "tool" else self._tool_text(piece)
        turn = Turn(
            index=self._count,
            uuid=piece.uuids[-1] if piece.uuids else None,
            parent_uuid=piece.parent_uuid,
            role=piece.role,
            text=text,
            timestamp=piece.timestamp,
            session_id=piece.session_id,
            is_sidechain=piece.is_sidechain,
            tool_calls=tuple(piece.tool_calls),
            tool_results=tuple(result.tool_use_id for result in piece.results),
            is_compact_boundary=piece.is_compact_boundary,
            is_compact_summary=piece.is_compact_summary,
            uuids=tuple(piece.uuids),
            speaker=piece.speaker,
        )
        self._count += 1
        return turn

    def _tool_text(self, piece: _Piece) -> str:
        rendered = [
            _render_result(result, self._tool_names.get(result.tool_use_id))
            for result in piece.results
        ]
        if piece.text:
            rendered.append(piece.text)
        return "\n".join(rendered)


@dataclass(kw_only=True)
class _Result:
    tool_use_id: str
    text: str
    is_error: bool = False


@dataclass(kw_only=True)
class _Piece:
    """One source line's contribution, before merging and numbering."""

    role: Role
    text: str
    uuids: list[str] = field(default_factory=list)
    parent_uuid: str | None = None
    message_id: str | None = None
    timestamp: dt.datetime | None = None
    session_id: str | None = None
    is_sidechain: bool = False
    tool_calls: list[ToolCall] = field(default_factory=list)
    results: list[_Result] = field(default_factory=list)
    is_compact_boundary: bool = False
    is_compact_summary: bool = False
    speaker: str | None = None


class _Pending:
    """An assistant turn still open to more lines of the same message."""

    def __init__(self, head: _Piece) -> None:
        self.head = head
        self.followers: list[_Piece] = []

    def absorbs(self, piece: _Piece) -> bool:
        head = self.head
        if piece.is_sidechain != head.is_sidechain:
            return False
        if piece.role == "assistant":
            return head.message_id is not None and piece.message_id == head.message_id
        # Tool results of this message's calls may land between its lines.
        own = {call.id for call in head.tool_calls}
        return (
            piece.role == "tool"
            and not piece.text
            and bool(piece.results)
            and all(result.tool_use_id in own for result in piece.results)
        )

    def merge(self, piece: _Piece) -> None:
        head = self.head
        head.text = "\n\n".join(part for part in (head.text, piece.text) if part)
        head.uuids.extend(piece.uuids)
        head.tool_calls.extend(piece.tool_calls)
        head.timestamp = head.timestamp or piece.timestamp


# --- line decoding --------------------------------------------------------------


def _decode(raw: bytes) -> dict[str, Any] | None:
    """The line's JSON object, or ``None`` when it is not one."""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _classify(event: dict[str, Any]) -> TranscriptFormat | None:
    """Which format a line belongs to, or ``None`` when it fits neither."""
    if any(key in event for key in _CLAUDE_EVENT_KEYS):
        return "claude-code"
    if isinstance(event.get("type"), str) and "role" not in event:
        return "claude-code"  # summary, snapshot and other bookkeeping events
    if isinstance(event.get("role"), str):
        return "plain"
    return None


def _claude_pieces(event: dict[str, Any]) -> list[_Piece] | None:
    """Turn pieces from one Claude Code event; ``[]`` to ignore, ``None`` if broken."""
    kind = event.get("type")
    if kind == "system":
        if event.get("subtype") != "compact_boundary":
            return []
        return [_boundary_piece(event)]
    if kind not in ("user", "assistant"):
        return []
    message = event.get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if not isinstance(content, str | list):
        return None
    if event.get("isMeta") is True:
        return []
    piece = _message_piece(kind, content)
    if piece is None:
        return []
    _stamp(piece, event)
    message_id = message.get("id")
    piece.message_id = message_id if isinstance(message_id, str) else None
    if event.get("isCompactSummary") is True:
        piece.is_compact_summary = True
    return [piece]


def _boundary_piece(event: dict[str, Any]) -> _Piece:
    content = event.get("content")
    piece = _Piece(
        role="user",
        text=content if isinstance(content, str) else "Conversation compacted",
        is_compact_boundary=True,
    )
    _stamp(piece, event)
    if piece.parent_uuid is None:
        logical = event.get("logicalParentUuid")
        piece.parent_uuid = logical if isinstance(logical, str) else None
    return piece


def _plain_pieces(event: dict[str, Any]) -> list[_Piece] | None:
    role = event.get("role")
    content = event.get("content")
    if content is None and role == "assistant":
        content = ""  # the OpenAI chat shape: tool calls only, content null
    if role not in ("user", "assistant", "tool") or not isinstance(content, str | list):
        return None if role not in ("system", "developer") else []
    piece = _message_piece("assistant" if role == "assistant" else "user", content)
    if piece is None:
        return []
    if role == "assistant":
        for call in _openai_calls(event.get("tool_calls")):
            piece.tool_calls.append(call)
            piece.text = "\n\n".join(part for part in (piece.text, _render_call(call)) if part)
    elif role == "tool" and not piece.results:
        call_id = event.get("tool_call_id")
        if isinstance(call_id, str):
            piece.results = [_Result(tool_use_id=call_id, text=piece.text)]
            piece.text = ""
        piece.role = "tool"
    piece.timestamp = _parse_time(event.get("timestamp"))
    speaker = event.get("speaker", event.get("name"))
    piece.speaker = (speaker.strip() or None) if isinstance(speaker, str) else None
    return [piece]


def _openai_calls(value: Any) -> Iterator[ToolCall]:
    """Tool calls in the OpenAI chat shape: ``{id, function: {name, arguments}}``."""
    for item in value if isinstance(value, list) else []:
        function = item.get("function") if isinstance(item, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            continue
        arguments = function.get("arguments")
        if not isinstance(arguments, dict):
            arguments = _decode(str(arguments or "{}").encode()) or {}
        call_id = item.get("id")
        yield ToolCall(
            id=call_id if isinstance(call_id, str) else "",
            name=function["name"],
            input=arguments,
        )


def _stamp(piece: _Piece, event: dict[str, Any]) -> None:
    """Copy the identity fields every Claude Code event carries."""
    uuid = event.get("uuid")
    if isinstance(uuid, str) and uuid:
        piece.uuids = [uuid]
    parent = event.get("parentUuid")
    piece.parent_uuid = parent if isinstance(parent, str) else None
    session = event.get("sessionId")
    piece.session_id = session if isinstance(session, str) else None
    piece.is_sidechain = event.get("isSidechain") is True
    piece.timestamp = _parse_time(event.get("timestamp"))


def _message_piece(kind: str, content: str | list[Any]) -> _Piece | None:
    """A piece from message content, or ``None`` when nothing in it is conversation."""
    if isinstance(content, str):
        blocks: list[Any] = [{"type": "text", "text": content}]
    else:
        blocks = content
    texts: list[str] = []
    calls: list[ToolCall] = []
    results: list[_Result] = []
    for block in blocks:
        _read_block(block, texts, calls, results)
    text = "\n\n".join(part for part in texts if part.strip() and not _is_reminder(part))
    if kind == "user" and not results and _is_command_wrapper(text):
        return None
    # An assistant line holding only thinking still carries the message id and
    # uuid that later lines of the same reply merge into.
    if kind != "assistant" and not text and not results:
        return None
    role: Role = "assistant" if kind == "assistant" else ("tool" if results else "user")
    return _Piece(role=role, text=text, tool_calls=calls, results=results)


def _read_block(
    block: Any, texts: list[str], calls: list[ToolCall], results: list[_Result]
) -> None:
    if isinstance(block, str):
        texts.append(block)
        return
    if not isinstance(block, dict):
        return
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        texts.append(block["text"])
    elif kind == "tool_use":
        call = _tool_call(block)
        if call is not None:
            calls.append(call)
            texts.append(_render_call(call))
    elif kind == "tool_result":
        tool_use_id = block.get("tool_use_id")
        results.append(
            _Result(
                tool_use_id=tool_use_id if isinstance(tool_use_id, str) else "",
                text=_result_text(block.get("content")),
                is_error=block.get("is_error") is True,
            )
        )
    elif kind in ("image", "document"):
        texts.append(f"[{kind}]")


def _tool_call(block: dict[str, Any]) -> ToolCall | None:
    name = block.get("name")
    if not isinstance(name, str) or not name:
        return None
    call_id = block.get("id")
    arguments = block.get("input")
    return ToolCall(
        id=call_id if isinstance(call_id, str) else "",
        name=name,
        input=arguments if isinstance(arguments, dict) else {},
    )


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif isinstance(block, dict) and block.get("type") in ("image", "document"):
                parts.append(f"[{block['type']}]")
        return "\n".join(parts)
    return ""


def _is_command_wrapper(text: str) -> bool:
    return text.lstrip().startswith(_COMMAND_WRAPPERS)


def _is_reminder(text: str) -> bool:
    """A block the coding agent injected into the user's message, not their words."""
    stripped = text.strip()
    return stripped.startswith("<system-reminder>") and stripped.endswith("</system-reminder>")


def _render_call(call: ToolCall) -> str:
    arguments = json.dumps(call.input, ensure_ascii=False, separators=(",", ":"), default=str)
    return f"[tool_use {call.name}: {_clip(arguments, MAX_TOOL_INPUT_CHARS)}]"


def _render_result(result: _Result, name: str | None) -> str:
    label = "tool_result" if name is None else f"tool_result {name}"
    if result.is_error:
        label += " error"
    body = _clip(result.text.strip("\r\n"), MAX_TOOL_RESULT_CHARS)
    return f"[{label}]" + (f"\n{body}" if body else "")


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters]"


def _parse_time(value: Any) -> dt.datetime | None:
    """An aware UTC datetime from ISO text or epoch seconds; ``None`` when unusable."""
    try:
        if isinstance(value, str):
            parsed = dt.datetime.fromisoformat(value.strip())
        elif isinstance(value, int | float) and not isinstance(value, bool):
            parsed = dt.datetime.fromtimestamp(value, tz=dt.UTC)
        else:
            return None
    except (ValueError, OverflowError, OSError):
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    try:
        return parsed.astimezone(dt.UTC)
    except OverflowError:
        return None
