"""The vector index: a catalog's vectors in pages of float32, the nearest in milliseconds.

A hybrid search read every vector out of SQLite and kept every cosine in a dict
(4,000 memories: 90 ms a query, against 10 ms of BM25). :class:`VectorIndex` keeps
the vectors of one model beside the catalog, normalised, in one file
(:mod:`memdir.search.vectors.vector_file`); a query is one matrix-vector product per page
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
table log each changed rowid (:mod:`memdir.search.vectors.vector_table`), and the file's header
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
The module is imported after :func:`~memdir.search.vectors.embeddings.load_numpy` (one BLAS
thread; see there).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Collection, Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from memdir.errors import LockTimeout, MemdirError
from memdir.search.vectors.page_edits import Row, appended, dim_of, reused, without_rows
from memdir.search.vectors.scoring import (
    Keep,
    Product,
    Scores,
    Unavailable,
    View,
    among,
    best,
    score,
)
from memdir.search.vectors.vector_file import (
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
from memdir.search.vectors.vector_table import (
    LogState,
    changed_since,
    ensure_token,
    log_state,
    prune_log,
)
from memdir.search.vectors.vector_table import vector_rows as catalog_rows
from memdir.storage.derived import is_misplaced, set_aside
from memdir.storage.failures import ensure_room
from memdir.storage.fs import file_lock
from memdir.utils.records import replace

__all__ = ["VectorIndex", "close_index", "open_index"]

LOCK_WAIT = 5.0  # seconds a search waits for another process bringing the file up to date
RESERVE = 256 << 10  # free bytes the index never takes, as the catalog (refresh.RESERVE)


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
            scores[among(ids, left_out)] = -np.inf
        return best(ids, scores, k, keep)

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
        hit = among(ids, np.fromiter(known, dtype=np.int64, count=len(known)))
        hit &= scores > -np.inf
        cosines = dict(zip(ids[hit].tolist(), scores[hit].tolist(), strict=True))
        scores[hit] = -np.inf  # the rest's best are asked for
        return cosines, best(ids, scores, k, keep)

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
            pages = reused(pages, prior.pages)
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
        pages = [without_rows(page, changed) for page in base.pages]
        pages = appended(
            pages, rows, base.dim, self.page_rows, (base.source, base.inode), grow=True
        )
        dead = sum(page.used - page.live for page in pages)
        if dead > max(MIN_CAPACITY, sum(page.live for page in pages)):
            return None  # more removed rows than live ones: compacted by a rebuild
        return pages

    def _stored(self, base: View, pages: list[Page], state: LogState) -> View:
        dim = dim_of(pages, base.dim)
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
        pages = appended([], rows, 0, self.page_rows, (None, None), grow=False)
        assert state.token is not None
        view = View(
            token=state.token,
            seq=state.seq,
            model=model,
            dim=dim_of(pages, 0),
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
