"""The stages after BM25: each re-scores the candidates a search's BM25 pass kept.

:class:`~memdir.search.engine.TextIndex` runs them in order, each one a
function of the candidates' scores (by rowid) and the index's tables:

- :func:`feedback_terms`: the terms the top hits share, for a second BM25
  pass (pseudo-relevance feedback, off by default);
- :func:`fuse_dense`: with an embedder, BM25 merged with cosine similarity;
- :func:`lift_named`: a document whose name (a turn's speaker) the query
  mentions is lifted by a factor (after the group prior and the fusion);
- :func:`smooth_neighbours`: each document lent a share of its best adjacent
  document's score (the turns of one transcript).

The knobs and the measurements behind their defaults are in
:class:`~memdir.search.engine.RankingOptions` and ``benchmarks/locomo.py``.
"""

from __future__ import annotations

__all__ = ["feedback_terms", "fuse_dense", "lift_named", "smooth_neighbours"]

from memdir.search import terms as textproc
from memdir.search.sql_in import rows_in

# Not typing.TYPE_CHECKING: recall ranks before every prompt, in a fresh process; the
# embeddings module (and typing) load only for a catalog that has an embedder.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Mapping
    from typing import Any, Literal

    from memdir.search.embeddings import Embedder


def lift_named(
    conn: sqlite3.Connection, scores: dict[int, float], wanted: list[str], boost: float
) -> dict[int, float]:
    """``scores`` with each document whose name holds a query term multiplied by ``1 + boost``.

    A name the query mentions (the speaker of a turn) is too common to carry idf,
    yet it separates "what did Anna say" from what others said about Anna.
    """
    rows = rows_in(conn, "SELECT rowid, name FROM fts WHERE rowid IN ({in})", scores)
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
    conn: sqlite3.Connection,
    embedder: Embedder,
    model: str,
    query: str,
    scores: dict[int, float],
    where: str,
    params: list[Any],
    *,
    fusion: Literal["linear", "rrf"],
    dense_weight: float,
    dense_floor: float = 0.0,
    rrf_k: int,
    candidates: int,
) -> dict[int, float]:
    """BM25 ``scores`` merged with the cosine similarity of the documents the filter keeps.

    ``model`` is the key the documents' vectors are stored under
    (:attr:`~memdir.search.engine.TextIndex.vector_model`); the query is embedded by
    ``embedder``.

    ``"linear"``: BM25 scaled to its best hit plus ``dense_weight`` times the
    cosine; ``"rrf"``: reciprocal-rank fusion of both rankings (the nearest
    ``candidates`` of the dense one), constant ``rrf_k``. A document BM25 did not
    find takes part only with a cosine of at least ``dense_floor``, and only the
    ``candidates`` nearest such.
    """
    rows = conn.execute(
        f"SELECT v.rowid, v.vec FROM vectors v JOIN docs d ON d.rowid = v.rowid"
        f" WHERE v.model = ? {where}",
        (model, *params),
    ).fetchall()
    if not rows:
        return scores
    from memdir.search.embeddings import cosine_scores, rrf

    dense = cosine_scores(embedder.embed([query])[0], rows)
    # BM25's candidates, and the ``candidates`` nearest of the rest that reach the floor:
    # the stages after the fusion then look at a few hundred documents, not every one.
    others = sorted((r for r in dense if r not in scores), key=lambda r: -dense[r])
    kept = set(scores) | {r for r in others[:candidates] if dense[r] >= dense_floor}
    dense = {r: v for r, v in dense.items() if r in kept}
    if fusion == "linear":
        top = max(scores.values(), default=0.0) or 1.0
        fused = {r: dense_weight * max(v, 0.0) for r, v in dense.items()}
        for rowid, value in scores.items():
            fused[rowid] = fused.get(rowid, 0.0) + value / top
        return fused
    lexical = sorted(scores, key=lambda r: -scores[r])
    nearest = sorted(dense, key=lambda r: -dense[r])[:candidates]
    return rrf([lexical, nearest], k=rrf_k, weights=[1.0, dense_weight])
