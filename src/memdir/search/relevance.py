"""A relevance floor: whether a match is strong enough to show, from the store's own statistics.

BM25 orders matches but says nothing about whether the best of them is any
good: a prompt that shares only "use" with one memory still ranks it first.
Recall, which puts what it finds in front of the agent on every prompt,
needs an absolute answer, and this module gives one from the documents a
query may see (their count ``N`` and each query term's document frequency
``df``, the statistics BM25 itself uses):

- A query term weighs ``w = idf(df) / idf(1)``, BM25's idf scaled by that of
  a term only one document holds: 1 for a word unique to one memory, falling
  towards 0 for a word most memories hold. Conversational words
  (:data:`GENERIC_WORDS`: "use", "user", "write", "thanks" ...) are dropped
  first: a store may hold them rarely, and still they never say what a
  prompt is about. The list is short; the weights do the rest.
- A term the prompt writes as a name is written (:func:`specific_terms`: with a
  digit, or a capital inside a sentence: "ledger note 17", "Maya", "VAT")
  weighs ``specific_share`` (1.25) times as much: a number, an identifier or a
  proper noun names one thing, where a lower-case word just as rare in the
  store ("lines", "format") is a word of the language. So one such term held
  by one memory's name or description is enough, one plain word is not.
- A document's ``strength`` is the weight of the query terms it holds, those
  found only in its body at ``body_share`` (a description is written to be
  matched on; a body mentions much in passing): how many unique words' worth
  of evidence it has. Its ``coverage`` is that over the weight of every
  informative query term (one the store does not hold at ``unknown_weight``):
  the share of what the prompt asks that it answers.

:class:`RelevanceFloor` admits a match whose strength and coverage reach
their minimums, or whose name and description hold every informative query
term (two or more: in a store of notes on one subject every word of a
question about it is common), and among those keeps the ones within
``min_share`` of the strongest (0 by default: every admitted match). For a
prompt of one informative word, more memories holding that word only lower
its weight: no memory that was below the floor rises above it
(``tests/test_relevance.py`` checks this).

The defaults were chosen on the dev half of ``benchmarks/recall_precision.py``
(a grid, the best mean of precision and recall keeping 90 % of the prompts no
memory serves silent; ties to the lower knobs) and checked on its held-out
half: see that script.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
import sqlite3

from memdir.search import terms as textproc
from memdir.search.sql_in import rows_in
from memdir.utils.records import record

TYPE_CHECKING = False  # not typing's: every prompt's recall is judged through here
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

__all__ = [
    "GENERIC_WORDS",
    "Relevance",
    "RelevanceFloor",
    "informative_terms",
    "relevance",
    "specific_terms",
    "term_weights",
]

# Words of requests and chat that name no subject. Kept short on purpose: the idf
# weighting does the rest, from the store's own vocabulary.
GENERIC_WORDS: frozenset[str] = frozenset(
    """
    use used uses using user users write writes writing wrote thanks thank please help
    need want make get like know think ok okay yes sure good great nice go going
    continue try thing things something anything way look tell give see
    """.split()
)
_GENERIC_TERMS = frozenset(textproc.stem(word) for word in GENERIC_WORDS)


@record
class Relevance:
    """What one document holds of a query: the informative terms, their weights, and where.

    ``weights`` pairs every informative query term some document holds with
    its weight; ``unknown`` counts those no document holds; ``head`` are the
    terms in this document's name or description, ``body`` those only in its body.
    """

    weights: tuple[tuple[str, float], ...]
    unknown: int
    head: frozenset[str]
    body: frozenset[str]
    specific: frozenset[str] = frozenset()


@record
class RelevanceFloor:
    """The least a match must reach to count (see the module docstring).

    A term found only in the body earns ``body_share`` of its weight (a
    description is written to be matched on, a body mentions much in
    passing); a query term no document holds weighs ``unknown_weight``, and all of
    them together at most ``max_unknown`` (a pasted log of a thousand words the store
    has never seen says nothing about which memory the question wants). A term the
    prompt spells as a name (:func:`specific_terms`) weighs ``specific_share`` times
    its weight. Among the matches of one query, :meth:`admitted` also drops those
    under ``min_share`` of the strongest one's strength.
    """

    min_strength: float = 1.25
    min_coverage: float = 0.15
    specific_share: float = 1.25
    body_share: float = 0.5
    unknown_weight: float = 0.5
    max_unknown: float = 2.0
    min_share: float = 0.0

    def strength(self, match: Relevance) -> float:
        """The weight of the query terms ``match`` holds (body-only terms at ``body_share``)."""
        head = sum(self._weight(match, t, w) for t, w in match.weights if t in match.head)
        body = sum(self._weight(match, t, w) for t, w in match.weights if t in match.body)
        return head + self.body_share * body

    def _weight(self, match: Relevance, term: str, weight: float) -> float:
        return weight * self.specific_share if term in match.specific else weight

    def coverage(self, match: Relevance) -> float:
        """:meth:`strength` over the weight of every informative query term."""
        unknown = min(self.unknown_weight * match.unknown, self.max_unknown)
        asked = sum(self._weight(match, t, w) for t, w in match.weights) + unknown
        return self.strength(match) / asked if asked > 0 else 0.0

    def admitted(self, matches: Mapping[str, Relevance]) -> set[str]:
        """The keys of the matches it admits that reach ``min_share`` of the best one's strength."""
        strong = {key: self.strength(m) for key, m in matches.items() if self.admits(m)}
        best = max(strong.values(), default=0.0)
        return {key for key, value in strong.items() if value >= self.min_share * best}

    def admits(self, match: Relevance) -> bool:
        """Whether ``match`` reaches both minimums, or names every word the query asks.

        A name or description holding every informative query term (two or more)
        answers the query however common those terms are in the store: in a
        store of notes on one subject, every word of a question about it is common.
        """
        if match.unknown == 0 and len(match.weights) >= 2 and len(match.head) == len(match.weights):
            return True
        strength = self.strength(match)
        return strength > 0 and (
            strength >= self.min_strength and self.coverage(match) >= self.min_coverage
        )


