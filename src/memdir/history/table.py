"""The history's SQLite file: its tables, its connection, its blobs.

``<home>/projects/<slug>/history/history.sqlite``, beside ``memory/``
and ``.memdir/``: not under ``.memdir/`` (derived state, which may be deleted)
and not inside ``team/`` (a git work tree that is pushed), so no version
leaves the machine that was not already committed there. The tables:

- ``blobs``: a file's bytes, zlib-compressed, keyed by their SHA-256; shared
  by every version that holds the same text;
- ``changes``: one row per change set (one write, or a whole consolidation
  run); an undo is a change that names the change it reverses;
- ``versions``: one row per file a change touched: time, action, route,
  client, session, turns, transcript, user, host, scope, file (and the file
  it was renamed from), the memory's name, the hashes of the bytes before
  and after (``NULL``: absent), the same for a note's sidecar, the edit
  the change made to the scope's ``MEMORY.md`` as one hunk (offset, old
  bytes, new bytes), and for a change held for review its status and the
  reason it is held (screening's findings, or the review mode);
- ``intents``: a verb over the history that is under way (an undo, an
  approval): written before its first step, deleted in the transaction that
  records it done, so a verb cut short (a kill, a full disk) is found and
  finished by the next run rather than recorded as done
  (:mod:`memdir.history.intents`).

Redaction must leave no copy of a text: the connection deletes securely
(``secure_delete``: a freed page or cell is zeroed, not left in the file).

Trigger: a content-addressed table rather than a git repository per scope.
Why: a commit writes a tree object listing the whole folder, so at 100,000
flat files every write would write a 100,000-entry tree; here a write is two
blob upserts and one row, O(1) in the store size, in the same transaction
under the scope lock as the write itself. Outcome: writes stay flat (see
``benchmarks/scale.py``); git stays what team memory syncs through.

This module holds what every use of the file shares: the schema (created,
and extended by the columns added since, on the first connection), one
connection per thread and per process (a fork opens its own), transactions
that nest, the blob table, and the rows read back as :class:`Version` and
:class:`Change`. :class:`HistoryTable` is the base of
:class:`~memdir.history.versions.History` and keeps no state of its own: the
history's constructor sets the attributes it reads. ``sqlite3``, ``zlib`` and
``hashlib`` load on the first version read or written: opening a project
(every command, every hook) must not pay for them.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.errors import MemdirError
from memdir.model import Scope
from memdir.storage.fs import ensure_dir
from memdir.utils.records import record

if TYPE_CHECKING:
    import sqlite3
    import threading

__all__ = ["VERSION_COLUMNS", "Change", "HistoryTable", "Version", "blob_hash", "version_of"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS blobs (hash TEXT PRIMARY KEY, size INTEGER, data BLOB) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS changes (
    id INTEGER PRIMARY KEY, time REAL, action TEXT, route TEXT, session TEXT,
    undoes INTEGER, undone_by INTEGER
);
CREATE TABLE IF NOT EXISTS snapshots (
    change INTEGER, scope TEXT, hash TEXT, PRIMARY KEY (change, scope)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY, change INTEGER, time REAL, scope TEXT, file TEXT,
    old_file TEXT, name TEXT, name_key TEXT, action TEXT, route TEXT, client TEXT,
    session TEXT, turns TEXT, transcript TEXT, user TEXT, host TEXT,
    before TEXT, after TEXT, meta_before TEXT, meta_after TEXT,
    index_at INTEGER, index_old BLOB, index_new BLOB, index_absent INTEGER,
    redacted INTEGER DEFAULT 0, status TEXT, reason TEXT
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS intents (
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, target INTEGER NOT NULL, time REAL NOT NULL,
    plan TEXT, made INTEGER
);
"""
# Columns added after the first release of a table: (table, name, declaration).
_ADDED_COLUMNS = (
    ("versions", "status", "TEXT"),
    ("versions", "reason", "TEXT"),
    ("intents", "made", "INTEGER"),
)
# One memory's versions are read a page at a time, newest (or oldest) first: each
# index below serves "this file (or name), in id order" so a LIMIT stops the scan
# (an index's entries are in rowid order within a key); the partial ones, the
# versions that name transcript turns (`memdir why`'s source), likewise.
_INDEXES = """
CREATE INDEX IF NOT EXISTS versions_status ON versions (status) WHERE status IS NOT NULL;
CREATE INDEX IF NOT EXISTS versions_file ON versions (scope, file);
CREATE INDEX IF NOT EXISTS versions_old_file ON versions (scope, old_file)
    WHERE old_file IS NOT NULL;
CREATE INDEX IF NOT EXISTS versions_source_file ON versions (scope, file)
    WHERE turns IS NOT NULL AND transcript IS NOT NULL;
CREATE INDEX IF NOT EXISTS versions_source_name ON versions (name_key, scope)
    WHERE turns IS NOT NULL AND transcript IS NOT NULL;
CREATE INDEX IF NOT EXISTS versions_named ON versions (name_key, scope);
DROP INDEX IF EXISTS versions_name;
CREATE INDEX IF NOT EXISTS versions_change ON versions (change);
"""
# What a query selects to read a row back as a Version (version_of), in field order.
VERSION_COLUMNS = (
    "id, change, time, scope, file, old_file, name, action, route, client, session, "
    "turns, transcript, user, host, before, after, meta_before, meta_after, redacted, status, "
    "reason"
)


