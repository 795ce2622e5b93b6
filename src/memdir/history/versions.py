"""History: every version of every memory, content-addressed in one SQLite file.

:class:`History` records versions (one write, or every write of a change
set, under the scope lock as the write itself), reads them back for one
memory (a page at a time, see :meth:`History.page`) and for review, and
prunes them; an undo and an approval are begun as intents and recorded once
complete (:mod:`memdir.history.intents`). The file, its tables and
why they are tables rather than a git repository are
:mod:`memdir.history.table` (:class:`Version`, :class:`Change` and
:func:`blob_hash` are re-exported here); reads across every memory are
:mod:`memdir.history.reads`.

The index is recorded as a hunk, not a copy: the store appends a new line
(the hunk is the bytes appended, read back in O(1)) or replaces the index
atomically (then the old and new texts are compared once, which that path
already paid for; see :mod:`memdir.storage.index_hunks`). Undoing a change
applies its hunks backwards, so the index returns byte for byte. A change
set that rewrites an index wholesale (consolidation, whose doctor pass
repairs it) snapshots it at its start.

Retention: versions older than ``history_retention_days`` go on
:meth:`History.prune` (run once a day by the first write, and by ``memdir
history --prune``), except the newest version of a memory that still exists
(its provenance); blobs nothing points at go with them, and so do trash
folders past the same age (:mod:`memdir.history.retention`, a base of
:class:`History`). Redaction (every copy of a text, the history's included) is
:mod:`memdir.history.redaction`.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.history.intents import APPROVE, UNDO, Intent
from memdir.history.provenance import Provenance, local_identity
from memdir.history.provenance import current as current_provenance
from memdir.history.retention import Retention
from memdir.history.table import (
    VERSION_COLUMNS,
    Change,
    Version,
    blob_hash,
    version_of,
)
from memdir.model import Scope
from memdir.storage.index_hunks import IndexHunk
from memdir.utils.records import record

if TYPE_CHECKING:
    import sqlite3

    from memdir.storage.store_apply import FileChange

__all__ = [
    "APPROVED",
    "APPROVING",
    "HISTORY_NAME",
    "PENDING",
    "REDACTED",
    "REDACTED_FILE",
    "REJECTED",
    "Change",
    "History",
    "Reversal",
    "Version",
    "blob_hash",
    "name_key",
]

HISTORY_NAME = "history.sqlite"
REDACTED = "redacted"
"""What a redacted version holds instead of a blob hash (its text is gone)."""
REDACTED_FILE = "(redacted)"
"""What a version's file holds once a redaction found the file name itself in the secret."""
PENDING, APPROVED, REJECTED = "pending", "approved", "rejected"
APPROVING = "approving"
"""How a listing shows a pending version whose approval was cut short (the row stays pending)."""
_CHANGE_COLUMNS = ("id", "time", "action", "route", "session", "undoes", "undone_by")
# The change set being recorded in this context (see History.change_set).
_open_change: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "memdir_change", default=None
)


@record
class Reversal:
    """One file an undo put back, as the undo's own version records it (blob hashes)."""

    scope: Scope
    file: str
    old_file: str | None
    name: str | None
    before: str | None
    after: str | None
    meta_before: str | None = None
    meta_after: str | None = None


