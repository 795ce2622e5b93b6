"""The manifest of a project's memories, and the ranking recall shares with it.

The scan walks the private and team memory folders with ``os.scandir``
(every ``*.md`` but ``MEMORY.md``; ``logs/`` and dot-folders skipped;
symlinks are not memories) and takes one ``stat`` per file. Nothing is read
until the files are ordered: without a query the newest ``limit`` by mtime
are kept and only their first 30 lines are parsed, so ten thousand memories
cost ten thousand stats and two hundred small reads.

With a query the order is a ranking: the matches first, best first, then the
rest by recency. The ranker is the project's search catalog (BM25 over SQLite
FTS5) when its file exists, or a small in-memory BM25F over name,
description and body when it does not. Both weigh the description highest:
it is the line a memory's author wrote for recall to match.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import heapq
import math
import os
import re
import sqlite3
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from memdir.config import Settings
from memdir.errors import MemdirError
from memdir.model import MemoryType, Scope
from memdir.recall.age import memory_date
from memdir.search import terms as textproc
from memdir.search.catalog import (
    CATALOG_NAME,
    DEFAULT_WEIGHTS,
    Catalog,
    RankingOptions,
    SearchQuery,
)
from memdir.storage.codec import memory_from_fields, read_frontmatter_head, split_frontmatter
from memdir.storage.memory_index import INDEX_NAME
from memdir.storage.paths import Layout

__all__ = [
    "RANKING_WEIGHTS",
    "CatalogChoice",
    "Manifest",
    "ManifestEntry",
    "MemdirLike",
    "MemoryFile",
    "build_manifest",
    "lexical_rank",
    "newest",
    "open_catalog",
    "rank_files",
    "rank_pool",
    "read_entry",
    "render_manifest",
    "scan_memory_files",
]

# Subtrees of the memory directory that are not private memories.
# Field weights for ranking memories: description, then name, then body.
RANKING_WEIGHTS: Mapping[str, float] = {
    **DEFAULT_WEIGHTS,
    "name": 2.0,
    "description": 3.0,
    "body": 1.0,
}
_K1 = 1.2
_B = 0.75
_KEY_LINE = re.compile(r"^(name|description)\s*:\s*(.*)$")
_WORD = re.compile(r"[^\W_]+")  # the words of memdir.search.terms.tokenize
# The lexical ranker reads at most this much of a file: a frontmatter, then a body.
_HEAD_CHARS = 4096
_BODY_CHARS = 16_384


class MemdirLike(Protocol):
    """What the manifest and recall need of a :class:`~memdir.api.Memdir`."""

    @property
    def layout(self) -> Layout: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def team_enabled(self) -> bool: ...


CatalogChoice = Catalog | Literal["auto"] | None
"""A catalog to rank with; ``"auto"``: the project's, if its file exists; ``None``: none."""


@dataclass(frozen=True, kw_only=True)
class MemoryFile:
    """A memory file found by the scan; ``ref`` is its path from the memory directory.

    ``location`` is the absolute path as a string: building ten thousand
    ``Path`` objects costs more than the scan's system calls.
    """

    ref: str
    file: str
    scope: Scope
    location: str
    mtime: float

    @property
    def path(self) -> Path:
        return Path(self.location)


@dataclass(frozen=True, kw_only=True)
class ManifestEntry:
    """One manifest line's facts, read from the file's first 30 lines.

    ``problem`` says why the frontmatter could not be read (the entry is kept).
    """

    ref: str
    file: str
    scope: Scope
    path: Path
    mtime: float
    name: str
    description: str
    type: MemoryType | None
    date: dt.date
    verified: dt.date | None = None
    updated: dt.date | None = None
    problem: str | None = None

    def line(self) -> str:
        """``[type] path.md (YYYY-MM-DD): description``; team entries say so."""
        kind = self.type.value if self.type is not None else "untyped"
        tag = f"{kind}, team" if self.scope is Scope.TEAM else kind
        text = self.description or (f"({self.problem})" if self.problem else "(no description)")
        return f"[{tag}] {self.ref} ({self.date.isoformat()}): {text}"


@dataclass(frozen=True, kw_only=True)
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


# --- scanning ------------------------------------------------------------------------


def scan_memory_files(memdir: MemdirLike) -> list[MemoryFile]:
    """Every memory file of the private scope and (when team memory is on) the team scope."""
    layout = memdir.layout
    found = _walk(layout.memory_dir, Scope.PRIVATE, "", layout.private_excluded)
    if memdir.team_enabled:
        prefix = layout.team_dir.relative_to(layout.memory_dir).as_posix() + "/"
        found.extend(_walk(layout.team_dir, Scope.TEAM, prefix, frozenset()))
    return found


