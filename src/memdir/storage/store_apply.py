"""Applying a planned write under the scope lock, and the index kept in step.

:class:`~memdir.storage.store.MemoryStore` plans a write outside the lock
(target, checks, guard, a staging copy fsynced); this half holds what runs
under the lock and right after it: the lock itself, renaming the staged copy
into place, the index edit (one ``O_APPEND`` write of a new line when the
index ends tidy, else an atomic replace), the key table that lets both skip
reading the index, the file counts, the trash, delete and rename, the catalog
journal, and the fsyncs that follow the lock.

:class:`AppliedStore` is the base of ``MemoryStore``: it keeps no state of its
own (the store's constructor sets the attributes declared here) and reaches
back for the few reads it needs (``get``, ``_resolve``, ``_read``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import logging
import os
import threading
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.config import Settings
from memdir.errors import InvalidMemory, MemdirError, MemoryExists
from memdir.model import FrontmatterStyle, Memory, MemoryRecord, Scope, is_slug
from memdir.records import record
from memdir.storage import sidecar
from memdir.storage.failures import translated
from memdir.storage.file_counts import FileCounts
from memdir.storage.fs import (
    ABSENT_STAMP,
    FILE_MODE,
    atomic_write,
    ensure_dir,
    fd_stamp,
    file_lock,
    file_stamp,
    fsync_dir,
    read_bytes_nofollow,
    read_stamped,
    safe_join,
    write_temp,
)
from memdir.storage.memory_index import (
    INDEX_NAME,
    format_entry,
    parse_entries,
    remove_entry,
    title_of,
    upsert_entry,
    upsert_raw,
)

if TYPE_CHECKING:
    from memdir.storage.history import History
    from memdir.storage.index_hunks import IndexWatch
    from memdir.storage.index_keys import KeyTable

__all__ = [
    "JOURNAL_NAME",
    "AppliedStore",
    "WriteResult",
    "append_journal",
    "journal_lock",
    "journal_or_warning",
]

_log = logging.getLogger("memdir.storage")

STAGING_DIR = ".staging"
"""Where a write's text waits, fsynced, to be renamed into place: a dot-folder in the
scope's root (same file system, never listed as memories)."""

JOURNAL_NAME = "catalog.journal"
"""The file (in a project's state folder) where writers list the files they changed."""

# Room an index line keeps for its description after `- [name](file) — `.
_MIN_HOOK_CHARS = 12
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# How far back from the end of the index a tidy last line is looked for.
_TAIL_BYTES = 4096


def journal_lock(journal: Path) -> AbstractContextManager[None]:
    """The lock held while the journal is appended to or emptied."""
    return file_lock(Path(f"{journal}.lock"))


def append_journal(journal: Path, paths: Iterable[Path]) -> None:
    """List ``paths`` (absolute, one a line) in the catalog's journal.

    One ``O_APPEND`` write under the journal's lock. Not fsynced: the journal
    only tells the catalog where to look first; what a crash loses there the
    catalog's own checks (folder mtimes, rotating stat) still find.
    """
    data = "".join(f"{path}\n" for path in paths).encode("utf-8", "surrogateescape")
    if not data:
        return
    with journal_lock(journal):
        fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)


