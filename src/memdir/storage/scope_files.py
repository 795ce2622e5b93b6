"""Which files a scope's folder holds: the one walk the store and the rule loader share.

Dot entries (``.git``, ``.meta``, ``.staging``) are never a scope's, nor the
subfolders another scope owns (the private folder's ``team/`` and
``logs/``), and links are not followed. What counts as a memory among these
files is the caller's: the store also takes notes of other extensions that
have a sidecar, the rule loader only ``.md`` files. Plain strings and
``scandir``, no pathlib: this runs over every file on every listing, and in
the hook that runs before every tool call.
"""

from __future__ import annotations

import os
import time
from stat import S_ISREG

TYPE_CHECKING = False  # the pre-tool-use hook loads this module: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Collection, Iterator

__all__ = ["folder_stamp", "in_scope", "scope_entries", "scope_stats"]

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# A folder changed this recently may change again unseen (within one tick of its file
# system's clock). Whole-second mtimes (FAT's 2 s, HFS+, ext3) get the long wait; a file
# system that shows sub-second mtimes moves them every kernel tick (1-16 ms).
_RACY_NS = 2_000_000_000
_RACY_FINE_NS = 100_000_000
# Listing through folder descriptors where the system can (not Windows).
_BY_FD = os.scandir in os.supports_fd and os.open in os.supports_dir_fd


def folder_stamp(mtime_ns: int) -> int:
    """A folder's mtime as recorded to see later changes: -1 when too recent to trust.

    A file created in the same clock tick as the last change would leave the
    mtime as it was; a stamp older than that cannot hide one. How long a tick
    may be is read off the mtime itself: whole seconds, 2 s; finer, 100 ms.
    """
    window = _RACY_NS if mtime_ns % 1_000_000_000 == 0 else _RACY_FINE_NS
    return -1 if time.time_ns() - mtime_ns < window else mtime_ns


def in_scope(rel: str, excluded: Collection[str]) -> bool:
    """Whether the walk would reach ``rel`` (a path below the root): the same rule, on a name."""
    parts = rel.split("/")
    if any(part.startswith(".") for part in parts):
        return False
    return not any("/".join(parts[:n]) in excluded for n in range(1, len(parts)))


def scope_entries(
    root: str, excluded: Collection[str], *, tolerant: bool = False
) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """The regular files under ``root`` as (path relative to it, entry), depth first.

    ``excluded`` names subfolders (relative paths) left out. A folder that
    cannot be listed raises, unless ``tolerant`` (then it is skipped: a folder
    removed while the walk ran). Folders are listed through their
    descriptors where the system allows: an entry's ``stat()``, taken while
    the walk is at it, then resolves one name, not the whole path (about
    twice as fast where a system call is dear), and its ``path`` is only its
    name: callers join ``root`` and the relative path.
    """
    yield from _entries(root, None, "", excluded, tolerant, None, root)


def scope_stats(
    root: str, excluded: Collection[str], *, folders: dict[str, int] | None = None
) -> list[tuple[str, os.stat_result]]:
    """(path relative to ``root``, ``lstat``) of the files :func:`scope_entries` yields.

    Folders that cannot be listed, and files gone before their stat, are
    skipped. ``folders`` collects each folder listed (its path) with its
    :func:`folder_stamp`.
    """
    found: list[tuple[str, os.stat_result]] = []
    for rel, entry in _entries(root, None, "", excluded, True, folders, root):
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue  # removed while we walked
        if S_ISREG(st.st_mode):
            found.append((rel, st))
    return found


def _entries(
    name: str,
    parent: int | None,
    prefix: str,
    excluded: Collection[str],
    tolerant: bool,
    folders: dict[str, int] | None,
    path: str,
) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """The walk below ``name`` (relative to the folder ``parent`` is open on, if any).

    ``path`` is the folder's path, for ``folders`` (see :func:`scope_stats`).
    """
    fd = None
    try:
        if _BY_FD:
            # The root is opened as named (a linked root is followed); a subfolder
            # swapped for a link since it was listed is not.
            flags = _DIR_FLAGS | (_NOFOLLOW if parent is not None else 0)
            fd = os.open(name, flags, dir_fd=parent)
        if folders is not None:
            folders[path] = folder_stamp(os.stat(name if fd is None else fd).st_mtime_ns)
        listing = os.scandir(name if fd is None else fd)
    except OSError:
        if fd is not None:
            os.close(fd)
        if tolerant:
            return
        raise
    try:
        with listing as entries:
            for entry in entries:
                child = entry.name
                if child.startswith("."):
                    continue
                rel = prefix + child
                if entry.is_dir(follow_symlinks=False):
                    if rel not in excluded:
                        where = child if fd is not None else entry.path
                        below = f"{path}/{child}"
                        yield from _entries(
                            where, fd, rel + "/", excluded, tolerant, folders, below
                        )
                elif entry.is_file(follow_symlinks=False):
                    yield rel, entry
    finally:
        if fd is not None:
            os.close(fd)
