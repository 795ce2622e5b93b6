"""The two closed vocabularies of a memory: its type and its scope.

They live apart from :mod:`memdir.model` (which re-exports them) because the
hooks that run on every tool call need them and nothing else of it: the
model's dataclasses cost those processes more than their whole answer.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["MemoryType", "Scope"]


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
