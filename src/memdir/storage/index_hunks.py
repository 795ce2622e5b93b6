"""The edit one change makes to a scope's ``MEMORY.md``, kept as a hunk.

The history records an index edit as the bytes it replaced (offset, old,
new) rather than a copy of the index, so a write stays O(1): the store
appends a new line (the hunk is the tail, read back through the same inode)
or replaces the index atomically (a new inode: the old text is still
readable through a descriptor opened before the change, and the two are
compared once, on a path that already read the whole index). Undo applies a
hunk backwards, which gives the index back byte for byte as long as nothing
edited that region since.
"""

from __future__ import annotations

import os
from pathlib import Path

from memdir.utils.records import record

__all__ = ["IndexHunk", "IndexWatch", "apply_backwards"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


@record
class IndexHunk:
    """The bytes a change replaced in an index: ``old`` at ``at`` became ``new``."""

    at: int
    old: bytes
    new: bytes
    absent: bool = False  # the index did not exist before the change


class IndexWatch:
    """What one change does to an index, observed in O(1) for an append.

    Opened before the change: keeps a descriptor on the index as it was. An
    append keeps the inode and grows the file: the hunk is the tail, read
    back. Any other edit is an atomic replace (a new inode): the old text is
    still readable through the descriptor and is compared with the new once.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._fd: int | None = os.open(path, os.O_RDONLY | _NOFOLLOW)
        except OSError:
            self._fd = None
        self._stat = None if self._fd is None else os.fstat(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def hunk(self) -> IndexHunk | None:
        """The edit made since the watch opened; None when the index is unchanged."""
        try:
            now = os.lstat(self.path)
        except FileNotFoundError:
            now = None
        old_stat = self._stat
        if old_stat is None and now is None:
            return None
        if (
            old_stat is not None
            and now is not None
            and (now.st_ino, now.st_dev) == (old_stat.st_ino, old_stat.st_dev)
        ):
            if now.st_size == old_stat.st_size:
                return None
            if now.st_size > old_stat.st_size:  # memdir only ever appends in place
                with open(self.path, "rb") as handle:
                    handle.seek(old_stat.st_size)
                    tail = handle.read(now.st_size - old_stat.st_size)
                return IndexHunk(at=old_stat.st_size, old=b"", new=tail)
        old = b"" if self._fd is None else _read_fd(self._fd)
        try:
            new = self.path.read_bytes() if now is not None else b""
        except FileNotFoundError:
            new = b""
        return _diff(old, new, absent=self._fd is None)


def _read_fd(fd: int) -> bytes:
    parts: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
        offset += len(chunk)


def _diff(old: bytes, new: bytes, *, absent: bool) -> IndexHunk | None:
    if old == new and not absent:
        return None
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    return IndexHunk(
        at=start, old=old[start : len(old) - end], new=new[start : len(new) - end], absent=absent
    )


def apply_backwards(current: bytes, hunk: IndexHunk) -> bytes | None:
    """The index as it was before ``hunk``, from ``current``; None if it moved since."""
    end = hunk.at + len(hunk.new)
    if current[hunk.at : end] != hunk.new:
        return None
    return current[: hunk.at] + hunk.old + current[end:]