def journal_or_warning(journal: Path, paths: Iterable[Path]) -> tuple[str, ...]:
    """:func:`append_journal`, a failure said as a warning (and logged), never raised.

    The journal only tells the catalog where to look first: a change it cannot
    announce (a folder in its place, a full disk) is already made, and the
    catalog's walks find it anyway.
    """
    try:
        append_journal(journal, paths)
    except (OSError, MemdirError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        warning = (
            f"saved, but the search catalog's journal {journal} could not be written "
            f"({reason}); search finds the change on its next walk, and `memdir doctor "
            "--fix` repairs the journal"
        )
        _log.info("%s", warning)
        return (warning,)
    return ()


@record
class WriteResult:
    """What a write did: the stored record, whether it created the file, warnings.

    ``pending`` is the id of the version awaiting review when the write was
    held (see :mod:`memdir.storage.review`): then nothing changed on disk yet.
    """

    record: MemoryRecord
    created: bool
    warnings: tuple[str, ...] = ()
    pending: int | None = None


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


def blob_version(data: bytes) -> str:
    """The store's content version of ``data`` (a short SHA-256)."""
    import hashlib

    return hashlib.sha256(data).hexdigest()[:16]


def _index_bytes(index: Path) -> bytes | None:
    try:
        return read_bytes_nofollow(index)
    except FileNotFoundError:
        return None


def _ends_tidy(fd: int, size: int) -> bool:
    """Whether the index open as ``fd`` ends with an intact, non-blank line and
    does not start with a blank one (an append then equals the full edit)."""
    if size == 0 or os.pread(fd, 1, 0) == b"\n":
        return False
    tail = os.pread(fd, min(size, _TAIL_BYTES), max(size - _TAIL_BYTES, 0))
    if not tail.endswith(b"\n"):
        return False
    cut = tail.rfind(b"\n", 0, len(tail) - 1)
    if cut < 0 and size > len(tail):
        return False  # a last line longer than the tail read: the full edit judges it
    return bool(tail[cut + 1 : -1].strip())


class _IndexSwap:
    """A new index text written (fsynced) beside the index, swapped in by a rename.

    The old index is kept as a hard link until :meth:`close`, so :meth:`undo`
    brings it back with a rename too: neither step needs disk space, so a
    change that fails after the swap is undone on a full disk.
    """

    def __init__(self, index: Path, text: str) -> None:
        self.index = index
        self.temp: Path | None = write_temp(index, text)[0]
        self.kept: Path | None = None
        self.applied = False

    def apply(self) -> None:
        assert self.temp is not None
        if os.path.lexists(self.index):
            kept = self.index.with_name(f".{self.index.name}.{os.urandom(6).hex()}.tmp")
            os.link(self.index, kept)
            self.kept = kept
        os.replace(self.temp, self.index)
        self.temp = None
        self.applied = True
        fsync_dir(self.index.parent)

    def undo(self) -> None:
        if not self.applied:
            return
        if self.kept is not None:
            os.replace(self.kept, self.index)
            self.kept = None
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.index)
        self.applied = False

    def close(self) -> None:
        for leftover in (self.temp, self.kept):
            if leftover is not None:
                with contextlib.suppress(OSError):
                    os.unlink(leftover)
        self.temp = self.kept = None


class _InstallUndo:
    """What a write replaces, kept so that a failure after the rename puts it back.

    A failure past the rename (the index append on a full disk, the history)
    would leave the file without its line, or both without their version:
    the write is undone instead, so it either happened whole or not at all.
    The old file and index are kept as hard links in the staging folder (no
    space taken); an appended line is cut off again (truncation frees space).
    """

    def __init__(self, path: Path | None, index: Path, staging: Path) -> None:
        self.path, self.index, self.staging = path, index, staging  # no path: the index only
        self.kept_file = None if path is None else _link_aside(path, staging)
        self.created = path is not None and self.kept_file is None and not os.path.lexists(path)
        try:
            self.index_stat: os.stat_result | None = os.lstat(index)
        except FileNotFoundError:
            self.index_stat = None
        self.kept_index: Path | None = None

    def keep_index(self) -> None:
        """Right before the index is replaced: keep the current one to put back.

        Not earlier: a link changes the file's ctime, which the key table's stamp of
        an index that is appended to (not replaced) must not see.
        """
        if self.kept_index is None:
            self.kept_index = _link_aside(self.index, self.staging)

    def undo(self) -> None:
        with contextlib.suppress(OSError):
            self._undo_index()
        with contextlib.suppress(OSError):
            if self.path is None:
                return
            if self.kept_file is not None:
                os.replace(self.kept_file, self.path)
                self.kept_file = None
            elif self.created:
                os.unlink(self.path)

    def _undo_index(self) -> None:
        try:
            now = os.lstat(self.index)
        except FileNotFoundError:
            now = None
        if self.index_stat is None:
            if now is not None:  # made by this write
                os.unlink(self.index)
        elif now is not None and now.st_ino == self.index_stat.st_ino:
            if now.st_size != self.index_stat.st_size:  # a line appended: cut it off
                fd = os.open(self.index, os.O_WRONLY | _NOFOLLOW)
                try:
                    os.ftruncate(fd, self.index_stat.st_size)
                finally:
                    os.close(fd)
        elif self.kept_index is not None:  # replaced: the old one comes back
            os.replace(self.kept_index, self.index)
            self.kept_index = None

    def close(self) -> None:
        for kept in (self.kept_file, self.kept_index):
            if kept is not None:
                with contextlib.suppress(OSError):
                    os.unlink(kept)
        self.kept_file = self.kept_index = None


