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
from stat import S_ISREG

TYPE_CHECKING = False  # the pre-tool-use hook loads this module: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Collection, Iterator

__all__ = ["scope_entries", "scope_stats"]

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def scope_entries(
    root: str, excluded: Collection[str], *, prefix: str = "", tolerant: bool = False
) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """The regular files under ``root`` as (path relative to it, entry), depth first.

    ``excluded`` names subfolders (relative paths) left out. A folder that
    cannot be listed raises, unless ``tolerant`` (then it is skipped: a folder
    removed while the walk ran).
    """
    try:
        listing = os.scandir(root)
    except OSError:
        if tolerant:
            return
        raise
    with listing as entries:
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            rel = prefix + name
            if entry.is_dir(follow_symlinks=False):
                if rel not in excluded:
                    yield from scope_entries(
                        entry.path, excluded, prefix=rel + "/", tolerant=tolerant
                    )
            elif entry.is_file(follow_symlinks=False):
                yield rel, entry


def scope_stats(root: str, excluded: Collection[str]) -> list[tuple[str, os.stat_result]]:
    """(path relative to ``root``, ``lstat``) of the files :func:`scope_entries` yields.

    Walked through folder descriptors, so each stat resolves one name, not
    the whole path: about twice as fast where a system call is dear (ten
    thousand files in a hook that runs before every tool call). A folder
    that cannot be listed is skipped (removed while the walk ran).
    """
    found: list[tuple[str, os.stat_result]] = []
    _stat_folder(root, None, "", excluded, found)
    return found


def _stat_folder(
    name: str,
    parent: int | None,
    prefix: str,
    excluded: Collection[str],
    found: list[tuple[str, os.stat_result]],
) -> None:
    try:
        # The root is opened as scope_entries lists it (a linked root followed); a
        # subfolder swapped for a link since it was listed is not.
        fd = os.open(name, _DIR_FLAGS | (_NOFOLLOW if parent is not None else 0), dir_fd=parent)
    except OSError:
        return
    try:
        with os.scandir(fd) as entries:
            for entry in entries:
                child = entry.name
                if child.startswith("."):
                    continue
                rel = prefix + child
                if entry.is_dir(follow_symlinks=False):
                    if rel not in excluded:
                        _stat_folder(child, fd, rel + "/", excluded, found)
                    continue
                try:
                    st = entry.stat(follow_symlinks=False)  # fstatat: one name to resolve
                except OSError:
                    continue  # removed while we walked
                if S_ISREG(st.st_mode):
                    found.append((rel, st))
    finally:
        os.close(fd)
