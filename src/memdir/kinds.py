"""The closed vocabularies of a memory: its type, its scope, its file's shape.

They live apart from :mod:`memdir.model` (which re-exports them) because the
hooks that run on every tool call need them and nothing else of it: the
model's dataclasses cost those processes more than their whole answer.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["FrontmatterStyle", "MemoryType", "Scope", "memory_ref"]


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


def memory_ref(scope: str, file: str) -> str:
    """A memory as named from the memory directory: team files as ``team/<file>``.

    ``scope`` is a :class:`Scope` or its plain name (the per-call hooks pass names).
    """
    return f"team/{file}" if scope == Scope.TEAM else file


class FrontmatterStyle(StrEnum):
    """The shape of a memory file's frontmatter.

    ``memdir``: ``name``, ``description``, ``type`` and memdir's own fields at
    the top level. ``claude``: what Claude Code's current memory prompt
    prescribes and its own writer produces: ``name`` a kebab-case slug,
    ``description``, and every other field (``type`` first, ``modified`` last)
    nested under ``metadata:``.
    """

    MEMDIR = "memdir"
    CLAUDE = "claude"
