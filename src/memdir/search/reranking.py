"""The stages after BM25: each re-scores the candidates a search's BM25 pass kept.

:class:`~memdir.search.engine.TextIndex` runs them in order, each one a
function of the candidates' scores (by rowid) and the index's tables:

- :func:`feedback_terms`: the terms the top hits share, for a second BM25
  pass (pseudo-relevance feedback, off by default);
- :func:`fuse_dense`: with an embedder, BM25 merged with cosine similarity (the
  cosines from :func:`dense_candidates`: the vector index, or where it cannot
  answer :func:`exact_dense`'s scan of the vectors table);
- :func:`lift_named`: a document whose name (a turn's speaker) the query
  mentions is lifted by a factor (after the group prior and the fusion);
- :func:`smooth_neighbours`: each document lent a share of its best adjacent
  document's score (the turns of one transcript).

The knobs and the measurements behind their defaults are in
:class:`~memdir.search.engine.RankingOptions` and ``benchmarks/locomo.py``.
"""

from __future__ import annotations

__all__ = [
    "dense_candidates",
    "exact_dense",
    "feedback_terms",
    "fuse_dense",
    "lift_named",
    "nearest_rows",
    "passing",
    "smooth_neighbours",
]

from memdir.search import terms as textproc
from memdir.search.sql_in import rows_in

# Not typing.TYPE_CHECKING: recall ranks before every prompt, in a fresh process; the
# embeddings module (and typing) load only for a catalog that has an embedder.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Collection, Mapping, Sequence
    from typing import Any, Literal

    from memdir.search.vectors.scoring import Product
    from memdir.search.vectors.vector_index import VectorIndex

    Filter = tuple[str, list[Any]]  # an SQL filter on ``d`` (the docs table), its parameters


def lift_named(
    conn: sqlite3.Connection, scores: dict[int, float], wanted: list[str], boost: float
) -> dict[int, float]:
    """``scores`` with each turn whose name holds a query term multiplied by ``1 + boost``.

    A name the query mentions (the speaker of a turn) is too common to carry idf,
    yet it separates "what did Anna say" from what others said about Anna. Only
    grouped documents (turns) are lifted: a memory's name says what it is about,
    and BM25 weighs it already (lifted again, a memory named after the query's
    subject outranked the log entry that answers it; ``benchmarks/notes_logs.py``).
    """
    sql = (
        "SELECT f.rowid, f.name FROM fts f JOIN docs d ON d.rowid = f.rowid"
        " WHERE f.rowid IN ({in}) AND d.grp IS NOT NULL"
    )
    rows = rows_in(conn, sql, scores)
    asked = set(wanted)
    named = {rowid for rowid, name in rows if not asked.isdisjoint(name.split())}
    factor = 1.0 + boost
    return {r: v * factor if r in named else v for r, v in scores.items()}


def feedback_terms(
    conn: sqlite3.Connection,
    scores: Mapping[int, float],
    wanted: list[str],
    *,
    docs: int,
    limit: int,
) -> list[tuple[str, float]]:
    """Up to ``limit`` terms the best ``docs`` documents share (not in ``wanted``), by weight."""
    top = sorted(scores, key=lambda r: -scores[r])[:docs]
    sql = "SELECT name, description, body FROM fts WHERE rowid IN ({in})"
    texts = [f"{n} {d} {b}".split() for n, d, b in rows_in(conn, sql, top)]
    pool = sorted({t for text in texts for t in text} - set(wanted))
    if not pool:
        return []
    freq = dict(rows_in(conn, "SELECT term, doc FROM vocab WHERE term IN ({in})", pool))
    total = int(conn.execute("SELECT count(*) FROM docs").fetchone()[0])
    return textproc.expansion_terms(texts, freq, total, exclude=wanted, limit=limit)


def smooth_neighbours(
    conn: sqlite3.Connection, scores: dict[int, float], weight: float
) -> dict[int, float]:
    """Each grouped document's score plus ``weight`` times its best adjacent one's (same group)."""
    sql = "SELECT rowid, grp, seq FROM docs WHERE rowid IN ({in})"
    place = {
        rowid: (grp, seq)
        for rowid, grp, seq in rows_in(conn, sql, scores)
        if grp is not None and seq is not None
    }
    by_place = {where: scores[rowid] for rowid, where in place.items()}
    out = dict(scores)
    for rowid, (grp, seq) in place.items():
        near = max(by_place.get((grp, seq - 1), 0.0), by_place.get((grp, seq + 1), 0.0))
        out[rowid] = scores[rowid] + weight * near
    return out


