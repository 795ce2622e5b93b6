"""Search a project's memory: ranked (through the catalog) and grep (model-free, no index).

:func:`search` opens the project's :class:`~memdir.search.catalog.Catalog` (which
refreshes itself from the files) and returns ranked :class:`Hit` values.
:func:`grep` works like ``grep -rn`` over the ``*.md`` files under a root, and
optionally over the turn text of ``.jsonl`` transcripts; it needs no index, so
it answers even on a directory nobody has indexed, and it finds exact strings
that a stemmed index would blur.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from memdir.errors import MemdirError
from memdir.search.catalog import Catalog, Hit, RankingOptions, SearchQuery
from memdir.search.embeddings import Embedder
from memdir.storage.paths import Layout

__all__ = ["GrepHit", "Hit", "InvalidPattern", "SearchQuery", "grep", "search"]


class InvalidPattern(MemdirError):
    """A grep pattern is not a valid regular expression."""


@dataclass(frozen=True, kw_only=True)
class GrepHit:
    """One matching line: the file, its 1-based line (a transcript's turn index), the line."""

    path: Path
    line: int
    text: str


def search(
    layout: Layout,
    query: SearchQuery | str,
    *,
    embedder: Embedder | None = None,
    options: RankingOptions | None = None,
) -> list[Hit]:
    """Ranked search of one project (memories, logs, notes, registered transcripts)."""
    with Catalog.open(layout, options=options, embedder=embedder) as catalog:
        return catalog.search(query)


def grep(
    root: str | Path,
    pattern: str,
    *,
    regex: bool = False,
    ignore_case: bool = False,
    include_transcripts_dir: str | Path | None = None,
) -> list[GrepHit]:
    """Every line of ``root``'s ``*.md`` files (and transcript turns) matching ``pattern``.

    ``pattern`` is literal unless ``regex``; an invalid regex raises
    :class:`InvalidPattern`. Hidden directories (``.git``, ``.memdir``) are skipped.
    """
    matcher = _compile(pattern, regex=regex, ignore_case=ignore_case)
    hits: list[GrepHit] = []
    for path in _files(Path(root), "*.md"):
        hits.extend(_grep_lines(path, _read_lines(path), matcher, start=1))
    if include_transcripts_dir is not None:
        for path in _files(Path(include_transcripts_dir), "*.jsonl"):
            hits.extend(_grep_transcript(path, matcher))
    return hits


def _compile(pattern: str, *, regex: bool, ignore_case: bool) -> re.Pattern[str]:
    flags = re.IGNORECASE if ignore_case else 0
    try:
        return re.compile(pattern if regex else re.escape(pattern), flags)
    except re.error as exc:
        raise InvalidPattern(
            f"invalid regular expression {pattern!r}: {exc}",
            hint="fix the pattern, or search for it literally (without --regex)",
        ) from None


def _files(root: Path, glob: str) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    if not root.is_dir():
        return
    for path in sorted(root.rglob(glob)):
        rel = path.relative_to(root)
        if path.is_file() and not any(part.startswith(".") for part in rel.parts[:-1]):
            yield path


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []  # vanished or unreadable between listing and reading


def _grep_lines(
    path: Path, lines: Sequence[str], matcher: re.Pattern[str], *, start: int
) -> Iterator[GrepHit]:
    for number, line in enumerate(lines, start=start):
        if matcher.search(line):
            yield GrepHit(path=path, line=number, text=line)


def _grep_transcript(path: Path, matcher: re.Pattern[str]) -> Iterator[GrepHit]:
    from memdir.storage.transcript import TranscriptError, iter_turns

    try:
        for turn in iter_turns(path):
            for line in turn.text.splitlines():
                if matcher.search(line):
                    yield GrepHit(path=path, line=turn.index, text=line)
    except TranscriptError:
        return
