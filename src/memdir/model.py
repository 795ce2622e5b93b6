"""Frozen values: memory types, scopes, a memory, and a memory as stored.

A :class:`Memory` is what a file says (frontmatter + body). A
:class:`MemoryRecord` is a memory as found on disk: which scope, which file,
the content hash a compare-and-swap writer passes back, and the mtime.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["KNOWN_FIELDS", "Memory", "MemoryRecord", "MemoryType", "Scope", "normalize_body"]


class MemoryType(StrEnum):
    """The four kinds of memory."""

    USER = "user"
    FEEDBACK = "feedback"
    PROJECT = "project"
    REFERENCE = "reference"


class Scope(StrEnum):
    """Where a memory lives: only for this user, or shared with the team."""

    PRIVATE = "private"
    TEAM = "team"


# Frontmatter keys memdir understands, in the order it writes them.
KNOWN_FIELDS: tuple[str, ...] = (
    "name",
    "description",
    "type",
    "created",
    "updated",
    "verified",
    "source",
    "anchors",
    "supersedes",
    "review_after",
)


@dataclass(frozen=True, kw_only=True)
class Memory:
    """One memory: its frontmatter fields and its markdown body.

    ``type`` is ``None`` for legacy files that lack one (read, reported by
    doctor). ``extra`` holds unknown frontmatter keys in file order; they are
    written back unchanged.
    """

    name: str
    description: str
    type: MemoryType | None
    body: str = ""
    created: dt.date | None = None
    updated: dt.date | None = None
    verified: dt.date | None = None
    source: str | None = None
    anchors: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()
    review_after: dt.date | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=True, hash=False)

    def __post_init__(self) -> None:
        # Canonical forms, so that a memory read back from its file is equal to
        # the one written: one-line name and description, body without leading
        # blank lines and with exactly one final newline.
        object.__setattr__(self, "name", " ".join(self.name.split()))
        object.__setattr__(self, "description", " ".join(self.description.split()))
        object.__setattr__(self, "body", normalize_body(self.body))
        object.__setattr__(self, "anchors", tuple(self.anchors))
        object.__setattr__(self, "supersedes", tuple(self.supersedes))

    def __hash__(self) -> int:
        return hash((self.name, self.description, self.type, self.body))


def normalize_body(body: str) -> str:
    """A body without leading blank lines, ending in exactly one newline (or empty)."""
    body = body.replace("\r\n", "\n").lstrip("\n").rstrip("\n")
    return body + "\n" if body.strip() else ""


@dataclass(frozen=True, kw_only=True)
class MemoryRecord:
    """A memory as stored: scope, file name relative to the scope root, version."""

    scope: Scope
    file: str
    memory: Memory
    version: str
    mtime: float

    @property
    def name(self) -> str:
        return self.memory.name
