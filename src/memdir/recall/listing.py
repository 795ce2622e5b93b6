"""The memories recall ranks from, listed from the catalog or from the folders.

Memories are listed from one of two places, behind one small interface
(:class:`Memories`):

- **The project's search catalog**, when it exists (or once a store grows
  past :data:`AUTO_CATALOG_FILES`): :class:`IndexedMemories`. The catalog
  already holds every memory's name, description, type, dates, path and
  mtime, so listing the newest, counting and ranking are SQL over it; no
  memory file is opened.
- **The folders**, for small stores without a catalog: :class:`ScannedMemories`
  over :func:`~memdir.recall.memory_files.scan_memory_files`. The scan walks
  the private and team memory folders with ``os.scandir`` (every ``*.md`` but
  ``MEMORY.md``; ``logs/`` and dot-folders skipped; symlinks are not
  memories) and takes one ``stat`` per file. Without a query only the newest
  ``limit`` files are opened, and only their first 30 lines parsed. With a
  query the files are put in an in-memory index of the same engine.

Either way a query is ranked by the one ranker,
:class:`~memdir.search.engine.TextIndex` (BM25 over FTS5 with the engine's field
weights): :func:`rank_pool` gives the matches first, best first, then the rest
by recency. :func:`over_memories` falls back to the folders when the catalog
cannot answer. The manifest (:mod:`memdir.recall.manifest`) is one line per
:class:`ManifestEntry` listed here.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import sqlite3

from memdir.errors import MemdirError
from memdir.kinds import MemoryType, Scope
from memdir.recall.memory_files import (
    ManifestEntry,
    MemdirLike,
    MemoryFile,
    manifest_entry,
    newest,
    read_entry,
    scan_memory_files,
)
from memdir.search.catalog import (
    CATALOG_NAME,
    Catalog,
    SearchQuery,
    TextIndex,
)
from memdir.search.relevance import RelevanceFloor

# Not typing.TYPE_CHECKING: recall lists memories before every prompt, in a fresh
# process; typing, and the codec that reads files, load only where they are used.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from contextlib import AbstractContextManager
    from typing import Any, Literal, TypeAlias, TypeVar

    from memdir.search.vectors.embeddings import Embedder
    from memdir.storage.paths import Layout

    _T = TypeVar("_T")

__all__ = [
    "AUTO_CATALOG_FILES",
    "CatalogChoice",
    "IndexedMemories",
    "Memories",
    "ScannedMemories",
    "over_memories",
    "rank_pool",
]

# Past this many memory files, "auto" builds the catalog rather than index the
# files in memory on each ranked call (that costs about 1 ms a file: the YAML parse
# and the stemming).
AUTO_CATALOG_FILES = 200
# The in-memory index reads at most this much of a file: a frontmatter, then a body.
# Recall shows no more than a body's first 4 KiB, so a match far past that
# would surface text the agent does not get.
_READ_CHARS = 4096 + 16_384


if TYPE_CHECKING:
    CatalogChoice: TypeAlias = Catalog | Literal["auto"] | None
else:
    CatalogChoice = "Catalog | Literal['auto'] | None"  # for annotations only
"""A catalog to list and rank with; ``"auto"``: the project's, if its file exists;
``None``: none (the folders are scanned). A catalog passed in is used as it is."""


# --- the two listings ------------------------------------------------------------------


class Memories:
    """A project's memories as the manifest and recall need them.

    ``exclude`` holds refs to leave out (what a session has already seen) before
    anything is counted, ranked or cut to a limit. The two listings below
    implement it; both rank over an index (:meth:`_ranking`), so the ranking
    is written once, here.
    """

    def count(self, *, exclude: frozenset[str] = frozenset()) -> int:
        """How many memories there are, not counting ``exclude``."""
        raise NotImplementedError

    def newest(self, n: int, *, exclude: frozenset[str] = frozenset()) -> list[ManifestEntry]:
        """The ``n`` most recently modified, newest first (ties by ref)."""
        raise NotImplementedError

    def ranked(
        self,
        query: str,
        *,
        limit: int,
        exclude: frozenset[str] = frozenset(),
        floor: RelevanceFloor | None = None,
    ) -> list[tuple[ManifestEntry, float]]:
        """The memories matching ``query``, best first, at most ``limit``, with scores.

        With ``floor``, only the matches it admits (see :mod:`memdir.search.relevance`).
        """
        with self._ranking() as index:
            return index.rank_in(query, limit, exclude, floor)

    def names(self) -> list[tuple[str, str]]:
        """Every memory's ref and name (what ``[[name]]`` links resolve against)."""
        raise NotImplementedError

    def near(
        self, query: str, embedder: Embedder, *, exclude: frozenset[str], budget: float
    ) -> dict[str, float] | None:
        """Each memory's cosine with ``query`` (ref -> cosine), or None without vectors.

        Memories without a vector are embedded first, for at most ``budget`` seconds;
        those still without one are left out. Only an index that keeps vectors (the
        catalog) answers.
        """
        return None

    def entries(self, refs: Sequence[str]) -> list[ManifestEntry]:
        """The entries of ``refs`` that exist, in the order given."""
        raise NotImplementedError

    def _ranking(self) -> AbstractContextManager[IndexedMemories]:
        """The indexed listing a ranking runs over, open while the block runs."""
        raise NotImplementedError


