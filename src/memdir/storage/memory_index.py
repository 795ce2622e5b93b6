"""MEMORY.md, the index: one ``- [Title](file.md) — hook`` line per memory.

The index is loaded into every session, so it is truncated to a line and a
character limit (first the lines, then at the last newline before the size
limit) with a warning that names which limit fired, judged on the original.
Editing functions work on the text and keep every line they do not own
(headings, notes an agent wrote) exactly as it was. They find their lines by a
keyed scan (``str.find`` of the link target or title, then one line parsed),
not by parsing every line: an index of 100,000 entries is edited in
milliseconds. A candidate line holding a line break other than ``\\n`` sends
the edit through the full parse, which treats every break as ``splitlines`` does.

A line is read by a small scanner (:func:`_entry_parts`) that accepts exactly
what the pattern :data:`ENTRY_PATTERN` matches: the session-start hook reads a
thousand lines on every start, and ``re`` costs it more to load and to run.
"""

from __future__ import annotations

from memdir.utils.records import record

__all__ = [
    "ENTRY_PATTERN",
    "INDEX_NAME",
    "MAX_INDEX_CHARS",
    "MAX_INDEX_LINES",
    "MAX_LINE_CHARS",
    "IndexEntry",
    "Truncation",
    "entry_files",
    "format_entry",
    "parse_entries",
    "remove_entry",
    "title_key",
    "title_of",
    "titled_files",
    "truncate_index",
    "upsert_entry",
    "upsert_raw",
]

INDEX_NAME = "MEMORY.md"
MAX_INDEX_LINES = 200
MAX_INDEX_CHARS = 25_000
MAX_LINE_CHARS = 150
_MAX_TITLE_CHARS = 80

# `- [Title](file.md) — hook`; the hook and its dash are optional, and agents
# write `-`, `–` or `:` as separator, or `*` as the bullet. The definition of an
# entry line: _entry_parts reads what it matches, group for group.
ENTRY_PATTERN = (
    r"^\s*[-*+]\s+\[(?P<title>(?:[^\]\\]|\\.)*)\]\((?P<file><[^>]*>|[^)\s]*)\)"
    r"(?:\s*(?:—|–|-|:)\s*(?P<hook>.*))?\s*$"
)
_SEPARATORS = "—–-:"


def _entry_parts(line: str) -> tuple[str, str, str | None] | None:
    """The groups (title, file, hook) of :data:`ENTRY_PATTERN` matching ``line``, or None.

    ``\\s`` is what ``str.isspace`` (and so ``str.strip``) calls whitespace. A line
    holding ``\\n`` (never one of ``splitlines``) goes to the pattern itself.
    """
    if "\n" in line:
        return _by_pattern(line)
    rest = line.lstrip()
    if not rest or rest[0] not in "-*+":
        return None
    after = rest[1:]
    rest = after.lstrip()
    if len(rest) == len(after) or not rest.startswith("["):
        return None
    # The title ends at the first "]" no backslash escapes (a backslash escapes the
    # character after it: a run of them before "]" escapes it when its length is odd).
    end = rest.find("]", 1)
    while end > 0:
        slashes = end - len(rest[1:end].rstrip("\\")) - 1
        if slashes % 2 == 0:
            break
        end = rest.find("]", end + 1)
    if end < 0 or rest[end + 1 : end + 2] != "(":
        return None
    title, start = rest[1:end], end + 2
    if rest.startswith("<", start):  # <file with spaces.md>: the first ">" closes it
        close = rest.find(">", start + 1)
        if close > 0 and rest.startswith(")", close + 1):
            hook = _hook(rest[close + 2 :])
            if hook is not None:
                return title, rest[start : close + 1], hook[0]
    close = rest.find(")", start)  # else a plain target, up to ")" and without spaces
    if close < 0:
        return None
    file = rest[start:close]
    if file and file.split() != [file]:
        return None
    hook = _hook(rest[close + 1 :])
    return None if hook is None else (title, file, hook[0])


_NO_HOOK: tuple[str | None] = (None,)


def _hook(tail: str) -> tuple[str | None] | None:
    """The hook group of the text after an entry's link, in a tuple; None: no match."""
    tail = tail.lstrip()
    if not tail:
        return _NO_HOOK
    if tail[0] in _SEPARATORS:
        return (tail[1:].lstrip(),)
    return None


def _by_pattern(line: str) -> tuple[str, str, str | None] | None:
    import re  # only for text no index line holds

    found = re.match(ENTRY_PATTERN, line)
    return None if found is None else (found["title"], found["file"], found["hook"])


@record
class IndexEntry:
    """One pointer line of the index; ``line`` is its 0-based position."""

    title: str
    file: str
    hook: str
    line: int
    raw: str


