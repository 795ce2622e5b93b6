"""The vector index: a catalog's vectors in pages of float32, the nearest in milliseconds.

A hybrid search read every vector out of SQLite and kept every cosine in a dict
(4,000 memories: 90 ms a query, against 10 ms of BM25). :class:`VectorIndex` keeps
the vectors of one model beside the catalog, normalised, in one file
(:mod:`memdir.search.vector_file`); a query is one matrix-vector product per page
of the kinds it asks for, then ``argpartition`` for the nearest, as exact as the
scan it replaced (the tests hold it to that).

Trigger: an approximate index (HNSW, IVF) or int8 vectors would read less. Why not:
the flat product over 100,000 x 384 float32 takes 7.5 ms of one idle core (16 to 24
ms while other processes share the memory bandwidth, ``benchmarks/scale.py``); an
approximate index loses neighbours the fusion's results are held to (a sign-bit
sketch with twenty times the candidates rescored kept 58 % of the 200 nearest); and
numpy has no fast int8, bfloat16 or float16 product (converting a page to float32
first took longer than the float32 product: over 100,000 rows, float16 in chunks of
2,048 rows 107 ms, int8 20 ms and bfloat16 widened by a shift 25 ms, against 15 to
17 ms; one run each). Outcome: exact float32.

Trigger: at 100,000 memories a hybrid search cost BM25's time plus the product's
(53 ms against 31 lexical). Outcome: :meth:`VectorIndex.start` runs the product in a
thread of its own (:class:`Product`) while the search's thread runs BM25 (numpy and
SQLite let go of the GIL), and :meth:`VectorIndex.dense` awaits it: 37 ms, the same
results (``benchmarks/scale.py``, one run; with three busy processes beside it on
the two cores, 123 ms against 166 and 85 lexical). The index is brought up to date
before the thread starts, in the search's thread, which alone uses the connection.

Derived and rebuildable like the rest of the catalog. Triggers on its ``vectors``
table log each changed rowid (:mod:`memdir.search.vectors`), and the file's header
says which catalog (its token), model key and log entry it matches. A search
compares those first (one small query); when the catalog is ahead, under the file's
lock, the rows the log names since are made over (their slots set to -1, their
vectors as they are now appended). The file is written anew from the vectors table
when that is most of the index or leaves too many dead rows, when the model
differs, when the log was pruned past it, and when the file is missing, cut short,
damaged (a checksum, a size) or not a file at all (set aside, as
:mod:`memdir.storage.derived` does). What cannot be done (a full disk, the lock held
too long) raises :class:`Unavailable`: the caller then scans the vectors table,
slower and never wrong.

One index per file per process, shared by its threads' catalogs
(:func:`open_index`); each holds in memory the rowids of every page and the
vectors of the pages it searched (a recall, which asks for memories, reads the
memory pages alone). A catalog in memory (``":memory:"``) keeps its index in memory.
The module is imported after :func:`~memdir.search.embeddings.load_numpy` (one BLAS
thread; see there).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sqlite3
import threading
import zlib
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memdir.errors import LockTimeout, MemdirError
from memdir.search.vector_file import (
    HEADER,
    MIN_CAPACITY,
    PAGE_ROWS,
    Damaged,
    FileHeader,
    Page,
    Replaced,
    page_size,
    read_file,
    write_changes,
    write_file,
)
from memdir.search.vectors import LogState, changed_since, ensure_token, log_state, prune_log
from memdir.search.vectors import vector_rows as catalog_rows
from memdir.storage.derived import is_misplaced, set_aside
from memdir.storage.failures import ensure_room
from memdir.storage.fs import file_lock
from memdir.utils.records import field, record, replace

__all__ = [
    "Keep",
    "Product",
    "Scores",
    "Unavailable",
    "VectorIndex",
    "View",
    "close_index",
    "open_index",
    "score",
]

Keep = Callable[[Sequence[int]], Collection[int]]
"""Which of these rowids pass the filters the index cannot apply (scope, type, dates)."""
Scores = tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]
Row = tuple[int, str, bytes]  # a catalog row: rowid, kind, vector blob
# The pages of some kinds, their rowids end to end, the positions of removed rows.
Layout = tuple[tuple[Page, ...], npt.NDArray[np.int64], npt.NDArray[np.intp]]
LOCK_WAIT = 5.0  # seconds a search waits for another process bringing the file up to date
RESERVE = 256 << 10  # free bytes the index never takes, as the catalog (refresh.RESERVE)


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


class VectorIndex:
    """The vectors of a catalog (one model's), kept current with its ``vectors`` table.

    ``path`` is the index file (None: kept in memory only); ``page_rows`` the most
    rows a page holds.
    """

    def __init__(self, path: Path | None, *, page_rows: int = PAGE_ROWS) -> None:
        self.path = path
        self.page_rows = page_rows
        self.rebuilds = 0  # times it was made anew from the vectors table
        self.updates = 0  # times rows the log named were made over in it
        self.started = 0  # products begun in a thread of their own (:meth:`start`)
        self._view: View | None = None
        self._lock = threading.Lock()

    # --- answering -------------------------------------------------------------------

    def nearest(
        self,
        conn: sqlite3.Connection,
        model: str,
        vector: Sequence[float],
        k: int,
        *,
        kinds: Collection[str] | None = None,
        skip: Iterable[int] = (),
        keep: Keep | None = None,
    ) -> list[tuple[int, float]]:
        """The ``k`` rowids nearest ``vector`` by cosine, best first (ties: lower rowid).

        Among documents of ``kinds`` (None: all), not in ``skip``, and that ``keep``
        passes (asked of the best few, then of more as long as too few pass).
        """
        ids, scores = self._scores(conn, model, vector, kinds)
        left_out = np.fromiter(skip, dtype=np.int64)
        if len(left_out):
            scores[_among(ids, left_out)] = -np.inf
        return _best(ids, scores, k, keep)

    def dense(
        self,
        conn: sqlite3.Connection,
        model: str,
        vector: Sequence[float],
        *,
        known: Collection[int],
        k: int,
        kinds: Collection[str] | None = None,
        keep: Keep | None = None,
        started: Product | None = None,
    ) -> tuple[dict[int, float], list[tuple[int, float]]]:
        """The cosines of ``known`` (those with a vector), and the ``k`` nearest others.

        What the fusion takes (:func:`memdir.search.reranking.fuse_dense`): BM25's
        candidates' cosines, and the best of the rest, as :meth:`nearest` ranks them.
        ``started``: the product :meth:`start` began for this ``vector`` and ``kinds``,
        awaited instead of made here.
        """
        ids, scores = self._scores(conn, model, vector, kinds, started)
        hit = _among(ids, np.fromiter(known, dtype=np.int64, count=len(known)))
        hit &= scores > -np.inf
        cosines = dict(zip(ids[hit].tolist(), scores[hit].tolist(), strict=True))
        scores[hit] = -np.inf  # the rest's best are asked for
        return cosines, _best(ids, scores, k, keep)

    def start(
        self,
        conn: sqlite3.Connection,
        model: str,
        vector: Sequence[float],
        kinds: Collection[str] | None = None,
    ) -> Product:
        """Begin the product of ``vector`` with the vectors of ``kinds``, in a thread of its own.

        The index is brought up to date here (the connection stays in this thread);
        :meth:`dense` given the :class:`Product` awaits it. Meanwhile this thread runs
        the BM25 pass: numpy and SQLite let go of the GIL while they work.
        """
        product = Product(self.current(conn, model), vector, kinds)
        self.started += 1
        return product

    def _scores(
        self,
        conn: sqlite3.Connection,
        model: str,
        vector: Sequence[float],
        kinds: Collection[str] | None,
        started: Product | None = None,
    ) -> Scores:
        try:
            if started is not None:
                assert started.vector is vector and started.kinds == kinds, "another query's"
                return started.result()
            return score(self.current(conn, model), vector, kinds)
        except Replaced:  # another process wrote the file anew: read again
            return score(self._synced(conn, model, force=False), vector, kinds)
        except Damaged:  # a page's vectors, read only now, do not check out: made anew
            return score(self._synced(conn, model, force=True), vector, kinds)

    # --- keeping current ----------------------------------------------------------------

    def current(self, conn: sqlite3.Connection, model: str) -> View:
        """The index as the catalog stands now (brought up to date first if need be)."""
        view = self._view
        try:
            state = log_state(conn)
        except sqlite3.OperationalError as exc:  # a catalog from before the log
            raise Unavailable(f"the catalog keeps no vector log: {exc}") from exc
        if (
            view is not None
            and view.token == state.token
            and view.seq == state.seq
            and view.model == model
        ):
            return view
        return self._synced(conn, model, force=False)

    def _synced(self, conn: sqlite3.Connection, model: str, *, force: bool) -> View:
        with self._lock:
            try:
                ensure_token(conn)
                if self.path is None:
                    view = self._sync(conn, model, force=force)
                else:
                    with file_lock(self._lock_path, timeout=LOCK_WAIT):
                        view = self._sync(conn, model, force=force)
            except (OSError, LockTimeout, MemdirError, sqlite3.OperationalError) as exc:
                if isinstance(exc, Unavailable):
                    raise
                raise Unavailable(f"the vector index cannot be brought up to date: {exc}") from exc
            self._view = view
        prune_log(conn, view.seq)
        return view

    @property
    def _lock_path(self) -> Path:
        assert self.path is not None
        return self.path.with_name(f"{self.path.name}.lock")

    def _sync(self, conn: sqlite3.Connection, model: str, *, force: bool) -> View:
        """Under the lock: the view of the catalog's state now, the file made to match."""
        with _snapshot(conn):
            state = log_state(conn)
            assert state.token is not None  # ensure_token made it
            base = None if force else self._base(model, state)
            if base is not None and base.seq == state.seq:
                return base
            if base is not None:
                changes = changed_since(conn, base.seq, state.seq)
                live = sum(page.live for page in base.pages)
                if len(changes) <= max(MIN_CAPACITY, live):
                    rows = sorted(catalog_rows(conn, model, changes), key=lambda r: (r[1], r[0]))
                    with contextlib.suppress(Damaged):  # a page to add to does not check out
                        pages = self._applied(base, changes, rows)
                        if pages is not None:
                            return self._stored(base, pages, state)
            return self._rebuilt(conn, model, state)

    def _base(self, model: str, state: LogState) -> View | None:
        """What to bring up to date: this process's view, or the file's; None: rebuild."""
        base = self._view if self.path is None else self._from_file()
        if base is None or base.token != state.token or base.model != model:
            return None
        return base if state.pruned <= base.seq <= state.seq else None

    def _from_file(self) -> View | None:
        """The file's view (reusing the vectors this process read); None if unusable."""
        assert self.path is not None
        if is_misplaced(self.path):
            set_aside(self.path)  # something else in its place: kept, never deleted
            return None
        try:
            with open(self.path, "rb", buffering=0) as source:
                header, pages = read_file(source, page_rows=self.page_rows)
                inode = os.fstat(source.fileno()).st_ino
        except (FileNotFoundError, Damaged):
            return None
        prior = self._view
        if prior is not None and prior.inode == inode:
            pages = _reused(pages, prior.pages)
        return View(
            token=header.token,
            seq=header.seq,
            model=header.model,
            dim=header.dim,
            pages=tuple(pages),
            source=self.path,
            inode=inode,
        )

    def _applied(
        self, base: View, changes: Sequence[int], rows: Iterable[Row]
    ) -> list[Page] | None:
        """``base``'s pages with ``changes`` made over; None when a rebuild is due."""
        changed = np.asarray(changes, dtype=np.int64)
        pages = [_without_rows(page, changed) for page in base.pages]
        pages = _appended(
            pages, rows, base.dim, self.page_rows, (base.source, base.inode), grow=True
        )
        dead = sum(page.used - page.live for page in pages)
        if dead > max(MIN_CAPACITY, sum(page.live for page in pages)):
            return None  # more removed rows than live ones: compacted by a rebuild
        return pages

    def _stored(self, base: View, pages: list[Page], state: LogState) -> View:
        dim = _dim_of(pages, base.dim)
        assert state.token is not None
        view = View(
            token=state.token,
            seq=state.seq,
            model=base.model,
            dim=dim,
            pages=tuple(pages),
            source=base.source,
            inode=base.inode,
        )
        self.updates += 1
        if self.path is not None:
            known = {page.offset for page in base.pages}
            added = sum(page_size(p.capacity, dim) for p in pages if p.offset not in known)
            ensure_room(self.path, added, "adding to the vector index", reserve=RESERVE)
            with open(self.path, "r+b", buffering=0) as target:
                if os.fstat(target.fileno()).st_ino != base.inode:
                    raise Damaged("the vector index was replaced while the lock was held")
                write_changes(target, _header(view, self.page_rows), base.pages, pages)
        return view

    def _rebuilt(self, conn: sqlite3.Connection, model: str, state: LogState) -> View:
        rows = catalog_rows(conn, model)
        pages = _appended([], rows, 0, self.page_rows, (None, None), grow=False)
        assert state.token is not None
        view = View(
            token=state.token,
            seq=state.seq,
            model=model,
            dim=_dim_of(pages, 0),
            pages=tuple(pages),
            source=None,
            inode=None,
        )
        self.rebuilds += 1
        if self.path is None:
            return view
        size = HEADER + sum(page_size(page.capacity, view.dim) for page in pages)
        ensure_room(self.path, size, "writing the vector index", reserve=RESERVE)
        inode = write_file(self.path, _header(view, self.page_rows), pages)
        return replace(view, source=self.path, inode=inode)


# --- pages --------------------------------------------------------------------------


def _without_rows(page: Page, changed: npt.NDArray[np.int64]) -> Page:
    """``page`` with the slots of ``changed`` rowids set to -1 (itself if it holds none)."""
    hit = np.isin(page.rowids, changed)
    if not hit.any():
        return page
    rowids = page.rowids.copy()
    rowids[hit] = -1
    return Page(
        offset=page.offset,
        kind=page.kind,
        capacity=page.capacity,
        rowids=rowids,
        vec_crc=page.vec_crc,
        vectors=page.loaded,
    )


def _appended(
    pages: list[Page],
    rows: Iterable[Row],
    dim: int,
    page_rows: int,
    source: tuple[Path | None, int | None],
    *,
    grow: bool,
) -> list[Page]:
    """``pages`` with ``rows`` (rowid, kind, blob) added: to each kind's last page, then new ones.

    A new page holds the rows placed in it, to the next power of two; with ``grow``
    (rows added to an index, more to come) at least as many as its kind has, so a
    kind's pages double until they reach the page size. A blob of another length
    than the index's vectors cannot be compared: left out.
    """
    pages = list(pages)
    for kind, group in itertools.groupby(rows, key=lambda row: row[1]):
        for chunk in _chunks(group, page_rows):
            if not dim:
                dim = len(chunk[0][2]) // 4
            fitting = [(rowid, blob) for rowid, _, blob in chunk if len(blob) == dim * 4]
            if fitting and dim:
                pages = _added(pages, kind, fitting, dim, (page_rows, grow), source)
    return pages


def _chunks(rows: Iterable[Row], size: int) -> Iterator[list[Row]]:
    it = iter(rows)
    while chunk := list(itertools.islice(it, size)):
        yield chunk


def _added(
    pages: list[Page],
    kind: str,
    rows: list[tuple[int, bytes]],
    dim: int,
    sizing: tuple[int, bool],
    source: tuple[Path | None, int | None],
) -> list[Page]:
    """``pages`` with ``rows`` of ``kind`` placed: the kind's last page first, then new pages
    (``sizing``: the page size, and whether a new page grows with its kind)."""
    page_rows, grow = sizing
    vectors = np.frombuffer(b"".join(blob for _, blob in rows), dtype="<f4").reshape(-1, dim)
    vectors = (vectors / (np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-12)).astype(
        np.float32
    )
    rowids = np.fromiter((rowid for rowid, _ in rows), dtype=np.int64, count=len(rows))
    last = max((i for i, p in enumerate(pages) if p.kind == kind), default=None)
    if last is not None and pages[last].used < pages[last].capacity:
        page = pages[last]
        room = page.capacity - page.used
        pages[last] = _grown(page, vectors[:room], rowids[:room], page.vectors(*source, dim))
        vectors, rowids = vectors[room:], rowids[room:]
    held = sum(p.used for p in pages if p.kind == kind)
    end = HEADER + sum(page_size(p.capacity, dim) for p in pages)
    while len(rowids):
        wanted = held + len(rowids) if grow else len(rowids)
        capacity = min(page_rows, max(MIN_CAPACITY, _power_of_two(wanted)))
        part, vectors = vectors[:capacity], vectors[capacity:]
        ids, rowids = rowids[:capacity], rowids[capacity:]
        data = np.ascontiguousarray(part, dtype="<f4")
        pages.append(
            Page(
                offset=end,
                kind=kind,
                capacity=capacity,
                rowids=ids,
                vec_crc=zlib.crc32(data.tobytes()),
                vectors=data,
            )
        )
        held += len(ids)
        end += page_size(capacity, dim)
    return pages


def _grown(
    page: Page,
    vectors: npt.NDArray[np.float32],
    rowids: npt.NDArray[np.int64],
    before: npt.NDArray[np.float32],
) -> Page:
    """``page`` with rows added past its used ones (its checksum carried on, not redone)."""
    data = np.ascontiguousarray(vectors, dtype="<f4")
    return Page(
        offset=page.offset,
        kind=page.kind,
        capacity=page.capacity,
        rowids=np.concatenate([page.rowids, rowids]),
        vec_crc=zlib.crc32(data.tobytes(), page.vec_crc),
        vectors=np.concatenate([before, data]),
    )


def _power_of_two(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def _reused(pages: list[Page], prior: Sequence[Page]) -> list[Page]:
    """``pages`` read again, keeping the vectors this process already read of each."""
    known = {(p.offset, p.used, p.vec_crc): p.loaded for p in prior if p.loaded is not None}
    out = []
    for page in pages:
        vectors = known.get((page.offset, page.used, page.vec_crc))
        if vectors is not None:
            page = Page(
                offset=page.offset,
                kind=page.kind,
                capacity=page.capacity,
                rowids=page.rowids,
                vec_crc=page.vec_crc,
                vectors=vectors,
            )
        out.append(page)
    return out


def _dim_of(pages: Sequence[Page], known: int) -> int:
    """The vectors' dimension: ``known``, or that of the first page made in memory."""
    if known:
        return known
    loaded = [page.loaded for page in pages if page.loaded is not None]
    return int(loaded[0].shape[1]) if loaded else 0


def _header(view: View, page_rows: int) -> FileHeader:
    kinds = tuple(dict.fromkeys(page.kind for page in view.pages))
    return FileHeader(
        dim=view.dim,
        page_rows=page_rows,
        seq=view.seq,
        token=view.token,
        model=view.model,
        kinds=kinds,
    )


# --- scoring ------------------------------------------------------------------------


class Product:
    """:func:`score` of one query, under way in a thread of its own (:meth:`VectorIndex.start`).

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


def _among(ids: npt.NDArray[np.int64], wanted: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
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


def _best(
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


@contextlib.contextmanager
def _snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """One read transaction for the block: the log, its state and the vectors agree."""
    joined = conn.in_transaction  # the caller's: its own end ends it
    if not joined:
        conn.execute("BEGIN")
    try:
        yield
    finally:
        if not joined:
            with contextlib.suppress(sqlite3.Error):  # a read: nothing to keep or lose
                conn.execute("COMMIT")


# --- one index per file per process -----------------------------------------------------

_OPEN: dict[tuple[str, int], tuple[VectorIndex, int]] = {}
_OPEN_LOCK = threading.Lock()


def open_index(path: Path | None, *, page_rows: int = PAGE_ROWS) -> VectorIndex:
    """The process's index of ``path`` (a new one in memory for None); :func:`close_index` it."""
    if path is None:
        return VectorIndex(None, page_rows=page_rows)
    key = (os.path.abspath(path), page_rows)
    with _OPEN_LOCK:
        index, users = _OPEN.get(key, (None, 0))
        if index is None:
            index = VectorIndex(Path(key[0]), page_rows=page_rows)
        _OPEN[key] = (index, users + 1)
        return index


def close_index(index: VectorIndex) -> None:
    """Let go of an index :func:`open_index` gave; the last user's close drops it."""
    if index.path is None:
        return
    key = (str(index.path), index.page_rows)
    with _OPEN_LOCK:
        held, users = _OPEN.get(key, (None, 0))
        if held is not index:
            return
        if users > 1:
            _OPEN[key] = (index, users - 1)
        else:
            del _OPEN[key]