def blob_hash(data: bytes) -> str:
    """The key of ``data`` in the blob table (SHA-256, hex)."""
    import hashlib

    return hashlib.sha256(data).hexdigest()


@record
class Version:
    """One recorded change to one memory file."""

    id: int
    change: int
    time: float
    scope: Scope
    file: str
    old_file: str | None
    name: str | None
    action: str
    route: str
    client: str | None
    session: str | None
    turns: str | None
    transcript: str | None
    user: str | None
    host: str | None
    before: str | None  # blob hash of what the file held before (None: absent)
    after: str | None  # blob hash of what it holds after (None: removed)
    meta_before: str | None
    meta_after: str | None
    redacted: bool
    status: str | None  # None: applied; pending, approved or rejected (review)
    reason: str | None = None  # why a pending version waits (screening's findings, the mode)

    @property
    def when(self) -> str:
        """The time as an ISO string, to the second, in local time."""
        return dt.datetime.fromtimestamp(self.time).isoformat(timespec="seconds")

    def json_fields(self) -> dict[str, object]:
        fields = {name: getattr(self, name) for name in VERSION_COLUMNS.split(", ")}
        fields["scope"] = self.scope.value
        fields["when"] = self.when
        return fields


@record
class Change:
    """A change set: one write, or every write of one run."""

    id: int
    time: float
    action: str
    route: str
    session: str | None
    undoes: int | None
    undone_by: int | None


def _prepare(conn: sqlite3.Connection) -> None:
    """Set a new connection's pragmas and make or bring up to date the tables."""
    conn.execute("PRAGMA journal_mode = WAL")
    # WAL with NORMAL: a commit is durable once the WAL is checkpointed; a
    # power cut can lose the last versions, never corrupt the table.
    conn.execute("PRAGMA synchronous = NORMAL")
    # Checkpointed every 512 KiB and cut back to that size: the WAL's
    # default 4 MiB (kept at its largest) is a lot of a small disk.
    conn.execute("PRAGMA wal_autocheckpoint = 128")
    conn.execute(f"PRAGMA journal_size_limit = {128 * 4096}")
    # A redacted text must not stay in a freed page (the default of some builds).
    conn.execute("PRAGMA secure_delete = ON")
    conn.executescript(_SCHEMA)
    have = {
        (table, row[1])
        for table in ("versions", "intents")
        for row in conn.execute(f"PRAGMA table_info({table})")
    }
    for table, column, kind in _ADDED_COLUMNS:
        if (table, column) not in have:  # a history written by an earlier memdir
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    conn.executescript(_INDEXES)


class HistoryTable:
    """The connection to one history file, its transactions and its blobs."""

    path: Path
    _local: threading.local  # this thread's connection, with the pid that opened it

    def _conn(self) -> sqlite3.Connection:
        opened: tuple[int, sqlite3.Connection] | None = getattr(self._local, "conn", None)
        if opened is not None and opened[0] == os.getpid():
            return opened[1]
        import sqlite3

        from memdir.utils.sqlite_open import open_database

        ensure_dir(self.path.parent)
        try:
            conn = open_database(self.path, timeout=60.0, setup=_prepare)
        except sqlite3.DatabaseError as exc:
            raise MemdirError(
                f"the memory history cannot be opened: {exc}",
                path=self.path,
                hint="move the file aside to start a new history (memories are not affected)",
            ) from None
        self._local.conn = (os.getpid(), conn)
        return conn

    def close(self) -> None:
        """Close this thread's connection."""
        opened = getattr(self._local, "conn", None)
        if opened is not None:
            opened[1].close()
            self._local.conn = None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        if conn.in_transaction:  # nested (a change set's snapshot inside a record)
            yield conn
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            import sqlite3  # loaded already: the connection is open

            # SQLite ends some transactions itself (a full disk): the error that
            # did is the one to raise, not "cannot rollback".
            with contextlib.suppress(sqlite3.OperationalError):
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def put_blob(self, conn: sqlite3.Connection, data: bytes | None) -> str | None:
        """Store ``data`` once (compressed); returns its hash (None for None)."""
        if data is None:
            return None
        import zlib

        digest = blob_hash(data)
        conn.execute(
            "INSERT OR IGNORE INTO blobs (hash, size, data) VALUES (?, ?, ?)",
            (digest, len(data), zlib.compress(data, 6)),
        )
        return digest

    def blob(self, digest: str | None) -> bytes | None:
        """The bytes stored under ``digest``; None when absent or redacted."""
        if digest is None:
            return None
        import zlib

        row = self._conn().execute("SELECT data FROM blobs WHERE hash = ?", (digest,)).fetchone()
        return None if row is None else zlib.decompress(row[0])


def version_of(row: tuple[object, ...]) -> Version:
    """The :class:`Version` of a row selected as :data:`VERSION_COLUMNS`."""
    values = dict(zip(VERSION_COLUMNS.split(", "), row, strict=True))
    values["scope"] = Scope(str(values["scope"]))
    values["redacted"] = bool(values["redacted"])
    return Version(**values)  # type: ignore[arg-type]