@record
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
    """A title as written: each backslash escape (``\\]``, ``\\\\``) is the character it escapes."""
    if "\\" not in title:
        return title
    pieces, start = [], 0
    while (slash := title.find("\\", start)) >= 0 and slash + 1 < len(title):
        if title[slash + 1] == "\n":  # the pattern's "." stops at a line break
            pieces.append(title[start : slash + 2])
        else:
            pieces.append(title[start:slash] + title[slash + 1])
        start = slash + 2
    pieces.append(title[start:])
    return "".join(pieces)


def parse_entries(text: str) -> list[IndexEntry]:
    """Every pointer line of an index, in order; other lines are ignored."""
    entries: list[IndexEntry] = []
    for number, line in enumerate(text.splitlines()):
        if "](" not in line:  # cheap pre-check: most indexes are long
            continue
        parts = _entry_parts(line)
        if parts is None:
            continue
        title, file, hook = parts
        if file.startswith("<") and file.endswith(">"):
            file = file[1:-1]
        entries.append(
            IndexEntry(
                title=_unescape(title),
                file=file,
                hook=(hook or "").strip(),
                line=number,
                raw=line,
            )
        )
    return entries


def entry_files(text: str) -> dict[int, str]:
    """The file each pointer line names, by line position: :func:`parse_entries` without
    the titles and hooks (a prompt's budget ranks a thousand entries by their file)."""
    files: dict[int, str] = {}
    # Two checks made once for the whole text rather than on every line.
    plain = "\\" not in text and "<" not in text
    number = -1
    for line in text.splitlines():
        number += 1
        head, link, rest = line.partition("](")
        if not link:
            continue
        # The line as format_entry writes it, "- [Title](file.md) — hook", read at once: a
        # title without "\\" or "]", a target without "<" or spaces (whitespace is never
        # printable, but " "), then nothing or " — ". Any other line: the full scanner.
        file, close, tail = rest.partition(")")
        if (
            close
            and head.startswith("- [")
            and (not tail or tail.startswith(" — "))
            and " " not in file
            and "]" not in head
            and file.isprintable()
            and (plain or (not file.startswith("<") and "\\" not in head))
        ):
            files[number] = file
            continue
        parts = _entry_parts(line)
        if parts is not None:
            file = parts[1]
            files[number] = file[1:-1] if file.startswith("<") and file.endswith(">") else file
    return files


def _join(lines: list[str]) -> str:
    return "\n".join(lines).strip("\n") + "\n" if any(s.strip() for s in lines) else ""


# What str.splitlines breaks on besides "\n": a candidate line holding one of
# these is edited through the full parse, so both paths agree on lines.
_ODD_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def _odd_break(line: str) -> bool:
    return any(odd in line for odd in _ODD_BREAKS)


