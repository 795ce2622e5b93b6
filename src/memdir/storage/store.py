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

A write costs the same at ten memories and at a hundred thousand: the index
line is found by a keyed scan of the index text (never a full parse) and a new
line is appended rather than the index rewritten; a name is looked up the same
way; the file count for ``max_files`` is kept per folder in a state file and
only folders whose mtime moved are listed again. What a write touched is
appended to the catalog's journal, so the next search need not look for it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import re
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

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
from memdir.storage import sidecar
from memdir.storage.codec import parse_memory, render_memory
from memdir.storage.fs import (
    FILE_MODE,
    atomic_write,
    ensure_dir,
    file_lock,
    fsync_dir,
    read_bytes_nofollow,
    read_json_object,
    refuse_hidden,
    safe_join,
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

__all__ = [
    "JOURNAL_NAME",
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
    return hashlib.sha256(data).hexdigest()[:16]


@dataclass(frozen=True, kw_only=True)
class WriteResult:
    """What a write did: the stored record, whether it created the file, warnings."""

    record: MemoryRecord
    created: bool
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
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
        self.scope = scope
        self.settings = settings
        self._lock_path = lock_path
        self._trash_dir = trash_dir
        self._excluded = frozenset(excluded)
        self._guard = guard
        # Without a state folder, counts are walked and nothing is journaled.
        self._counts = None if state_dir is None else state_dir / f"{scope.value}.counts.json"
        self._journal = None if state_dir is None else state_dir / JOURNAL_NAME

    # -- reading ---------------------------------------------------------

    @property
    def guard(self) -> WriteGuard | None:
        """The check every write's text passes through (secrets, for the team store)."""
        return self._guard

    @property
    def index_path(self) -> Path:
        return self.root / INDEX_NAME

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
        return sorted(self._walk(str(self.root), ""))

    def has_files(self) -> bool:
        """Whether the scope holds any memory file; stops at the first one found."""
        if not self.root.is_dir():
            return False
        walk = self._walk(str(self.root), "")
        try:
            return next(walk, None) is not None
        finally:
            walk.close()  # releases the open scandir handles now

    def _walk(self, directory: str, prefix: str) -> Generator[str, None, None]:
        # Plain strings and scandir: this runs over every file on every listing.
        with os.scandir(directory) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                rel = prefix + name
                if entry.is_dir(follow_symlinks=False):
                    if rel not in self._excluded:
                        yield from self._walk(entry.path, rel + "/")
                elif (
                    (name.endswith(".md") or sidecar.exists(entry.path))
                    and rel != INDEX_NAME
                    and entry.is_file(follow_symlinks=False)
                ):
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
        path = safe_join(self.root, file)
        rel = path.relative_to(Path(os.path.realpath(self.root))).as_posix()
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

    def _find_named(self, name: str, *, thorough: bool) -> MemoryRecord | None:
        # By name only: a writer must never take a file whose stem merely equals
        # the new memory's name for "the memory with the same name".
        wanted = " ".join(name.split()).casefold()
        for file in self._name_candidates(name, wanted):
            record = self._read_if_memory(file)
            if record is not None and record.memory.name.casefold() == wanted:
                return record
        if thorough:
            for record in self.scan().records:
                if record.memory.name.casefold() == wanted:
                    return record
        return None

    def _name_candidates(self, ref: str, wanted: str) -> Iterator[str]:
        try:
            raw = read_bytes_nofollow(self.index_path)
        except FileNotFoundError:
            raw = b""
        yield from titled_files(raw, wanted)
        stem = self._file_stem(ref)
        yield f"{stem}.md"
        n = 2
        while (self.root / f"{stem}_{n}.md").exists():
            yield f"{stem}_{n}.md"
            n += 1

    def _read_if_memory(self, file: str) -> MemoryRecord | None:
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

    def lock(self) -> AbstractContextManager[None]:
        """The scope's inter-process lock: held by every write, rename and delete."""
        return file_lock(self._lock_path, timeout=self.settings.lock_timeout)

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
            raise InvalidMemory(
                f"memory {memory.name!r} needs a type",
                hint="one of user, feedback, project, reference",
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
        count = len(self.files()) if self._counts is None else self._tracked_count()
        if count >= self.settings.max_files:
            raise LimitExceeded(
                f"the {self.scope} scope already holds {self.settings.max_files} memories",
                path=self.root,
                hint="consolidate or delete memories, or raise max_files",
            )

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
        self, title: str, file: str, description: str, *, moved_from: str | None = None
    ) -> None:
        """Point the index at ``file`` (dropping ``moved_from``'s lines), in one write.

        An unchanged index is not written; a new line after an intact index is
        appended (one small write, fsynced), so the cost does not grow with
        the index; any other edit replaces the index atomically.
        """
        hook = self.index_hook(title, file, description)
        if moved_from is not None:
            text = remove_entry(self.read_index(), file=moved_from)
            atomic_write(self.index_path, upsert_entry(text, title=title, file=file, hook=hook))
            return
        try:
            raw = read_bytes_nofollow(self.index_path)
        except FileNotFoundError:
            raw = b""
        how, data = upsert_raw(raw, title=title, file=file, hook=hook)
        if how == "replace":
            atomic_write(self.index_path, data)  # fsyncs the root folder too
            return
        if how == "append":
            self._append_index(data)
        # No rename of the index: the root folder's fsync makes the memory file's own
        # rename (done with sync_dir=False) durable.
        fsync_dir(self.root)

    def _append_index(self, tail: bytes) -> None:
        # Under the scope lock, so no other memdir writer interleaves; one
        # write() of a line is not torn by a concurrent reader.
        fd = os.open(self.index_path, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, tail)
            os.fsync(fd)
        finally:
            os.close(fd)

    def _journaled(self, *files: str) -> None:
        """Tell the catalog which files changed (absolute paths)."""
        if self._journal is not None:
            append_journal(self._journal, [self.root / file for file in files])

    def _tracked_count(self) -> int:
        """The number of memory files, listing again only folders whose mtime moved.

        The state file maps each folder (relative, ``""`` the root) to its
        mtime and number of memory files. A file created by hand in the same
        clock tick as memdir's last write may be missed until the folder
        changes again: the count is a limit, not an inventory.
        """
        assert self._counts is not None
        state = read_json_object(self._counts) or {}
        raw = state.get("folders")
        folders: dict[str, list[int]] = raw if isinstance(raw, dict) else {}
        changed = not folders
        if changed:
            folders = {}
            self._count_folder("", folders)
        for rel in sorted(folders):
            if rel not in folders:
                continue  # dropped with a vanished parent
            try:
                mtime = os.stat(self._folder(rel)).st_mtime_ns
            except OSError:
                for other in [o for o in folders if o == rel or o.startswith(f"{rel}/")]:
                    del folders[other]
                changed = True
                continue
            entry = folders[rel]
            if not (isinstance(entry, list) and len(entry) == 2 and entry[0] == mtime):
                self._count_folder(rel, folders)
                changed = True
        if changed:
            self._save_counts(folders)
        return sum(entry[1] for entry in folders.values())

    def _folder(self, rel: str) -> str:
        return os.path.join(self.root, rel) if rel else str(self.root)

    def _count_folder(self, rel: str, folders: dict[str, list[int]]) -> None:
        """Count one folder's memory files again; new subfolders are counted whole."""
        path = self._folder(rel)
        count = 0
        try:
            mtime = os.stat(path).st_mtime_ns
            entries = list(os.scandir(path))
        except OSError:
            folders.pop(rel, None)
            return
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            child = f"{rel}/{name}" if rel else name
            if entry.is_dir(follow_symlinks=False):
                if child not in self._excluded and child not in folders:
                    self._count_folder(child, folders)
            elif name.endswith(".md") and child != INDEX_NAME:
                count += entry.is_file(follow_symlinks=False)
        folders[rel] = [mtime, count]

    def _save_counts(self, folders: dict[str, list[int]]) -> None:
        assert self._counts is not None
        # Derived state: a lost update only means one more listing, so no fsync.
        ensure_dir(self._counts.parent)
        tmp = self._counts.with_name(f".{self._counts.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"folders": folders}), encoding="utf-8")
        os.replace(tmp, self._counts)

    @staticmethod
    def _count_again(folders: dict[str, Any], folder: str) -> None:
        """Mark the nearest recorded ancestor of a new ``folder`` to be listed again."""
        while folder:
            folder = folder.rpartition("/")[0]
            entry = folders.get(folder)
            if isinstance(entry, list) and len(entry) == 2:
                folders[folder] = [-1, entry[1]]
                return

    def _folder_mtimes(self, *files: str) -> dict[str, int]:
        """The mtimes of the folders of ``files``, taken before memdir changes them."""
        mtimes = {}
        for file in files:
            folder = file.rpartition("/")[0]
            with contextlib.suppress(OSError):
                mtimes[folder] = os.stat(self._folder(folder)).st_mtime_ns
        return mtimes

    def _counted(self, before: dict[str, int] | None, *changes: tuple[str, int]) -> None:
        """Files memdir just created (+1) or moved away (-1): their folders follow.

        A folder as recorded before the change (``before``; None: just checked)
        takes its new mtime and count, so memdir's own changes never make it
        look edited by hand; one that was not is marked to be listed again.
        """
        if self._counts is None:
            return
        state = read_json_object(self._counts) or {}
        folders = state.get("folders")
        if not isinstance(folders, dict):
            return
        for rel, delta in changes:
            folder = rel.rpartition("/")[0]
            entry = folders.get(folder)
            if not isinstance(entry, list) or len(entry) != 2:
                self._count_again(folders, folder)
                continue
            try:
                mtime = os.stat(self._folder(folder)).st_mtime_ns
            except OSError:
                continue
            if before is not None and before.get(folder) != entry[0]:
                folders[folder] = [-1, entry[1]]
            else:
                folders[folder] = [mtime, max(int(entry[1]) + delta, 0)]
        self._save_counts(folders)

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
        """
        self._validate(memory)
        self._ensure_folder()
        with self.lock():
            if file is None:
                existing = self._find_named(memory.name, thorough=False)
                file = existing.file if existing is not None else self._new_file_name(memory.name)
            rel, path = self._resolve(file)
            current = self._current(rel, path, expected_version)
            self._check_bounds(memory, rel, self._held(current, path))
            self._keep_what_is_replaced(rel, path, memory, current, expected_version, replace)
            memory = self._stamped(memory, current, path) if stamp else memory
            note = sidecar.exists(path)  # a note keeps its fields beside it, its text as is
            text = memory.body if note else render_memory(memory)
            return self._commit(rel, path, memory, text, created=current is None, note=note)

    def write_note(
        self, file: str, text: str, memory: Memory, *, expected_version: str | None = None
    ) -> WriteResult:
        """Write ``text`` to ``file`` (any name) exactly, ``memory``'s fields to its sidecar.

        For notes that must read back byte for byte (see :mod:`memdir.storage.sidecar`).
        """
        self._validate(memory)
        self.ensure()
        with self.lock():
            rel, path = self._resolve(file, any_name=True)
            current = self._current(rel, path, expected_version)
            return self._commit(rel, path, memory, text, created=current is None, note=True)

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
        with self.lock():
            rel, path = self._resolve(file)
            memory = sidecar.load_memory(text, path=path)  # a note's fields stay beside it
            self._validate(memory)
            current = self._current(rel, path, expected_version)
            self._check_bounds(memory, rel, self._held(current, path))
            self._keep_what_is_replaced(rel, path, memory, current, expected_version, replace)
            return self._commit(rel, path, memory, text, created=current is None)

    def _keep_what_is_replaced(
        self,
        rel: str,
        path: Path,
        memory: Memory,
        current: bytes | None,
        expected_version: str | None,
        replace: bool,
    ) -> None:
        """Refuse to overwrite another memory or an unparseable file, or trash it first.

        The same memory (same name) is updated in place; anything else is only
        replaced when the caller proved it read it (``expected_version``) or
        asked for it (``replace``), and then a copy goes to the trash.
        """
        if current is None:
            return
        previous = self._held(current, path)
        held = previous.name if previous is not None else None
        if held is not None and held.casefold() == memory.name.casefold():
            return
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
        self._trash_copy(rel, current)

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

    def _current(self, rel: str, path: Path, expected_version: str | None) -> bytes | None:
        """The file's bytes (None if absent), checked against the caller's version."""
        # A directory, FIFO or link with this name is refused here, not overwritten.
        current = read_bytes_nofollow(path) if os.path.lexists(path) else None
        if expected_version is not None:
            actual = "" if current is None else content_version(current)
            self._check_version(rel, path, actual, expected_version)
        if current is None:
            self._check_count()
        return current

    def _commit(
        self, rel: str, path: Path, memory: Memory, text: str, *, created: bool, note: bool = False
    ) -> WriteResult:
        """Size check, guard, atomic write and index line: the tail of every write."""
        self._check_size(rel, text)
        warnings = tuple(self._guard(text, rel)) if self._guard else ()
        if note:
            sidecar.write(path, memory)
        # The index write below fsyncs the root folder; nested files sync their own.
        atomic_write(path, text, sync_dir=path.parent != self.root)
        self._update_index(memory.name, rel, memory.description)
        if created:  # after the index write, which may have moved the root's mtime
            self._counted(None, (rel, 1))
        self._journaled(rel)
        return WriteResult(record=self._read(rel, path), created=created, warnings=warnings)

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
        with self.lock():
            record = self.get(ref)
            _, path = self._resolve(record.file)
            self._check_version(record.file, path, record.version, expected_version)
            before = self._folder_mtimes(record.file)
            target = self._trash_target(record.file)
            os.replace(path, target)
            sidecar.move(path, target)
            atomic_write(self.index_path, remove_entry(self.read_index(), file=record.file))
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
        with self.lock():
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
            self._update_index(memory.name, new_rel, memory.description, moved_from=record.file)
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
