"""Putting a change back when it fails half way: the old file and index kept aside.

A write or delete makes several steps visible one after another (the file
renamed, the index edited, the history recorded); a failure between them (a
full disk) would leave the file without its index line or both without their
version. The steps that follow the first visible one only rename files, and
what they replace is kept as a hard link (no space taken), so the change is
undone by renames too, on a full disk as well. An appended index line is cut
off again (truncation frees space).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from memdir.storage.fs import fsync_dir, write_temp

__all__ = ["IndexSwap", "InstallUndo"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class IndexSwap:
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


class InstallUndo:
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