def fuse_dense(
    scores: dict[int, float],
    known: Mapping[int, float],
    nearest: Sequence[tuple[int, float]],
    *,
    fusion: Literal["linear", "rrf"],
    dense_weight: float,
    dense_floor: float = 0.0,
    rrf_k: int,
    candidates: int,
) -> dict[int, float]:
    """BM25 ``scores`` merged with the cosines of ``known`` and ``nearest``.

    ``known`` holds the cosines of BM25's candidates, ``nearest`` the ``candidates``
    nearest of the other documents the filters keep, best first (the vector index's
    :meth:`~memdir.search.vectors.vector_index.VectorIndex.dense`, or :func:`exact_dense`).

    ``"linear"``: BM25 scaled to its best hit plus ``dense_weight`` times the
    cosine; ``"rrf"``: reciprocal-rank fusion of both rankings (the nearest
    ``candidates`` of the dense one), constant ``rrf_k``. A document BM25 did not
    find takes part only with a cosine of at least ``dense_floor``.
    """
    if not known and not nearest:
        return scores  # no vector under the filters: BM25 as it is
    from memdir.search.vectors.embeddings import rrf

    # BM25's candidates, and the nearest of the rest that reach the floor: the stages
    # after the fusion then look at a few hundred documents, not every one.
    dense = {rowid: cosine for rowid, cosine in nearest if cosine >= dense_floor}
    dense.update(known)
    if fusion == "linear":
        top = max(scores.values(), default=0.0) or 1.0
        fused = {r: dense_weight * max(v, 0.0) for r, v in dense.items()}
        for rowid, value in scores.items():
            fused[rowid] = fused.get(rowid, 0.0) + value / top
        return fused
    lexical = sorted(scores, key=lambda r: -scores[r])
    ranked = sorted(dense, key=lambda r: (-dense[r], r))[:candidates]
    return rrf([lexical, ranked], k=rrf_k, weights=[1.0, dense_weight])


def exact_dense(
    conn: sqlite3.Connection,
    model: str,
    vector: Sequence[float],
    scores: Mapping[int, float],
    where: str,
    params: list[Any],
    *,
    k: int,
) -> tuple[dict[int, float], list[tuple[int, float]]]:
    """What :func:`fuse_dense` takes, by reading every vector the filter ``where`` keeps.

    Where the vector index cannot answer (no numpy, a full disk): the cosines of
    ``scores``' documents, and the ``k`` nearest of the rest, best first (equal
    cosines by rowid), under ``model``'s key.
    """
    rows = conn.execute(
        f"SELECT v.rowid, v.vec FROM vectors v JOIN docs d ON d.rowid = v.rowid"
        f" WHERE v.model = ? {where} ORDER BY v.rowid",
        (model, *params),
    ).fetchall()
    if not rows:
        return {}, []
    from memdir.search.vectors.embeddings import cosine_scores

    dense = cosine_scores(vector, rows)
    known = {rowid: dense[rowid] for rowid in scores if rowid in dense}
    others = sorted((r for r in dense if r not in scores), key=lambda r: (-dense[r], r))
    return known, [(rowid, dense[rowid]) for rowid in others[:k]]


def dense_candidates(
    conn: sqlite3.Connection,
    index: VectorIndex | None,
    model: str,
    vector: Sequence[float],
    scores: Mapping[int, float],
    *,
    kinds: Collection[str] | None,
    rest: Filter,
    where: Filter,
    k: int,
    started: Product | None = None,
) -> tuple[dict[int, float], list[tuple[int, float]]]:
    """What :func:`fuse_dense` takes: BM25's candidates' cosines, and the ``k`` nearest others.

    From the vector ``index``: ``kinds`` picks its pages, and ``rest`` (the query's
    other filters) is asked of the rows it ranks best; ``started`` is the index's
    product for this query, begun while BM25 ran (:meth:`VectorIndex.start`). From
    :func:`exact_dense`, under the whole filter ``where``, without an index or where
    it cannot answer (a full disk, its lock held too long).
    """
    if index is not None:
        from memdir.search.vectors.scoring import Unavailable

        rest_sql, rest_params = rest

        def keep(rowids: Sequence[int]) -> set[int]:
            return passing(conn, rowids, rest_sql, rest_params)

        try:
            return index.dense(
                conn,
                model,
                vector,
                known=scores.keys(),
                k=k,
                kinds=kinds,
                keep=keep if rest_sql else None,
                started=started,
            )
        except Unavailable:
            pass
    return exact_dense(conn, model, vector, scores, *where, k=k)


def nearest_rows(
    conn: sqlite3.Connection,
    index: VectorIndex | None,
    model: str,
    vector: Sequence[float],
    k: int,
    *,
    kinds: Collection[str] | None,
    skip: Sequence[int],
) -> list[tuple[int, float]]:
    """The ``k`` rowids of ``kinds`` nearest ``vector``, none of ``skip``: best first."""
    if index is not None:
        from memdir.search.vectors.scoring import Unavailable

        try:
            return index.nearest(conn, model, vector, k, kinds=kinds, skip=skip)
        except Unavailable:
            pass
    where, params = "", list[object]()
    if kinds is not None:
        where += f" AND d.kind IN ({','.join('?' * len(kinds))})"
        params.extend(sorted(kinds))
    if skip:
        where += f" AND d.rowid NOT IN ({','.join('?' * len(skip))})"
        params.extend(skip)
    return exact_dense(conn, model, vector, {}, where, params, k=k)[1]


def passing(
    conn: sqlite3.Connection, rowids: Sequence[int], where: str, params: list[Any]
) -> set[int]:
    """Which of ``rowids`` the filter ``where`` (on ``d``, the docs table) keeps."""
    kept: set[int] = set()
    for at in range(0, len(rowids), 500):
        part = list(rowids[at : at + 500])
        sql = f"SELECT d.rowid FROM docs d WHERE d.rowid IN ({','.join('?' * len(part))}){where}"
        kept.update(rowid for (rowid,) in conn.execute(sql, [*part, *params]))
    return kept