_COLUMNS = "SELECT d.id, d.title, d.type, d.meta, s.path, s.mtime_ns"
# By id: the ids come from a memory search, and naming the kind here would lead
# SQLite to scan every memory rather than look the ids up.
_BY_ID = f"{_COLUMNS} FROM docs d JOIN sources s ON s.id = d.source WHERE d.id IN"
# Newest first: walk the sources by their mtime index and stop at the limit (CROSS
# JOIN keeps SQLite from sorting every memory instead).
_NEWEST = f"{_COLUMNS} FROM sources s CROSS JOIN docs d ON d.source = s.id WHERE d.kind = 'memory'"


class IndexedMemories(Memories):
    """Memories listed and ranked from an index: the project's catalog, or one in memory.

    Every fact of an entry comes from the index (its ``docs`` metadata and its
    ``sources`` path and mtime); no file is opened.
    """

    def __init__(self, ranker: Catalog | TextIndex, *, layout: Layout, team: bool) -> None:
        self.ranker = ranker
        index = ranker.index if isinstance(ranker, Catalog) else ranker
        self.conn = index.conn
        self.team = team
        self.team_prefix = layout.team_dir.relative_to(layout.memory_dir).as_posix() + "/"

    def _where(self, exclude: frozenset[str]) -> tuple[str, list[Any]]:
        sql, params = "", []
        if not self.team:
            sql += " AND d.scope = ?"
            params.append(Scope.PRIVATE.value)
        if exclude:
            sql += f" AND d.id NOT IN ({','.join('?' * len(exclude))})"
            params.extend(sorted(exclude))
        return sql, params

    def count(self, *, exclude: frozenset[str] = frozenset()) -> int:
        where, params = self._where(exclude)
        sql = "SELECT count(*) FROM docs d WHERE d.kind = 'memory'" + where
        return int(self.conn.execute(sql, params).fetchone()[0])

    def newest(self, n: int, *, exclude: frozenset[str] = frozenset()) -> list[ManifestEntry]:
        if n <= 0:
            return []
        where, params = self._where(exclude)
        sql = f"{_NEWEST}{where} ORDER BY s.mtime_ns DESC, d.id LIMIT ?"
        return [self._entry(row) for row in self.conn.execute(sql, [*params, n])]

    def _ranking(self) -> AbstractContextManager[IndexedMemories]:
        return contextlib.nullcontext(self)

    def rank_in(
        self, query: str, limit: int, exclude: frozenset[str], floor: RelevanceFloor | None
    ) -> list[tuple[ManifestEntry, float]]:
        """:meth:`Memories.ranked`, over this index."""
        wanted = SearchQuery(
            query=query,
            kinds=("memory",),
            scope=None if self.team else Scope.PRIVATE,
            limit=limit,
            exclude=exclude,
        )
        scores = self.ranker.rank(wanted)
        if scores and floor is not None:
            index = self.ranker.index if isinstance(self.ranker, Catalog) else self.ranker
            kept = floor.admitted(index.relevance(wanted, [ref for ref, _ in scores]))
            scores = [(ref, score) for ref, score in scores if ref in kept]
        if not scores:
            return []
        marks = ",".join("?" * len(scores))
        rows = self.conn.execute(f"{_BY_ID} ({marks})", [ref for ref, _ in scores])
        by_ref = {row[0]: self._entry(row) for row in rows}
        return [(by_ref[ref], score) for ref, score in scores if ref in by_ref]

    def names(self) -> list[tuple[str, str]]:
        where, params = self._where(frozenset())
        sql = "SELECT d.id, d.title FROM docs d WHERE d.kind = 'memory'" + where
        return [(ref, title) for ref, title in self.conn.execute(sql, params)]

    def near(
        self, query: str, embedder: Embedder, *, exclude: frozenset[str], budget: float
    ) -> dict[str, float] | None:
        if not isinstance(self.ranker, Catalog):
            return None  # an index in memory keeps no vectors between prompts
        index = self.ranker.index
        if index.embedder is None:
            index.embedder = embedder  # a catalog opened without one: it keeps this one
        index.embed_missing(budget=budget)
        [vector] = embedder.embed([query])
        pairs = index.nearest(vector, kinds=("memory",), exclude=exclude)
        if not self.team:
            pairs = [(ref, c) for ref, c in pairs if not ref.startswith(self.team_prefix)]
        return dict(pairs)

    def entries(self, refs: Sequence[str]) -> list[ManifestEntry]:
        if not refs:
            return []
        where, params = self._where(frozenset())
        marks = ",".join("?" * len(refs))
        rows = self.conn.execute(f"{_BY_ID} ({marks}){where}", [*refs, *params])
        by_ref = {row[0]: self._entry(row) for row in rows}
        return [by_ref[ref] for ref in refs if ref in by_ref]

    def _entry(self, row: tuple[Any, ...]) -> ManifestEntry:
        ref, title, kind, meta, location, mtime_ns = row
        facts: dict[str, Any] = json.loads(meta) if meta else {}
        team = ref.startswith(self.team_prefix)
        found = MemoryFile(
            ref=ref,
            file=ref.removeprefix(self.team_prefix) if team else ref,
            scope=Scope.TEAM if team else Scope.PRIVATE,
            location=location,
            mtime=mtime_ns / 1e9,
        )
        return manifest_entry(
            found,
            title,
            str(facts.get("description") or ""),
            _memory_type(kind),
            _date(facts.get("verified")),
            _date(facts.get("updated")),
            facts.get("problem"),
        )


