"""Applying a planned write under the scope lock.

:class:`~memdir.storage.store.MemoryStore` plans a write outside the lock
(target, checks, guard, a staging copy fsynced); this half holds what runs
under the lock and right after it: the lock itself, renaming the staged copy
into place, the file counts, the history (and a write held for review), the
trash, the catalog journal, and the fsyncs that follow the lock. The index
edit and the key table that lets it skip reading the index are its base,
:class:`~memdir.storage.store_index.IndexedStore`. A write that fails past
its rename (a full disk, the history) is undone whole
(:mod:`memdir.storage.rollback`). Delete and rename are
:mod:`memdir.storage.store_moves`.

:class:`AppliedStore` is a base of ``MemoryStore``: it keeps no state of its
own (the store's constructor sets the attributes declared here and in
:class:`~memdir.storage.store_index.IndexedStore`) and reaches back for the
few reads it needs (``get``, ``_resolve``, ``_read``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from memdir.errors import MemdirError
from memdir.model import Memory, MemoryRecord, Scope
from memdir.storage import sidecar
from memdir.storage.failures import translated
from memdir.storage.file_counts import FileCounts
from memdir.storage.fs import (
    atomic_write,
    ensure_dir,
    file_lock,
    fsync_dir,
    read_bytes_nofollow,
    safe_join,
)
from memdir.storage.journal import journal_or_warning
from memdir.storage.memory_index import INDEX_NAME
from memdir.storage.rollback import InstallUndo
from memdir.storage.store_index import IndexedStore
from memdir.utils.records import record

if TYPE_CHECKING:
    from memdir.storage.index_hunks import IndexHunk, IndexWatch
    from memdir.storage.index_keys import KeyTable

__all__ = [
    "STAGING_DIR",
    "AppliedStore",
    "ChangeLog",
    "FileChange",
    "ReviewGate",
    "WriteResult",
    "content_version",
]

STAGING_DIR = ".staging"
"""Where a write's text waits, fsynced, to be renamed into place: a dot-folder in the
scope's root (same file system, never listed as memories)."""

ReviewGate = Callable[[Memory | None], str | None]
"""A store's review gate: it sees the memory a change would write (``None`` for a
delete or a rename) and answers why the change waits for a person (``None``: it
applies now); it raises a :class:`~memdir.errors.MemdirError` to refuse it."""


@record
class FileChange:
    """One change to one file, as a store hands it to its :class:`ChangeLog`.

    ``before``/``after`` are the file's bytes (``None``: it did not exist), the
    ``meta_*`` those of a note's sidecar, ``hunk`` the index lines the change
    touched; ``status`` ``"pending"`` keeps a change that is held for review and
    not applied, and ``reason`` says why it is held.
    """

    scope: Scope
    file: str
    action: str
    before: bytes | None
    after: bytes | None
    name: str | None = None
    old_file: str | None = None
    meta_before: bytes | None = None
    meta_after: bytes | None = None
    hunk: IndexHunk | None = None
    status: str | None = None
    reason: str | None = None


class ChangeLog(Protocol):
    """Where a store keeps every change it makes: :class:`memdir.history.versions.History`.

    The store calls it under the scope's lock, once per file a change touched. It
    returns the version's id.
    """

    def record(self, file_change: FileChange) -> int: ...


@record
class WriteResult:
    """What a write did: the stored record, whether it created the file, warnings.

    ``pending`` is the id of the version awaiting review when the write was
    held (see :meth:`AppliedStore.hold_reason`): then nothing changed on disk yet,
    and ``held_because`` says why it waits, in one line.
    """

    record: MemoryRecord
    created: bool
    warnings: tuple[str, ...] = ()
    pending: int | None = None
    held_because: str | None = None


