"""Search a project's memory: ranked (through the catalog) and grep (model-free, no index).

:func:`search` opens the project's :class:`~memdir.search.catalog.Catalog` (which
refreshes itself from the files) and returns ranked :class:`Hit` values.
:func:`grep` works like ``grep -rn`` over the ``*.md`` files under a root, and
optionally over the turn text of ``.jsonl`` transcripts; it needs no index, so
it answers even on a directory nobody has indexed, and it finds exact strings
that a stemmed index would blur. Its patterns come from users and models, so
they run on RE2 (``google-re2``), whose matching time is linear in the text:
no pattern can hang a server. Patterns RE2 does not support (backreferences,
lookaround) are refused with a clear :class:`InvalidPattern`. The walk never
follows a symlink, to a folder or a file, so a link planted in the memory
folder cannot make grep read outside it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import re2

from memdir.errors import MemdirError
from memdir.search.catalog import Catalog, Hit, RankingOptions, SearchQuery
from memdir.search.vectors.embeddings import Embedder
from memdir.storage.fs import read_bytes_nofollow
from memdir.storage.paths import Layout

__all__ = ["MAX_PATTERN_CHARS", "GrepHit", "Hit", "InvalidPattern", "SearchQuery", "grep", "search"]


# Longer patterns are no search a person or a model means to run.
MAX_PATTERN_CHARS = 1000
_PATTERN_MEMORY = 8 << 20  # bytes RE2 may use for one compiled pattern


class InvalidPattern(MemdirError):
    """A grep pattern is not a valid regular expression."""


class _Matcher(Protocol):
    def search(self, text: str) -> Any: ...


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

    ``pattern`` is literal unless ``regex``; an invalid regex (or one RE2
    cannot run in linear time) raises :class:`InvalidPattern`. Hidden
    directories (``.git``, ``.memdir``) and symlinks are skipped.
    """
    matcher = _compile(pattern, regex=regex, ignore_case=ignore_case)
    hits: list[GrepHit] = []
    for path in _files(Path(root), ".md"):
        hits.extend(_grep_lines(path, _read_lines(path), matcher, start=1))
    if include_transcripts_dir is not None:
        for path in _files(Path(include_transcripts_dir), ".jsonl"):
            hits.extend(_grep_transcript(path, matcher))
    return hits


def _compile(pattern: str, *, regex: bool, ignore_case: bool) -> _Matcher:
    if len(pattern) > MAX_PATTERN_CHARS:
        raise InvalidPattern(
            f"the pattern is {len(pattern)} characters; the limit is {MAX_PATTERN_CHARS}",
            hint="search for a shorter, more specific string",
        )
    options = re2.Options()
    options.case_sensitive = not ignore_case
    options.literal = not regex
    options.log_errors = False
    options.max_mem = _PATTERN_MEMORY
    try:
        return re2.compile(pattern, options)  # type: ignore[no-any-return]
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise InvalidPattern(
            f"invalid regular expression: {reason}",
            hint="memdir runs patterns with RE2, which has no backreferences or "
            "lookaround; simplify the pattern, or search for the text literally "
            "(without --regex)",
        ) from None


def _files(root: Path, suffix: str) -> Iterator[Path]:
    """Regular files ending in ``suffix`` under ``root``, sorted; no links, no dot-folders."""
    if root.is_file() and not root.is_symlink():
        yield root
        return
    if not root.is_dir():
        return
    found: list[Path] = []
    for folder, dirs, names in os.walk(root):  # followlinks=False: linked folders stay out
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            path = Path(folder) / name
            if name.endswith(suffix) and not path.is_symlink() and path.is_file():
                found.append(path)
    yield from sorted(found)


def _read_lines(path: Path) -> list[str]:
    try:
        data = read_bytes_nofollow(path)
    except (OSError, MemdirError):
        return []  # vanished, unreadable, or swapped for a link between listing and reading
    return data.decode("utf-8", errors="replace").splitlines()


def _grep_lines(
    path: Path, lines: Sequence[str], matcher: _Matcher, *, start: int
) -> Iterator[GrepHit]:
    for number, line in enumerate(lines, start=start):
        if matcher.search(line):
            yield GrepHit(path=path, line=number, text=line)


def _grep_transcript(path: Path, matcher: _Matcher) -> Iterator[GrepHit]:
    from memdir.errors import TranscriptError
    from memdir.transcripts.reader import iter_turns

    try:
        for turn in iter_turns(path):
            for line in turn.text.splitlines():
                if matcher.search(line):
                    yield GrepHit(path=path, line=turn.index, text=line)
    except TranscriptError:
        return
