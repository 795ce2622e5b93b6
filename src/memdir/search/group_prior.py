"""The group prior: documents of a group that is about the query rank higher.

Grouped documents (the turns of one transcript, the entries of one daily
log) are retrieved as parts of a whole: the turn that answers a question
often shares few of its words, while the session it sits in holds most of
them, spread over several turns. So each group is scored as one document, by
BM25 over groups: a query term's frequency in a group is the number of its
documents that hold the term, saturated as BM25 saturates a term's
frequency (``k1`` = 1.2, no length normalisation: a long session is not
penalised for being long), weighted by the term's idf over groups. Every
grouped candidate then gains ``share`` of the best candidate's score, scaled
by its group's score over the best group's. A document in no group (a
memory) is a whole of its own, as much about the query as its own score
says: it gains ``share`` of that score, so in a search of memories and turns
together the best memory gains what the turns of the best session gain.

The statistics (how many groups hold a term, how many groups there are) are
the whole index's, as FTS5's are for BM25 itself. A search whose candidates
hold no grouped document (memories alone) is left as it is. Terms matching
``scan_limit`` documents or more are left out of the group scores: common
words carry little idf over groups, and walking all their matches would cost
what BM25's scan limit saves (:mod:`memdir.search.lexical`). Measured in
``benchmarks/locomo.py``: LoCoMo DEV turn recall@10 +0.9 [+0.2, +1.8] (paired
bootstrap, 95 %), 100,000 turns 1.5 ms a search more.
"""

from __future__ import annotations

__all__ = ["GroupCount", "group_scores", "lift_by_group"]

import math
import sqlite3

from memdir.search import terms as textproc
from memdir.search.sql_in import rows_in

_K1 = 1.2


class GroupCount:
    """How many groups an index holds, counted again only after it changed.

    Counting the distinct groups walks an index of every document (4 ms at
    100,000 turns): more than the rest of the prior, so one count serves
    every search until a write, by this connection or another, changes the file.
    """

    def __init__(self) -> None:
        self._seen: tuple[int, int] | None = None
        self._count = 0

    def __call__(self, conn: sqlite3.Connection) -> int:
        """The number of groups in ``conn``'s index."""
        # data_version changes when another connection commits; total_changes counts
        # this connection's own writes.
        seen = (int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes)
        if seen != self._seen:
            sql = "SELECT count(*) FROM (SELECT DISTINCT grp FROM docs WHERE grp IS NOT NULL)"
            self._count = int(conn.execute(sql).fetchone()[0])
            self._seen = seen
        return self._count


def lift_by_group(
    conn: sqlite3.Connection,
    scores: dict[int, float],
    wanted: list[str],
    *,
    share: float,
    scan_limit: int,
    count: GroupCount | None = None,
) -> dict[int, float]:
    """``scores`` (by rowid) with each candidate lifted by its group's score (see above).

    ``count`` keeps the number of groups between searches (counted afresh without one).
    """
    if not scores or not wanted or share <= 0:
        return scores
    sql = "SELECT rowid, grp FROM docs WHERE rowid IN ({in}) AND grp IS NOT NULL"
    group_of: dict[int, str] = dict(rows_in(conn, sql, scores))
    if not group_of:
        return scores
    groups = (count or GroupCount())(conn)
    by_group = group_scores(conn, wanted, groups, scan_limit=scan_limit)
    best = max((by_group.get(g, 0.0) for g in group_of.values()), default=0.0)
    if best <= 0:  # no group holds a term rare enough to count: nothing is lifted
        return scores
    lift = share * max(scores.values()) / best
    out = {}
    for rowid, value in scores.items():
        group = group_of.get(rowid)
        if group is None:
            out[rowid] = value * (1.0 + share)
        else:
            out[rowid] = value + lift * by_group.get(group, 0.0)
    return out


def group_scores(
    conn: sqlite3.Connection, wanted: list[str], groups: int, *, scan_limit: int
) -> dict[str, float]:
    """BM25 over the ``groups`` groups of the query terms ``wanted``, by group (see above).

    The statistics are the whole index's, as FTS5's are for BM25 itself.
    """
    out: dict[str, float] = {}
    for term in dict.fromkeys(wanted):
        match = textproc.fts_query([term])
        sql = "SELECT count(*) FROM (SELECT rowid FROM fts WHERE fts MATCH ? LIMIT ?)"
        if conn.execute(sql, (match, scan_limit)).fetchone()[0] >= scan_limit:
            continue
        rows = conn.execute(
            "SELECT d.grp, count(*) FROM fts JOIN docs d ON d.rowid = fts.rowid"
            " WHERE fts MATCH ? AND d.grp IS NOT NULL GROUP BY d.grp",
            (match,),
        ).fetchall()
        df = len(rows)
        idf = math.log(1.0 + (groups - df + 0.5) / (df + 0.5))
        for key, tf in rows:
            out[key] = out.get(key, 0.0) + idf * tf * (_K1 + 1.0) / (tf + _K1)
    return out
