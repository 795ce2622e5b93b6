"""The index part of a memory prompt: ``MEMORY.md`` read, cut to its limits, fitted to a budget.

:func:`index_block` is an index as the load limits cut it
(:func:`memdir.storage.memory_index.truncate_index`: the first lines, with a
warning). :func:`fit_index_block` is the index as memdir's prompts show it:
within a hook's budget (or the load limits alone), whole lines give way, in
this order of keeping: the lines of pinned memories (``pinned: true``), then
notes and headings, then the most recently changed memories (within a budget)
or the first ones (the load limits alone), all shown in the index's own order.
Whenever entries are left out, one line says how many, that
``memdir prompt --left-out`` lists them, and where the full index is; when the
pinned lines alone do not fit, the same line says so.

:func:`shorten_hooks` gives every entry line a shorter hook: a prompt that
aims at a size below its limit shows every memory with less of its hook
before it leaves any memory out. The lengths it cuts to are steps of
:data:`HOOK_STEP`, so that an index growing by a line rarely changes every
line a resumed conversation already holds.

:func:`index_shape` tells the fitting, per entry, when its memory last changed
and whether it is pinned: one ``open`` per file, read only when not every line
fits. :func:`shown_entries` reads back which memories' lines a prompt text
holds. :func:`read_index` reads an index, never through a link.

The session-start hook runs this on every session start, with indexes of a
thousand lines: this module imports neither ``typing`` nor ``pathlib``, and
reads the entries with plain path strings.
"""

from __future__ import annotations

import os
import stat

from memdir.errors import MemdirError, UnsafePath
from memdir.kinds import memory_ref
from memdir.recall.context_budget import fit_lines, text_length
from memdir.storage.fs import read_bytes_nofollow
from memdir.storage.memory_index import INDEX_NAME, Truncation, entry_files, truncate_index
from memdir.utils.records import record

TYPE_CHECKING = False  # not typing's: the session-start hook loads this module
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

__all__ = [
    "HOOK_STEP",
    "LEFT_OUT_COMMAND",
    "MIN_ENTRY_CHARS",
    "PRIVATE_HEADING",
    "TEAM_HEADING",
    "IndexShape",
    "fit_index_block",
    "index_block",
    "index_shape",
    "read_index",
    "shorten_hooks",
    "shown_entries",
]

LEFT_OUT_COMMAND = "memdir prompt --left-out"
"""The command that lists the index entries a session start leaves out."""
PRIVATE_HEADING = "Private MEMORY.md"
TEAM_HEADING = "Team MEMORY.md (shared with your teammates)"
# Where each index heading a prompt uses puts its entries.
_HEADING_SCOPES = {
    f"## {INDEX_NAME}": "private",
    f"## {PRIVATE_HEADING}": "private",
    f"## {TEAM_HEADING}": "team",
}
MIN_ENTRY_CHARS = 80
"""The shortest an entry line is cut to: the link and a few words of its hook."""
HOOK_STEP = 10
"""The lengths entry lines are cut to go down in steps of this many characters."""
# How much of a memory file is read to find ``pinned:`` in its frontmatter.
_HEAD_BYTES = 8192
_TRUE_WORDS = ("true", "yes", "on")
_MIN_HOOK = 12  # what is left of a hook, however long the link before it


@record
class IndexShape:
    """What the budget needs to know of an index beyond its text: where it is, how
    recently each entry's memory changed (a file name to a sortable number), and
    whether it is pinned (None: no entry is)."""

    path: Path
    rank: Callable[[str], float]
    pinned: Callable[[str], bool] | None = None


def index_block(heading: str, raw: str | None, *, max_lines: int, max_chars: int) -> str:
    """The index under ``heading``, cut to the load limits (with their warning)."""
    if raw is None or not raw.strip():
        return f"## {heading}\n\n{INDEX_NAME} is empty: no memories saved yet."
    content = truncate_index(raw, max_lines=max_lines, max_chars=max_chars).content
    return f"## {heading}\n\n{content}"


