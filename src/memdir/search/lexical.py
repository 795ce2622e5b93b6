"""The BM25 pass of a search: weighted BM25 of every document a query matches.

A document's own columns (name, description, body, dates) are one row of the
``fts`` table; a turn's text beside its neighbours' is a row of the ``ctx``
table. FTS5's ``bm25()`` picks the best ``limit`` rows of each table (it
cannot score any other way), and every document picked is then scored on both
by :func:`~memdir.search.length_norm.rescore`: its own row at
``RankingOptions.length_b``, its window (a turn's text and its neighbours')
as BM25F, each column by its own length, with an idf that never reaches zero.
A turn scores ``context_share`` of its window's BM25 plus the rest of its own
row's; see :class:`~memdir.search.engine.RankingOptions`.

Cost: FTS5 runs ``bm25()`` for every document a query matches (a few
microseconds each, and it cannot skip any), so a query matching more than
``scan_limit`` documents is picked from the newest that many of them (the
highest rowids: a catalog indexes files oldest first), plus every match of
its rarer terms; the scores themselves are unchanged, idf included. Scoring
the candidates again reads their rows' terms (a few hundred rows a query).
"""

from __future__ import annotations

__all__ = ["CONTEXT_COLUMNS", "MATERIALIZED", "OWN_COLUMNS", "bm25", "broad"]

import sqlite3

from memdir.search import terms as textproc
from memdir.search.length_norm import FTS5_B, idf, rescore, table_stats
from memdir.search.sql_in import rows_in

TYPE_CHECKING = False  # not typing's: every prompt's recall ranks through here
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from memdir.search.ranking_options import RankingOptions

OWN_COLUMNS = ("name", "description", "body", "dates")  # the columns of ``fts``
CONTEXT_COLUMNS = ("body", "context", "dates")  # the columns of ``ctx``

# MATERIALIZED common table expressions arrived in SQLite 3.35 (2021).
MATERIALIZED = sqlite3.sqlite_version_info >= (3, 35, 0)
_BROAD_SAMPLE = 1000  # newest documents a filter is tried on, to choose how to apply it
_ALLOWED = "WITH allowed AS MATERIALIZED (SELECT d.rowid AS r FROM docs d WHERE 1 {where})"


def bm25(
    conn: sqlite3.Connection,
    wanted: list[str],
    where: str,
    params: list[Any],
    *,
    limit: int,
    gather: bool,
    opts: RankingOptions,
) -> dict[int, float]:
    """The best documents' BM25 scores for the terms ``wanted``, by document rowid.

    ``where``/``params`` filter the documents (``AND d.…`` clauses over ``docs d``);
    ``gather``: the filter's rows are listed first (see :func:`broad`). Of ``opts``:
    the field ``weights``, ``context_share``, ``scan_limit``, ``window_share`` (a
    turn's context score also gains that share of how much better the context row of
    an adjacent turn scores: its window holds this turn), ``length_b`` (the own row's
    BM25 length normalisation), ``window_fields`` (the window scored as BM25F, each
    column by its own length) with ``window_text_b`` (the ``b`` of a turn's own text
    in its window), and ``idf`` (``"fts5"``: FTS5's, zero for a term in more than
    half the rows; see :mod:`.length_norm`).
    """
    if not wanted:
        return {}
    match = textproc.fts_query(wanted)
    # FTS5 cannot skip documents while scoring: bm25() runs for every match.
    scan = max(opts.scan_limit, limit)
    floor = _scan_floor(conn, match, where, params, scan, gather)
    rare: list[str] = []
    if floor and len(wanted) > 1:
        # A word most documents hold must not hide the older matches of a rare one.
        rare = [term for term in wanted if _matches_fewer(conn, term, scan)]
        if len(rare) == len(wanted):  # no more than len(wanted) * scan matches
            floor, rare = 0, []
    score = _Scorer(conn, where, params, gather, opts.weights, opts.context_share, limit)
    score.lend = opts.window_share
    score.length_b = opts.length_b
    score.window_fields = opts.window_fields
    score.window_text_b = opts.window_text_b
    score.idfs = _idfs(conn, wanted, fts5=opts.idf == "fts5")
    scores = score(match, floor)
    if rare:
        # The older matches of the rare terms, scored for every query term alike.
        for rowid, value in score(textproc.fts_query(rare), 0).items():
            scores.setdefault(rowid, value)
    return scores


