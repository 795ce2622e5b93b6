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

A change may have to wait for a person. The store's review gate (a callable
it is given, :data:`ReviewGate`: review modes and screening live above the
store, in :mod:`memdir.history.review`) sees the memory a write would leave,
once its plan is made, and answers why it waits, or ``None``; a write it holds
becomes a pending version in the history, with that reason, and the folder is
not touched. Deletes and renames ask it with no memory.

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

This module plans writes; its base classes hold the rest, each in a module
beside it: the checks that refuse a write
(:class:`~memdir.storage.store_checks.CheckingStore`), listing, reading and
finding memories (:class:`~memdir.storage.store_reads.ReadingStore`, which
also names new files), delete and rename
(:class:`~memdir.storage.store_moves.MovingStore`), and what runs under the
lock (install, counts, history, trash:
:class:`~memdir.storage.store_apply.AppliedStore`; the index edit and the key
table beneath it: :class:`~memdir.storage.store_index.IndexedStore`). Storage failures are
raised as :class:`~memdir.errors.StorageError` (:class:`~memdir.errors.DiskFull`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
from collections.abc import Callable
from dataclasses import replace as dc_replace
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.config import Settings
from memdir.errors import InvalidMemory, MemdirError
from memdir.model import FrontmatterStyle, Memory, MemoryRecord, Scope, stamp_memory
from memdir.storage import claude_format, sidecar
from memdir.storage.codec import render_memory
from memdir.storage.failures import translated
from memdir.storage.file_counts import FileCounts
from memdir.storage.fs import ensure_dir, write_temp
from memdir.storage.journal import JOURNAL_NAME
from memdir.storage.memory_index import INDEX_NAME
from memdir.storage.store_apply import STAGING_DIR, ChangeLog, ReviewGate, WriteResult, _Staged
from memdir.storage.store_checks import CheckingStore
from memdir.storage.store_reads import ScanResult, content_version

if TYPE_CHECKING:
    from memdir.storage.index_keys import KeyTable

__all__ = [
    "ChangeLog",
    "MemoryCheck",
    "MemoryStore",
    "ReviewGate",
    "ScanResult",
    "WriteGuard",
    "WriteResult",
    "content_version",
]

# A guard sees the text about to be written and the file name; it returns
# warnings, or raises a MemdirError to refuse the write (team secret scanning).
WriteGuard = Callable[[str, str], list[str]]
# A check sees a memory before it is written and raises a MemdirError to refuse it
# (the enforce: rules must compile).
MemoryCheck = Callable[[Memory], object]


class MemoryStore(CheckingStore):
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
        history: ChangeLog | None = None,
        review: ReviewGate | None = None,
        check: MemoryCheck | None = None,
    ) -> None:
        """``history`` keeps every change (None: no history); ``review`` sees the
        memory a change made now would write and says why it waits for a person
        (None: none does); ``check`` refuses a memory the store itself cannot judge."""
        self.root = root
        self.history = history
        self._review = review
        self._check = check
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

    # -- writing ---------------------------------------------------------

    def _new_file_name(self, name: str) -> str:
        claude = self.style is FrontmatterStyle.CLAUDE
        stem, sep = (self._slug_stem(name), "-") if claude else (self._file_stem(name), "_")
        candidate, n = f"{stem}.md", 2
        while (self.root / candidate).exists():
            candidate, n = f"{stem}{sep}{n}.md", n + 1
        return candidate

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
        hold: str | None = None  # why an agent's write is kept for review, not applied
        judged = False
        try:
            if target is not None:
                with contextlib.suppress(MemdirError, OSError, ValueError):
                    staged = plan(None, False)
            if staged is not None:  # judged outside the lock; a plan made again holds the same
                hold, judged = self.hold_reason(_as_written(staged)), True
            with self.lock(), self._key_table() as keys:
                self._keys_in_step(keys)
                if staged is None or target is None or not self._still(staged, target(keys)):
                    self._discard(staged)
                    staged = plan(keys, True)
                elif staged.current is None:
                    self._check_count()
                if not judged:
                    hold = self.hold_reason(_as_written(staged))
                if hold is not None:
                    return self._propose(staged, hold)
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


def _as_written(staged: _Staged) -> Memory:
    """The memory a staged write would leave: a note's text is its body."""
    return dc_replace(staged.memory, body=staged.text) if staged.note else staged.memory