class History(Retention):
    """The version table of one project (both scopes)."""

    def __init__(
        self, path: Path, *, retention_days: float = 30.0, trash_dir: Path | None = None
    ) -> None:
        self.path = path
        self.retention_days = retention_days
        self.trash_dir = trash_dir
        self._local = threading.local()
        self._prune_checked = False

    @classmethod
    def existing(cls, path: Path) -> History | None:
        """The history at ``path`` if one was ever written, else None (nothing is created)."""
        return cls(path) if path.exists() else None

    # -- writing ----------------------------------------------------------------------

    @contextlib.contextmanager
    def change_set(
        self, action: str, *, snapshots: dict[Scope, Path] | None = None
    ) -> Iterator[int]:
        """Group every version recorded in the block into one change (undone as one).

        ``snapshots`` names indexes to copy now, for a run that rewrites them
        wholesale. Nested calls join the outer change set.
        """
        outer = _open_change.get()
        if outer is not None:
            yield outer
            return
        with self._transaction() as conn:
            change = self._new_change(conn, action)
            for scope, index in (snapshots or {}).items():
                try:
                    data: bytes | None = index.read_bytes()
                except FileNotFoundError:
                    data = None
                conn.execute(
                    "INSERT INTO snapshots (change, scope, hash) VALUES (?, ?, ?)",
                    (change, scope.value, self.put_blob(conn, data) or ""),
                )
        token = _open_change.set(change)
        try:
            yield change
        finally:
            _open_change.reset(token)
            self._drop_if_empty(change)

    def _drop_if_empty(self, change: int) -> None:
        """A change set that recorded nothing (a run that changed nothing) is not kept."""
        with self._transaction() as conn:
            used = conn.execute(
                "SELECT 1 FROM versions WHERE change = ? LIMIT 1", (change,)
            ).fetchone()
            if used is None:
                conn.execute("DELETE FROM snapshots WHERE change = ?", (change,))
                conn.execute("DELETE FROM changes WHERE id = ?", (change,))

    def _new_change(
        self, conn: sqlite3.Connection, action: str, *, undoes: int | None = None
    ) -> int:
        origin = current_provenance()
        cur = conn.execute(
            "INSERT INTO changes (time, action, route, session, undoes) VALUES (?, ?, ?, ?, ?)",
            (time.time(), action, origin.route, origin.session, undoes),
        )
        return int(cur.lastrowid or 0)

    # -- an undo: begun as an intent, recorded once every file is back -------------------

    def begin_undo(self, change: int, plan: str) -> Intent:
        """Keep that change set ``change`` is being undone, with the undo's ``plan``.

        Writes the undo's change row and its intent (see
        :mod:`memdir.history.intents`, ``made`` the undo's change id); ``change``
        is not marked undone until :meth:`finish_undo`.
        """
        with self._transaction() as conn:
            undo = self._new_change(conn, "undo", undoes=change)
            self._begin_intent(conn, UNDO, change, plan, made=undo)
        begun = self.intent(UNDO, change)
        assert begun is not None
        return begun

    def finish_undo(self, intent: Intent, reversals: Sequence[Reversal]) -> None:
        """Record the undo ``intent`` began done, in one transaction.

        One version per file put back, the change marked undone, the intent deleted.
        """
        assert intent.made is not None
        origin = current_provenance()
        with self._transaction() as conn:
            for r in reversals:
                self._insert(
                    conn,
                    change=intent.made,
                    target=r,
                    action="undo",
                    origin=origin,
                    user=origin.user,
                    host=origin.host,
                    hashes=(r.before, r.after, r.meta_before, r.meta_after),
                )
            conn.execute(
                "UPDATE changes SET undone_by = ? WHERE id = ?", (intent.made, intent.target)
            )
            self._end_intent(conn, intent.id)

    # -- an approval: begun as an intent, recorded once its write is made ----------------

    def begin_approval(self, version_id: int) -> None:
        """Keep that pending version ``version_id`` is being applied (it stays pending)."""
        if self.intent(APPROVE, version_id) is not None:
            return
        with self._transaction() as conn:
            self._begin_intent(conn, APPROVE, version_id)

    def drop_approval(self, version_id: int) -> None:
        """Forget an approval that was refused before its write (the version stays pending)."""
        with self._transaction() as conn:
            conn.execute("DELETE FROM intents WHERE kind = ? AND target = ?", (APPROVE, version_id))

    def set_status(self, version_id: int, status: str) -> None:
        """Mark a pending version approved or rejected (ending an approval under way)."""
        with self._transaction() as conn:
            conn.execute("UPDATE versions SET status = ? WHERE id = ?", (status, version_id))
            conn.execute("DELETE FROM intents WHERE kind = ? AND target = ?", (APPROVE, version_id))

    def record(self, file_change: FileChange) -> int:
        """Keep one change to one file (called under the scope's lock); returns its id.

        A ``"pending"`` status keeps a change that is not applied (review), and its
        ``reason`` why it is held. Who made it is the current provenance.
        """
        origin = current_provenance()
        action = origin.action or file_change.action
        user, host = origin.user, origin.host
        if (file_change.scope is Scope.TEAM or origin.approved) and user is None and host is None:
            user, host = local_identity()
        with self._transaction() as conn:
            version = self._insert(
                conn,
                change=_open_change.get() or self._new_change(conn, action),
                target=file_change,
                action=action,
                origin=origin,
                user=user,
                host=host,
                hashes=(
                    self.put_blob(conn, file_change.before),
                    self.put_blob(conn, file_change.after),
                    self.put_blob(conn, file_change.meta_before),
                    self.put_blob(conn, file_change.meta_after),
                ),
                hunk=file_change.hunk,
                status=file_change.status,
                reason=file_change.reason,
            )
        if not self._prune_checked:
            self._prune_checked = True
            self.prune_if_due()
        return version

    @staticmethod
    def _insert(
        conn: sqlite3.Connection,
        *,
        change: int,
        target: FileChange | Reversal,
        action: str,
        origin: Provenance,
        user: str | None,
        host: str | None,
        hashes: tuple[str | None, str | None, str | None, str | None],
        hunk: IndexHunk | None = None,
        status: str | None = None,
        reason: str | None = None,
    ) -> int:
        """One version row for ``target``'s file (its scope, file, old file and name);
        ``hashes``: the blobs before and after, the sidecar's likewise."""
        cur = conn.execute(
            "INSERT INTO versions (change, time, scope, file, old_file, name, name_key, "
            "action, route, client, session, turns, transcript, user, host, before, after, "
            "meta_before, meta_after, index_at, index_old, index_new, index_absent, status, "
            "reason) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                change,
                time.time(),
                target.scope.value,
                target.file,
                target.old_file,
                target.name,
                name_key(target.name),
                action,
                origin.route,
                origin.client,
                origin.session,
                origin.turns,
                origin.transcript,
                user,
                host,
                *hashes,
                None if hunk is None else hunk.at,
                None if hunk is None else hunk.old,
                None if hunk is None else hunk.new,
                None if hunk is None else int(hunk.absent),
                status,
                reason,
            ),
        )
        return int(cur.lastrowid or 0)

    # -- reading ----------------------------------------------------------------------

    def versions(
        self,
        *,
        scope: Scope | None = None,
        file: str | None = None,
        name: str | None = None,
        change: int | None = None,
        applied: bool = False,
    ) -> list[Version]:
        """Versions matching every filter given, newest first.

        ``file`` also finds versions that renamed the memory away from it;
        ``name`` matches the memory's name whatever its case.
        """
        where: list[str] = []
        args: list[object] = []
        if scope is not None:
            where.append("scope = ?")
            args.append(scope.value)
        refs = []
        if file is not None:
            refs.append("file = ? OR old_file = ?")
            args += [file, file]
        if name is not None:
            refs.append("name_key = ?")
            args.append(name_key(name))
        if refs:
            where.append("(" + " OR ".join(refs) + ")")
        if change is not None:
            where.append("change = ?")
            args.append(change)
        if applied:
            where.append("status IS NULL")
        sql = f"SELECT {VERSION_COLUMNS} FROM versions"
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self._conn().execute(sql + " ORDER BY id DESC", args).fetchall()
        return [version_of(row) for row in rows]

    def page(
        self,
        *,
        scopes: Sequence[Scope],
        files: Sequence[str] = (),
        name: str | None = None,
        limit: int | None = None,
        before: int | None = None,
        oldest: bool = False,
        where: str = "",
    ) -> list[Version]:
        """One memory's versions (by its files and its name), newest first (``oldest``: oldest
        first), ``limit`` of them below version id ``before``.

        One query per scope and file (and per file it was renamed from), and one
        for the name, each served in id order by an index its ``LIMIT`` stops;
        merged, so no version past the page is read whatever the memory's count.
        ``where`` adds a condition on the row (SQL, no parameters).
        """
        order = "ASC" if oldest else "DESC"
        tail = (" AND id < ?" if before is not None else "") + (f" AND ({where})" if where else "")
        tail += f" ORDER BY id {order}" + (" LIMIT ?" if limit is not None else "")
        extra: list[object] = [before] if before is not None else []
        if limit is not None:
            extra.append(limit)
        queries: list[tuple[str, list[object]]] = []
        for scope in scopes:
            for file in files:
                queries.append(("scope = ? AND file = ?", [scope.value, file]))
                queries.append(("scope = ? AND old_file = ?", [scope.value, file]))
        key = name_key(name)
        if key:
            queries += [("name_key = ? AND scope = ?", [key, scope.value]) for scope in scopes]
        conn = self._conn()
        found: dict[int, Version] = {}
        for condition, args in queries:
            sql = f"SELECT {VERSION_COLUMNS} FROM versions WHERE {condition}{tail}"
            for row in conn.execute(sql, [*args, *extra]):
                v = version_of(row)
                found[v.id] = v
        chosen = sorted(found.values(), key=lambda v: v.id, reverse=not oldest)
        return chosen if limit is None else chosen[:limit]

    def pending(self) -> list[Version]:
        """Changes awaiting review, oldest first."""
        rows = self._conn().execute(
            f"SELECT {VERSION_COLUMNS} FROM versions WHERE status = ? ORDER BY id", (PENDING,)
        )
        return [version_of(row) for row in rows]

    def version(self, version_id: int) -> Version | None:
        row = (
            self._conn()
            .execute(f"SELECT {VERSION_COLUMNS} FROM versions WHERE id = ?", (version_id,))
            .fetchone()
        )
        return None if row is None else version_of(row)

    def latest(self, scope: Scope, file: str) -> Version | None:
        """The newest version that left ``file`` as it is (or removed it)."""
        row = (
            self._conn()
            .execute(
                f"SELECT {VERSION_COLUMNS} FROM versions WHERE scope = ? AND file = ? "
                "AND status IS NULL ORDER BY id DESC LIMIT 1",
                (scope.value, file),
            )
            .fetchone()
        )
        return None if row is None else version_of(row)

    def hunk(self, version_id: int) -> IndexHunk | None:
        row = (
            self._conn()
            .execute(
                "SELECT index_at, index_old, index_new, index_absent FROM versions WHERE id = ?",
                (version_id,),
            )
            .fetchone()
        )
        if row is None or row[0] is None or row[1] is None or row[2] is None:
            return None  # no index edit, or its lines were redacted
        return IndexHunk(at=row[0], old=bytes(row[1]), new=bytes(row[2]), absent=bool(row[3]))

    def hunk_redacted(self, version_id: int) -> bool:
        """Whether version ``version_id`` edited the index and a redaction dropped that edit."""
        row = (
            self._conn()
            .execute(
                "SELECT 1 FROM versions WHERE id = ? AND index_at IS NOT NULL "
                "AND (index_old IS NULL OR index_new IS NULL)",
                (version_id,),
            )
            .fetchone()
        )
        return row is not None

    def snapshots(self, change: int) -> dict[Scope, bytes | None]:
        """The indexes a change set copied at its start (None: there was none)."""
        rows = self._conn().execute("SELECT scope, hash FROM snapshots WHERE change = ?", (change,))
        return {Scope(scope): self.blob(digest or None) for scope, digest in rows}

    def last_change(self) -> Change | None:
        """The newest change that is neither undone nor itself an undo."""
        row = (
            self._conn()
            .execute(
                "SELECT id, time, action, route, session, undoes, undone_by FROM changes "
                "WHERE undone_by IS NULL AND undoes IS NULL AND EXISTS (SELECT 1 FROM versions "
                "WHERE versions.change = changes.id AND status IS NULL) ORDER BY id DESC LIMIT 1"
            )
            .fetchone()
        )
        if row is None:
            return None
        return Change(
            id=row[0],
            time=row[1],
            action=row[2],
            route=row[3],
            session=row[4],
            undoes=row[5],
            undone_by=row[6],
        )

    def change(self, change_id: int) -> Change | None:
        """Change set ``change_id``, undone or not; None when it is not kept."""
        row = (
            self._conn()
            .execute(
                "SELECT id, time, action, route, session, undoes, undone_by FROM changes "
                "WHERE id = ?",
                (change_id,),
            )
            .fetchone()
        )
        return None if row is None else Change(**dict(zip(_CHANGE_COLUMNS, row, strict=True)))

    def is_undone(self, change_id: int) -> bool:
        """Whether change set ``change_id`` was undone (or is not kept at all)."""
        found = self.change(change_id)
        return found is None or found.undone_by is not None

    def stats(self) -> dict[str, int]:
        """Counts and sizes: versions, blobs, stored bytes (compressed) and file bytes."""
        conn = self._conn()
        versions = conn.execute("SELECT count(*) FROM versions").fetchone()[0]
        blobs, raw, packed = conn.execute(
            "SELECT count(*), coalesce(sum(size), 0), coalesce(sum(length(data)), 0) FROM blobs"
        ).fetchone()
        return {"versions": versions, "blobs": blobs, "raw_bytes": raw, "stored_bytes": packed}


def name_key(name: str | None) -> str | None:
    """How a name is matched: whitespace collapsed, case folded."""
    return None if name is None else " ".join(name.split()).casefold()
