"""Scoring a view of the vector index: one query's cosines, the nearest among them.

A :class:`View` is the index as of one catalog state (its pages, never changed once
made); :func:`score` is one matrix-vector product per page of the kinds a query asks
for, into one array, and :func:`best` the ``argpartition`` that keeps the nearest,
ties broken by rowid as a full sort would (exact: see :mod:`memdir.search.vectors.vector_index`
for why not an approximate index). :class:`Product` runs :func:`score` in a thread of
its own while the search's thread runs BM25. :class:`Unavailable` is what a caller
falls back from to the exact scan of the vectors table.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memdir.errors import MemdirError
from memdir.search.vectors.vector_file import Page
from memdir.utils.records import field, record

__all__ = [
    "Keep",
    "Layout",
    "Product",
    "Scores",
    "Unavailable",
    "View",
    "among",
    "best",
    "score",
]

Keep = Callable[[Sequence[int]], Collection[int]]
"""Which of these rowids pass the filters the index cannot apply (scope, type, dates)."""
Scores = tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]
# The pages of some kinds, their rowids end to end, the positions of removed rows.
Layout = tuple[tuple[Page, ...], npt.NDArray[np.int64], npt.NDArray[np.intp]]


class Unavailable(MemdirError):
    """The vector index cannot answer now; the exact scan of the vectors table does."""


@record
class View:
    """The index as of one catalog state: what a search reads, never changed once made."""

    token: str
    seq: int
    model: str
    dim: int
    pages: tuple[Page, ...]
    source: Path | None  # the file the pages' vectors are read from (None: in memory)
    inode: int | None  # which file of that name (another process may replace it)
    layouts: dict[frozenset[str] | None, Layout] = field(default_factory=dict)  # by kinds


class Product:
    """:func:`score` of one query, under way in a thread of its own (:meth:`~.VectorIndex.start`).

    A thread a query, not a pool: starting one costs about 0.1 ms against the
    product's 2 to 25 ms, a process forked meanwhile inherits no pool whose
    threads it lacks, and nothing is left to shut down (``concurrent.futures``
    alone takes 25 ms to import, before every prompt's recall).
    """

    def __init__(self, view: View, vector: Sequence[float], kinds: Collection[str] | None) -> None:
        self.view = view
        self.vector = vector
        self.kinds = kinds
        self._scores: Scores | None = None
        self._error: Exception | None = None
        self._thread = threading.Thread(target=self._run, name="memdir-vectors", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._scores = score(self.view, self.vector, self.kinds)
        except Exception as exc:  # raised in the thread that asks for the result
            self._error = exc

    def result(self) -> Scores:
        """The rowids and cosines, as :func:`score` returns them (its errors raised here)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._scores is not None
        return self._scores


def score(view: View, vector: Sequence[float], kinds: Collection[str] | None) -> Scores:
    """The rowids of the pages of ``kinds`` end to end, and each one's cosine with
    ``vector``; a removed row's is minus infinity.

    :class:`Damaged` or :class:`Replaced` when a page read now does not check out or
    its file was written anew.
    """
    query = np.asarray(vector, dtype=np.float32)
    query = query / np.float32(float(np.linalg.norm(query)) + 1e-12)
    if view.dim and len(query) != view.dim:
        raise Unavailable(f"a query of {len(query)} dimensions against vectors of {view.dim}")
    pages, ids, dead = _layout(view, kinds)
    scores = np.empty(len(ids), dtype=np.float32)
    at = 0
    for page in pages:  # into one array: no copy of each page's scores
        np.dot(
            page.vectors(view.source, view.inode, view.dim), query, out=scores[at : at + page.used]
        )
        at += page.used
    scores[dead] = -np.inf
    return ids, scores


def _layout(view: View, kinds: Collection[str] | None) -> Layout:
    """The pages of ``kinds``, their rowids end to end and where removed rows are (made once
    per view and kinds: a search repeats none of it)."""
    key = None if kinds is None else frozenset(kinds)
    layout = view.layouts.get(key)
    if layout is None:
        pages = tuple(p for p in view.pages if p.live and (kinds is None or p.kind in kinds))
        ids = np.concatenate([p.rowids for p in pages]) if pages else np.empty(0, np.int64)
        layout = view.layouts[key] = (pages, ids, np.flatnonzero(ids < 0))
    return layout


def among(ids: npt.NDArray[np.int64], wanted: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Which of ``ids`` (rowids; -1: a removed row, never wanted) are in ``wanted`` (rowids).

    Looked up in a table by rowid while the rowids stay near the rows' count: over
    100,000 rows 0.15 ms, where ``np.isin`` took 1.4 ms (one run).
    """
    top = int(ids.max(initial=-1))
    if top > 4 * len(ids) + 65536:  # rowids far apart: a table would be mostly empty
        return np.isin(ids, wanted)
    table = np.zeros(top + 2, dtype=np.bool_)  # its last slot, where -1 looks, stays False
    table[wanted[(wanted >= 0) & (wanted <= top)]] = True
    return table[ids]


def best(
    ids: npt.NDArray[np.int64], scores: npt.NDArray[np.float32], k: int, keep: Keep | None
) -> list[tuple[int, float]]:
    """The ``k`` best rows that ``keep`` passes, best first, ties broken by rowid."""
    total = int(np.count_nonzero(scores > -np.inf))  # rows left out score minus infinity
    want = min(total, k if keep is None else 2 * k)
    while True:
        order = _top(ids, scores, want)
        found = list(zip(ids[order].tolist(), scores[order].tolist(), strict=True))
        if keep is not None:
            passed = set(keep([rowid for rowid, _ in found]))
            found = [pair for pair in found if pair[0] in passed]
        if keep is None or len(found) >= k or want >= total:
            return found[:k]
        want = min(total, want * 4)


def _top(
    ids: npt.NDArray[np.int64], scores: npt.NDArray[np.float32], m: int
) -> npt.NDArray[np.intp]:
    """Positions of the ``m`` best scores, best first; equal scores by rowid (as a sort would)."""
    if m <= 0:
        return np.empty(0, dtype=np.intp)
    if m < len(scores):
        cut = scores[np.argpartition(-scores, m - 1)[:m]].min()
        chosen = np.flatnonzero(scores >= cut)  # every tie at the cut, so the order is exact
    else:
        chosen = np.flatnonzero(scores > -np.inf)
    order = chosen[np.lexsort((ids[chosen], -scores[chosen]))]
    return order[:m]
