"""The memory list: one page of rows, filtered and ranked, from the search catalog.

The catalog already holds, for every memory, its name, type, scope, date,
description and file (see :mod:`memdir.search.documents`): a page of the list
is SQL over it and opens no memory file, whatever the store's size. Filters:
scope, type, age (days since the memory's date) and route (the route of the
change that left the memory as it is, from the history). A query ranks with
memdir's own search (:meth:`~memdir.search.catalog.Catalog.rank`) and the
filters then keep what they admit.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

from memdir.history.reads import latest_routes
from memdir.history.versions import History
from memdir.model import MemoryType, Scope
from memdir.search.catalog import Catalog, SearchQuery

__all__ = ["AGES", "PAGE_SIZE", "Filters", "MemoryRow", "Page", "count_by", "list_page"]

PAGE_SIZE = 50
AGES = {"7": "this week", "30": "this month", "90": "this quarter", "old": "older than 90 days"}
_TEAM = "team/"
_SEARCH_LIMIT = 500  # ranked matches a search shows, at most (in pages)


@dataclass(frozen=True, kw_only=True)
class Filters:
    """What the person asked the list for (every field optional)."""

    query: str = ""
    scope: Scope | None = None
    type: MemoryType | None = None
    age: str = ""
    route: str = ""
    page: int = 1


@dataclass(frozen=True, kw_only=True)
class MemoryRow:
    """One line of the list."""

    scope: Scope
    file: str
    name: str
    type: str
    description: str
    date: dt.date | None
    problem: str | None

    @property
    def days(self) -> int | None:
        return None if self.date is None else max((dt.date.today() - self.date).days, 0)


@dataclass(frozen=True, kw_only=True)
class Page:
    """The rows of one page, and how many match in all."""

    rows: list[MemoryRow]
    total: int
    page: int
    pages: int
    ranked: bool


def _where(filters: Filters, today: dt.date) -> tuple[str, list[Any]]:
    sql, args = " WHERE d.kind = 'memory'", []
    if filters.scope is not None:
        sql += " AND d.scope = ?"
        args.append(filters.scope.value)
    if filters.type is not None:
        sql += " AND d.type = ?"
        args.append(filters.type.value)
    if filters.age in AGES:
        days = 90 if filters.age == "old" else int(filters.age)
        cutoff = (today - dt.timedelta(days=days)).isoformat()
        sql += " AND substr(d.date, 1, 10) < ?" if filters.age == "old" else " AND d.date >= ?"
        args.append(cutoff)
    return sql, args


_COLUMNS = "SELECT d.id, d.title, d.type, d.date, d.meta, d.scope"
_ROW = f"{_COLUMNS} FROM docs d"
# Newest first: by the file's mtime, as the manifest lists them. CROSS JOIN makes SQLite
# walk the sources by their mtime index and stop at the page, rather than sort them all.
_BY_MTIME = "FROM sources s CROSS JOIN docs d ON d.source = s.id"
_NEWEST = "s.mtime_ns DESC"


def _row(values: tuple[Any, ...]) -> MemoryRow:
    ref, title, kind, date, meta, scope = values
    facts: dict[str, Any] = json.loads(meta) if meta else {}
    team = scope == Scope.TEAM.value
    day = None
    if date:
        try:
            day = dt.date.fromisoformat(str(date)[:10])
        except ValueError:
            day = None
    return MemoryRow(
        scope=Scope.TEAM if team else Scope.PRIVATE,
        file=ref.removeprefix(_TEAM) if team else ref,
        name=title,
        type=kind or "untyped",
        description=facts.get("description") or "",
        date=day,
        problem=facts.get("problem"),
    )


def list_page(
    catalog: Catalog,
    filters: Filters,
    *,
    history: History | None,
    size: int = PAGE_SIZE,
    today: dt.date | None = None,
) -> Page:
    """The page ``filters.page`` of the memories ``filters`` admit: newest first, or ranked."""
    today = today or dt.date.today()
    catalog.refresh_if_due()
    conn = catalog.index.conn
    where, args = _where(filters, today)
    routed = None
    if filters.route and history is not None:
        routed = {
            f"{_TEAM}{file}" if scope is Scope.TEAM else file
            for scope, file in latest_routes(history, filters.route)
        }
    page = max(filters.page, 1)
    ranked = bool(filters.query.strip())
    if ranked or routed is not None:
        if ranked:
            wanted = SearchQuery(
                query=filters.query,
                kinds=("memory",),
                scope=filters.scope,
                types=None if filters.type is None else (filters.type,),
                limit=_SEARCH_LIMIT,
            )
            ids = [ref for ref, _ in catalog.rank(wanted)]
        else:
            sql = f"SELECT d.id {_BY_MTIME}{where} ORDER BY {_NEWEST}"
            ids = [ref for (ref,) in conn.execute(sql, args)]
        if routed is not None:
            ids = [ref for ref in ids if ref in routed]
        if ranked and (filters.age or filters.scope or filters.type):
            admitted = _admitted(conn, ids, where, args)
            ids = [ref for ref in ids if ref in admitted]
        total = len(ids)
        rows = _rows_for(conn, ids[(page - 1) * size : page * size])
    else:
        total = int(conn.execute(f"SELECT count(*) FROM docs d{where}", args).fetchone()[0])
        sql = f"{_COLUMNS} {_BY_MTIME}{where} ORDER BY {_NEWEST} LIMIT ? OFFSET ?"
        rows = [_row(r) for r in conn.execute(sql, [*args, size, (page - 1) * size])]
    pages = max((total + size - 1) // size, 1)
    return Page(rows=rows, total=total, page=page, pages=pages, ranked=ranked)


def _admitted(conn: Any, ids: list[str], where: str, args: list[Any]) -> set[str]:
    if not ids:
        return set()
    marks = ",".join("?" * len(ids))
    sql = f"SELECT d.id FROM docs d{where} AND d.id IN ({marks})"
    return {ref for (ref,) in conn.execute(sql, [*args, *ids])}


def _rows_for(conn: Any, ids: list[str]) -> list[MemoryRow]:
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    found = {r[0]: _row(r) for r in conn.execute(f"{_ROW} WHERE d.id IN ({marks})", ids)}
    return [found[ref] for ref in ids if ref in found]


def count_by(catalog: Catalog) -> dict[tuple[str, str], int]:
    """How many memories each (scope, type) holds."""
    catalog.refresh_if_due()
    rows = catalog.index.conn.execute(
        "SELECT scope, coalesce(type, 'untyped'), count(*) FROM docs "
        "WHERE kind = 'memory' GROUP BY 1, 2"
    )
    return {(scope, kind): int(n) for scope, kind, n in rows}
