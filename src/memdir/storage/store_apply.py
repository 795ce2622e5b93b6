"""Applying a planned write under the scope lock, and the index kept in step.

:class:`~memdir.storage.store.MemoryStore` plans a write outside the lock
(target, checks, guard, a staging copy fsynced); this half holds what runs
under the lock and right after it: the lock itself, renaming the staged copy
into place, the index edit (one ``O_APPEND`` write of a new line when the
index ends tidy, else an atomic replace), the key table that lets both skip
reading the index, the file counts, the trash, the catalog journal, and the
fsyncs that follow the lock. A write that fails past its rename (a full disk,
the history) is undone whole (:mod:`memdir.storage.rollback`). Delete and
rename are :mod:`memdir.storage.store_moves`.

:class:`AppliedStore` is a base of ``MemoryStore``: it keeps no state of its
own (the store's constructor sets the attributes declared here) and reaches
back for the few reads it needs (``get``, ``_resolve``, ``_read``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.config import Settings
from memdir.errors import InvalidMemory, MemdirError
from memdir.model import FrontmatterStyle, Memory, MemoryRecord, Scope, is_slug
from memdir.records import record
from memdir.storage import sidecar
from memdir.storage.failures import translated
from memdir.storage.file_counts import FileCounts
from memdir.storage.fs import (
    ABSENT_STAMP,
    atomic_write,
    ensure_dir,
    fd_stamp,
    file_lock,
    file_stamp,
    fsync_dir,
    read_bytes_nofollow,
    read_stamped,
    safe_join,
)
from memdir.storage.journal import (
    JOURNAL_NAME,
    append_journal,
    journal_lock,
    journal_or_warning,
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
from memdir.storage.rollback import InstallUndo

if TYPE_CHECKING:
    from memdir.storage.history import History
    from memdir.storage.index_hunks import IndexWatch
    from memdir.storage.index_keys import KeyTable

__all__ = [
    "JOURNAL_NAME",
    "STAGING_DIR",
    "AppliedStore",
    "WriteResult",
    "append_journal",
    "content_version",
    "journal_lock",
    "journal_or_warning",
]

STAGING_DIR = ".staging"
"""Where a write's text waits, fsynced, to be renamed into place: a dot-folder in the
scope's root (same file system, never listed as memories)."""

# Room an index line keeps for its description after `- [name](file) — `.
_MIN_HOOK_CHARS = 12
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# How far back from the end of the index a tidy last line is looked for.
_TAIL_BYTES = 4096


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


def content_version(data: bytes) -> str:
    """The version a compare-and-swap writer passes back: a short content hash (SHA-256)."""
    import hashlib  # here: loading OpenSSL costs every command that never hashes

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

    if TYPE_CHECKING:  # what this half needs from the store_reads and store_checks halves above it

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
        undo: InstallUndo | None = None,
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
            version=content_version(payload),
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
                    scope=self.scope, file=INDEX_NAME, action="index", before=before, after=after
                )

    def index_entries(self) -> list[str]:
        """The files the index points at, in order (duplicates kept)."""
        return [entry.file for entry in parse_entries(self.read_index())]
