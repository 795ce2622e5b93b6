"""The manifest of a project's memories: one line per memory, newest first or ranked.

:func:`build_manifest` lists at most ``manifest_max_entries`` memories (the
newest, or the best matches of a query and then the newest) and counts the
rest; :func:`render_manifest` writes each as ``[type] path.md (date):
description`` and a last line saying how many were left out. The listing it
draws on, from the search catalog or from the folders, is
:mod:`memdir.recall.listing`, the files and their entries
:mod:`memdir.recall.memory_files`; their names are re-exported here.
"""

from __future__ import annotations

from memdir.recall.listing import (
    AUTO_CATALOG_FILES,
    CatalogChoice,
    IndexedMemories,
    Memories,
    ScannedMemories,
    over_memories,
    rank_pool,
)
from memdir.recall.memory_files import (
    ManifestEntry,
    MemdirLike,
    MemoryFile,
    newest,
    read_entry,
    scan_memory_files,
)
from memdir.utils.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "AUTO_CATALOG_FILES",
    "CatalogChoice",
    "IndexedMemories",
    "Manifest",
    "ManifestEntry",
    "MemdirLike",
    "Memories",
    "MemoryFile",
    "ScannedMemories",
    "build_manifest",
    "newest",
    "over_memories",
    "rank_pool",
    "read_entry",
    "render_manifest",
    "scan_memory_files",
]


@record
class Manifest:
    """The listed entries, how many memory files exist, and the rendered text."""

    entries: tuple[ManifestEntry, ...]
    total: int
    ranked: bool
    text: str

    @property
    def omitted(self) -> int:
        """Memory files not listed."""
        return self.total - len(self.entries)


def build_manifest(
    memdir: MemdirLike,
    *,
    query: str | None = None,
    limit: int | None = None,
    catalog: CatalogChoice = "auto",
) -> Manifest:
    """One line per memory, newest first (or ranked for ``query``), at most ``limit``.

    ``limit`` defaults to ``Settings.manifest_max_entries``.
    """
    size = memdir.settings.manifest_max_entries if limit is None else max(limit, 0)
    text = query.strip() if query else ""

    def listed(memories: Memories) -> tuple[list[ManifestEntry], int]:
        if text:
            entries = [e for e, _ in rank_pool(memories, text, limit=size)]
        else:
            entries = memories.newest(size)
        # A listing shorter than its limit holds every memory: nothing left to count.
        return entries, len(entries) if len(entries) < size else memories.count()

    entries, total = over_memories(memdir, catalog, listed)
    return Manifest(
        entries=tuple(entries),
        total=total,
        ranked=bool(text),
        text=render_manifest(entries, total),
    )


def render_manifest(entries: Sequence[ManifestEntry], total: int) -> str:
    """The entries one per line, and a last line counting the ones left out."""
    lines = [entry.line() for entry in entries]
    if total > len(entries):
        lines.append(f"({total - len(entries)} more memories not listed)")
    return "\n".join(lines) + ("\n" if lines else "")
