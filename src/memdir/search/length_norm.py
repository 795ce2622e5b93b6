"""BM25 computed again over FTS5's candidates: each field by its own length, an idf without floor.

FTS5's ``bm25()`` (``k1`` = 1.2, ``b`` = 0.75) picks a query's candidates, and
:func:`rescore` then scores them again from what FTS5 keeps: the columns
hold analysed terms separated by blanks (so a term's frequency in a column is
a count of it there), ``<table>_docsize`` the length of each column of each
row, and the averages record of ``<table>_data`` (rowid 1) the row count and
each column's total, all as SQLite varints. Two things differ from FTS5's own
score, each measured on three corpus shapes (``benchmarks/locomo.py``,
``benchmarks/coding_sessions.py``, ``benchmarks/notes_logs.py``):

- idf is ``ln(1 + (N - n + 0.5) / (n + 0.5))`` (Lucene's): FTS5's drops the
  ``1 +`` and floors it at 1e-6, so a term most documents hold counts for
  nothing, and in one project's history the words of its subject (a
  component's name in every other turn) are such terms;
- the length normalisation. ``joint`` (a document's own row): every column's
  weighted frequency summed, normalised by the row's whole length at ``b``
  (FTS5's shape, at the ``b`` of ``RankingOptions.length_b``); per field
  (BM25F, a turn's window of three): each column's frequency divided by
  ``1 - b + b x`` its length over that column's mean length, then summed and
  saturated once. A window's own text is normalised by its own length and the
  neighbours' text by theirs: in one row normalised by its whole length, a
  long reply between two short questions was a short window (its neighbours
  add little) and a short question between two long replies a long one, so
  the reply outranked the question that stated the fact.
"""

from __future__ import annotations

__all__ = ["FTS5_B", "TableStats", "idf", "rescore", "table_stats"]

import math
import sqlite3

from memdir.search.sql_in import rows_in

TYPE_CHECKING = False  # not typing's: every prompt's recall ranks through here
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

_K1 = 1.2
FTS5_B = 0.75  # what FTS5's bm25() uses
_AVERAGES_ROWID = 1  # FTS5 keeps the row count and per-column token totals there


class TableStats:
    """An FTS5 table's row count and each column's mean length in tokens."""

    __slots__ = ("means", "rows")

    def __init__(self, rows: int, means: list[float]) -> None:
        self.rows = rows
        self.means = means


def table_stats(conn: sqlite3.Connection, table: str) -> TableStats | None:
    """``table``'s statistics from its averages record, or None while it holds no row."""
    found = conn.execute(f"SELECT block FROM {table}_data WHERE id = ?", (_AVERAGES_ROWID,))
    row = found.fetchone()
    if row is None or not row[0]:
        return None
    rows, *totals = _varints(row[0])
    return TableStats(rows, [t / rows for t in totals]) if rows > 0 else None


def idf(
    conn: sqlite3.Connection, vocab: str, wanted: Sequence[str], rows: int, *, fts5: bool = False
) -> dict[str, float]:
    """Each term's ``ln(1 + (N - n + 0.5) / (n + 0.5))``, ``n`` read from the ``vocab`` table.

    ``fts5``: FTS5's own instead, ``ln((N - n + 0.5) / (n + 0.5))`` floored at 1e-6.
    """
    held = dict(rows_in(conn, f"SELECT term, doc FROM {vocab} WHERE term IN ({{in}})", wanted))
    out = {}
    for term in wanted:
        n = min(int(held.get(term, 0)), rows)
        ratio = (rows - n + 0.5) / (n + 0.5)
        out[term] = max(1e-6, math.log(ratio)) if fts5 else math.log(1.0 + ratio)
    return out


def rescore(
    conn: sqlite3.Connection,
    table: str,
    columns: Sequence[str],
    rowids: Collection[int],
    idfs: Mapping[str, float],
    weights: Sequence[float],
    b: float | Sequence[float],
    *,
    joint: bool,
) -> dict[int, float]:
    """The BM25 of ``table``'s rows ``rowids`` for the terms of ``idfs`` (see above).

    ``table`` and ``columns`` are the index's own names (never input), ``columns``
    all of the table's, in order; ``weights`` go with them. ``joint``: normalised by the whole row's
    length, else each column by its own. ``b``: one for every column, or (not
    ``joint``) one per column. Rows that are not there are left out.
    """
    bs = [float(b)] * len(columns) if isinstance(b, int | float) else [float(x) for x in b]
    stats = table_stats(conn, table)
    if stats is None or not rowids or not idfs:
        return {}
    sizes = dict(rows_in(conn, f"SELECT id, sz FROM {table}_docsize WHERE id IN ({{in}})", rowids))
    sql = f"SELECT rowid, {', '.join(columns)} FROM {table} WHERE rowid IN ({{in}})"
    mean_row = sum(stats.means)
    out: dict[int, float] = {}
    for rowid, *texts in rows_in(conn, sql, rowids):
        lengths = _varints(sizes.get(rowid, b""))
        lengths += [0] * (len(columns) - len(lengths))
        if joint:
            norms = [1.0 - bs[0] + bs[0] * sum(lengths) / mean_row] * len(columns)
        else:
            norms = [
                1.0 - c + c * n / m if m else 1.0
                for n, m, c in zip(lengths, stats.means, bs, strict=True)
            ]
        out[rowid] = _score(texts, idfs, weights, norms)
    return out


def _score(
    texts: Sequence[str | None],
    idfs: Mapping[str, float],
    weights: Sequence[float],
    norms: Sequence[float],
) -> float:
    """BM25 of one row: each term's normalised, weighted frequency saturated once."""
    # Every blank doubled: a term's count is of " term " with no two counts sharing a blank.
    padded = [f" {text.replace(' ', '  ')} " if text else "" for text in texts]
    fields = [
        (w / n, p) for w, n, p in zip(weights, norms, padded, strict=True) if w and n > 0 and p
    ]
    score = 0.0
    for term, weight in idfs.items():
        needle = f" {term} "
        tf = sum(scale * text.count(needle) for scale, text in fields)
        if tf:
            score += weight * tf * (_K1 + 1.0) / (tf + _K1)
    return score


def _varints(blob: bytes) -> list[int]:
    """The SQLite varints (big-endian, 7 bits a byte, a ninth byte of 8) packed in ``blob``."""
    out: list[int] = []
    value, used, i = 0, 0, 0
    while i < len(blob):
        byte = blob[i]
        i += 1
        if used == 8:  # the ninth byte gives all eight bits
            out.append((value << 8) | byte)
            value, used = 0, 0
        elif byte & 0x80:
            value = (value << 7) | (byte & 0x7F)
            used += 1
        else:
            out.append((value << 7) | byte)
            value, used = 0, 0
    return out
