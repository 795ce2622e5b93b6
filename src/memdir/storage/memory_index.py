"""MEMORY.md, the index: one ``- [Title](file.md) — hook`` line per memory.

The index is loaded into every session, so it is truncated to a line and a
character limit (first the lines, then at the last newline before the size
limit) with a warning that names which limit fired, judged on the original.
Editing functions work on the text and keep every line they do not own
(headings, notes an agent wrote) exactly as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "INDEX_NAME",
    "MAX_INDEX_CHARS",
    "MAX_INDEX_LINES",
    "MAX_LINE_CHARS",
    "IndexEntry",
    "Truncation",
    "format_entry",
    "parse_entries",
    "remove_entry",
    "truncate_index",
    "upsert_entry",
]

INDEX_NAME = "MEMORY.md"
MAX_INDEX_LINES = 200
MAX_INDEX_CHARS = 25_000
MAX_LINE_CHARS = 150
_MAX_TITLE_CHARS = 80

# `- [Title](file.md) — hook`; the hook and its dash are optional, and agents
# write `-`, `–` or `:` as separator, or `*` as the bullet.
_ENTRY = re.compile(
    r"^\s*[-*+]\s+\[(?P<title>(?:[^\]\\]|\\.)*)\]\((?P<file><[^>]*>|[^)\s]*)\)"
    r"(?:\s*(?:—|–|-|:)\s*(?P<hook>.*))?\s*$"
)


@dataclass(frozen=True, kw_only=True)
class IndexEntry:
    """One pointer line of the index; ``line`` is its 0-based position."""

    title: str
    file: str
    hook: str
    line: int
    raw: str


@dataclass(frozen=True, kw_only=True)
class Truncation:
    """The index as loaded into a prompt, and what truncation did to it."""

    content: str
    line_count: int
    char_count: int
    lines_truncated: bool
    chars_truncated: bool

    @property
    def truncated(self) -> bool:
        return self.lines_truncated or self.chars_truncated


def _format_size(chars: int) -> str:
    if chars < 1024:
        return f"{chars} B"
    return f"{chars / 1024:.1f} KB"


def truncate_index(
    raw: str,
    *,
    max_lines: int = MAX_INDEX_LINES,
    max_chars: int = MAX_INDEX_CHARS,
    name: str = INDEX_NAME,
) -> Truncation:
    """Trim ``raw`` and cut it to ``max_lines`` lines, then ``max_chars`` characters.

    Both limits are judged on the trimmed original; the cut by size falls on
    the last newline before the limit. A warning naming the limit(s) that
    fired is appended to the content.
    """
    trimmed = raw.strip()
    lines = trimmed.split("\n")
    line_count, char_count = len(lines), len(trimmed)
    over_lines = line_count > max_lines
    over_chars = char_count > max_chars
    if not over_lines and not over_chars:
        return Truncation(
            content=trimmed,
            line_count=line_count,
            char_count=char_count,
            lines_truncated=False,
            chars_truncated=False,
        )
    text = "\n".join(lines[:max_lines]) if over_lines else trimmed
    if len(text) > max_chars:
        cut = text.rfind("\n", 0, max_chars)
        text = text[: cut if cut > 0 else max_chars]
    if over_chars and not over_lines:
        reason = (
            f"{_format_size(char_count)} (limit: {_format_size(max_chars)}) — "
            "index entries are too long"
        )
    elif over_lines and not over_chars:
        reason = f"{line_count} lines (limit: {max_lines})"
    else:
        reason = f"{line_count} lines and {_format_size(char_count)}"
    warning = (
        f"> WARNING: {name} is {reason}. Only part of it was loaded. Keep each index "
        "entry to one short line (under ~150 characters) and move detail into topic files."
    )
    return Truncation(
        content=f"{text}\n\n{warning}",
        line_count=line_count,
        char_count=char_count,
        lines_truncated=over_lines,
        chars_truncated=over_chars,
    )


def _clean(text: str) -> str:
    """One line of plain text: control and format characters gone, whitespace collapsed."""
    if not text.isprintable():
        text = "".join(ch if ch.isprintable() else " " for ch in text)
    return " ".join(text.split())


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 0)].rstrip() + "…"


def format_entry(title: str, file: str, hook: str, *, max_chars: int = MAX_LINE_CHARS) -> str:
    """One index line for a memory, whatever the title, file name and hook hold.

    Each is made one line of printable text; brackets in the title are
    escaped and the hook's are made parentheses, so neither can open a link
    of its own; the file is the only target (a file name holding control
    characters or ``](`` gets its brackets percent-encoded). The hook, then the title, is
    shortened so the line fits ``max_chars`` (the file name is never cut).
    Formatting an entry's own parts again gives the same line.
    """
    title = _shorten(_clean(title), _MAX_TITLE_CHARS)
    target = "".join(ch for ch in file if ch.isprintable() and ch not in "<>")
    if target != file or "](" in target:
        # A name built to look like index syntax (a teammate's file pulled by
        # hand): its brackets are percent-encoded, so it opens no link.
        target = target.replace("[", "%5B").replace("]", "%5D")
    if " " in target or ")" in target or "(" in target:
        target = f"<{target}>"
    hook = _clean(hook).replace("[", "(").replace("]", ")")
    link = f"- [{_escape(title)}]({target})"
    while len(link) > max_chars and len(title) > 8:
        title = _shorten(title, max(len(title) - (len(link) - max_chars), 8))
        link = f"- [{_escape(title)}]({target})"
    room = max_chars - len(link) - 3  # " — "
    return f"{link} — {_shorten(hook, room)}" if hook and room > 1 else link


def _escape(title: str) -> str:
    return title.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _unescape(title: str) -> str:
    return re.sub(r"\\(.)", r"\1", title) if "\\" in title else title


def parse_entries(text: str) -> list[IndexEntry]:
    """Every pointer line of an index, in order; other lines are ignored."""
    entries: list[IndexEntry] = []
    for number, line in enumerate(text.splitlines()):
        if "](" not in line:  # cheap pre-check: most indexes are long
            continue
        match = _ENTRY.match(line)
        if match is None:
            continue
        file = match.group("file")
        if file.startswith("<") and file.endswith(">"):
            file = file[1:-1]
        entries.append(
            IndexEntry(
                title=_unescape(match.group("title")),
                file=file,
                hook=(match.group("hook") or "").strip(),
                line=number,
                raw=line,
            )
        )
    return entries


def _join(lines: list[str]) -> str:
    return "\n".join(lines).strip("\n") + "\n" if any(s.strip() for s in lines) else ""


def upsert_entry(text: str, *, title: str, file: str, hook: str) -> str:
    """Point the index at ``file``: replace its line(s) in place, or append one.

    Duplicate lines for the same file collapse into the first.
    """
    new_line = format_entry(title, file, hook)
    lines = text.splitlines()
    positions = [e.line for e in parse_entries(text) if e.file == file]
    if not positions:
        while lines and not lines[-1].strip():
            lines.pop()
        lines.append(new_line)
        return _join(lines)
    lines[positions[0]] = new_line
    for pos in reversed(positions[1:]):
        del lines[pos]
    return _join(lines)


def remove_entry(text: str, *, file: str) -> str:
    """Drop every line that points at ``file``; the rest is kept as it was."""
    positions = {e.line for e in parse_entries(text) if e.file == file}
    if not positions:
        return text
    lines = [line for n, line in enumerate(text.splitlines()) if n not in positions]
    return _join(lines)
