"""The embedding pass: vectors for the documents of an index that have none.

A store's first hybrid search would otherwise embed all of it at once (about
30 ms of one core per short document: minutes for tens of thousands of
transcript turns), inside one transaction that an interrupted run loses whole.
So the pass commits batch by batch, and a search's pass stops after a budget
of seconds: what it did not reach, later searches do, and until every document
has a vector the search ranks by BM25 alone (a vector for only some documents
would favour those). :meth:`memdir.api.Memdir.embed` runs the pass to its end.

The table's changes are logged for the vector index beside the catalog
(:mod:`memdir.search.vectors.vector_index`): triggers (:data:`VECTOR_TABLES`, part of the
catalog's schema) append each changed rowid to ``vector_log``, and
``vector_state`` holds the catalog's token (made anew when the table is emptied,
:func:`empty_vectors`) and how far the log was pruned. :func:`log_state`,
:func:`changed_since`, :func:`vector_rows` and :func:`prune_log` read and trim them
(numpy-free, like the rest of this module, which the engine loads with the schema).
"""

from __future__ import annotations

import contextlib
import sqlite3
import time

from memdir.utils.records import record

TYPE_CHECKING = False  # not typing's: the engine loads this module before every prompt
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from contextlib import AbstractContextManager
    from typing import Any

    from memdir.search.vectors.embeddings import Embedder

__all__ = [
    "VECTOR_TABLES",
    "EmbedPass",
    "LogState",
    "changed_since",
    "embed_missing",
    "empty_vectors",
    "ensure_token",
    "log_state",
    "marks",
    "missing_vectors",
    "prune_log",
    "vector_rows",
]

# Trigger: the vector index beside the catalog must learn what changed without reading
# every vector again. Outcome: each change to the vectors table logs its rowid, and the
# catalog has a token, made anew when the table is emptied.
VECTOR_TABLES = (
    "CREATE TABLE IF NOT EXISTS vectors (rowid INTEGER PRIMARY KEY, model TEXT, vec BLOB)",
    # Counting a model's vectors reads this index, not the table's 1.5 KB rows.
    "CREATE INDEX IF NOT EXISTS vectors_model ON vectors(model)",
    "CREATE TABLE IF NOT EXISTS vector_log"
    " (seq INTEGER PRIMARY KEY AUTOINCREMENT, doc INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS vector_state (key TEXT PRIMARY KEY, value)",
    "CREATE TRIGGER IF NOT EXISTS vector_added AFTER INSERT ON vectors"
    " BEGIN INSERT INTO vector_log (doc) VALUES (new.rowid); END",
    "CREATE TRIGGER IF NOT EXISTS vector_changed AFTER UPDATE ON vectors"
    " BEGIN INSERT INTO vector_log (doc) VALUES (old.rowid), (new.rowid); END",
    "CREATE TRIGGER IF NOT EXISTS vector_removed AFTER DELETE ON vectors"
    " BEGIN INSERT INTO vector_log (doc) VALUES (old.rowid); END",
)
_NEW_TOKEN = "INSERT OR REPLACE INTO vector_state VALUES ('token', lower(hex(randomblob(8))))"


def empty_vectors(conn: sqlite3.Connection) -> None:
    """Delete every vector, in the caller's transaction.

    The table is dropped, not emptied: a DELETE would log every vector. The log is
    emptied and a new token tells every vector index to start over instead.
    """
    conn.execute("DROP TABLE IF EXISTS vectors")  # and its triggers and index
    for statement in VECTOR_TABLES:
        conn.execute(statement)
    conn.execute("DELETE FROM vector_log")
    conn.execute(_NEW_TOKEN)


# Of a document ``d``: it has no vector under the model (the one parameter).
_NO_VECTOR = "NOT EXISTS (SELECT 1 FROM vectors v WHERE v.rowid = d.rowid AND v.model = ?)"


@record
class EmbedPass:
    """What one pass did: documents embedded, and those still without a vector."""

    embedded: int
    remaining: int