class ScannedMemories(Memories):
    """Memories found by walking the folders: for small stores without a catalog.

    A ranking puts every file in an in-memory index of the one engine; a
    listing without a query opens only the newest files' heads.
    """

    def __init__(self, files: Sequence[MemoryFile], *, layout: Layout, team: bool) -> None:
        self.files = files
        self.layout = layout
        self.team = team

    def count(self, *, exclude: frozenset[str] = frozenset()) -> int:
        return sum(1 for f in self.files if f.ref not in exclude)

    def newest(self, n: int, *, exclude: frozenset[str] = frozenset()) -> list[ManifestEntry]:
        kept = [f for f in self.files if f.ref not in exclude] if exclude else self.files
        return [read_entry(found) for found in newest(kept, n)]

    @contextlib.contextmanager
    def _ranking(self) -> Iterator[IndexedMemories]:
        index = TextIndex()
        try:
            # The seen memories are indexed too (and filtered out by the query): they
            # are part of the store whose statistics the floor judges by.
            self._fill(index, self.files)
            yield IndexedMemories(index, layout=self.layout, team=self.team)
        finally:
            index.close()

    def names(self) -> list[tuple[str, str]]:
        return [(entry.ref, entry.name) for entry in map(read_entry, self.files)]

    def entries(self, refs: Sequence[str]) -> list[ManifestEntry]:
        by_ref = {f.ref: f for f in self.files}
        return [read_entry(by_ref[ref]) for ref in refs if ref in by_ref]

    def _fill(self, index: TextIndex, files: Sequence[MemoryFile]) -> None:
        from memdir.search.documents import memory_document

        with index.transaction():
            for found in files:
                try:
                    with open(found.location, encoding="utf-8", errors="replace") as handle:
                        text = handle.read(_READ_CHARS)
                except OSError:
                    continue  # removed or unreadable since the scan
                source = index.conn.execute(
                    "INSERT INTO sources (path, kind, mtime_ns) VALUES (?, 'memory', ?)",
                    (found.location, int(found.mtime * 1e9)),
                ).lastrowid
                doc = memory_document(found.path, self.layout.memory_dir, text, found.mtime)
                index.add([doc], source=source)


