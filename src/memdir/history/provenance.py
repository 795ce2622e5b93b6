"""Provenance: who or what is changing memory right now.

Every change the store applies is recorded in the history with where it came
from: the route (``cli``, ``api``, ``mcp``, ``memory-tool``, ``extraction``,
``consolidation``, ``hook``, ``sync``, ``hand-edit``, ``ui``), the MCP client's name,
the session id and the transcript turns it rests on when known, and for team
memory the user and host. The store's write methods do not take these as
arguments: the entry points that know them (the CLI, the MCP tools, the
memory tool, the extraction and consolidation runs, team sync) wrap their
work in :func:`provenance`, a context variable the store reads when it
records a version. Nested contexts inherit what the outer one set, so a hook
that names the session and transcript, around an extraction that names the
route, records both. Outside any context the route is ``api``.

Trigger: a context variable rather than a parameter on every write method.
Why: a change reaches the store through a dozen call paths (the facade, the
tools of three agents, the memory tool, sync); threading five fields through
each would touch them all and still miss the ones added later. Outcome: one
``with provenance(route=...)`` per entry point; a thread started inside it
does not inherit it (Python's threads start with an empty context), so a
background runner sets its own.
"""

from __future__ import annotations

import contextlib
import contextvars
import getpass
import socket
from collections.abc import Iterator
from functools import cache

from memdir.utils.records import record

__all__ = ["ROUTES", "Provenance", "current", "local_identity", "provenance"]

ROUTES = (
    "api",
    "cli",
    "mcp",
    "memory-tool",
    "extraction",
    "consolidation",
    "hook",
    "sync",
    "hand-edit",
    "ui",
)
"""The routes a change can come by (``ui``: a person's change on ``memdir ui``'s page)."""


@record
class Provenance:
    """Where a change comes from; ``action`` overrides the store's own name for it."""

    route: str = "api"
    client: str | None = None  # the MCP client's name from its initialize request
    session: str | None = None
    turns: str | None = None  # transcript turn ids (space-separated) the change rests on
    transcript: str | None = None  # the transcript file those turns are in
    user: str | None = None
    host: str | None = None
    action: str | None = None  # restore, undo, sync...: else the store names it
    approved: str | None = None  # who approved this agent's change (review): it applies
    hold: str | None = None  # why every agent change in this context waits for review


_current: contextvars.ContextVar[Provenance | None] = contextvars.ContextVar(
    "memdir_provenance", default=None
)
_NONE = Provenance()
_FIELDS = (
    "route",
    "client",
    "session",
    "turns",
    "transcript",
    "user",
    "host",
    "action",
    "approved",
    "hold",
)


def current() -> Provenance:
    """The provenance of the change being made now."""
    return _current.get() or _NONE


def _merged(fields: dict[str, str | None]) -> Provenance:
    now = current()
    values = {key: getattr(now, key) for key in _FIELDS}
    values.update({key: value for key, value in fields.items() if value is not None})
    return Provenance(**values)


@contextlib.contextmanager
def provenance(**fields: str | None) -> Iterator[Provenance]:
    """Within the block, changes carry these fields (the others as the outer context set).

    A field passed as ``None`` keeps the outer value.
    """
    merged = _merged(fields)
    token = _current.set(merged)
    try:
        yield merged
    finally:
        _current.reset(token)


@cache
def local_identity() -> tuple[str | None, str | None]:
    """This machine's user and host, recorded on team memory's changes."""
    try:
        user: str | None = getpass.getuser()
    except (OSError, KeyError):
        user = None
    try:
        host: str | None = socket.gethostname() or None
    except OSError:
        host = None
    return user, host
