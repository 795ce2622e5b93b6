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

This module reads and plans; what runs under the lock (install, the index
edit, the key table, counts, trash) is its base class,
:class:`~memdir.storage.store_apply.AppliedStore`, and delete and rename are
:class:`~memdir.storage.store_moves.MovingStore`'s. Storage failures are
raised as :class:`~memdir.errors.StorageError` (:class:`~memdir.errors.DiskFull`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import replace as dc_replace
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
from memdir.model import (
    FrontmatterStyle,
    Memory,
    MemoryRecord,
    MemoryType,
    Scope,
    check_memory_text,
    is_slug,
    memory_slug,
    stamp_memory,
)
from memdir.records import record
from memdir.storage import claude_format, sidecar
from memdir.storage.codec import parse_memory, render_memory
from memdir.storage.failures import translated
from memdir.storage.file_counts import FileCounts
from memdir.storage.fs import (
    confined,
    ensure_dir,
    file_stamp,
    read_bytes_nofollow,
    refuse_hidden,
    write_temp,
)
from memdir.storage.memory_index import (
    INDEX_NAME,
    titled_files,
)
from memdir.storage.rules import validate_memory_rules
from memdir.storage.scope_files import scope_entries
from memdir.storage.store_apply import (
    JOURNAL_NAME,
    STAGING_DIR,
    WriteResult,
    _Staged,
    append_journal,
    journal_lock,
    journal_or_warning,
)
from memdir.storage.store_moves import MovingStore

if TYPE_CHECKING:
    from memdir.storage.history import History
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
    "journal_or_warning",
]

# A guard sees the text about to be written and the file name; it returns
# warnings, or raises a MemdirError to refuse the write (team secret scanning).
WriteGuard = Callable[[str, str], list[str]]

_FILE_CHARS = re.compile(r"[^\w]+")
_MAX_STEM = 60


def content_version(data: bytes) -> str:
    """The version a compare-and-swap writer passes back: a short content hash."""
    import hashlib  # here: loading OpenSSL costs every command that never hashes

    return hashlib.sha256(data).hexdigest()[:16]


@record
class ScanResult:
    """Every memory file of a scope: the files listed, the ones that parse, the errors."""

    files: tuple[str, ...]
    records: tuple[MemoryRecord, ...]
    problems: tuple[ParseError, ...]


class MemoryStore(MovingStore):
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
        history: History | None = None,
    ) -> None:
        self.root = root
        self.history = history  # every change is kept there (None: no history)
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
            if record is not None and record.memory.answers_to(name):
                return record
        # Trigger: Claude Code's model names files as it likes (``project_x.md``) and its
        # index titles are prose. Why: a slug alone finds neither, and a miss makes a
        # second memory of one name. Outcome: in Claude Code's folder a slug is looked up
        # in every file (only writes by slug pay it; a titled write finds its line).
        if titled and self.style is FrontmatterStyle.CLAUDE and is_slug(name):
            thorough = True
        if thorough:
            for record in self.scan().records:
                if record.memory.answers_to(name):
                    return record
        return None

    def _name_candidates(
        self, ref: str, wanted: str, keys: KeyTable | None, *, titled: bool = True
    ) -> Iterator[str]:
        if titled:
            yield from self._titled(wanted, keys)
            if is_slug(ref):  # `deploy-freeze` is most often titled `Deploy freeze`
                yield from self._titled(" ".join(re.split(r"[-_]+", ref)).strip(), keys)
        for stem, sep in ((self._file_stem(ref), "_"), (self._slug_stem(ref), "-")):
            yield f"{stem}.md"
            n = 2
            while (self.root / f"{stem}{sep}{n}.md").exists():
                yield f"{stem}{sep}{n}.md"
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

    @property
    def style(self) -> FrontmatterStyle:
        """The shape new memory files get: Claude Code's under the ``claude`` profile."""
        claude = self.settings.profile == "claude"
        return FrontmatterStyle.CLAUDE if claude else FrontmatterStyle.MEMDIR

    @staticmethod
    def _file_stem(name: str) -> str:
        stem = _FILE_CHARS.sub("_", name.casefold()).strip("_")[:_MAX_STEM].strip("_")
        return stem or "memory"

    @staticmethod
    def _slug_stem(name: str) -> str:
        """The file stem of a memory in Claude Code's shape: its ``name:`` slug."""
        return memory_slug(name)[:_MAX_STEM].strip("-") or "memory"

    def _new_file_name(self, name: str) -> str:
        claude = self.style is FrontmatterStyle.CLAUDE
        stem, sep = (self._slug_stem(name), "-") if claude else (self._file_stem(name), "_")
        candidate, n = f"{stem}.md", 2
        while (self.root / candidate).exists():
            candidate, n = f"{stem}{sep}{n}.md", n + 1
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
        the trash. With ``stamp``, ``created`` is kept (or set) and the change
        is dated (:func:`~memdir.model.stamp_memory`). The file keeps its shape
        (memdir's or Claude Code's) and Claude Code's own keys; a new file takes
        :attr:`style`.

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
        previous = self._held(current, path)
        self._check_bounds(memory, rel, previous)
        trash = self._must_trash(rel, path, memory, current, expected_version, replace)
        # A file keeps its shape (memdir's or Claude Code's); a new one takes the store's.
        kept = previous if previous is not None and not trash else None
        memory = dc_replace(memory, style=kept.style if kept is not None else self.style)
        memory = claude_format.carry_claude_keys(memory, kept)
        if stamp:
            memory = stamp_memory(memory, previous=previous, today=dt.date.today())
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
        A storage failure (a full disk) is raised as a
        :class:`~memdir.errors.StorageError` naming the file.
        """
        with translated(self.index_path):
            return self._locked_write_now(plan, target)

    def _locked_write_now(
        self,
        plan: Callable[[KeyTable | None, bool], _Staged],
        target: Callable[[KeyTable | None], str] | None,
    ) -> WriteResult:
        staged: _Staged | None = None
        hold = self.review_held()  # an agent's write under review is kept, not applied
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
                if hold:
                    return self._propose(staged)
                result, index_fd = self._install(staged, keys)
            late = self._settle(staged, index_fd)
            if not late:
                return result
            return WriteResult(
                record=result.record,
                created=result.created,
                warnings=(*result.warnings, *late),
                pending=result.pending,
            )
        finally:
            self._discard(staged)

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
            staged = self._stage(rel, path, current, memory, text, note=False, trash=trash)
            staged.action = "edit" if current is not None else None
            return staged

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
        if previous is not None and previous.answers_to(memory.name):
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

    # Defined last: inside the class body the name `list` would shadow the builtin.
    def list(self) -> list[MemoryRecord]:
        """Every memory of the scope that parses, by file name."""
        return list(self.scan().records)
