"""The team ``MEMORY.md`` as it may reach a prompt: well-formed index entries only.

Anyone who can push to the team remote writes the team index, and the index
is pasted into every teammate's system prompt. A pointer line is data: a
title, a file, a hook. Anything else in the file (a ``## SYSTEM`` heading,
a paragraph of instructions, an HTML comment, a forged fence) is left out of
every prompt and export (:func:`entries_only`) and reported by ``memdir
doctor`` (:func:`left_out`), so a teammate cannot turn the index into
instructions. An entry is kept when it is one ``- [Title](file.md) — hook``
line pointing at a plain relative ``.md`` file; its title and hook have
any ``<`` written as ``&lt;`` so no line can open or close a tag a prompt
uses as a frame.
"""

from __future__ import annotations

from memdir.storage.memory_index import parse_entries

__all__ = ["entries_only", "left_out", "neutral"]


def neutral(text: str) -> str:
    """``text`` with ``<`` written as ``&lt;``: it cannot open or close a frame's tag."""
    return text.replace("<", "&lt;")


def _kept(line: str) -> str | None:
    """The line as it may reach a prompt, or None when it is not a well-formed entry."""
    entries = parse_entries(line)
    if len(entries) != 1:
        return None
    file = entries[0].file
    parts = file.split("/")
    if not file.endswith(".md") or file.startswith("/") or any(c in file for c in ":\\<>"):
        return None
    if any(part in ("", ".", "..") for part in parts):
        return None
    # The file part may be written <with spaces.md>: only the title and hook are escaped.
    fenced = f"(<{file}>)"
    head, found, tail = line.strip().partition(fenced)
    return neutral(head) + found + neutral(tail) if found else neutral(line.strip())


def entries_only(raw: str | None) -> str | None:
    """The index with every line that is not a well-formed entry left out (None stays None)."""
    if raw is None:
        return None
    kept = [line for line in map(_kept, raw.splitlines()) if line is not None]
    return "\n".join(kept) + "\n" if kept else ""


def left_out(raw: str | None) -> list[tuple[int, str]]:
    """The lines :func:`entries_only` leaves out (1-based line number, text), blanks aside."""
    if raw is None:
        return []
    return [
        (number, line)
        for number, line in enumerate(raw.splitlines(), 1)
        if line.strip() and _kept(line) is None
    ]
