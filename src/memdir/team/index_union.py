"""The team index when both sides changed it: the union of their lines, never markers.

``MEMORY.md`` is edited by every clone (one line per memory), so a merge
almost always touches it on both sides; :func:`union_index` keeps every
line of both (one pointer line per file), and :func:`local_target` says
which memory file a line points at.
"""

from __future__ import annotations

import posixpath

from memdir.storage.memory_index import parse_entries

__all__ = ["local_target", "union_index"]


def local_target(file: str) -> str | None:
    """The team-relative memory file an index line points at; None for a URL."""
    if "://" in file or file.startswith(("#", "/")) or not file.endswith(".md"):
        return None
    return posixpath.normpath(file)


def union_index(texts: list[str]) -> str:
    """The first text, plus every line of the others it lacks.

    A pointer line for a file the first text already points at is the only
    kind dropped (the first side's line wins); hand-written lines (headings,
    notes) of every side are kept.
    """
    if not texts:
        return ""
    lines = texts[0].rstrip("\n").splitlines()
    known = {entry.file for entry in parse_entries(texts[0])}
    seen = {line.strip() for line in lines}
    for text in texts[1:]:
        entries = {entry.line: entry for entry in parse_entries(text)}
        for number, line in enumerate(text.splitlines()):
            entry = entries.get(number)
            if entry is not None:
                if entry.file in known:
                    continue
                known.add(entry.file)
            elif not line.strip() or line.strip() in seen:
                continue
            seen.add(line.strip())
            lines.append(line)
    return "\n".join(lines).strip("\n") + "\n" if lines else ""
