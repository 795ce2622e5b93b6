"""The catalog: a project's derived search index, kept in step with its files.

:class:`Catalog` keeps a :class:`~memdir.search.engine.TextIndex` at
``<project>/.memdir/catalog.sqlite3`` in step with the files: memories of
both scopes, daily-log entries, session notes and registered transcripts
(turn level). It reads the files itself, so a directory edited by hand is
indexed too. Two modules beside it hold its halves' details: keeping the
index in step (:mod:`memdir.search.refresh`: the incremental refresh, the
journal and the catch-up a search runs first) and what each file is indexed
as (:mod:`memdir.search.documents`). This module opens the catalog and
answers queries, catching up first; a file with another schema version or
one SQLite cannot read is deleted and rebuilt, which loses nothing. The
ranking names are re-exported from here.

Several threads of one process (a server's) each open a catalog of the same
file. Their catch-ups take turns (:data:`_TURNS`): a search that finds another
*process* refreshing goes on without waiting (it answers from the index as it
stands), but one that found a change while another *thread* of its own
process indexes it waits those milliseconds, then finds the change indexed,
instead of answering without the memory just saved.

Embedding passes take turns too, across processes and threads (a lock
file, :data:`EMBED_LOCK`): a search's bounded pass that finds another at
work embeds nothing and ranks by words meanwhile (never waiting on a pass
that may take minutes, nor doing its work twice); an explicit pass
(:meth:`~memdir.search.refresh.IndexKeeper.embed`, a rebuild) waits for the
other to end, then embeds what is left.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import threading
from pathlib import Path

from memdir.errors import LockTimeout, MemdirError, StorageError
from memdir.search.engine import (
    DEFAULT_WEIGHTS,
    FIELDS,
    Document,
    Hit,
    RankingOptions,
    SearchQuery,
    TextIndex,
)
from memdir.search.refresh import (
    FULL_SCAN_EVERY,
    RESERVE,
    SAMPLE,
    IndexKeeper,
    Progress,
    RefreshStats,
    open_catalog_db,
)
from memdir.search.schema import CATALOG_NAME, KINDS, SCHEMA_VERSION
from memdir.storage.failures import ensure_room, is_damage, translated
from memdir.storage.fs import atomic_write, ensure_dir, file_lock, remove_database
from memdir.storage.paths import Layout

TYPE_CHECKING = False  # not typing's: recall opens the catalog before every prompt
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Sequence

    from memdir.search.vectors.embeddings import Embedder

__all__ = [
    "CATALOG_NAME",
    "DEFAULT_WEIGHTS",
    "EMBED_LOCK",
    "FIELDS",
    "FULL_SCAN_EVERY",
    "KINDS",
    "SAMPLE",
    "SCHEMA_VERSION",
    "Catalog",
    "Document",
    "Hit",
    "Progress",
    "RankingOptions",
    "RefreshStats",
    "SearchQuery",
    "TextIndex",
]


EMBED_LOCK = "embedding.lock"
"""The lock file (in the project's lock folder) held by whoever runs an embedding pass."""
_PASS_WAIT = 7 * 24 * 3600.0  # seconds an explicit pass waits for another: until it ends

# One lock per catalog file for this process's threads (re-entrant: a damaged file is
# rebuilt from within a catch-up).
_TURNS: dict[str, threading.RLock] = {}
_TURNS_MADE = threading.Lock()


def _turn(path: Path) -> threading.RLock:
    key = os.path.abspath(path)
    with _TURNS_MADE:
        return _TURNS.setdefault(key, threading.RLock())


class Catalog(IndexKeeper):
    """A project's :class:`TextIndex`, kept in step with its files.

    Refs of hits: a memory's path relative to the memory directory
    (``team/x.md``); a log entry's ``logs/YYYY/MM/YYYY-MM-DD.md#L<line>``; session
    notes' ``sessions/<id>/session-memory/summary.md`` (relative to the project
    folder); a transcript turn's ``<absolute path>#<turn index>``.
    """

    def __init__(
        self,
        layout: Layout,
        index: TextIndex,
        *,
        auto_refresh: bool = True,
        refresh_every: float = 0.0,
    ) -> None:
        self.layout = layout
        self.index = index
        self.auto_refresh = auto_refresh
        self.refresh_every = refresh_every
        self._refreshed_at = -math.inf
        self._edited: list[tuple[str, str]] = []  # changed memory files: (path, sha256)

    @classmethod
    def open(
        cls,
        layout: Layout,
        *,
        options: RankingOptions | None = None,
        embedder: Embedder | None = None,
        auto_refresh: bool = True,
        refresh_every: float = 0.0,
    ) -> Catalog:
        """Open (creating, or rebuilding when unreadable or outdated) a project's catalog.

        With ``auto_refresh`` each search first catches up (:meth:`catch_up`:
        the journal, folder mtimes and a sample of files, not a walk);
        ``refresh_every`` > 0 skips that when this object caught up less than
        that many seconds ago.
        """
        path = layout.state_dir / CATALOG_NAME
        with translated(path):
            conn = _open_db(layout, path)
        return cls(
            layout,
            TextIndex(path, options=options, embedder=embedder, conn=conn),
            auto_refresh=auto_refresh,
            refresh_every=refresh_every,
        )

    def close(self) -> None:
        """Close the database connection."""
        self.index.close()

    # --- taking turns -------------------------------------------------------------
    def _locked(self, work: Callable[[], RefreshStats], *, wait: bool) -> RefreshStats:
        """``work`` under the catalog lock, after any other thread of this process's.

        Without ``wait`` another process's refresh is still passed over; another
        thread's is waited for (it holds the file lock only while it indexes).
        """
        with _turn(self.path):
            return super()._locked(work, wait=wait)

    def _embed_behind(self) -> int:
        """The embedding pass, when no other process or thread runs one (see above)."""
        if self.index.embedder is None or self.embed_budget == 0:
            return super()._embed_behind()
        wait = _PASS_WAIT if self.embed_budget is None else 0.0
        held = file_lock(self.layout.lock_dir / EMBED_LOCK, timeout=wait)
        try:
            held.__enter__()
        except LockTimeout:
            # Another pass is at it: count what it has left, embed nothing.
            with self.embedding(budget=0.0, progress=self.index.embed_progress):
                return super()._embed_behind()
        try:
            return super()._embed_behind()
        finally:
            held.__exit__(None, None, None)

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- transcripts --------------------------------------------------------------
    def add_transcripts(
        self, path: str | Path, *, progress: Progress | None = None
    ) -> RefreshStats:
        """Remember a transcript file or a directory of ``.jsonl`` files, then refresh."""
        target = Path(path).expanduser().resolve()
        if not target.exists():
            raise MemdirError(
                "no transcript file or directory there", path=target, hint="check the path"
            )
        with file_lock(self.layout.lock_dir / "catalog.lock"):
            roots = [str(p) for p in self.transcript_roots()]
            if str(target) not in roots:
                roots.append(str(target))
                atomic_write(self._roots_file, json.dumps(roots, indent=1))
        return self.refresh(progress=progress)

    def search(self, query: SearchQuery | str) -> list[Hit]:
        """Ranked search (refreshing first unless ``auto_refresh`` is off)."""
        self.refresh_if_due()
        with translated(self.path):
            return self._guarded(lambda: self.index.search(query), rebuild=True)

    def rank(self, query: SearchQuery | str) -> list[tuple[str, float]]:
        """Ranked refs and scores only (see :meth:`TextIndex.rank`), refreshing like search."""
        self.refresh_if_due()
        with translated(self.path):
            return self._guarded(lambda: self.index.rank(query), rebuild=True)

    def forget(self) -> RefreshStats:
        """Keep nothing of a file that is gone or changed: what a redaction asks.

        A refresh drops its rows, but FTS5 keeps a deleted row's terms in its
        older segments until they are merged, SQLite a freed page's bytes
        unless it deletes securely, the WAL its old frames, and the journal the
        files' names: so the refresh deletes securely, both text indexes are
        merged (``optimize``), the journal it read is emptied and the WAL cut to
        nothing.
        """
        conn = self.index.conn
        conn.execute("PRAGMA secure_delete = ON")
        stats = self.refresh()
        with translated(self.path), file_lock(self.layout.lock_dir / "catalog.lock"):
            for table in ("fts", "ctx"):
                conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
            row = conn.execute("SELECT value FROM state WHERE key = 'journal_offset'").fetchone()
            self._empty_journal(int(row[0]) if row is not None else 0)
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return stats

    def nearest(
        self,
        vector: Sequence[float],
        k: int | None = None,
        *,
        kinds: Collection[str] | None = None,
        exclude: Collection[str] = (),
    ) -> list[tuple[str, float]]:
        """The refs nearest ``vector`` by cosine, best first (see :meth:`TextIndex.nearest`).

        Catches up first, like :meth:`search` (which embeds what has no vector yet,
        within the catalog's embedding budget).
        """
        self.refresh_if_due()
        with translated(self.path):
            return self._guarded(
                lambda: self.index.nearest(vector, k, kinds=kinds, exclude=exclude), rebuild=True
            )


def _open_db(layout: Layout, path: Path) -> sqlite3.Connection:
    """The catalog's connection; a damaged file is deleted and made again (nothing is lost).

    Something other than a file in its place (a folder) is refused, naming it:
    doctor moves it aside.
    """
    ensure_dir(layout.state_dir)
    if os.path.lexists(path) and not path.is_file():
        raise StorageError(
            f"{path} is not a file: the search catalog cannot be kept there",
            path=path,
            hint="run `memdir doctor --fix`: it moves that aside and rebuilds the catalog",
        )
    if not os.path.lexists(path):
        _ensure_room_for_new(path)
    try:
        return open_catalog_db(path)
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise
    remove_database(path)
    _ensure_room_for_new(path)
    return open_catalog_db(path)


def _ensure_room_for_new(path: Path) -> None:
    """Refuse to create a catalog (its tables alone take some 200 KiB) on a nearly full disk."""
    ensure_room(path, _NEW_CATALOG, "a new search catalog", reserve=RESERVE)


_NEW_CATALOG = 256 << 10
