"""The embedding pass: vectors for the documents of an index that have none.

A store's first hybrid search would otherwise embed all of it at once (about
30 ms of one core per short document: minutes for tens of thousands of
transcript turns), inside one transaction that an interrupted run loses whole.
So the pass commits batch by batch, and a search's pass stops after a budget
of seconds: what it did not reach, later searches do, and until every document
has a vector the search ranks by BM25 alone (a vector for only some documents
would favour those). :meth:`memdir.api.Memdir.embed` runs the pass to its end.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from memdir.utils.records import record

if TYPE_CHECKING:
    from memdir.search.embeddings import Embedder

__all__ = ["EmbedPass", "embed_missing", "missing_vectors"]

# Of a document ``d``: it has no vector under the model (the one parameter).
_NO_VECTOR = "NOT EXISTS (SELECT 1 FROM vectors v WHERE v.rowid = d.rowid AND v.model = ?)"


@record
class EmbedPass:
    """What one pass did: documents embedded, and those still without a vector."""

    embedded: int
    remaining: int


def missing_vectors(conn: sqlite3.Connection, model: str) -> int:
    """How many documents have no vector under ``model``."""
    sql = f"SELECT count(*) FROM docs d WHERE {_NO_VECTOR}"
    return int(conn.execute(sql, (model,)).fetchone()[0])


def embed_missing(
    conn: sqlite3.Connection,
    embedder: Embedder,
    model: str,
    text_of: Callable[[Sequence[Any]], str],
    *,
    transaction: Callable[[], AbstractContextManager[object]],
    batch: int = 64,
    budget: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> EmbedPass:
    """Embed the documents without a vector under ``model``, oldest first.

    ``text_of`` makes the embedded text of a row (rowid, text, date, the previous
    document's text, name). A vector is stored only if its row still holds the
    document embedded (same id and text). Each batch is written in a
    ``transaction()`` of its own (the caller's, when one is open: the index's
    :meth:`~memdir.search.engine.TextIndex.transaction`); ``budget`` seconds
    stops the pass after the batch that
    reaches it (one batch at least; none with a budget of 0, which only counts);
    ``progress(done, total)`` is called per batch.
    """
    from memdir.search.embeddings import pack_vector

    if budget is not None and budget <= 0:  # another pass is at it: count, embed nothing
        return EmbedPass(embedded=0, remaining=missing_vectors(conn, model))
    rows = conn.execute(
        "SELECT d.rowid, d.text, d.date, p.text, d.name, d.id"
        " FROM docs d LEFT JOIN docs p ON p.grp = d.grp AND p.seq = d.seq - 1"
        f" WHERE {_NO_VECTOR} ORDER BY d.rowid",
        (model,),
    ).fetchall()
    deadline = None if budget is None else time.monotonic() + budget
    done = 0
    for start in range(0, len(rows), batch):
        if progress is not None:
            progress(start, len(rows))
        chunk = rows[start : start + batch]
        vectors = embedder.embed([text_of(row[:5]) for row in chunk])
        values = [
            (r[0], model, pack_vector(v), r[0], r[5], r[1])
            for r, v in zip(chunk, vectors, strict=True)
        ]
        with transaction():
            conn.executemany(_STORE, values)
        done += len(chunk)
        if deadline is not None and time.monotonic() >= deadline:
            break
    if progress is not None and rows:
        progress(done, len(rows))
    return EmbedPass(embedded=done, remaining=len(rows) - done)


# Only while the row still holds the document that was embedded: the batch was read
# outside any transaction, and a refresh meanwhile (another process's) may have
# replaced the document, or given its rowid to another one.
_STORE = (
    "INSERT OR REPLACE INTO vectors (rowid, model, vec) SELECT ?, ?, ?"
    " WHERE EXISTS (SELECT 1 FROM docs WHERE rowid = ? AND id = ? AND text = ?)"
)
