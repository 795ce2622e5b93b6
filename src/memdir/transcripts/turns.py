"""A conversation as memory sees it: turns, their tool calls, and counts over them.

:class:`Turn` is one message reduced to what memory needs (its text, role,
time, tool calls, and the ids that let a cursor find it again);
:class:`Transcript` is a whole file of them. The counts (tool calls since a
cursor, whether the last reply asked for tools, a rough token count) are what
session memory's thresholds read. :mod:`memdir.transcripts.reader` makes
these from an agent's log.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "Role",
    "ToolCall",
    "Transcript",
    "TranscriptFormat",
    "Turn",
    "count_tool_calls_since",
    "estimate_tokens",
    "last_assistant_has_tool_calls",
]

Role = Literal["user", "assistant", "tool"]
TranscriptFormat = Literal["claude-code", "plain"]


@dataclass(frozen=True, kw_only=True)
class ToolCall:
    """One tool invocation requested by an assistant turn."""

    id: str
    name: str
    input: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Turn:
    """One message of a conversation, reduced to what memory needs.

    ``uuid`` is the last source line's id (what the next turn names as parent);
    ``uuids`` lists every source line merged into the turn, so a cursor saved
    on any of them is still found. ``tool_results`` holds the tool-use ids a
    ``tool`` turn answers.
    """

    index: int
    uuid: str | None
    parent_uuid: str | None
    role: Role
    text: str
    timestamp: dt.datetime | None = None
    session_id: str | None = None
    is_sidechain: bool = False
    tool_calls: tuple[ToolCall, ...] = ()
    tool_results: tuple[str, ...] = ()
    is_compact_boundary: bool = False
    is_compact_summary: bool = False
    uuids: tuple[str, ...] = ()
    speaker: str | None = None


@dataclass(frozen=True, kw_only=True)
class Transcript:
    """A whole transcript: its turns and how many lines were unusable."""

    path: Path
    format: TranscriptFormat
    turns: tuple[Turn, ...]
    skipped_lines: int = 0
    session_id: str | None = None


# --- helpers for session memory -------------------------------------------------


def count_tool_calls_since(turns: Sequence[Turn], since: str | int | None) -> int:
    """Count tool calls in main-thread assistant turns after a cursor.

    ``since`` is a turn's uuid (any merged line's uuid matches), a turn index,
    or ``None`` to count them all. A uuid not found counts nothing, as the
    original design does: an unknown cursor is never taken as permission.
    """
    start = _cursor_position(turns, since)
    if start is None:
        return 0
    return sum(
        len(turn.tool_calls)
        for turn in turns[start:]
        if turn.role == "assistant" and not turn.is_sidechain
    )


def last_assistant_has_tool_calls(turns: Sequence[Turn]) -> bool:
    """Whether the last main-thread assistant turn asked for tools."""
    for turn in reversed(turns):
        if turn.role == "assistant" and not turn.is_sidechain:
            return bool(turn.tool_calls)
    return False


def estimate_tokens(text: str) -> int:
    """A rough token count: one token per four characters, rounded up."""
    return (len(text) + 3) // 4


def _cursor_position(turns: Sequence[Turn], since: str | int | None) -> int | None:
    """The position just after the cursor turn, or ``None`` when it is unknown."""
    if since is None:
        return 0
    for position, turn in enumerate(turns):
        if isinstance(since, int) and not isinstance(since, bool):
            if turn.index == since:
                return position + 1
        elif since == turn.uuid or since in turn.uuids:
            return position + 1
    return None
