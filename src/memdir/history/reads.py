"""Reads across the whole history, for a person looking over what changed.

:class:`~memdir.history.versions.History` answers for one memory (its
versions) and for review (the pending ones). A page that shows what agents
learned needs three questions asked across every memory at once, each one
SQL query over the history's ``versions`` table:

- :func:`changes_since`: the versions recorded since a time, newest first,
  optionally of one route or one session (paged with ``limit``/``before``);
- :func:`latest_routes`: the route of the change that left each file as it is
  (what ``memdir ui`` filters the memory list by);
- :func:`first_written`: when each file's oldest kept version was recorded
  (memories over time);
- :func:`index_line_changes`: how many lines each change added to or removed
  from a scope's ``MEMORY.md`` (its fill over time), from the recorded hunks.

They use the history's own connection (its thread's, with the schema ensured),
so they see what the store wrote in this process and others alike.
"""

from __future__ import annotations

from memdir.history.table import VERSION_COLUMNS as COLUMNS
from memdir.history.table import Version, version_of
from memdir.history.versions import History
from memdir.model import Scope

__all__ = [
    "changes_since",
    "count_since",
    "first_written",
    "index_line_changes",
    "latest_routes",
    "routes_and_sessions",
]


def changes_since(
    history: History,
    since: float,
    *,
    route: str | None = None,
    session: str | None = None,
    scope: Scope | None = None,
    limit: int = 200,
    before: int | None = None,
) -> list[Version]:
    """Versions recorded at or after ``since`` (a Unix time), newest first.

    ``before`` (a version id) continues a listing past its last page.
    """
    where: list[str] = ["time >= ?"]
    args: list[object] = [since]
    for column, value in (("route", route), ("session", session)):
        if value:
            where.append(f"{column} = ?")
            args.append(value)
    if scope is not None:
        where.append("scope = ?")
        args.append(scope.value)
    if before is not None:
        where.append("id < ?")
        args.append(before)
    sql = f"SELECT {COLUMNS} FROM versions WHERE {' AND '.join(where)} ORDER BY id DESC LIMIT ?"
    rows = history._conn().execute(sql, [*args, limit]).fetchall()
    return [version_of(row) for row in rows]


def count_since(history: History, since: float) -> tuple[int, int]:
    """How many versions were recorded since ``since``, and how many of them by agents."""
    from memdir.history.review import AGENT_ROUTES

    marks = ",".join("?" * len(AGENT_ROUTES))
    row = (
        history._conn()
        .execute(
            f"SELECT count(*), sum(route IN ({marks})) FROM versions WHERE time >= ?",
            [*sorted(AGENT_ROUTES), since],
        )
        .fetchone()
    )
    return int(row[0] or 0), int(row[1] or 0)


def routes_and_sessions(history: History, since: float) -> tuple[list[str], list[str]]:
    """The routes and the (newest 50) sessions that changed memory since ``since``."""
    conn = history._conn()
    routes = [
        r for (r,) in conn.execute("SELECT DISTINCT route FROM versions WHERE time >= ?", (since,))
    ]
    sessions = [
        s
        for (s,) in conn.execute(
            "SELECT session FROM versions WHERE time >= ? AND session IS NOT NULL "
            "GROUP BY session ORDER BY max(id) DESC LIMIT 50",
            (since,),
        )
    ]
    return sorted(r for r in routes if r), sessions


def latest_routes(history: History, route: str) -> set[tuple[Scope, str]]:
    """The (scope, file) pairs whose last applied change came by ``route``."""
    # SQLite takes the bare columns of a max() aggregate from the row holding the max.
    rows = history._conn().execute(
        "SELECT scope, file, route, max(id) FROM versions WHERE status IS NULL GROUP BY scope, file"
    )
    return {(Scope(scope), file) for scope, file, got, _ in rows if got == route}


def first_written(history: History) -> dict[tuple[Scope, str], float]:
    """When each (scope, file) got its oldest kept version."""
    rows = history._conn().execute(
        "SELECT scope, file, min(time) FROM versions WHERE status IS NULL GROUP BY scope, file"
    )
    return {(Scope(scope), file): float(when) for scope, file, when in rows}


def index_line_changes(history: History, since: float) -> list[tuple[float, Scope, int]]:
    """(time, scope, lines added minus removed) of each index edit since ``since``, oldest first.

    From the hunks the store records with each version; an index a change set
    replaced wholesale (consolidation's repair) is not among them.
    """
    rows = history._conn().execute(
        "SELECT time, scope, index_old, index_new FROM versions "
        "WHERE index_at IS NOT NULL AND status IS NULL AND time >= ? ORDER BY id",
        (since,),
    )
    return [
        (float(when), Scope(scope), bytes(new or b"").count(b"\n") - bytes(old or b"").count(b"\n"))
        for when, scope, old, new in rows
    ]
