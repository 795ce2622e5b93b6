"""MemoryStore: one scope's memory files and their index, kept in step.

Every write, rename and delete takes the scope's inter-process lock, writes
atomically, and updates ``MEMORY.md`` before the lock is released, so the
index never points at a file that is not there nor misses one memdir wrote.
A writer that passes the version (content hash) it read gets
:class:`~memdir.errors.Conflict` instead of overwriting someone else's edit.
Writes never destroy: a write aimed at a file that holds another memory, or
a file memdir cannot parse, is refused unless the caller passes the version
it read or ``replace=True``; what is replaced then, and every deleted memory,
moves to a dated trash folder first. The trash is confined like the memory
folder: a symlink planted inside it cannot carry a memory out of the home.
Files are read without following a final symlink (``O_NOFOLLOW``).

A scope may exclude subtrees (the private scope excludes ``team/`` and
``logs/``, which belong to other owners); dot-folders are never memories.

A write costs the same at ten memories and at a hundred thousand: whether a
memory of its name exists and whether the index already has its line come
from a key table kept in step with the index under the scope lock
(:mod:`memdir.storage.index_keys`; rebuilt once when the index was changed
behind it), and a new line is appended rather than the index rewritten; the
file count for ``max_files`` is kept per folder in a state file and only
folders whose mtime moved are listed again. What a write touched is appended
to the catalog's journal, so the next search need not look for it.

The lock is held for as little as possible, so that writers in several
processes overlap. A write is planned outside it: target chosen, checks and
guard run, the text written and fsynced to a staging copy (``.staging/`` in
the scope's root, a dot-folder never listed). Under the lock the target is
looked up again; if it still holds what the plan saw, the copy is renamed into
place, the index line appended with one ``O_APPEND`` write of the whole line,
the key table, counts and trash updated; otherwise the plan is made again
under the lock. The fsyncs of the folder and of the index follow the lock,
before the write returns (a machine that dies in between may keep the line
without the file, or the file without the line, of a write that never
returned; doctor repairs both). An index edit that is not an append (a changed
line, a rename, a delete, an index not ending with an intact line) replaces
the whole index atomically (temp, fsync, rename) under the lock.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import os
import re
import threading
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.config import Settings
from memdir.errors import (
    Conflict,
    InvalidMemory,
    LimitExceeded,
    MemdirError,
    MemoryExists,
    MemoryNotFound,
    ParseError,
    UnsafePath,
)
from memdir.model import Memory, MemoryRecord, MemoryType, Scope, check_memory_text
from memdir.records import record
from memdir.storage import sidecar
from memdir.storage.codec import parse_memory, render_memory
from memdir.storage.file_counts import FileCounts
from memdir.storage.fs import (
    ABSENT_STAMP,
    FILE_MODE,
    atomic_write,
    confined,
    ensure_dir,
    fd_stamp,
    file_lock,
    file_stamp,
    fsync_dir,
    read_bytes_nofollow,
    read_stamped,
    refuse_hidden,
    safe_join,
    write_temp,
)
from memdir.storage.memory_index import (
    INDEX_NAME,
    format_entry,
    parse_entries,
    remove_entry,
    titled_files,
    upsert_entry,
    upsert_raw,
)
from memdir.storage.rules import validate_memory_rules
from memdir.storage.scope_files import scope_entries

if TYPE_CHECKING:
    from memdir.storage.index_keys import KeyTable

__all__ = [
    "JOURNAL_NAME",
    "STAGING_DIR",
    "MemoryStore",
    "ScanResult",
    "WriteGuard",
    "WriteResult",
    "append_journal",
    "content_version",
    "journal_lock",
]

JOURNAL_NAME = "catalog.journal"
"""The file (in a project's state folder) where writers list the files they changed."""

# A guard sees the text about to be written and the file name; it returns
# warnings, or raises a MemdirError to refuse the write (team secret scanning).
WriteGuard = Callable[[str, str], list[str]]

_FILE_CHARS = re.compile(r"[^\w]+")
_MAX_STEM = 60
# Room an index line keeps for its description after `- [name](file) — `.
_MIN_HOOK_CHARS = 12
# Where a write's text waits, fsynced, to be renamed into place: a dot-folder
# in the scope's root (same file system, never listed as memories).
STAGING_DIR = ".staging"
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


def content_version(data: bytes) -> str:
    """The version a compare-and-swap writer passes back: a short content hash."""
    import hashlib  # here: loading OpenSSL costs every command that never hashes

    return hashlib.sha256(data).hexdigest()[:16]


@record
class WriteResult:
    """What a write did: the stored record, whether it created the file, warnings."""

    record: MemoryRecord
    created: bool
    warnings: tuple[str, ...] = ()


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


@record
class ScanResult:
    """Every memory file of a scope: the files listed, the ones that parse, the errors."""

    files: tuple[str, ...]
    records: tuple[MemoryRecord, ...]
    problems: tuple[ParseError, ...]


class MemoryStore:
    """The memories of one scope (private or team) under ``root``."""

    def __init__(
        self,
        *,
        root: Path,
        scope: Scope,
        settings: Settings,
        lock_path: Path,
        trash_dir: Path,
        excluded: tuple[str, ...] = (),
        guard: WriteGuard | None = None,
        state_dir: Path | None = None,
    ) -> None:
        self.root = root
        self._index_path = root / INDEX_NAME
        self.scope = scope
        self.settings = settings
        self._lock_path = lock_path
        self._trash_dir = trash_dir
        self._excluded = frozenset(excluded)
        self._guard = guard
        # Without a state folder, counts are walked and nothing is journaled.
        self._counts = (
            None
            if state_dir is None
            else FileCounts(root, state_dir / f"{scope.value}.counts.json", self._excluded)
        )
        self._journal = None if state_dir is None else state_dir / JOURNAL_NAME
        self._keys_db = None if state_dir is None else state_dir / f"{scope.value}.keys.sqlite"
        self._tables = threading.local()  # the key table's connection, per thread

    # -- reading ---------------------------------------------------------

    @property
    def guard(self) -> WriteGuard | None:
        """The check every write's text passes through (secrets, for the team store)."""
        return self._guard

    @property
    def index_path(self) -> Path:
        return self._index_path

    def ensure(self) -> None:
        """Create the scope's folder (0700) so that agents can write straight away."""
        ensure_dir(self.root)

    def _ensure_folder(self) -> None:
        """:meth:`ensure`, refusing a scope folder that something else replaced."""
        self.ensure()
        if not self.root.is_dir():
            raise InvalidMemory(
                f"{self.root} is not a folder: the {self.scope} memories cannot be kept there",
                path=self.root,
                hint="move that file aside; memdir recreates the folder on the next write",
            )

    def read_index(self) -> str:
        """The index text, or ``""`` when there is none yet (never read through a link)."""
        try:
            return read_bytes_nofollow(self.index_path).decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def files(self) -> list[str]:
        """Relative paths of every memory file (``*.md`` but the index), sorted."""
        if not self.root.is_dir():
            return []
        return sorted(self._walk(str(self.root)))

    def has_files(self) -> bool:
        """Whether the scope holds any memory file; stops at the first one found."""
        if not self.root.is_dir():
            return False
        walk = self._walk(str(self.root))
        try:
            return next(walk, None) is not None
        finally:
            walk.close()  # releases the open scandir handles now

    def _walk(self, directory: str) -> Generator[str, None, None]:
        for rel, entry in scope_entries(directory, self._excluded):
            if rel == INDEX_NAME:
                continue
            if entry.name.endswith(".md") or sidecar.exists(os.path.join(directory, rel)):
                yield rel

    def scan(self) -> ScanResult:
        """Read every memory file; unparseable ones are reported, not dropped."""
        files = self.files()
        records: list[MemoryRecord] = []
        problems: list[ParseError] = []
        for rel in files:
            try:
                records.append(self._read(rel, self.root / rel))
            except ParseError as exc:
                problems.append(exc)
            except (FileNotFoundError, UnsafePath):
                continue  # deleted while we listed, or swapped for a link: not a memory
        return ScanResult(files=tuple(files), records=tuple(records), problems=tuple(problems))

    def _read(self, rel: str, path: Path) -> MemoryRecord:
        data = read_bytes_nofollow(path)
        text = data.decode("utf-8", errors="replace")
        memory = sidecar.load_memory(text, path=path)
        return MemoryRecord(
            scope=self.scope,
            file=rel,
            memory=memory,
            version=content_version(data),
            mtime=path.stat().st_mtime,
        )

    def _resolve(self, file: str, *, any_name: bool = False) -> tuple[str, Path]:
        refuse_hidden(file)
        path, rel = confined(self.root, file)
        top = rel.split("/", 1)[0]
        if "/" in rel and top in self._excluded:
            raise InvalidMemory(
                f"{rel!r} is inside {top}/, which is not part of the {self.scope} scope",
                path=path,
                hint="choose a file name outside that folder",
            )
        if ".git" in rel.casefold().split("/"):  # git's own folder: never a memory
            raise InvalidMemory(f"{rel!r} is inside .git/", path=path, hint="choose another name")
        if rel == INDEX_NAME or not (any_name or rel.endswith(".md") or sidecar.exists(path)):
            raise InvalidMemory(
                f"{rel!r} is not a memory file name",
                path=path,
                hint="memory files end in .md and are not MEMORY.md",
            )
        return rel, path

    def find(self, ref: str, *, thorough: bool = True) -> MemoryRecord | None:
        """The memory at file ``ref`` (``.md`` optional) or named ``ref``, else None.

        Names are looked up through the index and the file names derived from
        them first; ``thorough`` then reads every file (hand-written ones).
        """
        for candidate in (ref, f"{ref}.md"):
            record = self._read_if_memory(candidate)
            if record is not None:
                return record
        return self._find_named(ref, thorough=thorough)

    def _find_named(
        self, name: str, *, thorough: bool, keys: KeyTable | None = None, titled: bool = True
    ) -> MemoryRecord | None:
        # By name only: a writer must never take a file whose stem merely equals
        # the new memory's name for "the memory with the same name".
        wanted = " ".join(name.split()).casefold()
        for file in self._name_candidates(name, wanted, keys, titled=titled):
            record = self._read_if_memory(file)
            if record is not None and record.memory.name.casefold() == wanted:
                return record
        if thorough:
            for record in self.scan().records:
                if record.memory.name.casefold() == wanted:
                    return record
        return None

    def _name_candidates(
        self, ref: str, wanted: str, keys: KeyTable | None, *, titled: bool = True
    ) -> Iterator[str]:
        if titled:
            yield from self._titled(wanted, keys)
        stem = self._file_stem(ref)
        yield f"{stem}.md"
        n = 2
        while (self.root / f"{stem}_{n}.md").exists():
            yield f"{stem}_{n}.md"
            n += 1

    def _titled(self, wanted: str, keys: KeyTable | None) -> list[str]:
        """The files of the index lines titled ``wanted``: from the key table when in step."""
        if keys is not None:
            files = keys.files_titled(wanted, file_stamp(self.index_path))
        else:
            with self._key_table() as table:
                stamp = file_stamp(self.index_path)
                files = None if table is None else table.files_titled(wanted, stamp)
        if files is not None:
            return files
        try:
            raw = read_bytes_nofollow(self.index_path)
        except FileNotFoundError:
            raw = b""
        return titled_files(raw, wanted)

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

    def _read_if_memory(self, file: str) -> MemoryRecord | None:
        if not os.path.lexists(self.root / file):
            return None  # nothing there under any resolution: no need to resolve links
        try:
            rel, path = self._resolve(file)
        except MemdirError:
            return None
        if not path.is_file():
            return None
        try:
            return self._read(rel, path)
        except (MemdirError, FileNotFoundError):
            return None

    def get(self, ref: str) -> MemoryRecord:
        """Like :meth:`find`, but raises :class:`MemoryNotFound`."""
        record = self.find(ref)
        if record is None:
            raise MemoryNotFound(
                f"no {self.scope} memory named {ref!r}",
                path=self.root,
                hint="run `memdir list` to see the memories and their files",
            )
        return record

    # -- writing ---------------------------------------------------------

    @property
    def excluded(self) -> frozenset[str]:
        """Top-level folders under the root that belong to other owners."""
        return self._excluded

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

    def _validate(self, memory: Memory) -> None:
        check_memory_text(memory, limits=False)
        if not memory.name:
            raise InvalidMemory("a memory needs a name", hint="pass name='Short title'")
        if not memory.description:
            raise InvalidMemory(
                f"memory {memory.name!r} needs a one-line description",
                hint="the description is what recall matches on: make it specific",
            )
        if memory.type is None:
            # An unknown type is kept aside in ``extra`` by the reader: name it, and the
            # four in the message itself (an edit's error keeps the message, not the hint).
            raw = memory.extra.get("type")
            got = "needs a type" if raw is None else f"has type {str(raw)!r}"
            raise InvalidMemory(
                f"memory {memory.name!r} {got}: the type is one of user, feedback, project, "
                "reference",
                hint="see the README's table of the four memory types",
            )
        if memory.type is MemoryType.USER and self.scope is Scope.TEAM:
            raise InvalidMemory(
                f"memory {memory.name!r} is a user memory: user memories are always private",
                hint="write it to the private scope",
            )
        validate_memory_rules(memory)  # enforce: rules must compile and hold a call back

    @staticmethod
    def _file_stem(name: str) -> str:
        stem = _FILE_CHARS.sub("_", name.casefold()).strip("_")[:_MAX_STEM].strip("_")
        return stem or "memory"

    def _new_file_name(self, name: str) -> str:
        stem = self._file_stem(name)
        candidate, n = f"{stem}.md", 2
        while (self.root / candidate).exists():
            candidate, n = f"{stem}_{n}.md", n + 1
        return candidate

    def _check_count(self) -> None:
        if self._counts is None:
            count = len(self.files())
        else:
            count = self._counts.total(self.settings.max_files)
        if count >= self.settings.max_files:
            raise LimitExceeded(
                f"the {self.scope} scope already holds {self.settings.max_files} memories",
                path=self.root,
                hint="consolidate or delete memories, or raise max_files",
            )

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

    def _journaled(self, *files: str) -> None:
        """Tell the catalog which files changed (absolute paths)."""
        if self._journal is not None:
            append_journal(self._journal, [self.root / file for file in files])

    def write(
        self,
        memory: Memory,
        *,
        file: str | None = None,
        expected_version: str | None = None,
        stamp: bool = True,
        replace: bool = False,
    ) -> WriteResult:
        """Create or update a memory and its index line.

        Without ``file``, a memory with the same name is updated, else a file
        name is derived from the name. ``expected_version`` makes the write a
        compare-and-swap (``""`` means "must not exist yet"). A ``file`` that
        holds another memory (or cannot be parsed) is only overwritten with
        its ``expected_version`` or ``replace=True``, after a copy goes to
        the trash. With ``stamp``, ``created`` is kept (or set) and
        ``updated`` becomes today.

        The write is made ready outside the scope lock (target chosen, checks,
        guard, text fsynced to a staging copy); under the lock the target is
        looked up again and, if it is still what the plan saw, the copy is
        renamed into place and the index appended to; otherwise the plan is
        made again under the lock. The fsyncs of the folder and the index
        follow the lock, before the call returns.
        """
        self._validate(memory)
        self._ensure_folder()

        def plan(keys: KeyTable | None, locked: bool) -> _Staged:
            # Outside the lock the target is a guess made without the key table (the
            # file of the name's stem, else a new one): the lock's lookup checks it.
            target = self._target(memory.name, file, keys, guess=not locked)
            staged = self._plan_write(memory, target, expected_version, stamp, replace, locked)
            staged.target = target
            return staged

        return self._locked_write(plan, lambda keys: self._target(memory.name, file, keys))

    def _plan_write(
        self,
        memory: Memory,
        file: str,
        expected_version: str | None,
        stamp: bool,
        replace: bool,
        locked: bool,
    ) -> _Staged:
        rel, path = self._resolve(file)
        # Outside the lock the file count is not read: it is checked under the lock.
        current = self._current(rel, path, expected_version, count=locked)
        self._check_bounds(memory, rel, self._held(current, path))
        trash = self._must_trash(rel, path, memory, current, expected_version, replace)
        memory = self._stamped(memory, current, path) if stamp else memory
        note = sidecar.exists(path)  # a note keeps its fields beside it, its text as is
        text = memory.body if note else render_memory(memory)
        return self._stage(rel, path, current, memory, text, note=note, trash=trash)

    def _target(
        self, name: str, file: str | None, keys: KeyTable | None, *, guess: bool = False
    ) -> str:
        """The file a write goes to: ``file``, the memory of that name, or a new name.

        A ``guess`` does not look the name up in the index: it finds the memory
        only in the file named after it.
        """
        if file is not None:
            return file
        existing = self._find_named(name, thorough=False, keys=keys, titled=not guess)
        return existing.file if existing is not None else self._new_file_name(name)

    def _locked_write(
        self,
        plan: Callable[[KeyTable | None, bool], _Staged],
        target: Callable[[KeyTable | None], str] | None,
    ) -> WriteResult:
        """Plan outside the lock (when ``target`` can check it), install under it, then sync.

        A plan that fails outside the lock is made again under it, so every
        error is judged on what the lock guards, as when all of it ran there.
        """
        staged: _Staged | None = None
        try:
            if target is not None:
                with contextlib.suppress(MemdirError, OSError, ValueError):
                    staged = plan(None, False)
            with self.lock(), self._key_table() as keys:
                self._keys_in_step(keys)
                if staged is None or target is None or not self._still(staged, target(keys)):
                    self._discard(staged)
                    staged = plan(keys, True)
                elif staged.current is None:
                    self._check_count()
                result, index_fd = self._install(staged, keys)
            self._settle(staged, index_fd)
            return result
        finally:
            self._discard(staged)

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

    def write_note(
        self, file: str, text: str, memory: Memory, *, expected_version: str | None = None
    ) -> WriteResult:
        """Write ``text`` to ``file`` (any name) exactly, ``memory``'s fields to its sidecar.

        For notes that must read back byte for byte (see :mod:`memdir.storage.sidecar`).
        """
        self._validate(memory)
        self.ensure()

        def plan(keys: KeyTable | None, locked: bool) -> _Staged:
            rel, path = self._resolve(file, any_name=True)
            current = self._current(rel, path, expected_version)
            return self._stage(rel, path, current, memory, text, note=True, trash=False)

        return self._locked_write(plan, None)

    def write_text(
        self,
        file: str,
        text: str,
        *,
        expected_version: str | None = None,
        replace: bool = False,
    ) -> WriteResult:
        """Write a memory file's whole text exactly as given (after an editor, say).

        The text must parse and hold a valid memory of this scope; the index
        line follows the frontmatter. Nothing is stamped. Overwriting another
        memory needs ``expected_version`` or ``replace``, as in :meth:`write`.
        """
        self._ensure_folder()

        def plan(keys: KeyTable | None, locked: bool) -> _Staged:
            rel, path = self._resolve(file)
            memory = sidecar.load_memory(text, path=path)  # a note's fields stay beside it
            self._validate(memory)
            current = self._current(rel, path, expected_version)
            self._check_bounds(memory, rel, self._held(current, path))
            trash = self._must_trash(rel, path, memory, current, expected_version, replace)
            return self._stage(rel, path, current, memory, text, note=False, trash=trash)

        return self._locked_write(plan, None)

    def _must_trash(
        self,
        rel: str,
        path: Path,
        memory: Memory,
        current: bytes | None,
        expected_version: str | None,
        replace: bool,
    ) -> bool:
        """Refuse to overwrite another memory or an unparseable file; else whether to trash it.

        The same memory (same name) is updated in place; anything else is only
        replaced when the caller proved it read it (``expected_version``) or
        asked for it (``replace``), and then a copy goes to the trash.
        """
        if current is None:
            return False
        previous = self._held(current, path)
        held = previous.name if previous is not None else None
        if held is not None and held.casefold() == memory.name.casefold():
            return False
        if expected_version is None and not replace:
            what = (
                f"holds another memory, {held!r}"
                if held is not None
                else "holds a file memdir cannot parse"
            )
            raise MemoryExists(
                f"{rel} {what}; not overwritten",
                path=path,
                hint="choose another file name, or pass replace (--replace) to move the "
                "current file to the trash and write this one",
            )
        return True

    @staticmethod
    def _held(current: bytes | None, path: Path) -> Memory | None:
        """The memory the file holds now; ``None`` when absent or unparseable."""
        if current is None:
            return None
        try:
            return parse_memory(current.decode("utf-8"), path=path)
        except (ParseError, UnicodeDecodeError):
            return None

    def _check_bounds(self, memory: Memory, rel: str, previous: Memory | None) -> None:
        """Length limits for what is new: a memory kept under its old name still saves."""
        check_memory_text(memory, previous=previous)
        if previous is None or previous.name != memory.name:
            self._check_line_budget(memory.name, rel)

    def _trash_copy(self, rel: str, data: bytes) -> Path:
        target = self._trash_target(rel)
        atomic_write(target, data)
        return target

    def _current(
        self, rel: str, path: Path, expected_version: str | None, *, count: bool = True
    ) -> bytes | None:
        """The file's bytes (None if absent), checked against the caller's version.

        With ``count``, a file that does not exist yet must fit ``max_files``.
        """
        # A directory, FIFO or link with this name is refused here, not overwritten.
        current = read_bytes_nofollow(path) if os.path.lexists(path) else None
        if expected_version is not None:
            actual = "" if current is None else content_version(current)
            self._check_version(rel, path, actual, expected_version)
        if current is None and count:
            self._check_count()
        return current

    def _stage(
        self,
        rel: str,
        path: Path,
        current: bytes | None,
        memory: Memory,
        text: str,
        *,
        note: bool,
        trash: bool,
    ) -> _Staged:
        """Size check, guard, and the text fsynced to a staging copy: a write made ready.

        The copy goes to the scope's staging folder (a dot-folder, never
        listed), so the target folder's mtime, which the file count trusts,
        only moves when the copy is renamed into place under the lock.
        """
        self._check_size(rel, text)
        warnings = tuple(self._guard(text, rel)) if self._guard else ()
        payload = text.encode("utf-8")
        temp, mtime = write_temp(self.root / STAGING_DIR / path.name, payload)
        record = None
        if not note:  # a note's record is read after its sidecar is written
            record = MemoryRecord(
                scope=self.scope,
                file=rel,
                memory=sidecar.load_memory(text, path=path),
                version=content_version(payload),
                mtime=mtime,
            )
        return _Staged(
            rel=rel,
            path=path,
            current=current,
            memory=memory,
            text=text,
            note=note,
            trash=trash,
            warnings=warnings,
            temp=temp,
            record=record,
        )

    def _install(self, staged: _Staged, keys: KeyTable | None) -> tuple[WriteResult, int | None]:
        """Under the lock: trash what is replaced, rename the copy into place, index it.

        Returns the result and the index to fsync once the lock is released.
        """
        rel, path = staged.rel, staged.path
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
        try:
            os.replace(staged.temp, path)
        except OSError as exc:
            if exc.errno != errno.EXDEV:  # a folder on another file system: copy there
                raise
            atomic_write(path, staged.text, sync_dir=False)
        staged.temp = None
        memory = staged.memory
        index_fd = self._update_index(memory.name, rel, memory.description, keys=keys)
        try:
            # After the index write, which may have moved the root's mtime; an update
            # records its folder's new mtime too, so the next count need not list it.
            self._counted(before, (rel, 1 if staged.current is None else 0))
            record = staged.record if staged.record is not None else self._read(rel, path)
        except BaseException:
            if index_fd is not None:
                os.close(index_fd)
            raise
        result = WriteResult(
            record=record, created=staged.current is None, warnings=staged.warnings
        )
        return result, index_fd

    def _settle(self, staged: _Staged, index_fd: int | None) -> None:
        """After the lock: make the rename and the index line durable, tell the catalog."""
        try:
            fsync_dir(staged.path.parent)
            if index_fd is not None:
                os.fsync(index_fd)
        finally:
            if index_fd is not None:
                os.close(index_fd)
        self._journaled(staged.rel)

    @staticmethod
    def _discard(staged: _Staged | None) -> None:
        """Remove a staging copy that was not renamed into place."""
        if staged is not None and staged.temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(staged.temp)
            staged.temp = None

    def _check_version(self, rel: str, path: Path, actual: str, expected: str | None) -> None:
        """Refuse the write when the caller read another version (``""``: absent)."""
        if expected is None:
            return
        if actual != expected:
            raise Conflict(
                f"{rel} changed since it was read (version {actual or 'absent'}, "
                f"expected {expected or 'absent'})",
                path=path,
                hint="read the memory again and re-apply your change",
                expected=expected,
                actual=actual,
            )

    def _check_size(self, rel: str, text: str) -> None:
        size = len(text.encode("utf-8"))
        if size > self.settings.max_memory_bytes:
            raise LimitExceeded(
                f"{rel} would be {size} bytes; the limit is {self.settings.max_memory_bytes}",
                path=self.root / rel,
                hint="keep one memory short and specific, or split it into several",
            )

    def _stamped(self, memory: Memory, current: bytes | None, path: Path) -> Memory:
        today = dt.date.today()
        created = memory.created
        if current is not None and created is None:
            try:
                created = parse_memory(current.decode("utf-8", "replace"), path=path).created
            except ParseError:
                created = None
        return replace(memory, created=created or today, updated=today)

    def delete(self, ref: str, *, expected_version: str | None = None) -> Path:
        """Move a memory to the trash and drop its index line; returns the trash path."""
        with self.lock(), self._key_table() as keys:
            record = self.get(ref)
            _, path = self._resolve(record.file)
            self._check_version(record.file, path, record.version, expected_version)
            before = self._folder_mtimes(record.file)
            target = self._trash_target(record.file)
            os.replace(path, target)
            sidecar.move(path, target)
            follows = keys is not None and keys.in_step(file_stamp(self.index_path))
            atomic_write(self.index_path, remove_entry(self.read_index(), file=record.file))
            after = file_stamp(self.index_path)
            if keys is not None and follows and after is not None:
                keys.drop(record.file, after)
            self._counted(before, (record.file, -1))
            self._journaled(record.file)
        return target

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
        with self.lock(), self._key_table() as keys:
            record = self.get(ref)
            old_path = self.root / record.file
            new_rel, new_path = self._resolve(new_file, any_name=sidecar.exists(old_path))
            if new_path.exists():
                raise MemoryExists(
                    f"{new_rel} already exists", path=new_path, hint="choose another file name"
                )
            before = self._folder_mtimes(record.file, new_rel)
            ensure_dir(new_path.parent)
            new_path = safe_join(self.root, new_rel)  # its folders exist now: check again
            _, old_path = self._resolve(record.file, any_name=True)
            os.rename(old_path, new_path)
            sidecar.move(old_path, new_path)
            memory = record.memory
            self._update_index(
                memory.name, new_rel, memory.description, keys=keys, moved_from=record.file
            )
            self._counted(before, (record.file, -1), (new_rel, 1))
            self._journaled(record.file, new_rel)
            return self._read(new_rel, new_path)

    def write_index(self, text: str) -> None:
        """Replace the index (used by doctor's repairs), under the scope lock."""
        with self.lock():
            atomic_write(self.index_path, text)

    def index_entries(self) -> list[str]:
        """The files the index points at, in order (duplicates kept)."""
        return [entry.file for entry in parse_entries(self.read_index())]

    # Defined last: inside the class body the name `list` would shadow the builtin.
    def list(self) -> list[MemoryRecord]:
        """Every memory of the scope that parses, by file name."""
        return list(self.scan().records)
