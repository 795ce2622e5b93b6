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

TYPE_CHECKING = False  # the pre-tool-use hook loads this module: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Collection, Iterator

__all__ = ["scope_entries"]


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
