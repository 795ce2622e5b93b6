"""Following ``[[name]]`` links in recall: a recalled memory's linked memories come next.

A memory that links another says the two belong together (Claude Code's prompt
asks for such links), so when recall has chosen fewer memories than its limit,
the memories the chosen ones link to fill the rest, in link order, before any
budget check: :func:`~memdir.recall.relevant.recall` renders them after the
chosen ones, and the session budget stops them as it stops any block. A
memory this session has already seen, or that is chosen anyway, is not
offered again; a link to a memory not written yet is skipped (it is no error).
One hop only: a linked memory's own links are not followed.

Links are resolved by :class:`~memdir.storage.links.LinkIndex` over every
memory's name (from the catalog, or the files' heads for a small store) and
the titles of both scopes' index lines.
"""

from __future__ import annotations

from collections.abc import Sequence

from memdir.errors import MemdirError
from memdir.recall.listing import CatalogChoice, Memories, over_memories
from memdir.recall.memory_files import ManifestEntry, MemdirLike
from memdir.storage import sidecar
from memdir.storage.links import Linkable, LinkIndex, link_targets
from memdir.storage.memory_index import INDEX_NAME, parse_entries

__all__ = ["linked_entries"]


def _targets(entries: Sequence[ManifestEntry]) -> list[str]:
    """The link targets of the memories at ``entries``, in order, each once."""
    found: dict[str, None] = {}
    for entry in entries:
        try:
            text = entry.path.read_text(encoding="utf-8", errors="replace")
            body = sidecar.load_memory(text, path=entry.path).body
        except (MemdirError, OSError):
            continue  # unreadable or gone: it links nothing
        found.update(dict.fromkeys(link_targets(body)))
    return list(found)


def _titles(memdir: MemdirLike) -> dict[str, str]:
    """Each indexed memory's index title, by ref (the first line of a file wins)."""
    layout = memdir.layout
    folders = [(layout.memory_dir, "")]
    if memdir.team_enabled:
        prefix = layout.team_dir.relative_to(layout.memory_dir).as_posix() + "/"
        folders.append((layout.team_dir, prefix))
    titles: dict[str, str] = {}
    for folder, prefix in folders:
        try:
            text = (folder / INDEX_NAME).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for entry in parse_entries(text):
            titles.setdefault(prefix + entry.file, entry.title)
    return titles


def linked_entries(
    memdir: MemdirLike,
    catalog: CatalogChoice,
    chosen: Sequence[ManifestEntry],
    *,
    exclude: frozenset[str],
    room: int,
) -> list[ManifestEntry]:
    """At most ``room`` memories the ``chosen`` ones link to, none in ``exclude`` or chosen."""
    if room <= 0:
        return []
    targets = _targets(chosen)
    if not targets:
        return []
    taken = exclude | {entry.ref for entry in chosen}

    def resolve(memories: Memories) -> list[ManifestEntry]:
        index = LinkIndex(
            (Linkable(ref=ref, name=name) for ref, name in memories.names()),
            titles=lambda: _titles(memdir),
        )
        found = index.resolve_all(targets)
        refs = (found.get(target) for target in targets)
        wanted = list(dict.fromkeys(r for r in refs if r is not None and r not in taken))
        return memories.entries(wanted[:room])

    return over_memories(memdir, catalog, resolve)
