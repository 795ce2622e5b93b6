"""BM25's length normalisation of a document's own text, beyond FTS5's fixed ``b``.

FTS5's ``bm25()`` fixes ``k1`` = 1.2 and ``b`` = 0.75. A term's share of a
document's score is ``idf x tf (k1 + 1) / (tf + k1 (1 - b + b L))``, ``L`` the
row's length over the mean row length. For a term the document holds once,
the score at another ``b'`` is the score at 0.75 times

    (1 + k1 (1 - 0.75 + 0.75 L)) / (1 + k1 (1 - b' + b' L))

a factor of the document's length alone, which FTS5 keeps: the row's size
per column in its ``<table>_docsize`` table, the totals in the averages
record of ``<table>_data`` (rowid 1), both as SQLite varints. So
:func:`renormalise` rescales the candidates FTS5 scored by that factor: exact
for terms held once, and for a long text repeating a query term it penalises
a little more than the exact BM25 would (the repeats saturate anyway).

Measured in ``benchmarks/coding_sessions.py`` and ``benchmarks/locomo.py``:
``b`` = 1 on the own row keeps a long reply that repeats the question's words
from outranking the short turn that answers it.
"""

from __future__ import annotations

__all__ = ["FTS5_B", "average_length", "renormalise"]

import math
import sqlite3

from memdir.search.sql_in import rows_in

TYPE_CHECKING = False  # not typing's: every prompt's recall ranks through here
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

_K1 = 1.2
FTS5_B = 0.75  # what FTS5's bm25() uses
_AVERAGES_ROWID = 1  # FTS5 keeps the row count and per-column token totals there


def renormalise(
    conn: sqlite3.Connection, table: str, scores: Mapping[int, float], b: float
) -> dict[int, float]:
    """``scores`` (FTS5 ``bm25()`` of ``table``'s rows, by rowid) as if ``b`` were ``b``.

    ``table`` is one of the index's own FTS5 tables (a fixed name, never input).
    Left as they are when ``b`` is FTS5's own or the table holds no averages yet.
    """
    out = dict(scores)
    if b == FTS5_B or not out:
        return out
    mean = average_length(conn, table)
    if not mean:
        return out
    sizes = rows_in(conn, f"SELECT id, sz FROM {table}_docsize WHERE id IN ({{in}})", out)
    fixed = 1.0 + _K1 * (1.0 - FTS5_B)
    wanted = 1.0 + _K1 * (1.0 - b)
    for rowid, size in sizes:
        length = sum(_varints(size)) / mean
        out[rowid] *= (fixed + _K1 * FTS5_B * length) / (wanted + _K1 * b * length)
    return out


def average_length(conn: sqlite3.Connection, table: str) -> float | None:
    """The mean length in tokens of ``table``'s rows (all columns), or None if unknown."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = ?", (_AVERAGES_ROWID,))
    found = row.fetchone()
    if found is None or not found[0]:
        return None
    rows, *columns = _varints(found[0])
    return sum(columns) / rows if rows > 0 else None


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


def column_averages(conn: sqlite3.Connection, table: str) -> list[float] | None:
    """The mean length in tokens of each of ``table``'s columns, or None if unknown."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = ?", (_AVERAGES_ROWID,))
    found = row.fetchone()
    if found is None or not found[0]:
        return None
    rows, *columns = _varints(found[0])
    return [c / rows for c in columns] if rows > 0 else None


def fielded(
    conn: sqlite3.Connection,
    table: str,
    columns: Sequence[str],
    rowids: Iterable[int],
    wanted: Sequence[str],
    weights: Sequence[float],
    bs: Sequence[float],
    *,
    joint: bool = False,
    lucene: bool = False,
) -> dict[int, float]:
    """BM25F of ``table``'s rows ``rowids``: each column normalised by its own length."""
    ids = list(rowids)
    means = column_averages(conn, table)
    if not ids or not wanted or not means:
        return {}
    total = int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    idf = {}
    for term in wanted:
        match = '"' + term.replace('"', '""') + '"'
        n = int(conn.execute(f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (match,)).fetchone()[0])
        if lucene:
            idf[term] = math.log(1.0 + (total - n + 0.5) / (n + 0.5))
        else:
            idf[term] = max(1e-6, math.log((total - n + 0.5) / (n + 0.5)))
    sizes = dict(rows_in(conn, f"SELECT id, sz FROM {table}_docsize WHERE id IN ({{in}})", ids))
    cols = ", ".join(columns)
    mean_all = sum(means)
    out: dict[int, float] = {}
    for rowid, *texts in rows_in(conn, f"SELECT rowid, {cols} FROM {table} WHERE rowid IN ({{in}})", ids):
        lengths = _varints(sizes.get(rowid, b""))
        lengths += [0] * (len(columns) - len(lengths))
        if joint:
            k = 1.0 - bs[0] + bs[0] * sum(lengths) / mean_all
            norm = [k] * len(columns)
        else:
            norm = [
                (1.0 - b + b * lengths[i] / means[i]) if means[i] else 1.0
                for i, b in enumerate(bs)
            ]
        padded = [" " + t.replace(" ", "  ") + " " for t in texts]
        score = 0.0
        for term in wanted:
            needle = f" {term} "
            tf = sum(w * p.count(needle) / (k or 1.0) for w, p, k in zip(weights, padded, norm) if w)
            if tf:
                score += idf[term] * tf * (_K1 + 1.0) / (tf + _K1)
        out[rowid] = score
    return out
