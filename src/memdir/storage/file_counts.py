"""How many memory files a scope holds, for ``max_files``, without walking the scope.

A state file maps each folder (relative to the scope's root, ``""`` the root
itself) to its mtime and its number of memory files. memdir's own writes,
renames and deletes keep it exact (:meth:`FileCounts.record`); files added or
removed by hand are found by comparing folder mtimes (:meth:`FileCounts.total`):
every folder's when the count is near the limit, else the root's and a run
of others from a random start, so that a write costs the same in a scope of
ten folders or of ten thousand. A file created by hand in the same clock tick
as memdir's last write may be missed until its folder changes again: the
count is a limit, not an inventory.

Everything here runs under the scope's lock. The state is read once per
locked section (:meth:`FileCounts.forget` marks where one starts and ends)
and written in place, not fsynced: it is derived, and a damaged or torn file
is counted again.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import threading
from pathlib import Path

from memdir.errors import MemdirError
from memdir.storage.fs import FILE_MODE, ensure_dir, read_bytes_nofollow
from memdir.storage.memory_index import INDEX_NAME

__all__ = ["FileCounts"]

# Folders whose mtime a count compares, the root's included, while the count is
# below NEAR_LIMIT of the limit; near it, every folder's.
FOLDERS_PER_COUNT = 8
NEAR_LIMIT = 0.9
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

Folders = dict[str, list[int]]


def _recorded(folders: Folders) -> int:
    """The file count ``folders`` records (entries checked where they are read)."""
    return sum(
        entry[1]
        for entry in folders.values()
        if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], int)
    )


class FileCounts:
    """The per-folder file counts of one scope, kept in ``state`` (see the module docstring)."""

    def __init__(self, root: Path, state: Path, excluded: frozenset[str]) -> None:
        self._root = root
        self._state = state
        self._excluded = excluded
        self._held = threading.local()  # the state read in this thread's locked section

    def forget(self) -> None:
        """Drop the state read so far: a locked section starts or ends."""
        self._held.folders = None

    def total(self, limit: int) -> int:
        """The number of memory files, listing again only folders whose mtime moved."""
        folders = self._folders()
        changed = not folders
        if changed:
            self._count_folder("", folders)
        names = list(folders)
        recorded = _recorded(folders)
        if len(names) > FOLDERS_PER_COUNT and recorded < limit * NEAR_LIMIT:
            # A run from a random start: one-shot processes share no turn to take.
            start = random.randrange(len(names))
            names = ["", *(names * 2)[start : start + FOLDERS_PER_COUNT - 1]]
        for rel in names:
            if rel in folders:  # not dropped with a vanished parent
                changed |= self._check_folder(rel, folders)
        if changed:
            self._save(folders)
            recorded = _recorded(folders)
        return recorded

    def mtimes(self, *files: str) -> dict[str, int]:
        """The mtimes of the folders of ``files``, taken before memdir changes them."""
        mtimes = {}
        for file in files:
            folder = file.rpartition("/")[0]
            with contextlib.suppress(OSError):
                mtimes[folder] = os.stat(self._folder(folder)).st_mtime_ns
        return mtimes

    def record(self, before: dict[str, int] | None, *changes: tuple[str, int]) -> None:
        """Files memdir just created (+1) or moved away (-1): their folders follow.

        A folder as recorded before the change (``before``; None: just checked)
        takes its new mtime and count, so memdir's own changes never make it
        look edited by hand; one that was not is marked to be listed again.
        """
        folders = self._folders()
        if not folders:
            return  # never counted: the next count lists the scope
        for rel, delta in changes:
            folder = rel.rpartition("/")[0]
            entry = folders.get(folder)
            if not isinstance(entry, list) or len(entry) != 2:
                _count_again(folders, folder)
                continue
            try:
                mtime = os.stat(self._folder(folder)).st_mtime_ns
            except OSError:
                continue
            if before is not None and before.get(folder) != entry[0]:
                folders[folder] = [-1, entry[1]]
            else:
                folders[folder] = [mtime, max(int(entry[1]) + delta, 0)]
        self._save(folders)

    def _folders(self) -> Folders:
        """The state, read once per locked section (and shared by the calls in it)."""
        folders: Folders | None = getattr(self._held, "folders", None)
        if folders is None:
            try:
                state = json.loads(read_bytes_nofollow(self._state))
            except (MemdirError, OSError, ValueError):
                state = None  # absent, a link, damaged: counted again
            raw = state.get("folders") if isinstance(state, dict) else None
            folders = raw if isinstance(raw, dict) else {}
            self._held.folders = folders
        return folders

    def _folder(self, rel: str) -> str:
        return os.path.join(self._root, rel) if rel else str(self._root)

    def _check_folder(self, rel: str, folders: Folders) -> bool:
        """Count ``rel`` again if its mtime moved (dropped if gone); whether anything changed."""
        try:
            mtime = os.stat(self._folder(rel)).st_mtime_ns
        except OSError:
            for other in [o for o in folders if o == rel or o.startswith(f"{rel}/")]:
                del folders[other]
            return True
        entry = folders[rel]
        if isinstance(entry, list) and len(entry) == 2 and entry[0] == mtime:
            return False
        self._count_folder(rel, folders)
        return True

    def _count_folder(self, rel: str, folders: Folders) -> None:
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

    def _save(self, folders: Folders) -> None:
        # Written in place (a rename over a file makes ext4 flush it, milliseconds
        # held under the lock), not fsynced. A write torn by a crash does not parse
        # (or holds a count off by a few, a limit not an inventory): counted again.
        ensure_dir(self._state.parent)
        data = json.dumps({"folders": folders}, separators=(",", ":")).encode("utf-8")
        try:
            fd = os.open(self._state, os.O_WRONLY | os.O_CREAT | _NOFOLLOW, FILE_MODE)
        except OSError:  # a link or a folder there: removed, made again next time
            with contextlib.suppress(OSError):
                os.unlink(self._state)
            return
        try:
            # Over the old text, then cut to length: truncating to zero first would
            # make ext4 flush the file on close, as a rename over it does.
            os.pwrite(fd, data, 0)
            os.ftruncate(fd, len(data))
        finally:
            os.close(fd)


def _count_again(folders: Folders, folder: str) -> None:
    """Mark the nearest recorded ancestor of a new ``folder`` to be listed again."""
    while folder:
        folder = folder.rpartition("/")[0]
        entry = folders.get(folder)
        if isinstance(entry, list) and len(entry) == 2:
            folders[folder] = [-1, entry[1]]
            return
