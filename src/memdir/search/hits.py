"""Ranked rows read back as hits: what a search returns, in one query.

:class:`~memdir.search.engine.TextIndex` ranks rowids; :func:`read_hits` reads
their documents from the ``docs`` table at once and shapes each as a
:class:`~memdir.search.search_query.Hit` (its snippet cut around the query's
terms, its date, scope and memory type parsed), in the ranked order.
"""

from __future__ import annotations

import datetime as dt
import sqlite3

from memdir.kinds import MemoryType, Scope
from memdir.search import terms as textproc
from memdir.search.search_query import Hit
from memdir.search.sql_in import rows_in

__all__ = ["read_hits"]


def read_hits(
    conn: sqlite3.Connection, ranked: list[tuple[int, float]], wanted: list[str]
) -> list[Hit]:
    """The documents of ``ranked`` (rowid, score; in that order) as hits, read in one query.

    Each hit's snippet shows ``wanted`` (the query's terms); a rowid no longer in the
    catalog is left out.
    """
    if not ranked:
        return []
    sql = "SELECT rowid, kind, id, title, text, date, scope, type FROM docs WHERE rowid IN ({in})"
    rows = {row[0]: row[1:] for row in rows_in(conn, sql, [r for r, _ in ranked])}
    hits = []
    for rowid, score in ranked:
        if rowid not in rows:
            continue
        kind, ref, title, text, date, scope, type_ = rows[rowid]
        hits.append(
            Hit(
                kind=kind,
                ref=ref,
                title=title,
                snippet=textproc.snippet(text, wanted),
                score=round(score, 6),
                date=dt.datetime.fromisoformat(date) if date else None,
                scope=Scope(scope) if scope else None,
                type=_memory_type(type_),
            )
        )
    return hits


def _memory_type(value: str | None) -> MemoryType | None:
    try:
        return MemoryType(value) if value else None
    except ValueError:
        return None
