"""Deleting and renaming through the memory tool: notes, memories and whole folders.

:class:`MovingNotes` sits between
:class:`~memdir.hosts.memory_tool_paths.VirtualFolder` and
:class:`~memdir.hosts.memory_tool.MemoryToolBackend`. A memory (a file
the store lists) is deleted or renamed through the store, so its index line
and sidecar follow; what is not a memory is moved under the scope's lock. A
delete sends everything to memdir's dated trash, never removes it; a folder
moves memory by memory, then the rest, and leaves no empty folders behind. A
memory with frontmatter renamed away from ``.md`` keeps its fields in a sidecar.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.errors import InvalidMemory, MemdirError, MemoryExists, MemoryNotFound, UnsafePath
from memdir.hosts.memory_tool_paths import VIRTUAL_ROOT, VirtualFolder, decode_note
from memdir.model import Memory
from memdir.storage import sidecar
from memdir.storage.codec import parse_memory
from memdir.storage.fs import ensure_dir
from memdir.storage.store import content_version

if TYPE_CHECKING:
    from memdir.api import Memdir

__all__ = ["MovingNotes"]


class MovingNotes(VirtualFolder):
    """``delete`` and ``rename`` of the memory tool, on top of :class:`VirtualFolder`."""

    memdir: Memdir

    def _memory_of(self, rel: str, data: bytes) -> Memory | None:
        """The memory ``rel`` holds with its own frontmatter, or None (not a memory)."""
        if not rel.endswith(".md"):
            return None
        try:
            memory = parse_memory(data.decode("utf-8"))
        except (MemdirError, UnicodeDecodeError):
            return None
        complete = memory.name and memory.description and memory.type is not None
        return memory if complete else None

    def _is_memory(self, rel: str) -> bool:
        record = self.store.find(rel, thorough=False)
        return record is not None and record.file == rel

    def delete(self, path: str) -> str:
        """Delete a note, or a folder of them: everything goes to memdir's trash."""
        self._refuse_root(path, "delete")
        rel = self._relative(path)
        target = self.store.root / rel
        if target.is_dir() and not target.is_symlink():
            for file in [f for f in self.store.files() if f.startswith(rel + "/")]:
                self.store.delete(file)
            self._trash_rest(rel)
        elif not os.path.lexists(target):
            raise MemoryNotFound(f"The path {path} does not exist")
        elif self._writable(path) and self._is_memory(rel):
            self.store.delete(rel)
        else:
            self._trash_rest(rel)
        return f"Successfully deleted {path}"

    def _trash_rest(self, rel: str) -> None:
        """Move what is left at ``rel`` (files that are not memories) to the trash."""
        base = self.memdir.layout.trash_dir / dt.date.today().isoformat() / self.scope.value
        with self.store.lock():
            source = self.store.root / rel
            if not os.path.lexists(source):
                return
            target, n = base / rel, 2
            while os.path.lexists(target):
                target, n = base / f"{rel}.{n}", n + 1
            ensure_dir(target.parent)
            os.replace(source, target)
            sidecar.move(source, target)

    def rename(self, old_path: str, new_path: str) -> str:
        """Move a note, or a folder of them; the index and the sidecars follow."""
        self._refuse_root(old_path, "rename")
        old, new = self._relative(old_path), self._relative(new_path)
        if not new:
            raise UnsafePath(f"Cannot rename onto the {VIRTUAL_ROOT} directory itself")
        source = self.store.root / old
        if not os.path.lexists(source):
            raise MemoryNotFound(f"The path {old_path} does not exist")
        if os.path.lexists(self.store.root / new):
            raise MemoryExists(f"The destination {new_path} already exists")
        if new.startswith(old + "/"):
            raise InvalidMemory(f"cannot move {old_path} into itself")
        if source.is_dir() and not source.is_symlink():
            self._writable(new_path)  # the folder's own name follows the same rules
            self._rename_folder(old, new)
        else:
            self._writable(old_path)  # the index stays where it is
            self._rename_file(old, self._new_note(new_path), source)
        return f"Successfully renamed {old_path} to {new_path}"

    def _rename_file(self, old: str, new: str, source: Path) -> None:
        if not self._is_memory(old):
            with self.store.lock():
                ensure_dir((self.store.root / new).parent)
                os.rename(source, self.store.root / new)
            return
        if not new.endswith(".md") and not sidecar.exists(source):
            # A memory with frontmatter leaving .md keeps its fields in a sidecar.
            data = source.read_bytes()
            memory = self._memory_of(old, data)
            if memory is not None:
                self.store.write_note(
                    old, decode_note(old, data), memory, expected_version=content_version(data)
                )
        self.store.rename(old, new)

    def _rename_folder(self, old: str, new: str) -> None:
        moves = [(f, new + f[len(old) :]) for f in self.store.files() if f.startswith(old + "/")]
        for _, target in moves:
            self._writable(self._virtual(target))
        for file, target in moves:
            self.store.rename(file, target)
        source = self.store.root / old
        with self.store.lock():  # what is left: files that are not memories
            for dirpath, _, names in os.walk(source):
                for name in names:
                    here = Path(dirpath) / name
                    there = self.store.root / new / here.relative_to(source)
                    ensure_dir(there.parent)
                    os.replace(here, there)
        _remove_empty_dirs(source)


def _remove_empty_dirs(top: Path) -> None:
    for dirpath, _, _ in sorted(os.walk(top), key=lambda t: len(t[0]), reverse=True):
        try:
            os.rmdir(dirpath)
        except OSError:
            continue  # not empty: leave it