def fit_index_block(
    heading: str,
    raw: str | None,
    *,
    shape: IndexShape | None,
    budget: int | None,
    limit: int | None,
    max_lines: int,
    max_chars: int,
) -> str:
    """The index block within ``budget`` code units (None: the load limits alone), whole
    lines only.

    The load limits hold (``max_lines``, ``max_chars``, and their warning). What they and
    the budget leave out is chosen over the whole index: pinned memories' lines are kept
    first, then lines that are not entries (headings, notes), then the most recently
    changed memories (``shape.rank``; with no budget, the first lines), shown in the
    index's own order, with a line saying how many entries are left out (``limit`` is
    the context's size it names).
    """
    if raw is None or not raw.strip():
        return index_block(heading, raw, max_lines=max_lines, max_chars=max_chars)
    trimmed = raw.strip()
    truncation = truncate_index(trimmed, max_lines=max_lines, max_chars=max_chars)
    block = f"## {heading}\n\n{truncation.content}"  # what index_block gives
    if not truncation.truncated and (budget is None or text_length(block) <= budget):
        return block
    entries = entry_files(trimmed)
    pointer = _Pointer(shape, limit if budget is not None else None)
    if truncation.truncated:
        cut = _as_cut(block, truncation, entries, shape, pointer, budget)
        if cut is not None:
            return cut
    warning = truncation.content.rsplit("\n\n", 1)[-1] if truncation.truncated else ""
    pinned = _pinned_positions(entries, shape)
    reserve = text_length(f"## {heading}\n\n\n") + pointer.longest(len(entries), len(pinned)) + 8
    if warning:
        reserve += text_length(warning) + 2
    room = max_chars if budget is None else min(max(budget - reserve, 0), max_chars)
    lines = trimmed.split("\n")
    scores = _scores(lines, entries, pinned, shape, newest=budget is not None)
    fit = fit_lines(lines, room, rank=scores, max_count=max_lines)
    shown = set(fit.positions)
    omitted = sum(1 for position in entries if position not in shown)
    pinned_out = sum(1 for position in pinned if position not in shown)
    note = pointer.line(omitted, pinned_out) if omitted else ""
    tail = "\n".join(t for t in (warning and f"\n{warning}", note) if t)
    body = fit.text()
    if not tail:
        return f"## {heading}\n\n{body}"
    return f"## {heading}\n\n{body}\n{tail}" if body else f"## {heading}\n\n{tail}"


def _as_cut(
    block: str,
    truncation: Truncation,
    entries: Mapping[int, str],
    shape: IndexShape | None,
    pointer: _Pointer,
    budget: int | None,
) -> str | None:
    """The index as the load limits cut it (its first lines) with the pointer, when no
    pinned line is past the cut and ``budget`` holds it (None: fit it otherwise). Only
    the entries past the cut are read to find a pin."""
    kept = len(truncation.content.rsplit("\n\n", 1)[0].split("\n"))
    hidden = {position: file for position, file in entries.items() if position >= kept}
    if _pinned_positions(hidden, shape):
        return None
    whole = f"{block}\n{pointer.line(len(hidden), 0)}" if hidden else block
    return whole if budget is None or text_length(whole) <= budget else None


class _Pointer:
    """The one line that says how many entries are left out, and how to see them."""

    __slots__ = ("where", "why")

    def __init__(self, shape: IndexShape | None, limit: int | None) -> None:
        self.where = f" is `{shape.path}`" if shape is not None else f" is {INDEX_NAME} in memory"
        self.why = (
            "past the index's load limits"
            if limit is None
            else f"this context is limited to {limit:,} characters"
        )

    def line(self, omitted: int, pinned_out: int) -> str:
        text = (
            f"> {omitted} more {INDEX_NAME} entries are not shown ({self.why}); "
            f"`{LEFT_OUT_COMMAND}` lists them. The full index{self.where}: read it, or "
            "search memory, when what you need is not above."
        )
        if pinned_out:
            text += (
                f" The pinned entries alone exceed this room: {pinned_out} pinned "
                f"entr{'y is' if pinned_out == 1 else 'ies are'} among those left out."
            )
        return text

    def longest(self, entries: int, pinned: int) -> int:
        """The length of the longest line this pointer can be for an index of ``entries``."""
        return text_length(self.line(entries, pinned))


def _pinned_positions(entries: Mapping[int, str], shape: IndexShape | None) -> set[int]:
    """The positions of the entries whose memory is pinned."""
    if shape is None or shape.pinned is None:
        return set()
    is_pinned = shape.pinned
    return {position for position, file in entries.items() if is_pinned(file)}


def _scores(
    lines: list[str],
    entries: Mapping[int, str],
    pinned: set[int],
    shape: IndexShape | None,
    *,
    newest: bool,
) -> Callable[[int], tuple[float, float, int]]:
    """The rank of each line for :func:`fit_lines`, worked out at once.

    Pinned entries first, then (with ``newest``) notes and headings, then the newest
    memories, the later line on a tie; without ``newest``, the rest in the index's order.
    """
    rank = shape.rank if shape is not None and newest else None
    scores: list[tuple[float, float, int]] = []
    for position in range(len(lines)):
        file = entries.get(position)
        tier = 2.0 if position in pinned else (1.0 if file is None and newest else 0.0)
        if not newest or file is None:  # in the index's order: the earlier line first
            scores.append((tier, 0.0, -position))
        else:
            scores.append((tier, rank(file) if rank is not None else 0.0, position))
    return scores.__getitem__


