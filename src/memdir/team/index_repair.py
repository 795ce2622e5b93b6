"""The team index brought in line with the team folder's memory files.

Files reach the team folder from teammates (a merge), from people editing by
hand and from the quarantine moving one out, so ``MEMORY.md`` can point at a
file that is gone or miss one that arrived. :func:`reconcile_index` gives
every memory file a line (title and hook read from its frontmatter, as the
store writes them) and drops the lines of missing ones; hand-written lines
and lines pointing at URLs are kept. A sync runs it before each commit and
after each merge.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from memdir.errors import MemdirError
from memdir.storage.codec import memory_from_fields, read_frontmatter_head
from memdir.storage.fs import atomic_write
from memdir.storage.memory_index import parse_entries, remove_entry, upsert_entry
from memdir.team.checks import is_memory_name
from memdir.team.index_union import local_target

if TYPE_CHECKING:
    from memdir.storage.store import MemoryStore

__all__ = ["reconcile_index"]


def reconcile_index(store: MemoryStore) -> bool:
    """A line for every memory file, none for a missing one; True when changed."""
    text = store.read_index()
    files = [rel for rel in store.files() if is_memory_name(rel)]
    present = set(files)
    new = text
    for entry in parse_entries(text):
        target = local_target(entry.file)
        if target is not None and target not in present:
            new = remove_entry(new, file=entry.file)
    indexed = {local_target(e.file) for e in parse_entries(new)}
    for rel in files:
        if rel not in indexed:
            title, hook = _describe(store, rel)
            new = upsert_entry(new, title=title, file=rel, hook=hook)
    if new == text:
        return False
    atomic_write(store.index_path, new)
    return True


def _describe(store: MemoryStore, rel: str) -> tuple[str, str]:
    """Title and hook for a file's index line, from its frontmatter."""
    try:
        head = memory_from_fields(read_frontmatter_head(store.root / rel), "")
        name, description = head.name, head.description
    except (MemdirError, OSError):  # unreadable, or deleted since the listing
        name, description = "", ""
    title = name or posixpath.splitext(posixpath.basename(rel))[0]
    return title, store.index_hook(title, rel, description)