def _walk(root: Path, scope: Scope, prefix: str, excluded: frozenset[str]) -> list[MemoryFile]:
    # Plain strings, scandir and an explicit stack: this runs on every recall.
    found: list[MemoryFile] = []
    stack = [(str(root), "")]
    while stack:
        directory, rel = stack.pop()
        try:
            entries = os.scandir(directory)
        except (FileNotFoundError, NotADirectoryError):
            continue
        with entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                file = rel + name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if file not in excluded:
                            stack.append((entry.path, file + "/"))
                    elif (
                        name.endswith(".md")
                        and file != INDEX_NAME
                        and entry.is_file(follow_symlinks=False)
                    ):
                        mtime = entry.stat(follow_symlinks=False).st_mtime
                        found.append(
                            MemoryFile(
                                ref=prefix + file,
                                file=file,
                                scope=scope,
                                location=entry.path,
                                mtime=mtime,
                            )
                        )
                except FileNotFoundError:
                    continue  # removed while we listed
    return found


def newest(files: Sequence[MemoryFile], n: int) -> list[MemoryFile]:
    """The ``n`` most recently modified files, newest first (ties by ref)."""
    return heapq.nsmallest(n, files, key=lambda f: (-f.mtime, f.ref))


def read_entry(found: MemoryFile) -> ManifestEntry:
    """The manifest facts of one file, from its frontmatter head only."""
    problem: str | None = None
    try:
        fields = read_frontmatter_head(found.path)
        memory = memory_from_fields(fields, "", path=found.path)
    except MemdirError as exc:
        problem = f"frontmatter does not parse: {exc.message}"
        name, description, kind, verified, updated = found.path.stem, "", None, None, None
    except OSError as exc:
        problem = f"unreadable: {exc.strerror}"
        name, description, kind, verified, updated = found.path.stem, "", None, None, None
    else:
        name, description, kind = memory.name or found.path.stem, memory.description, memory.type
        verified, updated = memory.verified, memory.updated
    date, _ = memory_date(verified=verified, updated=updated, mtime=found.mtime)
    return ManifestEntry(
        ref=found.ref,
        file=found.file,
        scope=found.scope,
        path=found.path,
        mtime=found.mtime,
        name=name,
        description=description,
        type=kind,
        date=date,
        verified=verified,
        updated=updated,
        problem=problem,
    )


# --- ranking -------------------------------------------------------------------------


# Past this many memory files, "auto" builds the catalog rather than rank by
# reading every file on each call (seconds per recall at 10,000 files).
AUTO_CATALOG_FILES = 1000


def open_catalog(
    layout: Layout, choice: CatalogChoice, *, files: int = 0
) -> tuple[Catalog | None, bool]:
    """The catalog to rank with and whether the caller must close it.

    ``"auto"`` uses the catalog when it exists, and creates it when there are
    more than :data:`AUTO_CATALOG_FILES` memory files to rank.
    """
    if choice is None or isinstance(choice, Catalog):
        return choice, False
    exists = (layout.state_dir / CATALOG_NAME).is_file()
    if not exists and files <= AUTO_CATALOG_FILES:
        return None, False
    try:
        return Catalog.open(layout, options=RankingOptions(weights=dict(RANKING_WEIGHTS))), True
    except (MemdirError, sqlite3.Error, OSError):
        return None, False


def rank_files(
    files: Sequence[MemoryFile],
    query: str,
    *,
    layout: Layout,
    catalog: CatalogChoice = "auto",
    limit: int,
) -> list[tuple[MemoryFile, float]]:
    """The files matching ``query``, best first, at most ``limit``, with their scores."""
    opened, owned = open_catalog(layout, catalog, files=len(files))
    try:
        if opened is not None:
            ranked = _catalog_rank(opened, files, query, limit)
            if ranked is not None:
                return ranked
        return lexical_rank(files, query, limit=limit)
    finally:
        if owned and opened is not None:
            opened.close()


def rank_pool(
    files: Sequence[MemoryFile],
    query: str,
    *,
    layout: Layout,
    catalog: CatalogChoice = "auto",
    limit: int,
) -> list[tuple[MemoryFile, float]]:
    """At most ``limit`` files: the matches best first, then the newest others (score 0)."""
    matches = rank_files(files, query, layout=layout, catalog=catalog, limit=limit)
    taken = {found.ref for found, _ in matches}
    others = newest([f for f in files if f.ref not in taken], limit - len(matches))
    return [*matches, *((found, 0.0) for found in others)]


def _catalog_rank(
    catalog: Catalog, files: Sequence[MemoryFile], query: str, limit: int
) -> list[tuple[MemoryFile, float]] | None:
    by_ref = {f.ref: f for f in files}
    # The caller may have left files out (already surfaced, team off): ask for
    # enough hits that those cannot crowd out the rest.
    wanted = limit + _excluded_count(catalog, by_ref)
    # Trigger: the catalog is a derived cache and can be locked or damaged.
    # Why: recall must answer anyway. Outcome: fall back to the lexical ranker.
    try:
        hits = catalog.search(SearchQuery(query=query, kinds=("memory",), limit=wanted))
    except (MemdirError, sqlite3.Error, OSError):
        return None
    ranked = [(by_ref[h.ref], h.score) for h in hits if h.ref in by_ref]
    return ranked[:limit]