def _date(value: Any) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


_TYPES = {kind.value: kind for kind in MemoryType}


def _memory_type(value: str | None) -> MemoryType | None:
    return _TYPES.get(value) if value else None


@contextlib.contextmanager
def _opened(
    memdir: MemdirLike, choice: CatalogChoice, embedder: Embedder | None
) -> Iterator[Memories]:
    layout, team = memdir.layout, memdir.team_enabled
    if isinstance(choice, Catalog):
        choice.refresh_if_due()
        yield IndexedMemories(choice, layout=layout, team=team)
        return
    files: list[MemoryFile] | None = None
    exists = (layout.state_dir / CATALOG_NAME).is_file()
    # Recall by meaning needs vectors kept between prompts: the catalog, even for a
    # small store.
    if choice == "auto" and not exists and embedder is None:
        files = scan_memory_files(memdir)
    if choice is None or (files is not None and len(files) <= AUTO_CATALOG_FILES):
        yield ScannedMemories(files or scan_memory_files(memdir), layout=layout, team=team)
        return
    # A refresh_every keeps one listing from refreshing twice (listing, then ranking).
    with Catalog.open(layout, refresh_every=60.0, embedder=embedder) as catalog:
        catalog.refresh_if_due()
        yield IndexedMemories(catalog, layout=layout, team=team)


def over_memories(
    memdir: MemdirLike,
    choice: CatalogChoice,
    action: Callable[[Memories], _T],
    *,
    embedder: Embedder | None = None,
) -> _T:
    """``action`` over the project's memories, from the catalog when there is one.

    With ``embedder`` (recall by meaning) the catalog is opened, made if need be,
    whatever the store's size, and keeps the memories' vectors.

    Trigger: the catalog is a derived cache and can be locked or damaged.
    Why: the manifest and recall must answer anyway. Outcome: the folders are scanned.
    """
    try:
        with _opened(memdir, choice, embedder) as memories:
            return action(memories)
    except (MemdirError, sqlite3.Error, OSError):
        if choice is None:
            raise
    return over_memories(memdir, None, action)


# Matches ranked before a floor judges them: enough that the floor's rejects
# (high BM25, weak evidence) cannot push out a real match ranked below them.
_FLOOR_POOL = 20


def rank_pool(
    memories: Memories,
    query: str,
    *,
    limit: int,
    exclude: frozenset[str] = frozenset(),
    floor: RelevanceFloor | None = None,
) -> list[tuple[ManifestEntry, float]]:
    """At most ``limit`` entries: the matches best first, then the newest others (score 0).

    With ``floor``, a match it does not admit counts as no match.
    """
    if floor is None:
        matches = memories.ranked(query, limit=limit, exclude=exclude)
    else:
        wide = max(limit, _FLOOR_POOL)
        matches = memories.ranked(query, limit=wide, exclude=exclude, floor=floor)[:limit]
    taken = exclude | {entry.ref for entry, _ in matches}
    others = memories.newest(limit - len(matches), exclude=taken)
    return [*matches, *((entry, 0.0) for entry in others)]