def informative_terms(query: str) -> list[str]:
    """The query's terms (:func:`~memdir.search.terms.query_terms`) without generic words."""
    return [t for t in textproc.query_terms(query) if t not in _GENERIC_TERMS]


_SPELLED = re.compile(r"[^\W_]+")
_SENTENCE_END = frozenset(".!?:;\n")


def specific_terms(query: str) -> frozenset[str]:
    """The query's terms written as names are: with a digit, or a capital inside a sentence.

    "ledger note 17", "what does Maya write?", "the VAT amount": a number, an
    identifier or a proper noun names one thing, where a lower-case word of the
    same rarity in the store ("lines", "format") is a word of the language. A
    capital opening a sentence says nothing, and in a prompt written mostly in
    capitals (a title, or shouting) none do.
    """
    found: list[tuple[str, bool]] = []
    for m in _SPELLED.finditer(query):
        word = m.group()
        before = query[: m.start()].rstrip(" \t\"'([{*`")
        opens = not before or before[-1] in _SENTENCE_END
        capital = word[0].isupper() or (len(word) > 1 and any(c.isupper() for c in word[1:]))
        found.append((word, any(c.isdigit() for c in word) or (capital and not opens)))
    capitals = sum(1 for word, _ in found if word[0].isupper())
    shouted = 2 * capitals > len(found) > 2
    out: set[str] = set()
    for word, named in found:
        if named and not (shouted and not any(c.isdigit() for c in word)):
            out.update(t for t in textproc.terms(word) if t not in _GENERIC_TERMS)
    return frozenset(out)


def term_weights(counts: Mapping[str, int], total: int) -> dict[str, float]:
    """Each term's ``idf(df) / idf(1)`` over ``total`` documents (terms of ``df`` 0 left out)."""
    if total <= 0:
        return {}
    top = _idf(1, total)
    return {term: _idf(df, total) / top for term, df in counts.items() if df > 0}


def _idf(df: int, total: int) -> float:
    # BM25's idf, as FTS5 computes it (never below zero).
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))