def _idfs(conn: sqlite3.Connection, wanted: list[str], *, fts5: bool) -> list[dict[str, float]]:
    """Each query term's idf over the own rows, then over the windows (see :mod:`.length_norm`)."""
    out = []
    for table, vocab in (("fts", "vocab"), ("ctx", "ctxvocab")):
        stats = table_stats(conn, table)
        out.append(idf(conn, vocab, wanted, stats.rows, fts5=fts5) if stats else {})
    return out


def broad(conn: sqlite3.Connection, where: str, params: list[Any]) -> bool:
    """Whether the filter keeps more than half of the newest documents (a sample).

    A filter is answered from a list of the rows it keeps, made once per query,
    unless it keeps most rows: then each match visited is looked up (making a
    list of 100,000 rows costs 0.3 s a query).
    """
    newest = f"SELECT rowid FROM docs ORDER BY rowid DESC LIMIT {_BROAD_SAMPLE}"
    kept = f"sum(CASE WHEN 1 {where} THEN 1 ELSE 0 END)"
    sql = f"SELECT count(*), {kept} FROM docs d WHERE d.rowid IN ({newest})"
    seen, held = conn.execute(sql, params).fetchone()
    return bool(seen) and 2 * int(held or 0) > int(seen)


def _matches_fewer(conn: sqlite3.Connection, term: str, scan: int) -> bool:
    """Whether fewer than ``scan`` documents hold ``term`` (counting stops there)."""
    sql = "SELECT count(*) FROM (SELECT rowid FROM fts WHERE fts MATCH ? LIMIT ?)"
    count = conn.execute(sql, (textproc.fts_query([term]), scan)).fetchone()[0]
    return bool(count < scan)


