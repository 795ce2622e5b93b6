"""Keeping a project's index in step with its files: the refresh and the catch-up.

:class:`IndexKeeper` is the half of the :class:`~memdir.search.catalog.Catalog`
that writes (what changed is found by its other half,
:class:`~memdir.search.changes.ChangeFinder`). Refresh is incremental (size
and mtime, then a content hash) under a file lock, in WAL mode so readers go
on while it writes; a damaged file is deleted and rebuilt from the files,
which loses nothing.

A build (:meth:`IndexKeeper.rebuild`, or a refresh that finds many files) indexes
files oldest first, so rowids follow age (the newest win when a query matches
too many to score, see :class:`~memdir.search.engine.RankingOptions`); it
enlarges SQLite's page cache while it runs, replaces the FTS table instead of
deleting its rows, and reads the files in worker processes when there are many
(:func:`memdir.search.documents.read_all`).

A search does not walk the files (see :mod:`memdir.search.changes`); a full
walk runs on :meth:`IndexKeeper.refresh`.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time

from memdir.errors import LockTimeout
from memdir.search.changes import (
    FULL_SCAN_EVERY,
    ROW,
    SAMPLE,
    ChangeFinder,
    Stale,
    file_size,
    source_changed,
)
from memdir.search.engine import TextIndex
from memdir.search.schema import CATALOG_NAME, open_index_db
from memdir.storage.failures import ensure_room, is_damage, storage_error, translated
from memdir.storage.fs import file_lock, remove_database
from memdir.storage.journal import journal_lock
from memdir.storage.paths import Layout
from memdir.utils.records import record

# Not typing.TYPE_CHECKING: a recall checks the catalog before every prompt, in a fresh
# process; what reads files to index them (documents, the codec) loads only when a
# file changed.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from pathlib import Path
    from typing import Any, TypeAlias, TypeVar

    from memdir.search.documents import Read

    _T = TypeVar("_T")

__all__ = [
    "EMBED_BUDGET",
    "FULL_SCAN_EVERY",
    "RESERVE",
    "SAMPLE",
    "IndexKeeper",
    "Progress",
    "RefreshStats",
    "open_catalog_db",
]

if TYPE_CHECKING:
    Progress: TypeAlias = Callable[[int, int], None]
else:
    Progress = "Callable[[int, int], None]"  # for annotations only
"""Called as ``progress(done, total)`` while files are checked."""

EMBED_BUDGET = 10.0
"""Seconds of embedding a search does at most before it ranks (about 300 short documents)."""
_JOURNAL_KEEP = 1 << 16  # bytes of read journal tolerated before it is emptied
RESERVE = 256 << 10
"""Free bytes the catalog never takes: they stay for the memory files and their index."""
_GROWTH = 4  # bytes a transaction writes per byte of text it indexes, at most
_MIN_WRITE = 64 << 10  # the pages even a small transaction writes (and its WAL frames)
_BULK = 1000  # files changed at once from which a refresh enlarges the page cache
_BULK_CACHE = -262_144  # KiB (negative: a size, not pages): 256 MiB at most, while it runs

# Derived state of the refresh itself, beside the index's tables.
_STATE_SCHEMA = """
CREATE TABLE IF NOT EXISTS folders (path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value);
"""


@record
class RefreshStats:
    """What a refresh changed, counted in source files."""

    added: int
    updated: int
    removed: int
    seconds: float


class IndexKeeper(ChangeFinder):
    """Keeps ``index`` in step with the files of ``layout`` (the catalog's writing half)."""

    layout: Layout
    index: TextIndex
    _refreshed_at: float
    _edited: list[tuple[str, str]]  # changed memory files: (path, sha256)
    auto_refresh: bool
    refresh_every: float
    # Seconds a search's embedding pass may take (None: no bound); the rest waits
    # for the next searches, which rank by BM25 alone until every vector is there.
    embed_budget: float | None = EMBED_BUDGET

    @property
    def path(self) -> Path:
        return self.layout.state_dir / CATALOG_NAME

    # --- refresh ------------------------------------------------------------------

    def refresh(self, *, progress: Progress | None = None, wait: bool = True) -> RefreshStats:
        """Bring the index in step with the files; with ``wait=False`` skip if one is running."""
        start = time.perf_counter()
        with translated(self.path):
            stats = self._locked(lambda: self._refresh(progress, start), wait=wait)
            with self.embedding(budget=None, progress=progress):  # explicit work: to the end
                self._embed_behind()
        return stats

    def _locked(self, work: Callable[[], RefreshStats], *, wait: bool) -> RefreshStats:
        """``work`` under the catalog lock; without ``wait``, skipped while another holds it."""
        try:
            with file_lock(self.layout.lock_dir / "catalog.lock", timeout=30.0 if wait else 0.0):
                stats = self._guarded(work)
                self._refreshed_at = time.monotonic()
                return stats
        except LockTimeout:
            if wait:
                raise
            return RefreshStats(added=0, updated=0, removed=0, seconds=0.0)

    def catch_up(self, *, wait: bool = False) -> RefreshStats:
        """What a search does first: the journal, changed folders, a sample of files.

        Falls back to a full :meth:`refresh` on a catalog never walked, or
        walked more than :data:`FULL_SCAN_EVERY` seconds ago. The checks run
        without the lock; only when they find something is it taken (with
        ``wait=False``, skipped while another process refreshes) and the
        checks repeated under it.
        """
        with translated(self.path):
            return self._catch_up_now(wait=wait)

    def _catch_up_now(self, *, wait: bool) -> RefreshStats:
        start = time.perf_counter()
        first = self._guarded(lambda: self._pending(set()))
        if first is None or first.stamps_only:
            if first is not None:
                # Typically a session folder that a recall wrote its state into: nothing
                # to index, so neither the lock (and its import) nor a transaction of
                # the catalog's, only the folders' new stamps.
                self._guarded(lambda: self._save_stamps(first.folders))
            self._embed_behind()
            self._refreshed_at = time.monotonic()
            return RefreshStats(added=0, updated=0, removed=0, seconds=time.perf_counter() - start)
        seen = {path for path, *_ in first.stale} | {row[1] for row in first.gone}
        stats = self._locked(lambda: self._catch_up(start, seen), wait=wait)
        self._embed_behind()
        return stats

    def embed(self, *, progress: Progress | None = None) -> int:
        """Catch up, then embed every document without a vector; returns how many were."""
        before = self.index.embedded
        with self.embedding(budget=None, progress=progress):
            self.catch_up(wait=True)  # whose embedding pass now goes to the end
        return self.index.embedded - before

    @contextlib.contextmanager
    def embedding(self, *, budget: float | None, progress: Progress | None) -> Iterator[None]:
        """Within the block, embedding passes take ``budget`` seconds at most (None: no
        bound, 0: none, only a count) and tell ``progress``; as before after it."""
        saved = self.embed_budget, self.index.embed_progress
        self.embed_budget, self.index.embed_progress = budget, progress
        try:
            yield
        finally:
            self.embed_budget, self.index.embed_progress = saved

    def _embed_behind(self) -> int:
        """Embed the documents that have no vector yet, when this catalog has an embedder.

        Outside the indexing transaction and batch by batch (see
        :mod:`memdir.search.vectors.vector_table`): an interrupted pass keeps what it did. A
        catalog opened without an embedder (recall's, another process's) indexes
        text only, so a hybrid search finds documents nothing changed since, but
        never embedded.
        """
        if self.index.embedder is None:
            return 0
        return self._guarded(lambda: self.index.embed_missing(budget=self.embed_budget))

    def _save_stamps(self, folders: dict[str, int]) -> None:
        """Record folder stamps without the catalog lock; skipped if the database is busy.

        Safe unlocked: a stamp is the mtime seen *before* the folder was listed,
        so a change after the listing still differs from it, and an older stamp
        written over a newer one only costs one more listing.
        """
        conn = self.index.conn
        (patience,) = conn.execute("PRAGMA busy_timeout").fetchone()
        conn.execute("PRAGMA busy_timeout = 100")  # a hint: never wait on a refresh
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("INSERT OR REPLACE INTO folders VALUES (?, ?)", folders.items())
            conn.execute("COMMIT")
        except sqlite3.OperationalError:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(patience)}")

    def rebuild(self, *, progress: Progress | None = None) -> RefreshStats:
        """Index every file again from scratch (in one transaction: readers never see it empty)."""
        with translated(self.path):
            with file_lock(self.layout.lock_dir / "catalog.lock"):
                stats = self._guarded(
                    lambda: self._refresh(progress, time.perf_counter(), clear=True)
                )
            with self.embedding(budget=None, progress=progress):  # outside the lock
                self._embed_behind()
        return stats

    def refresh_if_due(self) -> None:
        """Refresh unless ``auto_refresh`` is off or the last refresh is recent enough."""
        if self.auto_refresh and time.monotonic() - self._refreshed_at >= self.refresh_every:
            self.catch_up()

    def _guarded(self, action: Callable[[], _T], *, rebuild: bool = False) -> _T:
        try:
            return action()
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                # A full disk or a lock: the catalog is intact, and rebuilding it
                # would only take the space again. Said as memdir's error.
                raise storage_error(exc, self.path) from exc
            # The file was damaged under us: start over from the files.
            self._reset()
            if rebuild:
                with contextlib.suppress(LockTimeout):
                    self.refresh(wait=False)
            return action()

    def _reset(self) -> None:
        self.index.close()
        remove_database(self.path)
        self.index.conn = open_catalog_db(self.path)

    def _refresh(
        self, progress: Progress | None, start: float, *, clear: bool = False
    ) -> RefreshStats:
        journal_size = file_size(self._journal)
        folders: dict[str, int] = {}
        found = dict(self._scan(folders))
        conn = self.index.conn
        known = {row[1]: row for row in conn.execute(ROW) if not clear}
        stale = [
            (path, kind, info, known.get(path))
            for path, (kind, info) in found.items()
            if source_changed(known.get(path), info)
        ]
        gone = [row for path, row in known.items() if path not in found]
        return self._apply(
            stale,
            gone,
            start,
            progress=progress,
            clear=clear,
            folders=folders,
            replace_folders=True,
            state={"journal_offset": journal_size, "scanned_at": time.time()},
        )

    def _apply(
        self,
        stale: list[Stale],
        gone: list[tuple[Any, ...]],
        start: float,
        *,
        progress: Progress | None = None,
        clear: bool = False,
        folders: dict[str, int],
        replace_folders: bool = False,
        dropped_folders: Sequence[str] = (),
        state: dict[str, float],
    ) -> RefreshStats:
        """Write what changed (files, folders, state) in one transaction.

        Files are indexed oldest first: a document's rowid then follows its
        file's age, which a query matching very many documents relies on (see
        ``scan_limit`` of :class:`RankingOptions`).
        """
        stale = sorted(stale, key=lambda item: item[2].st_mtime_ns)
        conn = self.index.conn
        quiet = not stale and not gone and not clear
        if quiet and not self._state_differs(folders, replace_folders, dropped_folders, state):
            # Nothing to write: no write transaction, no fsync.
            return RefreshStats(added=0, updated=0, removed=0, seconds=time.perf_counter() - start)
        self._ensure_room(stale, clear=clear)
        added = updated = 0
        cache = conn.execute("PRAGMA cache_size").fetchone()[0]
        if len(stale) > _BULK:
            # Inserting many rows into indexes with a small page cache writes pages
            # out and reads them back again and again.
            conn.execute(f"PRAGMA cache_size = {_BULK_CACHE}")
        conn.execute("BEGIN IMMEDIATE")
        try:
            if clear:
                self.index.clear()
                conn.execute("DELETE FROM sources")
            jobs = [
                (self.layout, path, kind, info.st_mtime, None if row is None else row[5])
                for path, kind, info, row in stale
            ]
            from memdir.search.documents import read_all

            with read_all(jobs) as results:
                for done, (item, read) in enumerate(zip(stale, results, strict=True), start=1):
                    change = self._store_file(*item, read)
                    added += change == "added"
                    updated += change == "updated"
                    if progress is not None:
                        progress(done, len(stale))
            for row in gone:
                self.index.remove_source(row[0])
                conn.execute("DELETE FROM sources WHERE id = ?", (row[0],))
            self._write_state(folders, replace_folders, dropped_folders, state)
            conn.execute("COMMIT")
        except BaseException as exc:
            self._abandon(exc)
            raise
        finally:
            with contextlib.suppress(sqlite3.Error):
                conn.execute(f"PRAGMA cache_size = {int(cache)}")
            edited, self._edited = self._edited, []
        if edited and not clear:
            from memdir.search.hand_edits import record_hand_edits

            record_hand_edits(self.layout, edited)
        return RefreshStats(
            added=added, updated=updated, removed=len(gone), seconds=time.perf_counter() - start
        )

    def _abandon(self, exc: BaseException) -> None:
        """Undo a failed write transaction, and give the disk back what its WAL took.

        SQLite rolls a transaction back by itself on some failures (a full disk):
        ROLLBACK is sent only while one is open. The WAL keeps the size the failed
        transaction grew it to unless it is checkpointed and truncated now.
        """
        conn = self.index.conn
        with contextlib.suppress(sqlite3.Error):
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error | OSError):
            with contextlib.suppress(sqlite3.Error):
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def _ensure_room(self, stale: list[Stale], *, clear: bool) -> None:
        """Refuse a write that would take the disk's last free space (:data:`RESERVE`).

        What a transaction writes is about :data:`_GROWTH` times the text it
        indexes (documents, terms, the WAL that holds it until the checkpoint);
        a build also copies what the catalog holds.
        """
        need = _GROWTH * sum(item[2].st_size for item in stale) + _MIN_WRITE
        if clear:
            need += _size(self.path)
        ensure_room(self.path, need, f"indexing {len(stale)} file(s)", reserve=RESERVE)

    def _state_differs(
        self,
        folders: dict[str, int],
        replace: bool,
        dropped: Sequence[str],
        state: dict[str, float],
    ) -> bool:
        conn = self.index.conn
        if dropped:
            return True
        stored = dict(conn.execute("SELECT path, mtime_ns FROM folders"))
        if (stored != folders) if replace else any(stored.get(k) != v for k, v in folders.items()):
            return True
        current = dict(conn.execute("SELECT key, value FROM state"))
        if any(key != "scanned_at" and current.get(key) != value for key, value in state.items()):
            return True
        # The time of the last walk is written when it would soon call for another.
        scanned = current.get("scanned_at")
        return "scanned_at" in state and (
            not isinstance(scanned, int | float)
            or state["scanned_at"] - scanned > FULL_SCAN_EVERY / 2
        )

    def _write_state(
        self,
        folders: dict[str, int],
        replace: bool,
        dropped: Sequence[str],
        state: dict[str, float],
    ) -> None:
        conn = self.index.conn
        if replace:
            conn.execute("DELETE FROM folders")
        for folder in dropped:
            conn.execute(
                "DELETE FROM folders WHERE path = ? OR (path > ? AND path < ?)",
                (folder, f"{folder}/", f"{folder}0"),
            )
        conn.executemany("INSERT OR REPLACE INTO folders VALUES (?, ?)", folders.items())
        conn.executemany("INSERT OR REPLACE INTO state VALUES (?, ?)", state.items())

    # --- catching up without a walk ---------------------------------------------------

    def _catch_up(self, start: float, extra: set[str]) -> RefreshStats:
        pending = self._pending(extra)
        if pending is None:
            return RefreshStats(added=0, updated=0, removed=0, seconds=time.perf_counter() - start)
        if pending.full:
            return self._refresh(None, start)
        stats = self._apply(
            pending.stale,
            pending.gone,
            start,
            folders=pending.folders,
            dropped_folders=pending.dropped,
            state={"journal_offset": pending.offset},
        )
        if pending.offset > _JOURNAL_KEEP:
            self._empty_journal(pending.offset)
        return stats

    def _empty_journal(self, offset: int) -> None:
        """Empty a journal read to its end (never one a writer has just appended to)."""
        with journal_lock(self._journal):
            if file_size(self._journal) != offset:
                return
            with open(self._journal, "r+b") as handle:
                handle.truncate(0)
        conn = self.index.conn
        conn.execute("INSERT OR REPLACE INTO state VALUES ('journal_offset', 0)")

    def _store_file(
        self, path: str, kind: str, info: os.stat_result, row: tuple[Any, ...] | None, read: Read
    ) -> str | None:
        """Write what :func:`~memdir.search.documents.read_source` found in one file.

        That is its source row and its documents.
        """
        if read is None:
            return None  # vanished since the scan: the next refresh drops it
        digest, prepared = read
        conn = self.index.conn
        if row is not None and prepared is None:  # the same content: only the stat changed
            conn.execute(
                "UPDATE sources SET mtime_ns = ?, size = ? WHERE id = ?",
                (info.st_mtime_ns, info.st_size, row[0]),
            )
            return None
        if row is not None:
            if kind == "memory":  # changed since it was indexed: a hand edit, unless memdir's
                self._edited.append((path, digest))
            self.index.remove_source(row[0])
            source = int(row[0])
            conn.execute(
                "UPDATE sources SET mtime_ns = ?, size = ?, hash = ? WHERE id = ?",
                (info.st_mtime_ns, info.st_size, digest, source),
            )
        else:
            cur = conn.execute(
                "INSERT INTO sources (path, kind, mtime_ns, size, hash) VALUES (?,?,?,?,?)",
                (path, kind, info.st_mtime_ns, info.st_size, digest),
            )
            source = int(cur.lastrowid or 0)
        self.index.add_prepared(prepared or [], source=source)
        return "updated" if row is not None else "added"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def open_catalog_db(path: Path) -> sqlite3.Connection:
    conn = open_index_db(path)
    try:
        conn.executescript(_STATE_SCHEMA)
    except sqlite3.DatabaseError:
        conn.close()
        raise
    return conn