def shorten_hooks(raw: str, cap: int) -> str:
    """``raw`` with each entry line longer than ``cap`` characters cut to it: the link is
    kept whole and its hook cut at a word, ending in an ellipsis (an entry whose link alone
    is that long keeps its link and a short hook). Other lines are left as they are."""
    lines = raw.split("\n")
    for position in entry_files(raw):
        line = lines[position]
        if len(line) <= cap:
            continue
        close = line.find(")", line.find("]("))
        dash = " — "
        if close < 0 or not line.startswith(dash, close + 1):
            continue  # no hook to cut (a link with a parenthesis in it is left whole)
        link, hook = line[: close + 1], line[close + 1 + len(dash) :]
        room = max(cap - len(link) - len(dash) - 1, _MIN_HOOK)
        if room >= len(hook):
            continue
        cut = hook[:room]
        space = cut.rfind(" ")
        if space > 0:
            cut = cut[:space]
        shortened = f"{link}{dash}{cut.rstrip(' ,;:—-')}…"
        if len(shortened) < len(line):  # an ellipsis that saves nothing is left out
            lines[position] = shortened
    return "\n".join(lines)


def shown_entries(text: str) -> list[tuple[str, str]]:
    """The memories whose index lines ``text`` holds, in order: (ref, the line) for each
    entry line under one of a prompt's index headings (refs: ``file.md``, ``team/file.md``)."""
    found: list[tuple[str, str]] = []
    scope: str | None = None
    for line in text.split("\n"):
        if line in _HEADING_SCOPES:
            scope = _HEADING_SCOPES[line]
        elif scope is not None and line.startswith("- ["):
            for file in entry_files(line).values():
                found.append((memory_ref(scope, file), line))
    return found


def read_index(directory: Path) -> str | None:
    """A folder's MEMORY.md as text (``None`` when missing); never through a link."""
    # A link planted as MEMORY.md (or as the team folder) would put any file
    # of the machine into the prompt: refused, like every memory read.
    path = directory / INDEX_NAME
    if directory.is_symlink():
        raise UnsafePath(
            f"{directory} is a symbolic link; memdir does not read memory through links",
            path=directory,
            hint="replace the link with the folder itself, or remove it",
        )
    try:
        return read_bytes_nofollow(path).decode("utf-8", "replace")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise MemdirError(
            f"cannot read the memory index: {exc.strerror}",
            path=path,
            hint="check the file's permissions",
        ) from None


def index_shape(directory: Path) -> IndexShape:
    """An index's path, its entries ranked by their memory file's last change, and which
    of them are pinned; each file is opened once, when first asked about."""
    base = os.fspath(directory)
    prefix = base if base.endswith("/") else f"{base}/"
    known: dict[str, tuple[float, bool]] = {}

    def facts(file: str) -> tuple[float, bool]:
        found = known.get(file)
        if found is None:
            found = known[file] = _file_facts(_entry_path(base, prefix, file))
        return found

    return IndexShape(
        path=directory / INDEX_NAME,
        rank=lambda file: facts(file)[0],
        pinned=lambda file: facts(file)[1],
    )


def _entry_path(base: str, prefix: str, file: str) -> str | None:
    """The path an entry's link names (None: none that can be opened)."""
    target = file[1:-1] if file.startswith("<") and file.endswith(">") else file
    if "\0" in target:
        return None
    # A plain name (nearly every entry) is joined here: _under is pathlib's join.
    plain = "/" not in target and target not in ("", ".")
    return prefix + target if plain else _under(base, target)


def _file_facts(path: str | None) -> tuple[float, bool]:
    """A memory file's last change, and whether its frontmatter says ``pinned: true``.

    A dangling pointer is the last to keep (time 0). Opened without blocking, so that a
    FIFO planted as an entry cannot hold the session start; only a regular file is read.
    """
    if path is None:
        return 0.0, False
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return 0.0, False
    try:
        info = os.fstat(fd)
        regular = stat.S_ISREG(info.st_mode)
        head = os.read(fd, _HEAD_BYTES) if regular else b""
    except OSError:
        return 0.0, False
    finally:
        os.close(fd)
    return info.st_mtime, b"pinned" in head and _says_pinned(head)


def _says_pinned(head: bytes) -> bool:
    """Whether the frontmatter at the start of ``head`` holds ``pinned: true`` (at the top
    level, or under Claude Code's ``metadata:``), read without the YAML parser."""
    lines = head.decode("utf-8", "replace").removeprefix("\ufeff").split("\n")
    if lines[0].strip() != "---":
        return False
    for line in lines[1:]:
        stripped = line.strip()
        if stripped == "---":
            return False
        key, colon, value = stripped.partition(":")
        if colon and key.rstrip() == "pinned":
            word = value.split(" #", 1)[0].strip().strip("\"'").lower()
            return word in _TRUE_WORDS
    return False


def _under(base: str, name: str) -> str:
    """``Path(base) / name`` as a string: empty and ``.`` parts dropped, as pathlib does
    (``a.md/`` and ``a.md/.`` name the file ``a.md``), an absolute ``name`` as given."""
    parts = [part for part in name.split("/") if part not in ("", ".")]
    root = "/" if name.startswith("/") else base
    return os.path.join(root, *parts)