@dataclass(kw_only=True)
class _Staged:
    """A write made ready: its target as the plan saw it and the text's fsynced copy."""

    rel: str
    path: Path
    current: bytes | None  # what the target held when the write was planned
    memory: Memory
    text: str
    note: bool
    trash: bool  # the current file goes to the trash before it is replaced
    warnings: tuple[str, ...]
    temp: Path | None  # the staging copy; None once renamed into place
    record: MemoryRecord | None  # None for a note: read once its sidecar is written
    target: str | None = None  # the file name the plan chose, before it was resolved
    action: str | None = None  # the history's name for the change (else create/update)


def _meta_bytes(note: Path) -> bytes | None:
    """A note's sidecar bytes (None without one), for the history."""
    try:
        return read_bytes_nofollow(sidecar.path_for(note))
    except (FileNotFoundError, NotADirectoryError):
        return None


def _note_meta(memory: Memory) -> bytes:
    """The sidecar bytes :func:`sidecar.write` would write for ``memory``."""
    from memdir.storage.codec import render_memory

    rendered = render_memory(replace(memory, body=""))
    lines = rendered.split("\n")
    return ("\n".join(lines[1 : lines.index("---", 1)]) + "\n").encode("utf-8")


def content_version(data: bytes) -> str:
    """The version a compare-and-swap writer passes back: a short content hash (SHA-256)."""
    import hashlib  # here: loading OpenSSL costs every command that never hashes

    return hashlib.sha256(data).hexdigest()[:16]


def _index_bytes(index: Path) -> bytes | None:
    try:
        return read_bytes_nofollow(index)
    except FileNotFoundError:
        return None


