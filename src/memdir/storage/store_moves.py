"""Deleting and renaming a memory: the moves of :class:`MovingStore`, all or nothing.

Both take the scope's lock, move the file (and a note's sidecar), edit the
index and record the change in the history; a failure past the move (a full
disk) moves the file back and puts the old index back
(:mod:`memdir.storage.rollback`), so the memory is either moved with its index
line or left as it was.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from memdir.errors import MemdirError, MemoryExists, MemoryNotFound, ParseError
from memdir.model import Memory, MemoryRecord
from memdir.storage import sidecar
from memdir.storage.failures import translated
from memdir.storage.fs import ensure_dir, file_stamp, read_bytes_nofollow, safe_join
from memdir.storage.memory_index import remove_entry
from memdir.storage.rollback import IndexSwap, InstallUndo
from memdir.storage.store_apply import (
    STAGING_DIR,
    AppliedStore,
    FileChange,
    _meta_bytes,
    content_version,
)

__all__ = ["MovingStore"]


class MovingStore(AppliedStore):
    """Delete and rename, on top of the locked writes of :class:`AppliedStore`."""

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
        hold = self.hold_reason()
        with self.lock(), self._key_table() as keys:
            record = self._deletable(ref)
            _, path = self._resolve(record.file)
            self._check_version(record.file, path, record.version, expected_version)
            if hold is not None:  # kept as a pending deletion: the file stays until approved
                self._propose_removal(record.file, path, record.memory.name, hold)
                return path
            before = self._folder_mtimes(record.file)
            watch = self._watch()
            held = read_bytes_nofollow(path) if watch is not None else None
            meta = _meta_bytes(path) if watch is not None else None
            target = self._trash_target(record.file)
            follows = keys is not None and keys.in_step(file_stamp(self.index_path))
            swap = IndexSwap(self.index_path, remove_entry(self.read_index(), file=record.file))
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
                    _move_back(target, path)
                    raise
            finally:
                swap.close()
            after = file_stamp(self.index_path)
            if keys is not None and follows and after is not None:
                keys.drop(record.file, after)
            self._counted(before, (record.file, -1))
            self._journaled(record.file)
        return target

    def _deletable(self, ref: str) -> MemoryRecord:
        """The memory ``ref`` names; else the file ``ref`` names when its frontmatter does
        not parse: a broken file is deleted like any memory (named by its file)."""
        try:
            return self.get(ref)
        except MemoryNotFound:
            for file in (ref, f"{ref}.md"):
                try:
                    rel, path = self._resolve(file)
                    data = read_bytes_nofollow(path)
                except (MemdirError, OSError):
                    continue
                try:
                    self._read(rel, path)
                except ParseError:
                    memory = Memory(name=Path(rel).stem, description="", type=None)
                    version = content_version(data)
                    return MemoryRecord(
                        scope=self.scope, file=rel, memory=memory, version=version, mtime=0.0
                    )
                except (MemdirError, OSError):
                    continue
            raise

    def _propose_removal(self, rel: str, path: Path, name: str, reason: str) -> int:
        """Under the lock: keep a deletion as a pending version."""
        assert self.history is not None
        return self.history.record(
            FileChange(
                scope=self.scope,
                file=rel,
                action="delete",
                name=name,
                before=read_bytes_nofollow(path),
                after=None,
                meta_before=_meta_bytes(path),
                status="pending",
                reason=reason,
            )
        )

    def rename(self, ref: str, new_file: str) -> MemoryRecord:
        """Move a memory to another file name; its index line follows it."""
        with translated(self.index_path):
            return self._rename(ref, new_file)

    def _rename(self, ref: str, new_file: str) -> MemoryRecord:
        hold = self.hold_reason()
        with self.lock(), self._key_table() as keys:
            record = self.get(ref)
            old_path = self.root / record.file
            new_rel, new_path = self._resolve(new_file, any_name=sidecar.exists(old_path))
            if new_path.exists():
                raise MemoryExists(
                    f"{new_rel} already exists", path=new_path, hint="choose another file name"
                )
            if hold is not None:  # kept as a pending rename: nothing moves until approved
                assert self.history is not None
                text = read_bytes_nofollow(old_path)
                self.history.record(
                    FileChange(
                        scope=self.scope,
                        file=new_rel,
                        old_file=record.file,
                        action="rename",
                        name=record.memory.name,
                        before=text,
                        after=text,
                        status="pending",
                        reason=hold,
                    )
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
            undo = InstallUndo(None, self.index_path, ensure_dir(self.root / STAGING_DIR))
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
                _move_back(new_path, old_path)
                if watch is not None:
                    watch.close()
                raise
            finally:
                undo.close()
            self._counted(before, (record.file, -1), (new_rel, 1))
            self._journaled(record.file, new_rel)
            return self._read(new_rel, new_path)


def _move_back(moved: Path, original: Path) -> None:
    """Put a memory that moved from ``original`` to ``moved`` back, with its sidecar."""
    # The sidecar is best effort: whatever it does, the memory itself must go back.
    with contextlib.suppress(OSError):
        sidecar.move(moved, original)
    # os.replace is rename(2) on POSIX, as os.rename is; it only differs on Windows.
    os.replace(moved, original)
