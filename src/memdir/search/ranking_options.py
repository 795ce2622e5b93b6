"""The knobs of the ranking beyond BM25 itself, and the default field weights.

:class:`RankingOptions` travels with a :class:`~memdir.search.engine.TextIndex`
and every stage after BM25 reads it (:mod:`memdir.search.reranking`,
:mod:`memdir.search.group_prior`, :mod:`memdir.search.length_norm`,
:mod:`memdir.search.date_ranges`). Each default was chosen on corpora of
different shapes (``benchmarks/locomo.py``, ``benchmarks/coding_sessions.py``,
``benchmarks/notes_logs.py``), whose docstrings log what was measured.
"""

from __future__ import annotations

from memdir.utils.records import field, record

TYPE_CHECKING = False  # not typing's: recall ranks before every prompt, in a fresh process
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Literal

__all__ = ["DEFAULT_WEIGHTS", "RankingOptions"]

DEFAULT_WEIGHTS: Mapping[str, float] = {
    "name": 3.0,
    "description": 2.0,
    "body": 1.0,
    "context": 0.3,
    "dates": 0.5,
}


@record
class RankingOptions:
    """Knobs of the ranking beyond BM25 field weights.

    ``feedback_terms`` > 0 turns on pseudo-relevance feedback from the top
    ``feedback_docs`` hits, mixed in at ``feedback_weight``; ``neighbour_weight``
    adds that share of the best adjacent document's score (same group);
    ``fusion`` merges with embeddings by ``"linear"`` (BM25 scaled to its best
    hit plus ``dense_weight`` times the cosine) or ``"rrf"`` (reciprocal-rank
    fusion, constant ``rrf_k``); ``embed_previous`` embeds each document with
    the start of the one before it in its group (the question a reply answers),
    ``embed_name`` with its name first (a turn's speaker, a memory's name: a
    question names the speaker a turn's text never says; LoCoMo DEV hybrid @5
    +1.6 [+0.5, +2.6], ``benchmarks/locomo.py``). ``dense_floor``: a document no
    query word matches is a hit only when its cosine reaches that floor, so a query
    nothing in the store is about finds nothing (the cosine ranks every document;
    0.3 is chosen in ``benchmarks/dense_floor.py``).
    ``context_share``: a document with neighbours' text (a turn) scores that share
    of its BM25 over its text, the context and the dates together (one row,
    normalised by their joint length), plus the rest of its BM25 over its own
    columns alone (normalised by its own length), so a short turn between two
    long replies keeps the score of its own words. ``window_share`` raises a turn's
    context score by that share of its gap to the best adjacent turn's (whose window
    of three turns holds it too). ``group_share`` lifts each document by that share of
    the best score, scaled by how well its group (a transcript) matches the query as a
    whole (:mod:`memdir.search.group_prior`). ``date_share`` lifts a document dated in
    a range of days the query names, or up to ``date_slack`` days after it, by that
    share of its score (:mod:`memdir.search.date_ranges`). ``length_b``: BM25's length
    normalisation of a document's own text (FTS5 fixes 0.75; 1 keeps a long text that
    repeats the query's words from outranking the short one that answers it;
    :mod:`memdir.search.length_norm`). ``window_fields``: a turn's window scored as
    BM25F, its own text normalised by its own length and its neighbours' by theirs
    (False: one row normalised by the window's whole length, where a long reply
    between two short turns counts as a short window); ``window_text_b``: the
    ``b`` of a turn's own text within its window (its neighbours' text keeps 0.75).
    ``idf``: ``"lucene"``,
    ``ln(1 + (N - n + 0.5) / (n + 0.5))``, or ``"fts5"``, FTS5's own, which is
    zero for a word more than half the documents hold (a project's own subject).
    BM25 keeps the best ``candidates``; a query matching more than
    ``scan_limit`` documents is scored over the ``scan_limit`` matches indexed
    last (the newest: a catalog indexes files oldest first) and every match of
    its rarer terms (those in fewer than ``scan_limit`` documents), since
    scoring every match of a word most documents hold costs a few microseconds
    each.
    """

    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    feedback_terms: int = 0
    feedback_docs: int = 3
    feedback_weight: float = 0.3
    neighbour_weight: float = 0.2
    name_boost: float = 0.3
    fusion: Literal["linear", "rrf"] = "linear"
    embed_previous: bool = True
    embed_name: bool = True
    rrf_k: int = 60
    dense_weight: float = 1.0
    dense_floor: float = 0.3
    candidates: int = 200
    scan_limit: int = 2000
    context_share: float = 0.75
    window_share: float = 0.5
    group_share: float = 0.2
    date_share: float = 0.0
    date_slack: int = 3
    length_b: float = 1.0
    window_fields: bool = True
    window_text_b: float = 0.75
    idf: Literal["lucene", "fts5"] = "lucene"