def _link_aside(path: Path, folder: Path) -> Path | None:
    """A hard link to the regular file ``path`` in ``folder`` (None: nothing to keep)."""
    try:
        if not os.path.isfile(path) or os.path.islink(path):
            return None
        kept = folder / f".{path.name}.{os.urandom(6).hex()}.tmp"
        os.link(path, kept)
        return kept
    except OSError:  # no hard links here: the write goes on without its undo
        return None


class AppliedStore:
    """What runs under a scope's lock: install, index, key table, counts, trash, journal."""

    root: Path
    scope: Scope
    settings: Settings
    _index_path: Path
    _lock_path: Path
    _trash_dir: Path
    _counts: FileCounts | None
    _journal: Path | None
    _keys_db: Path | None
    _tables: threading.local
    history: History | None

    if TYPE_CHECKING:  # the reads this half needs, provided by MemoryStore

        def get(self, ref: str) -> MemoryRecord: ...

        def _resolve(self, file: str, *, any_name: bool = False) -> tuple[str, Path]: ...

        def _read(self, rel: str, path: Path) -> MemoryRecord: ...

        def _check_version(
            self, rel: str, path: Path, actual: str, expected: str | None
        ) -> None: ...

    @property
    def index_path(self) -> Path:
        return self._index_path

    def read_index(self) -> str:
        """The index text, or ``""`` when there is none yet (never read through a link)."""
        try:
            return read_bytes_nofollow(self.index_path).decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    @contextlib.contextmanager
    def _key_table(self) -> Iterator[KeyTable | None]:
        """The scope's key table (see :mod:`memdir.storage.index_keys`); None without one.

        One connection per thread, kept open across writes (its close costs a
        WAL checkpoint); a forked child opens its own; a failing one is reopened.
        """
        if self._keys_db is None:
            yield None
            return
        from memdir.storage.index_keys import open_table  # SQLite: loaded by lookups only

        opened = self._opened_table()
        if opened is None:
            ensure_dir(self._keys_db.parent)
            opened = (os.getpid(), open_table(self._keys_db))
            self._tables.table = opened
        table = opened[1]
        try:
            yield table
        finally:
            if table is not None and table.failed:
                table.close()
                self._tables.table = None

    def _keys_in_step(self, keys: KeyTable | None) -> None:
        """Under the scope lock: rebuild the key table if the index changed behind it."""
        if keys is None:
            return
        stamp = file_stamp(self.index_path)
        if stamp is None or keys.in_step(stamp):
            return
        with contextlib.suppress(OSError):  # unreadable now: the writes go the long way
            raw, stamp = read_stamped(self.index_path)
            keys.rebuild(raw, stamp)

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

    def _opened_table(self) -> tuple[int, KeyTable | None] | None:
        """This thread's key-table connection (pid, table), if this process opened one."""
        opened: tuple[int, KeyTable | None] | None = getattr(self._tables, "table", None)
        return opened if opened is not None and opened[0] == os.getpid() else None

    def _folder_mtimes(self, *files: str) -> dict[str, int] | None:
        """Under the lock, before a change: the mtimes of the folders of ``files``."""
        return None if self._counts is None else self._counts.mtimes(*files)

    def _counted(self, before: dict[str, int] | None, *changes: tuple[str, int]) -> None:
        """Under the lock, after a change: the file counts follow it."""
        if self._counts is not None:
            self._counts.record(before, *changes)

    def index_hook(self, title: str, file: str, description: str) -> str:
        """The description, shortened so that the index line fits its length limit."""
        budget = self.settings.max_index_line_chars - len(format_entry(title, file, ""))
        budget -= 3  # " — "
        if len(description) <= budget:
            return description
        return description[: max(budget - 1, 0)].rstrip() + "…"

    def _check_line_budget(self, name: str, rel: str) -> None:
        """Refuse a name and file whose index line would leave no room for a description."""
        limit = self.settings.max_index_line_chars
        used = len(format_entry(name, rel, "")) + 3  # " — "
        if used + _MIN_HOOK_CHARS > limit:
            raise InvalidMemory(
                f"the index line for {name!r} in {rel} would take {used} characters before "
                f"its description; the limit is {limit} for the whole line",
                path=self.root / rel,
                hint="shorten the name or the file name",
            )

    def _update_index(
        self,
        title: str,
        file: str,
        description: str,
        *,
        keys: KeyTable | None,
        moved_from: str | None = None,
        undo: _InstallUndo | None = None,
    ) -> int | None:
        """Point the index at ``file`` (dropping ``moved_from``'s lines), in one write.

        An unchanged index is not written. A new line after an intact index is
        appended: one ``O_APPEND`` write of the whole line, not fsynced here;
        the open index is returned and the caller fsyncs it after releasing
        the lock (so concurrent writers' fsyncs overlap). Any other edit
        replaces the index atomically (temp, fsync, rename). With the key
        table in step, none of this reads the index.
        """
        hook = self.index_hook(title, file, description)
        line = format_entry(title, file, hook)
        if keys is not None and moved_from is None:
            done, fd = self._keyed_upsert(keys, file, line)
            if done:
                return fd
        before = file_stamp(self.index_path)
        follows = keys is not None and keys.in_step(before)
        if moved_from is not None:
            text = remove_entry(self.read_index(), file=moved_from)
            data = upsert_entry(text, title=title, file=file, hook=hook).encode("utf-8")
            how = "replace"
        else:
            try:
                raw = read_bytes_nofollow(self.index_path)
            except FileNotFoundError:
                raw = b""
            how, data = upsert_raw(raw, title=title, file=file, hook=hook)
        fd = None
        if how == "replace":
            if undo is not None:
                undo.keep_index()
            atomic_write(self.index_path, data)
        elif how == "append":
            fd = self._append_index(data, tidy_only=False)
        if keys is not None and follows:
            after = fd_stamp(fd) if fd is not None else file_stamp(self.index_path)
            if after is not None:
                keys.put(file, line, after, moved_from=moved_from)
        return fd

    def _keyed_upsert(self, keys: KeyTable, file: str, line: str) -> tuple[bool, int | None]:
        """The index edit from the key table alone: ``(done, index to fsync)``.

        Done when the line is already there, or when ``file`` has no line and
        the index ends with an intact line (the new one is appended); else the
        caller edits the whole text.
        """
        stamp = file_stamp(self.index_path)
        known = keys.lines_of(file, stamp)
        if known is None or stamp in (None, ABSENT_STAMP):
            return False, None
        if known == [line]:
            return True, None
        if known:
            return False, None
        fd = self._append_index(f"{line}\n".encode(), tidy_only=True, stamp=stamp)
        if fd is None:
            return False, None
        keys.append(file, line, fd_stamp(fd))
        return True, fd

    def _append_index(
        self, tail: bytes, *, tidy_only: bool, stamp: str | None = None
    ) -> int | None:
        """Append ``tail`` (whole lines) to the index; returns it open, to be fsynced.

        One ``write()`` on an ``O_APPEND`` descriptor, under the scope lock: a
        reader sees the index without the line or with all of it; a short
        write (a full disk) is cut back off. With ``tidy_only``, nothing is
        written (None) unless the index still has ``stamp`` and ends with an
        intact, non-blank line and does not start with a blank one, so the
        result is what the full edit would make.
        """
        try:
            fd = os.open(self.index_path, os.O_RDWR | os.O_APPEND | _NOFOLLOW)
        except FileNotFoundError:
            if tidy_only:
                return None  # removed by hand: the full edit writes a new one
            raise
        try:
            size = os.fstat(fd).st_size
            if tidy_only and (fd_stamp(fd) != stamp or not _ends_tidy(fd, size)):
                os.close(fd)
                return None
            written = os.write(fd, tail)
            if written != len(tail):
                os.ftruncate(fd, size)
                raise OSError(errno.ENOSPC, "short write", str(self.index_path))
        except BaseException:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise
        return fd

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

    def _index_title(self, memory: Memory, rel: str, keys: KeyTable | None) -> str:
        """The title of the memory's index line: its name; but a memory in Claude Code's
        shape named by its slug alone keeps the title its index line already has."""
        if memory.style is not FrontmatterStyle.CLAUDE or not is_slug(memory.name):
            return memory.name
        lines = None if keys is None else keys.lines_of(rel, file_stamp(self.index_path))
        if lines is not None:
            raw = "\n".join(lines).encode("utf-8")
        else:
            try:
                raw = read_bytes_nofollow(self.index_path)
            except FileNotFoundError:
                return memory.name
        return title_of(raw, rel) or memory.name

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
        undo = _InstallUndo(path, self.index_path, staged.temp.parent)
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
        undo: _InstallUndo,
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

    def review_held(self) -> bool:
        """Whether a change made now (by the current provenance) waits for review.

        Raises for an agent's change to a read-only scope.
        """
        from memdir.storage.provenance import current
        from memdir.storage.review import held

        return held(self.settings, self.scope, current(), history=self.history is not None)

    def _propose(self, staged: _Staged) -> WriteResult:
        """Under the lock: keep the write as a pending version; the file is not touched."""
        assert self.history is not None
        payload = staged.text.encode("utf-8")
        version = self.history.record(
            scope=self.scope,
            file=staged.rel,
            action=staged.action or ("create" if staged.current is None else "update"),
            name=staged.memory.name,
            before=staged.current,
            after=payload,
            meta_before=_meta_bytes(staged.path) if staged.note else None,
            meta_after=_note_meta(staged.memory) if staged.note else None,
            status="pending",
        )
        record = staged.record or MemoryRecord(
            scope=self.scope,
            file=staged.rel,
            memory=staged.memory,
            version=blob_version(payload),
            mtime=0.0,
        )
        return WriteResult(
            record=record,
            created=staged.current is None,
            warnings=staged.warnings,
            pending=version,
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

    def delete(self, ref: str, *, expected_version: str | None = None) -> Path:
        """Move a memory to the trash and drop its index line; returns the trash path.

        All or nothing: the new index is written (fsynced, beside the old one)
        before the file moves, and the history is recorded before the change
        is kept; if any step fails (a full disk), what moved is moved back, so
        the memory stays with its index line. Only renames follow the index
        write, and a rename takes no space.
        """
        with translated(self.index_path):
            return self._delete(ref, expected_version)

    def _delete(self, ref: str, expected_version: str | None) -> Path:
        hold = self.review_held()
        with self.lock(), self._key_table() as keys:
            record = self.get(ref)
            _, path = self._resolve(record.file)
            self._check_version(record.file, path, record.version, expected_version)
            if hold:  # kept as a pending deletion: the file stays until it is approved
                self._propose_removal(record.file, path, record.memory.name)
                return path
            before = self._folder_mtimes(record.file)
            watch = self._watch()
            held = read_bytes_nofollow(path) if watch is not None else None
            meta = _meta_bytes(path) if watch is not None else None
            target = self._trash_target(record.file)
            follows = keys is not None and keys.in_step(file_stamp(self.index_path))
            swap = _IndexSwap(self.index_path, remove_entry(self.read_index(), file=record.file))
            try:
                os.replace(path, target)
                try:
                    sidecar.move(path, target)
                    swap.apply()
                    if watch is not None:
                        self._keep(
                            watch,
                            record.file,
                            action="delete",
                            name=record.memory.name,
                            before=held,
                            after=None,
                            meta_before=meta,
                        )
                except BaseException:
                    swap.undo()
                    with contextlib.suppress(OSError):
                        sidecar.move(target, path)
                    os.replace(target, path)
                    raise
            finally:
                swap.close()
            after = file_stamp(self.index_path)
            if keys is not None and follows and after is not None:
                keys.drop(record.file, after)
            self._counted(before, (record.file, -1))
            self._journaled(record.file)
        return target

    def _propose_removal(self, rel: str, path: Path, name: str) -> int:
        """Under the lock: keep a deletion as a pending version."""
        assert self.history is not None
        return self.history.record(
            scope=self.scope,
            file=rel,
            action="delete",
            name=name,
            before=read_bytes_nofollow(path),
            after=None,
            meta_before=_meta_bytes(path),
            status="pending",
        )

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

    def rename(self, ref: str, new_file: str) -> MemoryRecord:
        """Move a memory to another file name; its index line follows it."""
        with translated(self.index_path):
            return self._rename(ref, new_file)

    def _rename(self, ref: str, new_file: str) -> MemoryRecord:
        hold = self.review_held()
        with self.lock(), self._key_table() as keys:
            record = self.get(ref)
            old_path = self.root / record.file
            new_rel, new_path = self._resolve(new_file, any_name=sidecar.exists(old_path))
            if new_path.exists():
                raise MemoryExists(
                    f"{new_rel} already exists", path=new_path, hint="choose another file name"
                )
            if hold:  # kept as a pending rename: nothing moves until it is approved
                assert self.history is not None
                text = read_bytes_nofollow(old_path)
                self.history.record(
                    scope=self.scope,
                    file=new_rel,
                    old_file=record.file,
                    action="rename",
                    name=record.memory.name,
                    before=text,
                    after=text,
                    status="pending",
                )
                return record
            before = self._folder_mtimes(record.file, new_rel)
            ensure_dir(new_path.parent)
            new_path = safe_join(self.root, new_rel)  # its folders exist now: check again
            _, old_path = self._resolve(record.file, any_name=True)
            watch = self._watch()
            held = read_bytes_nofollow(old_path) if watch is not None else None
            meta = _meta_bytes(old_path) if watch is not None else None
            memory = record.memory
            # All or nothing, as a delete: a failure past the move (the index on a
            # full disk, the history) moves the file back and restores the index.
            undo = _InstallUndo(None, self.index_path, ensure_dir(self.root / STAGING_DIR))
            os.rename(old_path, new_path)
            try:
                sidecar.move(old_path, new_path)
                self._update_index(
                    memory.name,
                    new_rel,
                    memory.description,
                    keys=keys,
                    moved_from=record.file,
                    undo=undo,
                )
                if watch is not None:
                    self._keep(
                        watch,
                        new_rel,
                        action="rename",
                        name=memory.name,
                        before=held,
                        after=held,
                        old_file=record.file,
                        meta_before=meta,
                        meta_after=meta,
                    )
            except BaseException:
                undo.undo()
                with contextlib.suppress(OSError):
                    sidecar.move(new_path, old_path)
                os.rename(new_path, old_path)
                if watch is not None:
                    watch.close()
                raise
            finally:
                undo.close()
            self._counted(before, (record.file, -1), (new_rel, 1))
            self._journaled(record.file, new_rel)
            return self._read(new_rel, new_path)

    def write_index(self, text: str) -> None:
        """Replace the index (used by doctor's repairs), under the scope lock."""
        with translated(self.index_path), self.lock():
            before = _index_bytes(self.index_path) if self.history is not None else None
            atomic_write(self.index_path, text)
            if self.history is not None:  # the whole text: a repair rewrites it anyway
                after = text.encode("utf-8")
                self.history.record(
                    scope=self.scope, file=INDEX_NAME, action="index", before=before, after=after
                )

    def index_entries(self) -> list[str]:
        """The files the index points at, in order (duplicates kept)."""
        return [entry.file for entry in parse_entries(self.read_index())]
