"""Queries over a list of values, run in chunks that SQLite's variable limit allows.

``WHERE rowid IN (?, ?, ...)`` takes one bound variable per value, and SQLite
refuses a statement past its limit (32,766 in most builds, 999 in old ones).
The lists the search builds are usually short, but with embeddings a fused
score covers every document of the store: each such query goes through
:func:`rows_in`, which runs it once per :data:`CHUNK` values.
"""

from __future__ import annotations

TYPE_CHECKING = False  # recall loads this module on every prompt: no typing at run time
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable, Iterator
    from typing import Any

__all__ = ["CHUNK", "rows_in"]

CHUNK = 500  # values per statement: far under any build's limit, one statement for most lists


def rows_in(conn: sqlite3.Connection, sql: str, values: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
    """The rows of ``sql`` for all of ``values``.

    ``sql`` holds ``{in}`` where the list of placeholders goes (``rowid IN ({in})``),
    and takes no other parameter; it runs once per :data:`CHUNK` values.
    """
    listed = list(values)
    for at in range(0, len(listed), CHUNK):
        part = listed[at : at + CHUNK]
        yield from conn.execute(sql.replace("{in}", ",".join("?" * len(part))), part)