class _Scorer:
    """One query's BM25 over both tables, from a rowid on."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        where: str,
        params: list[Any],
        gather: bool,
        weights: Mapping[str, float],
        share: float,
        limit: int,
    ) -> None:
        self.conn, self.where, self.params, self.gather = conn, where, params, gather
        self.own = [float(weights.get(f, 0.0)) for f in OWN_COLUMNS]
        self.near = [float(weights.get(f, 0.0)) for f in CONTEXT_COLUMNS]
        self.share = share if self.near[1] else 0.0
        self.limit = limit
        self.lend = 0.0
        self.length_b = FTS5_B
        self.window_fields = False
        self.window_text_b = FTS5_B
        self.idfs: list[dict[str, float]] = [{}, {}]  # over the own rows, over the windows

    def __call__(self, match: str, floor: int) -> dict[int, float]:
        """The best documents' scores of ``match`` among rows from rowid ``floor`` on.

        FTS5 picks the best ``limit`` of each table at its own idf and ``b``; they
        are scored again (:func:`~.length_norm.rescore`), a document's own columns
        and its window apart, and the two summed by ``share``.
        """
        own_idf, near_idf = self.idfs
        # The candidates: FTS5's best of either table, each then scored on both.
        rows = set(self._table("fts", self.own, match, floor))
        if self.share:
            rows |= self._table("ctx", self.near, match, floor).keys()
        scores = rescore(
            self.conn, "fts", OWN_COLUMNS, rows, own_idf, self.own, self.length_b, joint=True
        )
        if self.share:
            share, joint = self.share, not self.window_fields
            b = FTS5_B if joint else (self.window_text_b, FTS5_B, FTS5_B)
            near = rescore(
                self.conn, "ctx", CONTEXT_COLUMNS, rows, near_idf, self.near, b, joint=joint
            )
            if self.lend and near:
                near = self._lent(near, set(scores) | set(near))
            for rowid, value in near.items():
                scores[rowid] = (1.0 - share) * scores.get(rowid, 0.0) + share * value
        return scores

    def _lent(self, near: dict[int, float], rowids: set[int]) -> dict[int, float]:
        """Each context score raised by ``lend`` of its gap to the best adjacent one.

        A turn's context row is a window of three turns; the windows of its two
        neighbours hold it too, so the best of those speaks for it in part.
        """
        sql = "SELECT rowid, grp, seq FROM docs WHERE rowid IN ({in}) AND grp IS NOT NULL"
        place = {rowid: (grp, seq) for rowid, grp, seq in rows_in(self.conn, sql, rowids)}
        by_place = {place[r]: v for r, v in near.items() if r in place and place[r][1] is not None}
        out = dict(near)
        for rowid, (grp, seq) in place.items():
            if seq is None:
                continue
            own = near.get(rowid, 0.0)
            best = max(by_place.get((grp, seq - 1), 0.0), by_place.get((grp, seq + 1), 0.0))
            if best > own:
                out[rowid] = own + self.lend * (best - own)
        return out

    def _table(self, table: str, w: list[float], match: str, floor: int) -> dict[int, float]:
        marks = ", ".join("?" * len(w))
        score = f"bm25({table}, {marks})"
        where, params, limit = self.where, self.params, self.limit
        if not where:
            sql = (
                f"SELECT rowid, {score} AS s FROM {table}"
                f" WHERE {table} MATCH ? AND rowid >= ? ORDER BY s LIMIT ?"
            )
            rows = self.conn.execute(sql, (*w, match, floor, limit))
        elif self.gather:
            # The filters are answered from the docs_filter index once, not by reading
            # each matching document's row (which holds its text): 3x faster at 10k
            # when they keep few of the matches.
            sql = (
                f"{_ALLOWED.format(where=where)} SELECT {table}.rowid, {score} AS s"
                f" FROM {table} CROSS JOIN allowed a ON a.r = {table}.rowid"
                f" WHERE {table} MATCH ? AND {table}.rowid >= ? ORDER BY s LIMIT ?"
            )
            rows = self.conn.execute(sql, (*params, *w, match, floor, limit))
        else:
            sql = (
                f"SELECT {table}.rowid, {score} AS s FROM {table}"
                f" JOIN docs d ON d.rowid = {table}.rowid WHERE {table} MATCH ? {where}"
                f" AND {table}.rowid >= ? ORDER BY s LIMIT ?"
            )
            rows = self.conn.execute(sql, (*w, match, *params, floor, limit))
        return {rowid: -value for rowid, value in rows}


def _scan_floor(
    conn: sqlite3.Connection, match: str, where: str, params: list[Any], scan: int, gather: bool
) -> int:
    """The lowest rowid that BM25 scores: that of the ``scan``-th newest match.

    Walking the matches in rowid order without scoring them is cheap (a
    tenth of the cost of scoring them), and it stops after ``scan``.
    """
    if not where:
        sql = "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?"
        args: tuple[Any, ...] = (match, scan - 1)
    elif gather:
        sql = (
            f"{_ALLOWED.format(where=where)} SELECT fts.rowid"
            " FROM fts CROSS JOIN allowed a ON a.r = fts.rowid"
            " WHERE fts MATCH ? ORDER BY fts.rowid DESC LIMIT 1 OFFSET ?"
        )
        args = (*params, match, scan - 1)
    else:
        sql = (
            "SELECT fts.rowid FROM fts JOIN docs d ON d.rowid = fts.rowid"
            f" WHERE fts MATCH ? {where} ORDER BY fts.rowid DESC LIMIT 1 OFFSET ?"
        )
        args = (match, *params, scan - 1)
    row = conn.execute(sql, args).fetchone()
    return int(row[0]) if row is not None else 0