def _line_at(text: str, pos: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return start, len(text) if end < 0 else end


def _entry_spans(text: str, file: str) -> list[tuple[int, int]] | None:
    """``(start, end)`` of every line pointing at ``file``, by a keyed scan.

    A pointer line holds ``(file)`` or ``(<file>)``, so the lines holding
    either are all the candidates; each is then parsed. ``None`` when a
    candidate holds an odd line break (the caller parses the whole text).
    """
    starts: set[int] = set()
    for needle in (f"({file})", f"(<{file}>)"):
        pos = text.find(needle)
        while pos >= 0:
            starts.add(text.rfind("\n", 0, pos) + 1)
            pos = text.find(needle, pos + 1)
    spans = []
    for start in sorted(starts):
        span = _line_at(text, start)
        line = text[span[0] : span[1]]
        if _odd_break(line):
            return None
        parts = _entry_parts(line)
        if parts is not None and _target(parts[1]) == file:
            spans.append(span)
    return spans


def _target(file: str) -> str:
    return file[1:-1] if file.startswith("<") and file.endswith(">") else file


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` without the lines at ``spans`` (and one line break each)."""
    pieces, last = [], 0
    for start, end in spans:
        if end < len(text):
            end += 1  # the line's own break
        elif start > 0:
            start -= 1  # the last line: the break before it goes
        pieces.append(text[last:start])
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _normalised(text: str) -> str:
    """What :func:`_join` makes of ``text``'s lines (outer blank lines dropped)."""
    return text.strip("\n") + "\n" if text.strip() else ""


def _append(text: str, line: str) -> str:
    """``text`` without its trailing blank lines, then ``line``."""
    end = len(text)
    while end > 0:
        cut = text.rfind("\n", 0, end)
        if text[cut + 1 : end].strip():
            break
        end = max(cut, 0)
    head = text[:end].lstrip("\n")
    return f"{head}\n{line}\n" if head else f"{line}\n"


def _raw_spans(raw: bytes, file: str) -> list[tuple[int, int]] | None:
    """:func:`_entry_spans` over the index's bytes (no decoding of other lines)."""
    starts: set[int] = set()
    for needle in (f"({file})".encode(), f"(<{file}>)".encode()):
        pos = raw.find(needle)
        while pos >= 0:
            starts.add(raw.rfind(b"\n", 0, pos) + 1)
            pos = raw.find(needle, pos + 1)
    spans = []
    for start in sorted(starts):
        end = raw.find(b"\n", start)
        end = len(raw) if end < 0 else end
        try:
            line = raw[start:end].decode("utf-8")
        except UnicodeDecodeError:
            return None
        if _odd_break(line):
            return None
        parts = _entry_parts(line)
        if parts is not None and _target(parts[1]) == file:
            spans.append((start, end))
    return spans


def upsert_raw(raw: bytes, *, title: str, file: str, hook: str) -> tuple[str, bytes]:
    """:func:`upsert_entry` on the index's bytes, as the cheapest edit that does it.

    ``("same", b"")`` when nothing changes, ``("append", line)`` when the
    line goes after an intact last line, else ``("replace", whole index)``.
    Only the lines that may point at ``file`` are decoded.
    """
    new_line = format_entry(title, file, hook).encode("utf-8")
    spans = _raw_spans(raw, file)
    tidy = raw.endswith(b"\n") and not raw.startswith(b"\n")
    last = raw[raw.rfind(b"\n", 0, len(raw) - 1) + 1 : -1] if tidy else b""
    if spans == [] and tidy and last.strip():
        return "append", new_line + b"\n"
    if spans == [] and not raw.strip():
        return "replace", new_line + b"\n"
    if spans is not None and len(spans) == 1 and tidy and last.strip():
        start, end = spans[0]
        if raw[start:end] == new_line:
            return "same", b""
        return "replace", raw[:start] + new_line + raw[end:]
    new = upsert_entry(raw.decode("utf-8"), title=title, file=file, hook=hook).encode("utf-8")
    return ("same", b"") if new == raw else ("replace", new)


def title_of(raw: bytes, file: str) -> str | None:
    """The title of the first index line pointing at ``file``, or None (a keyed scan)."""
    spans = _raw_spans(raw, file)
    if spans is None:
        entries = [e for e in parse_entries(raw.decode("utf-8", "replace")) if e.file == file]
        return entries[0].title if entries else None
    if not spans:
        return None
    start, end = spans[0]
    parts = _entry_parts(raw[start:end].decode("utf-8"))
    return _unescape(parts[0]) if parts is not None else None


def title_key(title: str) -> str:
    """What two titles share when a name lookup takes them for the same (case, spaces)."""
    return _clean(title).casefold()


def titled_files(text: str | bytes, title: str) -> list[str]:
    """The files of the index lines titled ``title`` (whitespace and case folded).

    A keyed scan: the bytes are searched for the escaped title (ASCII case
    folded), and only the lines found are parsed. A title with non-ASCII letters is
    matched by the full parse (case folding may change its length).
    """
    wanted = _clean(title).casefold()
    if not wanted.isascii():
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        return [e.file for e in parse_entries(text) if _clean(e.title).casefold() == wanted]
    escaped = wanted.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    import re2  # only writers look names up; a reader's start stays without it

    # A bytes pattern folds ASCII case only; RE2's automaton scans an index of
    # 100,000 lines in a few milliseconds, without lowering a copy of it.
    needle = re2.compile(b"(?i)" + re2.escape(f"[{escaped}](".encode()))
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    files: list[str] = []
    for found in needle.finditer(raw):
        start = raw.rfind(b"\n", 0, found.start()) + 1
        end = raw.find(b"\n", found.start())
        line = raw[start : len(raw) if end < 0 else end].decode("utf-8", "replace")
        for piece in line.splitlines() or [""]:
            parts = _entry_parts(piece)
            if parts is not None and _clean(_unescape(parts[0])).casefold() == wanted:
                files.append(_target(parts[1]))
    return list(dict.fromkeys(files))


def upsert_entry(text: str, *, title: str, file: str, hook: str) -> str:
    """Point the index at ``file``: replace its line(s) in place, or append one.

    Duplicate lines for the same file collapse into the first.
    """
    new_line = format_entry(title, file, hook)
    spans = _entry_spans(text, file)
    if spans is None:
        return _upsert_parsed(text, new_line, file)
    if not spans:
        return _append(text, new_line)
    first, rest = spans[0], spans[1:]
    text = _cut(text, rest) if rest else text  # rest lies after first: its offsets hold
    return _normalised(text[: first[0]] + new_line + text[first[1] :])


def _upsert_parsed(text: str, new_line: str, file: str) -> str:
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
    spans = _entry_spans(text, file)
    if spans is not None:
        return _normalised(_cut(text, spans)) if spans else text
    positions = {e.line for e in parse_entries(text) if e.file == file}
    if not positions:
        return text
    lines = [line for n, line in enumerate(text.splitlines()) if n not in positions]
    return _join(lines)
