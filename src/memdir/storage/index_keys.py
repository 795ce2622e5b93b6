"""A key table of one scope's ``MEMORY.md``: title -> files, file -> its lines.

A write must know whether a memory of its name exists and whether the index
already has a line for its file. Both answers are in the index, but reading
them there means reading and scanning the whole text (about 10 MB at 100,000
memories) on every write. This table keeps them in SQLite beside the other
state files: one row per pointer line (its order, file, folded title, text).

It is derived state, kept in step under the scope lock: every edit the store
makes to the index updates the table in the same locked section, and the
table records the index's stamp (device, inode, size, mtime, ctime) as of
that edit. A stamp that no longer matches (the index was edited by hand,
pulled by git, repaired by doctor, or a crash fell between the two updates)
makes the table stale: readers then scan the index as before, and the next
writer rebuilds the table from the index (one full parse). Every answer the
table gives is checked against the memory files by its callers, so a table
that lags (an edit of the same size in the same clock tick) costs at most a
duplicate index line, never a memory. Not fsynced (WAL, ``synchronous =
NORMAL``): a table a crash loses is rebuilt; a damaged one is deleted and
rebuilt.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

from memdir.storage.fs import remove_database
from memdir.storage.memory_index import parse_entries, title_key
from memdir.utils.sqlite_open import open_database

__all__ = ["KeyTable", "open_table"]

_LINES = (
    "CREATE TABLE IF NOT EXISTS lines ("
    "seq INTEGER PRIMARY KEY, file TEXT NOT NULL, title TEXT NOT NULL, line TEXT NOT NULL)"
)
_LINE_KEYS = (
    "CREATE INDEX IF NOT EXISTS lines_file ON lines(file)",
    "CREATE INDEX IF NOT EXISTS lines_title ON lines(title)",
)
_SCHEMA = ";\n".join(
    (
        _LINES,
        *_LINE_KEYS,
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    )
)
# What SQLite or the text it is handed may raise; the table is then not used.
_FAILURES = (sqlite3.Error, UnicodeError, ValueError, OSError)


def open_table(db: Path) -> KeyTable | None:
    """The key table at ``db``, open; ``None`` when SQLite cannot open it.

    A file SQLite calls damaged is deleted (it is rebuilt from the index).
    The caller keeps it open across writes: closing the last connection
    checkpoints the WAL, an fsync a write should not pay each time.
    """
    try:
        return KeyTable(_connect(db))
    except sqlite3.OperationalError:  # busy, unwritable: not damaged, so kept
        return None
    except sqlite3.DatabaseError:  # "not a database", a malformed image
        with contextlib.suppress(OSError):  # cannot delete it: reopening below says why
            remove_database(db)
    except _FAILURES:
        return None
    try:
        return KeyTable(_connect(db))
    except _FAILURES:
        return None


def _connect(db: Path) -> sqlite3.Connection:
    return open_database(db, timeout=10, setup=_prepare)


def _prepare(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")  # derived state: no fsync per write
    # Every write adds a few pages to the WAL: checkpointed every 256 KiB and cut
    # back to that size, so a small disk is not spent on a 4 MiB WAL of a cache.
    conn.execute("PRAGMA wal_autocheckpoint = 64")
    conn.execute(f"PRAGMA journal_size_limit = {64 * 4096}")
    conn.executescript(_SCHEMA)


class KeyTable:
    """One open connection to a scope's key table (see the module docstring).

    Lookups answer ``None`` when the table is not in step with ``stamp`` (or
    SQLite fails): the caller then reads the index itself. Updates take the
    index's new stamp and return whether the table took them.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self.failed = False  # set by a failing statement: the owner opens it again
        # The stamp the table was last seen (or made) to hold, kept only while the
        # scope lock is held: no other writer can change the table then.
        self._seen: str | None = None
        self._held = False

    def forget(self, *, held: bool) -> None:
        """The scope lock was taken (``held``) or let go: the stamp is asked for again."""
        self._seen = None
        self._held = held

    def close(self) -> None:
        """Close the connection."""
        with contextlib.suppress(*_FAILURES):
            self._conn.close()

    def in_step(self, stamp: str | None) -> bool:
        """Whether the table describes the index whose stamp is ``stamp``."""
        if stamp is None:
            return False
        if stamp == self._seen:
            return True
        try:
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'stamp'").fetchone()
        except _FAILURES:
            self.failed = True
            return False
        if row is None or row[0] != stamp:
            return False
        self._seen = stamp if self._held else None
        return True

    def files_titled(self, title: str, stamp: str | None) -> list[str] | None:
        """The files of the lines titled ``title`` (folded), in index order."""
        if not self.in_step(stamp):
            return None
        try:
            rows = self._conn.execute(
                "SELECT file FROM lines WHERE title = ? ORDER BY seq", (title_key(title),)
            ).fetchall()
        except _FAILURES:
            self.failed = True
            return None
        return list(dict.fromkeys(row[0] for row in rows))

    def lines_of(self, file: str, stamp: str | None) -> list[str] | None:
        """The text of every line pointing at ``file``, in index order."""
        if not self.in_step(stamp):
            return None
        try:
            rows = self._conn.execute(
                "SELECT line FROM lines WHERE file = ? ORDER BY seq", (file,)
            ).fetchall()
        except _FAILURES:
            self.failed = True
            return None
        return [row[0] for row in rows]

    def rebuild(self, raw: bytes, stamp: str) -> bool:
        """Describe the index ``raw`` (whose stamp is ``stamp``) from scratch."""
        rows = [
            (entry.file, title_key(entry.title), entry.raw)
            for entry in parse_entries(raw.decode("utf-8", "replace"))
        ]

        def refill(conn: sqlite3.Connection) -> None:
            # A new table, its keys made after the rows: twice as fast as a DELETE.
            conn.execute("DROP TABLE IF EXISTS lines")
            conn.execute(_LINES)
            conn.executemany("INSERT INTO lines (file, title, line) VALUES (?, ?, ?)", rows)
            for sql in _LINE_KEYS:
                conn.execute(sql)

        return self._change(refill, stamp)

    def put(self, file: str, line: str, stamp: str, *, moved_from: str | None = None) -> bool:
        """``file`` now has the one line ``line`` (where its first line was, else last).

        ``moved_from``: the lines of the file it was renamed from are gone.
        """
        entries = parse_entries(line)
        title = title_key(entries[0].title) if entries else ""

        def replace(conn: sqlite3.Connection) -> None:
            if moved_from is not None:
                conn.execute("DELETE FROM lines WHERE file = ?", (moved_from,))
            first = "(SELECT MIN(seq) FROM lines WHERE file = ?)"
            conn.execute(f"DELETE FROM lines WHERE file = ? AND seq > {first}", (file, file))
            conn.execute(
                f"INSERT INTO lines (seq, file, title, line) VALUES ({first}, ?, ?, ?) "
                "ON CONFLICT (seq) DO UPDATE SET title = excluded.title, line = excluded.line",
                (file, file, title, line),
            )

        return self._change(replace, stamp)

    def append(self, file: str, line: str, stamp: str) -> bool:
        """``line``, the only line of ``file`` (which had none), was appended to the index."""
        entries = parse_entries(line)
        title = title_key(entries[0].title) if entries else ""
        return self._change(
            lambda conn: conn.execute(
                "INSERT INTO lines (file, title, line) VALUES (?, ?, ?)", (file, title, line)
            ),
            stamp,
        )

    def drop(self, file: str, stamp: str) -> bool:
        """``file`` has no line any more."""
        return self._change(
            lambda conn: conn.execute("DELETE FROM lines WHERE file = ?", (file,)), stamp
        )

    def _change(self, work: Callable[[sqlite3.Connection], object], stamp: str) -> bool:
        """Run ``work`` and record ``stamp``, all or nothing."""
        try:
            with _transaction(self._conn):
                work(self._conn)
                self._conn.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('stamp', ?)", (stamp,)
                )
        except _FAILURES:
            self._seen = None
            self.failed = True
            return False
        self._seen = stamp if self._held else None
        return True


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if conn.in_transaction:  # SQLite ends some itself (a full disk)
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
