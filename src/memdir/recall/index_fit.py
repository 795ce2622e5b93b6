"""The index part of a memory prompt: ``MEMORY.md`` read, cut to its limits, fitted to a budget.

:func:`index_block` is an index as every prompt shows it (cut to the load
limits, :func:`memdir.storage.memory_index.truncate_index`); :func:`fit_index_block`
is the same within a hook's budget, where whole lines give way, the most
recently changed memories kept (:func:`index_shape` ranks them by their
file's last change). :func:`read_index` reads an index, never through a link.

The session-start hook runs this on every session start, with indexes of a
thousand lines: this module imports neither ``typing`` nor ``pathlib``, and
ranks the entries with plain path strings (one ``stat`` each).
"""

from __future__ import annotations

import os

from memdir.errors import MemdirError, UnsafePath
from memdir.recall.context_budget import fit_lines, text_length
from memdir.storage.fs import read_bytes_nofollow
from memdir.storage.memory_index import INDEX_NAME, entry_files, truncate_index
from memdir.utils.records import record

TYPE_CHECKING = False  # not typing's: the session-start hook loads this module
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

__all__ = ["IndexShape", "fit_index_block", "index_block", "index_shape", "read_index"]


@record
class IndexShape:
    """What the budget needs to know of an index beyond its text: where it is, and how
    recently each entry's memory changed (a file name to a sortable number)."""

    path: Path
    rank: Callable[[str], float]


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
    budget: int,
    limit: int,
    max_lines: int,
    max_chars: int,
) -> str:
    """The index block within ``budget`` code units, whole lines only.

    The load limits still hold (``max_lines``, ``max_chars``, and their warning), but
    the lines kept are chosen over the whole index: lines that are not entries
    (headings, notes) first, then the most recently changed memories (``shape.rank``),
    shown in the index's own order, with a line saying how many entries are left out.
    """
    if raw is None or not raw.strip():
        return index_block(heading, raw, max_lines=max_lines, max_chars=max_chars)
    trimmed = raw.strip()
    truncation = truncate_index(trimmed, max_lines=max_lines, max_chars=max_chars)
    block = f"## {heading}\n\n{truncation.content}"  # what index_block gives
    if text_length(block) <= budget:
        return block
    lines = trimmed.split("\n")
    entries = entry_files(trimmed)
    warning = truncation.content.rsplit("\n\n", 1)[-1] if truncation.truncated else ""
    where = f" is `{shape.path}`" if shape is not None else f" is {INDEX_NAME} in memory"
    pointer = (
        f"> {{n}} more {INDEX_NAME} entries are not shown (this context is limited to "
        f"{limit:,} characters). The full index{where}: read it, or search memory, when "
        "what you need is not above."
    )
    reserve = text_length(f"## {heading}\n\n\n") + text_length(pointer) + 8
    if warning:
        reserve += text_length(warning) + 2
    room = min(max(budget - reserve, 0), max_chars)
    scores = _scores(trimmed, lines, entries, shape, room, max_lines)
    fit = fit_lines(lines, room, rank=scores, max_count=max_lines)
    omitted = len(entries) - sum(1 for position in fit.positions if position in entries)
    tail = "\n".join(t for t in (warning and f"\n{warning}", pointer.format(n=omitted)) if t)
    body = fit.text()
    return f"## {heading}\n\n{body}\n{tail}" if body else f"## {heading}\n\n{tail}"


def _scores(
    text: str,
    lines: list[str],
    entries: dict[int, str],
    shape: IndexShape | None,
    room: int,
    count: int,
) -> Callable[[int], tuple[float, int]] | None:
    """The rank of each line for :func:`fit_lines` (None when all of them fit: no ranking).

    Notes and headings first; then the newest memories, the later line on a tie. Worked
    out at once, a memory file's change time each (a list lookup per comparison).
    """
    if len(lines) <= max(count, 0) and text_length(text) <= room:  # text: the lines joined
        return None  # what fit_lines keeps without asking: no file is looked at
    rank = shape.rank if shape is not None else None
    infinity = float("inf")
    scores = [
        (infinity, -position)
        if (file := entries.get(position)) is None
        else (rank(file) if rank is not None else 0.0, position)
        for position in range(len(lines))
    ]
    return scores.__getitem__


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
    """An index's path, and its entries ranked by their memory file's last change."""
    base = os.fspath(directory)
    prefix = base if base.endswith("/") else f"{base}/"

    def changed(file: str) -> float:
        target = file[1:-1] if file.startswith("<") and file.endswith(">") else file
        # A plain name (nearly every entry) is joined here: _under is pathlib's join.
        plain = "/" not in target and target not in ("", ".")
        try:
            return os.stat(prefix + target if plain else _under(base, target)).st_mtime
        except (OSError, ValueError):
            return 0.0  # a dangling pointer: the last to keep

    return IndexShape(path=directory / INDEX_NAME, rank=changed)


def _under(base: str, name: str) -> str:
    """``Path(base) / name`` as a string: empty and ``.`` parts dropped, as pathlib does
    (``a.md/`` and ``a.md/.`` name the file ``a.md``), an absolute ``name`` as given."""
    parts = [part for part in name.split("/") if part not in ("", ".")]
    root = "/" if name.startswith("/") else base
    return os.path.join(root, *parts)