class AppliedStore(IndexedStore):
    """What runs under a scope's lock: install, counts, history, trash, journal."""

    scope: Scope
    _lock_path: Path
    _trash_dir: Path
    _counts: FileCounts | None
    _journal: Path | None
    history: ChangeLog | None
    _review: ReviewGate | None

    if TYPE_CHECKING:  # what this half needs from the store_reads and store_checks halves above it

        def get(self, ref: str) -> MemoryRecord: ...

        def _resolve(self, file: str, *, any_name: bool = False) -> tuple[str, Path]: ...

        def _read(self, rel: str, path: Path) -> MemoryRecord: ...

        def _check_version(
            self, rel: str, path: Path, actual: str, expected: str | None
        ) -> None: ...

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """The scope's inter-process lock: held by every write, rename and delete."""
        with file_lock(self._lock_path, timeout=self.settings.lock_timeout):
            self._forget(held=True)  # what another holder changed is read again
            try:
                yield
            finally:
                self._forget(held=False)

    def _forget(self, *, held: bool) -> None:
        """A locked section starts or ends: derived state read in the last one is stale."""
        if self._counts is not None:
            self._counts.forget()
        opened = self._opened_table()
        if opened is not None and opened[1] is not None:
            opened[1].forget(held=held)

    def _folder_mtimes(self, *files: str) -> dict[str, int] | None:
        """Under the lock, before a change: the mtimes of the folders of ``files``."""
        return None if self._counts is None else self._counts.mtimes(*files)

    def _counted(self, before: dict[str, int] | None, *changes: tuple[str, int]) -> None:
        """Under the lock, after a change: the file counts follow it."""
        if self._counts is not None:
            self._counts.record(before, *changes)

    def _journaled(self, *files: str) -> tuple[str, ...]:
        """Tell the catalog which files changed (absolute paths); a warning if it cannot.

        The journal is derived state: the change it would announce is already
        made, and the catalog finds it anyway (folder mtimes, its walks). So a
        journal that cannot be written (a folder in its place, a full disk) is
        said as a warning, logged, and never fails the change.
        """
        if self._journal is None:
            return ()
        return journal_or_warning(self._journal, [self.root / file for file in files])

    def _still(self, staged: _Staged, target: str) -> bool:
        """Whether the write's target, seen under the lock, is what the plan saw.

        The same file name resolves to the same path (the rename checks the
        path's confinement again), so only the file's bytes are read again.
        """
        if target != staged.target:
            return False
        path = staged.path
        try:
            current = read_bytes_nofollow(path) if os.path.lexists(path) else None
        except (MemdirError, OSError):
            return False
        return current == staged.current

    def _trash_copy(self, rel: str, data: bytes) -> Path:
        target = self._trash_target(rel)
        atomic_write(target, data)
        return target

    def _install(self, staged: _Staged, keys: KeyTable | None) -> tuple[WriteResult, int | None]:
        """Under the lock: trash what is replaced, rename the copy into place, index it.

        Returns the result and the index to fsync once the lock is released.
        """
        rel, path = staged.rel, staged.path
        watch = self._watch()
        meta_before = _meta_bytes(path) if staged.note and watch is not None else None
        if staged.trash and staged.current is not None:
            self._trash_copy(rel, staged.current)
        if staged.note:
            sidecar.write(path, staged.memory)
        if not path.parent.is_dir():
            ensure_dir(path.parent)
            path = safe_join(self.root, rel)  # its folders exist now: check again
        assert staged.temp is not None
        # A new file's folder was counted just now (under this lock); an update's
        # folder is compared with its record first, so a file added by hand is
        # not hidden by recording the mtime the update gives it.
        before = None if staged.current is None else self._folder_mtimes(rel)
        undo = InstallUndo(path, self.index_path, staged.temp.parent)
        try:
            result, index_fd = self._put_in_place(
                staged, path, keys, before, watch, meta_before, undo
            )
        except BaseException:
            undo.undo()
            if watch is not None:
                watch.close()
            raise
        finally:
            undo.close()
        return result, index_fd

    def _put_in_place(
        self,
        staged: _Staged,
        path: Path,
        keys: KeyTable | None,
        before: dict[str, int] | None,
        watch: IndexWatch | None,
        meta_before: bytes | None,
        undo: InstallUndo,
    ) -> tuple[WriteResult, int | None]:
        """Rename the staged copy over ``path``, index it, count it and keep it in the history."""
        rel = staged.rel
        assert staged.temp is not None
        try:
            os.replace(staged.temp, path)
        except OSError as exc:
            if exc.errno != errno.EXDEV:  # a folder on another file system: copy there
                raise
            atomic_write(path, staged.text, sync_dir=False)
        staged.temp = None
        memory = staged.memory
        title = self._index_title(memory, rel, keys)
        index_fd = self._update_index(title, rel, memory.description, keys=keys, undo=undo)
        try:
            # After the index write, which may have moved the root's mtime; an update
            # records its folder's new mtime too, so the next count need not list it.
            self._counted(before, (rel, 1 if staged.current is None else 0))
            record = staged.record if staged.record is not None else self._read(rel, path)
            if watch is not None:
                action = staged.action or ("create" if staged.current is None else "update")
                self._keep(
                    watch,
                    rel,
                    action=action if not staged.trash else "replace",
                    name=memory.name,
                    before=staged.current,
                    after=staged.text.encode("utf-8"),
                    meta_before=meta_before,
                    meta_after=_meta_bytes(path) if staged.note else None,
                )
        except BaseException:
            if index_fd is not None:
                os.close(index_fd)
            raise
        result = WriteResult(
            record=record, created=staged.current is None, warnings=staged.warnings
        )
        return result, index_fd

    def hold_reason(self, memory: Memory | None = None) -> str | None:
        """Why a change made now (by the current provenance) waits for review, or None.

        ``memory`` is what the change would write (None: a delete or a rename).
        The store's review gate answers (see :mod:`memdir.history.review`), and
        raises for a change it refuses (an agent's change to a read-only scope);
        without a gate, every change applies.
        """
        return None if self._review is None else self._review(memory)

    def review_held(self, memory: Memory | None = None) -> bool:
        """Whether a change made now waits for review (see :meth:`hold_reason`)."""
        return self.hold_reason(memory) is not None

    def _propose(self, staged: _Staged, reason: str) -> WriteResult:
        """Under the lock: keep the write as a pending version; the file is not touched."""
        assert self.history is not None
        payload = staged.text.encode("utf-8")
        version = self.history.record(
            FileChange(
                scope=self.scope,
                file=staged.rel,
                action=staged.action or ("create" if staged.current is None else "update"),
                name=staged.memory.name,
                before=staged.current,
                after=payload,
                meta_before=_meta_bytes(staged.path) if staged.note else None,
                meta_after=_note_meta(staged.memory) if staged.note else None,
                status="pending",
                reason=reason,
            )
        )
        record = staged.record or MemoryRecord(
            scope=self.scope,
            file=staged.rel,
            memory=staged.memory,
            version=content_version(payload),
            mtime=0.0,
        )
        return WriteResult(
            record=record,
            created=staged.current is None,
            warnings=staged.warnings,
            pending=version,
            held_because=reason,
        )

    def _watch(self) -> IndexWatch | None:
        """Under the lock, before a change: what the history needs to see of the index."""
        if self.history is None:
            return None
        from memdir.storage.index_hunks import IndexWatch

        return IndexWatch(self._index_path)

    def _keep(
        self,
        watch: IndexWatch,
        rel: str,
        *,
        action: str,
        name: str | None,
        before: bytes | None,
        after: bytes | None,
        old_file: str | None = None,
        meta_before: bytes | None = None,
        meta_after: bytes | None = None,
    ) -> None:
        """Under the lock, after a change: record it (and its index edit) in the history."""
        try:
            assert self.history is not None
            self.history.record(
                FileChange(
                    scope=self.scope,
                    file=rel,
                    action=action,
                    name=name,
                    before=before,
                    after=after,
                    old_file=old_file,
                    meta_before=meta_before,
                    meta_after=meta_after,
                    hunk=watch.hunk(),
                )
            )
        finally:
            watch.close()

    def _settle(self, staged: _Staged, index_fd: int | None) -> tuple[str, ...]:
        """After the lock: make the rename and the index line durable, tell the catalog.

        Returns the warnings of derived state that could not follow (the journal).
        """
        try:
            fsync_dir(staged.path.parent)
            if index_fd is not None:
                os.fsync(index_fd)
        finally:
            if index_fd is not None:
                os.close(index_fd)
        return self._journaled(staged.rel)

    @staticmethod
    def _discard(staged: _Staged | None) -> None:
        """Remove a staging copy that was not renamed into place."""
        if staged is not None and staged.temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(staged.temp)
            staged.temp = None

    def _trash_target(self, rel: str) -> Path:
        """A free path in today's trash folder, its folders made and confined.

        Every component is created or checked inside the trash's parent (the
        project folder) with symlinks resolved, so a link planted at
        ``.trash/<date>/private`` is refused rather than followed.
        """
        home = self._trash_dir.parent
        base = f"{self._trash_dir.name}/{dt.date.today().isoformat()}/{self.scope.value}"
        candidate, n = f"{base}/{rel}", 2
        while True:
            target = safe_join(home, candidate)
            if not os.path.lexists(target):
                break
            candidate, n = f"{base}/{rel.removesuffix('.md')}.{n}.md", n + 1
        ensure_dir(target.parent)
        # Made just now: check again that no component is a link out of the home.
        return safe_join(home, candidate)

    def write_index(self, text: str) -> None:
        """Replace the index (used by doctor's repairs), under the scope lock."""
        with translated(self.index_path), self.lock():
            before = _index_bytes(self.index_path) if self.history is not None else None
            atomic_write(self.index_path, text)
            if self.history is not None:  # the whole text: a repair rewrites it anyway
                after = text.encode("utf-8")
                self.history.record(
                    FileChange(
                        scope=self.scope,
                        file=INDEX_NAME,
                        action="index",
                        before=before,
                        after=after,
                    )
                )