def _excluded_count(catalog: Catalog, by_ref: Mapping[str, MemoryFile]) -> int:
    with contextlib.suppress(sqlite3.Error):
        row = catalog.index.conn.execute(
            "SELECT count(*) FROM docs WHERE kind = 'memory'"
        ).fetchone()
        return max(int(row[0]) - len(by_ref), 0)
    return len(by_ref)


def _quick_fields(text: str) -> dict[str, str]:
    """Name, description and body without a YAML parse: good enough to rank on."""
    block, body, _ = split_frontmatter(text)
    fields = {"name": "", "description": "", "body": body}
    for line in (block or "").split("\n"):
        match = _KEY_LINE.match(line)
        if match:
            fields[match.group(1)] = match.group(2).strip().strip("\"'")
    return fields


def _field_stats(text: str, wanted: frozenset[str]) -> tuple[Counter[str], int]:
    """Counts of the wanted terms in ``text`` and its length in index terms.

    Same terms as :func:`memdir.search.terms.terms`, but words are counted before
    they are stemmed, so each distinct word is stemmed once per text.
    """
    if text.isascii():
        words = Counter(_WORD.findall(text.lower()))
    else:
        words = Counter(textproc.tokenize(text))
    counts: Counter[str] = Counter()
    length = 0
    for word, n in words.items():
        if word in textproc.STOP_WORDS:
            continue
        length += n
        term = textproc.stem(word)
        if term in wanted:
            counts[term] += n
    return counts, length


def lexical_rank(
    files: Sequence[MemoryFile], query: str, *, limit: int
) -> list[tuple[MemoryFile, float]]:
    """BM25F over name, description and body (weights :data:`RANKING_WEIGHTS`).

    Reads every file; used when the project has no search catalog. Only the
    first 16 KiB of a body count: recall shows no more than its first 4 KiB,
    so a match far past that would surface text the agent does not get.
    """
    wanted = textproc.query_terms(query)
    if not wanted:
        return []
    terms = frozenset(wanted)
    docs: list[_Doc] = []
    for found in files:
        try:
            with open(found.location, encoding="utf-8", errors="replace") as handle:
                text = handle.read(_HEAD_CHARS + _BODY_CHARS)
        except OSError:
            continue
        fields = _quick_fields(text)
        fields["body"] = fields["body"][:_BODY_CHARS]
        stats = {k: _field_stats(v, terms) for k, v in fields.items()}
        docs.append(
            (found, {k: v[0] for k, v in stats.items()}, {k: v[1] for k, v in stats.items()})
        )
    return _bm25f(docs, wanted)[:limit]


_Doc = tuple[MemoryFile, dict[str, Counter[str]], dict[str, int]]


def _bm25f(
    docs: Sequence[_Doc],
    wanted: Sequence[str],
) -> list[tuple[MemoryFile, float]]:
    if not docs:
        return []
    fields = ("name", "description", "body")
    average = {f: max(sum(d[2][f] for d in docs) / len(docs), 1.0) for f in fields}
    frequency = {t: sum(1 for d in docs if any(d[1][f][t] for f in fields)) for t in wanted}
    scored: list[tuple[MemoryFile, float]] = []
    for found, counts, lengths in docs:
        score = 0.0
        for term in wanted:
            weighted = sum(
                RANKING_WEIGHTS[f] * counts[f][term] / (1 - _B + _B * lengths[f] / average[f])
                for f in fields
            )
            if weighted:
                df = frequency[term]
                idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
                score += idf * weighted / (_K1 + weighted)
        if score > 0:
            scored.append((found, score))
    scored.sort(key=lambda pair: (-pair[1], -pair[0].mtime, pair[0].ref))
    return scored


# --- the manifest ----------------------------------------------------------------------


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
    limit = memdir.settings.manifest_max_entries if limit is None else max(limit, 0)
    files = scan_memory_files(memdir)
    ranked = bool(query and query.strip())
    if ranked and query is not None:
        pool = rank_pool(files, query, layout=memdir.layout, catalog=catalog, limit=limit)
        chosen = [found for found, _ in pool]
    else:
        chosen = newest(files, limit)
    entries = tuple(read_entry(found) for found in chosen)
    return Manifest(
        entries=entries, total=len(files), ranked=ranked, text=render_manifest(entries, len(files))
    )


def render_manifest(entries: Sequence[ManifestEntry], total: int) -> str:
    """The entries one per line, and a last line counting the ones left out."""
    lines = [entry.line() for entry in entries]
    if total > len(entries):
        lines.append(f"({total - len(entries)} more memories not listed)")
    return "\n".join(lines) + ("\n" if lines else "")