def relevance(
    conn: sqlite3.Connection,
    query: str,
    rowids: Iterable[int],
    *,
    where: str = "",
    params: Sequence[Any] = (),
) -> dict[int, Relevance]:
    """What each of ``rowids`` holds of ``query`` (:class:`Relevance`), in an index's database.

    ``where``/``params`` are the query's filters (``AND d.…`` clauses over
    ``docs d``): the statistics are those of the documents it may see.
    """
    wanted = informative_terms(query)
    rows = list(dict.fromkeys(rowids))
    if not rows:
        return {}
    total, counts = _statistics(conn, wanted, where, list(params)) if wanted else (0, {})
    weights = term_weights(counts, total)
    known = tuple((t, weights[t]) for t in wanted if t in weights)
    unknown = len(wanted) - len(known)
    out = {}
    specific = frozenset(t for t, _ in known) & specific_terms(query)
    for rowid, (head, body) in _terms_of(conn, rows).items():
        out[rowid] = Relevance(
            weights=known,
            unknown=unknown,
            head=frozenset(t for t, _ in known if t in head),
            body=frozenset(t for t, _ in known if t in body and t not in head),
            specific=specific,
        )
    return out


def _statistics(
    conn: sqlite3.Connection, wanted: list[str], where: str, params: list[Any]
) -> tuple[int, dict[str, int]]:
    """How many documents the filter keeps, and how many of them hold each term."""
    everything = int(conn.execute("SELECT count(*) FROM docs").fetchone()[0])
    total = everything
    if where:
        sql = f"SELECT count(*) FROM docs d WHERE 1 {where}"
        total = int(conn.execute(sql, params).fetchone()[0])
    # A term a date's words hold ("7", "december", "monday") is in every document of that
    # day's dates column, which the floor never reads: it is counted in the columns it
    # does read, or a prompt about "note 7" finds every note common on the 7th.
    dated = [t for t in wanted if _may_be_a_date(t)]
    counts = {}
    if 2 * total >= everything:
        # The filter keeps most documents (memories of both scopes, say): the FTS
        # vocabulary's document frequencies, scaled to the share kept, stand for
        # theirs. Counting each term's matches through the filter costs a lookup
        # per match (30 ms for three common words at 10,000 memories).
        found = dict(rows_in(conn, "SELECT term, doc FROM vocab WHERE term IN ({in})", wanted))
        share = total / everything if everything else 1.0
        counts = {t: _scaled(int(found.get(t, 0)), share) for t in wanted if t not in dated}
    sql = f"SELECT count(*) FROM fts JOIN docs d ON d.rowid = fts.rowid WHERE fts MATCH ? {where}"
    for term in wanted:
        if term in counts:
            continue
        match = textproc.fts_query([term])
        if term in dated:
            match = f"{{name description body}} : {match}"
        counts[term] = int(conn.execute(sql, [match, *params]).fetchone()[0])
    return total, counts


@functools.cache
def _date_names() -> frozenset[str]:
    """The terms of month and weekday names, as a document's date words write them."""
    days = [dt.date(2001, 1, day) for day in range(1, 8)]  # Monday to Sunday
    months = [dt.date(2001, month, 1) for month in range(1, 13)]
    words = [f"{d:%A}" for d in days] + [f"{m:%B}" for m in months]
    return frozenset(textproc.terms(" ".join(words)))


def _may_be_a_date(term: str) -> bool:
    """Whether ``term`` can stand in a date's words: a day of the month, a year, a month's
    or a weekday's name."""
    if term.isdigit():
        return int(term) <= 31 or len(term) == 4
    return term in _date_names()


def _scaled(df: int, share: float) -> int:
    """``df`` times ``share``, but at least 1 for a term some document holds."""
    return max(round(df * share), 1) if df else 0


def _terms_of(
    conn: sqlite3.Connection, rowids: list[int]
) -> dict[int, tuple[frozenset[str], frozenset[str]]]:
    """Each document's terms: of its name and description, and of its body."""
    rows = rows_in(
        conn, "SELECT rowid, name, description, body FROM fts WHERE rowid IN ({in})", rowids
    )
    return {
        rowid: (frozenset(f"{name} {description}".split()), frozenset(body.split()))
        for rowid, name, description, body in rows
    }