def missing_vectors(conn: sqlite3.Connection, model: str) -> int:
    """How many documents have no vector under ``model``.

    The documents less the model's vectors (every vector's document exists: they are
    deleted together), two counts over indexes instead of a lookup of each vector's
    row (1.5 KB each: 150 MB read for 100,000 documents).
    """
    sql = "SELECT (SELECT count(*) FROM docs) - (SELECT count(*) FROM vectors WHERE model = ?)"
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
    document's text, name, kind, title, meta). A vector is stored only if its row still holds the
    document embedded (same id and text). Each batch is written in a
    ``transaction()`` of its own (the caller's, when one is open: the index's
    :meth:`~memdir.search.engine.TextIndex.transaction`); ``budget`` seconds
    stops the pass after the batch that
    reaches it (one batch at least; none with a budget of 0, which only counts);
    ``progress(done, total)`` is called per batch.
    """
    from memdir.search.vectors.embeddings import pack_vector

    if budget is not None and budget <= 0:  # another pass is at it: count, embed nothing
        return EmbedPass(embedded=0, remaining=missing_vectors(conn, model))
    rows = conn.execute(
        "SELECT d.rowid, d.text, d.date, p.text, d.name, d.kind, d.title, d.meta, d.id"
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
        vectors = embedder.embed([text_of(row[:8]) for row in chunk])
        values = [
            (r[0], model, pack_vector(v), r[0], r[8], r[1])
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


def marks(conn: sqlite3.Connection) -> tuple[object, ...]:
    """What changes when a document without a vector may have come in, in any process.

    A new document takes the rowid after the newest; one that takes the newest's
    own (deleted) rowid deleted its vector, which the vector log shows.
    """
    newest = conn.execute("SELECT max(rowid) FROM docs").fetchone()[0]
    state = log_state(conn)
    return (newest, state.token, state.seq)


@record
class LogState:
    """Where the catalog's vector log stands: its token, last entry and pruned prefix."""

    token: str | None  # None: never asked for (made by ensure_token)
    seq: int
    pruned: int


def log_state(conn: sqlite3.Connection) -> LogState:
    """The catalog's vector log state, in one query."""
    token, seq, pruned = conn.execute(
        "SELECT (SELECT value FROM vector_state WHERE key = 'token'),"
        " (SELECT seq FROM sqlite_sequence WHERE name = 'vector_log'),"
        " (SELECT value FROM vector_state WHERE key = 'pruned')"
    ).fetchone()
    return LogState(token=token, seq=int(seq or 0), pruned=int(pruned or 0))


def ensure_token(conn: sqlite3.Connection) -> None:
    """Give the catalog its token if it has none (a catalog made before the vector log)."""
    if log_state(conn).token is not None:
        return
    sql = "INSERT OR IGNORE INTO vector_state VALUES ('token', lower(hex(randomblob(8))))"
    if conn.in_transaction:
        conn.execute(sql)
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(sql)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def changed_since(conn: sqlite3.Connection, after: int, upto: int) -> list[int]:
    """The rowids whose vector changed in the log entries after ``after`` up to ``upto``."""
    sql = "SELECT DISTINCT doc FROM vector_log WHERE seq > ? AND seq <= ? ORDER BY doc"
    return [int(r[0]) for r in conn.execute(sql, (after, upto))]


_ROWS = (
    "SELECT v.rowid, d.kind, v.vec FROM vectors v JOIN docs d ON d.rowid = v.rowid"
    " WHERE v.model = ?"
)
_CHUNK = 500  # rowids a statement names (far under SQLite's variable limit)


def vector_rows(
    conn: sqlite3.Connection, model: str, rowids: Sequence[int] | None = None
) -> Iterator[tuple[int, str, bytes]]:
    """(rowid, kind, vector blob) of the documents with a vector under ``model``.

    All of them, by kind then rowid, or those of ``rowids``.
    """
    if rowids is None:
        yield from conn.execute(f"{_ROWS} ORDER BY d.kind, v.rowid", (model,))
        return
    for at in range(0, len(rowids), _CHUNK):
        part = list(rowids[at : at + _CHUNK])
        marks = ",".join("?" * len(part))
        yield from conn.execute(f"{_ROWS} AND v.rowid IN ({marks})", (model, *part))


PRUNE_AT = 10_000
"""Log entries an index has read past from which they are deleted."""


def prune_log(conn: sqlite3.Connection, upto: int) -> bool:
    """Delete the log entries up to ``upto`` once there are many; whether it did.

    A vector index behind ``upto`` is then made anew instead of brought up to date.
    Never waits on another writer (a search calls it): skipped while one writes.
    """
    first = conn.execute("SELECT min(seq) FROM vector_log").fetchone()[0]
    joined = conn.in_transaction  # the caller's transaction is not ours to end
    if first is None or upto - first < PRUNE_AT or joined:
        return False
    (patience,) = conn.execute("PRAGMA busy_timeout").fetchone()
    conn.execute("PRAGMA busy_timeout = 50")
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("DELETE FROM vector_log WHERE seq <= ?", (upto,))
        conn.execute(
            "INSERT OR REPLACE INTO vector_state VALUES ('pruned',"
            " max(?, coalesce((SELECT value FROM vector_state WHERE key = 'pruned'), 0)))",
            (upto,),
        )
        conn.execute("COMMIT")
        return True
    except sqlite3.OperationalError:
        with contextlib.suppress(sqlite3.Error):  # "no transaction" when BEGIN was refused
            conn.execute("ROLLBACK")
        return False
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(patience)}")
