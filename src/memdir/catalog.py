"""The catalog: a derived SQLite FTS5 index of everything memdir can search.

Two layers. :class:`TextIndex` is the ranking engine over arbitrary documents
(id, weighted fields, date, metadata): documents are analysed by
:mod:`memdir.textproc` (Snowball stems, stop words dropped) and the terms are
stored in an FTS5 table whose columns carry BM25 field weights (name above
description above body; neighbouring turns' text and the date as words
lowest). A search is BM25 over the quoted query terms, then: a lift for
documents whose name (a turn's speaker) the query mentions, optional
pseudo-relevance feedback, and, when an embedder is configured, fusion with
cosine similarity over float32 vectors stored beside the text; last, a
smoothing that lends each document part of its best neighbour's score (the
turns of one transcript). Every step was measured on the LoCoMo benchmark
(``benchmarks/locomo.py``).

:class:`Catalog` keeps a TextIndex at ``<project>/.memdir/catalog.sqlite3`` in
step with the files: memories of both scopes, daily-log entries, session
notes and registered transcripts (turn level). It reads the files itself, so a
directory edited by hand is indexed too. Refresh is incremental (size and
mtime, then a content hash) under a file lock, in WAL mode so readers go on
while it writes; a file with another schema version or one SQLite cannot read
is deleted and rebuilt, which loses nothing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import math
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from . import textproc
from .dailylog import read_log
from .embeddings import Embedder, cosine_scores, pack_vector, rrf
from .errors import LockTimeout, MemdirError
from .fs import atomic_write, ensure_dir, file_lock
from .model import MemoryType, Scope
from .paths import Layout

__all__ = [
    "CATALOG_NAME",
    "DEFAULT_WEIGHTS",
    "FIELDS",
    "KINDS",
    "SCHEMA_VERSION",
    "Catalog",
    "Document",
    "Hit",
    "Progress",
    "RankingOptions",
    "RefreshStats",
    "TextIndex",
]

SCHEMA_VERSION = 1
CATALOG_NAME = "catalog.sqlite3"
KINDS = ("memory", "log", "notes", "transcript")
FIELDS = ("name", "description", "body", "context", "dates")
DEFAULT_WEIGHTS: Mapping[str, float] = {
    "name": 3.0,
    "description": 2.0,
    "body": 1.0,
    "context": 0.3,
    "dates": 0.5,
}
_T = TypeVar("_T")
Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` while files are checked."""


@dataclass(frozen=True, kw_only=True)
class Document:
    """One searchable unit: its id (the hit's ref), weighted fields and metadata.

    ``fields`` maps names from :data:`FIELDS` to text; ``text`` is what
    snippets are cut from (the body when omitted). ``group`` and ``seq`` place
    a document among its neighbours (a transcript and a turn index).
    """

    id: str
    kind: str
    title: str
    fields: Mapping[str, str]
    date: dt.datetime | dt.date | None = None
    text: str | None = None
    scope: Scope | None = None
    type: MemoryType | None = None
    group: str | None = None
    seq: int | None = None


@dataclass(frozen=True, kw_only=True)
class Hit:
    """One search result; ``ref`` is the document id (see :class:`Catalog`)."""

    kind: str
    ref: str
    title: str
    snippet: str
    score: float
    date: dt.datetime | None
    scope: Scope | None
    type: MemoryType | None


@dataclass(frozen=True, kw_only=True)
class RefreshStats:
    """What a refresh changed, counted in source files."""

    added: int
    updated: int
    removed: int
    seconds: float


@dataclass(frozen=True, kw_only=True)
class RankingOptions:
    """Knobs of the ranking beyond BM25 field weights.

    ``feedback_terms`` > 0 turns on pseudo-relevance feedback from the top
    ``feedback_docs`` hits, mixed in at ``feedback_weight``; ``neighbour_weight``
    adds that share of the best adjacent document's score (same group);
    ``fusion`` merges with embeddings by ``"linear"`` (BM25 scaled to its best
    hit plus ``dense_weight`` times the cosine) or ``"rrf"`` (reciprocal-rank
    fusion, constant ``rrf_k``); ``embed_previous`` embeds each document with
    the start of the one before it in its group (the question a reply answers).
    """

    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    feedback_terms: int = 0
    feedback_docs: int = 3
    feedback_weight: float = 0.3
    neighbour_weight: float = 0.2
    name_boost: float = 0.3
    fusion: Literal["linear", "rrf"] = "linear"
    embed_previous: bool = True
    rrf_k: int = 60
    dense_weight: float = 1.0
    candidates: int = 200


# Trigger: FTS5 ships a Porter stemmer. Why ours: measured equal on LoCoMo (72.5 vs 72.4
# turn recall@10), and stemming in Python gives feedback, name matching and snippets the
# very terms the index holds. Outcome: FTS5 sees pre-stemmed terms through unicode61.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, source INTEGER, kind TEXT NOT NULL,
    title TEXT NOT NULL, text TEXT NOT NULL, date TEXT, scope TEXT, type TEXT,
    grp TEXT, seq INTEGER);
CREATE INDEX IF NOT EXISTS docs_source ON docs(source);
CREATE INDEX IF NOT EXISTS docs_grp ON docs(grp, seq);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    name, description, body, context, dates, tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS vocab USING fts5vocab(fts, 'row');
CREATE TABLE IF NOT EXISTS vectors (rowid INTEGER PRIMARY KEY, model TEXT, vec BLOB);
CREATE TABLE IF NOT EXISTS sources (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
    mtime_ns INTEGER, size INTEGER, hash TEXT);
"""


def _connect(path: Path | str) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
    try:
        conn.execute("PRAGMA busy_timeout = 30000")
        if str(path) != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.DatabaseError:
        conn.close()
        raise
    return conn


def date_words(value: dt.datetime | dt.date | None) -> str:
    """A date as words a question may use: ``"8 May 2023 Monday"``."""
    if value is None:
        return ""
    return f"{value.day} {value:%B} {value.year} {value:%A}"


def _iso(value: dt.datetime | dt.date | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone().replace(tzinfo=None)
        return value.isoformat(timespec="seconds")
    return dt.datetime.combine(value, dt.time()).isoformat(timespec="seconds")


class TextIndex:
    """Documents in an FTS5 table, ranked by weighted BM25 (plus the extras above).

    Usable on its own (``TextIndex(":memory:")``) for any documents; the
    :class:`Catalog` builds one over a project's files.
    """

    def __init__(
        self,
        path: Path | str = ":memory:",
        *,
        options: RankingOptions | None = None,
        embedder: Embedder | None = None,
        conn: sqlite3.Connection | None = None,
    ) -> None:
        self.conn = conn if conn is not None else _connect(path)
        self.conn.executescript(_SCHEMA)
        self.options = options or RankingOptions()
        self.embedder = embedder

    def close(self) -> None:
        """Close the database connection."""
        self.conn.close()

    # --- writing ------------------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction for the block (joins the caller's when one is open)."""
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def add(self, docs: Iterable[Document], *, source: int | None = None) -> int:
        """Insert or replace documents; returns how many were written."""
        with self.transaction():
            return self._add(docs, source)

    def _add(self, docs: Iterable[Document], source: int | None) -> int:
        count = 0
        for doc in docs:
            self.remove([doc.id])
            cur = self.conn.execute(
                "INSERT INTO docs (id, source, kind, title, text, date, scope, type, grp, seq)"
                " VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    doc.id,
                    source,
                    doc.kind,
                    doc.title,
                    doc.text if doc.text is not None else doc.fields.get("body", ""),
                    _iso(doc.date),
                    doc.scope.value if doc.scope else None,
                    doc.type.value if doc.type else None,
                    doc.group,
                    doc.seq,
                ),
            )
            columns = [" ".join(textproc.terms(doc.fields.get(f, ""))) for f in FIELDS]
            columns[FIELDS.index("dates")] += " " + " ".join(textproc.terms(date_words(doc.date)))
            self.conn.execute(
                "INSERT INTO fts (rowid, name, description, body, context, dates)"
                " VALUES (?,?,?,?,?,?)",
                (cur.lastrowid, *columns),
            )
            count += 1
        return count

    def remove(self, ids: Iterable[str]) -> None:
        """Delete documents by id (unknown ids are ignored)."""
        for doc_id in ids:
            row = self.conn.execute("SELECT rowid FROM docs WHERE id = ?", (doc_id,)).fetchone()
            if row is not None:
                self._delete_rows([row[0]])

    def remove_source(self, source: int) -> None:
        """Delete every document that came from one source file."""
        rows = [
            r[0] for r in self.conn.execute("SELECT rowid FROM docs WHERE source = ?", (source,))
        ]
        self._delete_rows(rows)

    def _delete_rows(self, rows: Sequence[int]) -> None:
        for table in ("docs", "fts", "vectors"):
            self.conn.executemany(f"DELETE FROM {table} WHERE rowid = ?", [(r,) for r in rows])

    def embed_missing(self, batch: int = 64) -> int:
        """Compute vectors for documents that have none (with the configured embedder)."""
        if self.embedder is None:
            return 0
        rows = self.conn.execute(
            "SELECT d.rowid, d.text, d.date, p.text FROM docs d"
            " LEFT JOIN vectors v ON v.rowid = d.rowid AND v.model = ?"
            " LEFT JOIN docs p ON p.grp = d.grp AND p.seq = d.seq - 1"
            " WHERE v.rowid IS NULL",
            (self.embedder.name,),
        ).fetchall()
        with_previous = self.options.embed_previous
        for start in range(0, len(rows), batch):
            chunk = rows[start : start + batch]
            texts = [
                f"{_date_prefix(r[2])}{r[1]}"
                + (f"\n(after: {r[3][:300]})" if with_previous and r[3] else "")
                for r in chunk
            ]
            vectors = self.embedder.embed(texts)
            self.conn.executemany(
                "INSERT OR REPLACE INTO vectors (rowid, model, vec) VALUES (?,?,?)",
                [
                    (r[0], self.embedder.name, pack_vector(v))
                    for r, v in zip(chunk, vectors, strict=True)
                ],
            )
        return len(rows)

    def __len__(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM docs").fetchone()[0])

    # --- searching ----------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        kinds: Sequence[str] | None = None,
        limit: int = 10,
        types: Sequence[MemoryType | str] | None = None,
        scope: Scope | str | None = None,
        since: dt.date | None = None,
        until: dt.date | None = None,
    ) -> list[Hit]:
        """The best ``limit`` documents for ``query``; never raises on query text."""
        where, params = _filters(kinds, types, scope, since, until)
        wanted = textproc.query_terms(query)
        scores = self._lexical(wanted, where, params)
        if self.embedder is not None and query.strip():
            scores = self._fuse(query, scores, where, params)
        if self.options.neighbour_weight and scores:
            scores = self._smooth(scores)
        ranked = sorted(scores.items(), key=lambda kv: -kv[1])[:limit]
        return self._hits(ranked, wanted)

    def _lexical(self, wanted: list[str], where: str, params: list[Any]) -> dict[int, float]:
        opts = self.options
        scores = self._bm25(wanted, where, params, opts.candidates)
        if opts.feedback_terms and scores:
            extra = self._feedback_terms(scores, wanted)
            if extra:
                more = self._bm25([t for t, _ in extra], where, params, opts.candidates)
                top, top_more = max(scores.values()), max(more.values(), default=1.0)
                for rowid, value in more.items():
                    share = opts.feedback_weight * value / top_more * top
                    scores[rowid] = scores.get(rowid, 0.0) + share
        if opts.name_boost and scores:
            scores = self._boost_names(scores, wanted)
        return scores

    def _boost_names(self, scores: dict[int, float], wanted: list[str]) -> dict[int, float]:
        # A name the query mentions (the speaker of a turn) is too common to carry idf,
        # yet it separates "what did Anna say" from what others said about Anna.
        marks = ",".join("?" * len(scores))
        rows = self.conn.execute(
            f"SELECT rowid, name FROM fts WHERE rowid IN ({marks})", list(scores)
        )
        asked = set(wanted)
        named = {rowid for rowid, name in rows if not asked.isdisjoint(name.split())}
        factor = 1.0 + self.options.name_boost
        return {r: v * factor if r in named else v for r, v in scores.items()}

    def _bm25(
        self, wanted: list[str], where: str, params: list[Any], limit: int
    ) -> dict[int, float]:
        if not wanted:
            return {}
        w = [float(self.options.weights.get(f, 0.0)) for f in FIELDS]
        sql = (
            "SELECT fts.rowid, bm25(fts, ?, ?, ?, ?, ?) AS s FROM fts"
            " JOIN docs d ON d.rowid = fts.rowid"
            f" WHERE fts MATCH ? {where} ORDER BY s LIMIT ?"
        )
        rows = self.conn.execute(sql, (*w, textproc.fts_query(wanted), *params, limit))
        return {rowid: -score for rowid, score in rows}

    def _feedback_terms(
        self, scores: Mapping[int, float], wanted: list[str]
    ) -> list[tuple[str, float]]:
        opts = self.options
        top = sorted(scores, key=lambda r: -scores[r])[: opts.feedback_docs]
        marks = ",".join("?" * len(top))
        docs = [
            f"{n} {d} {b}".split()
            for n, d, b in self.conn.execute(
                f"SELECT name, description, body FROM fts WHERE rowid IN ({marks})", top
            )
        ]
        pool = sorted({t for doc in docs for t in doc} - set(wanted))
        if not pool:
            return []
        marks = ",".join("?" * len(pool))
        freq = dict(self.conn.execute(f"SELECT term, doc FROM vocab WHERE term IN ({marks})", pool))
        return textproc.expansion_terms(
            docs, freq, len(self), exclude=wanted, limit=opts.feedback_terms
        )

    def _smooth(self, scores: dict[int, float]) -> dict[int, float]:
        marks = ",".join("?" * len(scores))
        place = {
            rowid: (grp, seq)
            for rowid, grp, seq in self.conn.execute(
                f"SELECT rowid, grp, seq FROM docs WHERE rowid IN ({marks})", list(scores)
            )
            if grp is not None and seq is not None
        }
        by_place = {where: scores[rowid] for rowid, where in place.items()}
        out = dict(scores)
        for rowid, (grp, seq) in place.items():
            near = max(by_place.get((grp, seq - 1), 0.0), by_place.get((grp, seq + 1), 0.0))
            out[rowid] = scores[rowid] + self.options.neighbour_weight * near
        return out

    def _fuse(
        self, query: str, scores: dict[int, float], where: str, params: list[Any]
    ) -> dict[int, float]:
        assert self.embedder is not None
        rows = self.conn.execute(
            f"SELECT v.rowid, v.vec FROM vectors v JOIN docs d ON d.rowid = v.rowid"
            f" WHERE v.model = ? {where}",
            (self.embedder.name, *params),
        ).fetchall()
        if not rows:
            return scores
        opts = self.options
        dense = cosine_scores(self.embedder.embed([query])[0], rows)
        if opts.fusion == "linear":
            top = max(scores.values(), default=0.0) or 1.0
            fused = {r: opts.dense_weight * max(v, 0.0) for r, v in dense.items()}
            for rowid, value in scores.items():
                fused[rowid] = fused.get(rowid, 0.0) + value / top
            return fused
        lexical = sorted(scores, key=lambda r: -scores[r])
        nearest = sorted(dense, key=lambda r: -dense[r])[: opts.candidates]
        return rrf([lexical, nearest], k=opts.rrf_k, weights=[1.0, opts.dense_weight])

    def _hits(self, ranked: list[tuple[int, float]], wanted: list[str]) -> list[Hit]:
        hits = []
        for rowid, score in ranked:
            row = self.conn.execute(
                "SELECT kind, id, title, text, date, scope, type FROM docs WHERE rowid = ?",
                (rowid,),
            ).fetchone()
            if row is None:
                continue
            kind, ref, title, text, date, scope, type_ = row
            hits.append(
                Hit(
                    kind=kind,
                    ref=ref,
                    title=title,
                    snippet=textproc.snippet(text, wanted),
                    score=round(score, 6),
                    date=dt.datetime.fromisoformat(date) if date else None,
                    scope=Scope(scope) if scope else None,
                    type=_memory_type(type_),
                )
            )
        return hits


def _date_prefix(iso: str | None) -> str:
    return f"[{date_words(dt.datetime.fromisoformat(iso))}] " if iso else ""


def _memory_type(value: str | None) -> MemoryType | None:
    try:
        return MemoryType(value) if value else None
    except ValueError:
        return None


def _filters(
    kinds: Sequence[str] | None,
    types: Sequence[MemoryType | str] | None,
    scope: Scope | str | None,
    since: dt.date | None,
    until: dt.date | None,
) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    for column, values in (("d.kind", kinds), ("d.type", types)):
        if values is not None:
            items = [str(getattr(v, "value", v)) for v in values]
            clauses.append(f"{column} IN ({','.join('?' * len(items))})" if items else "0")
            params.extend(items)
    if scope is not None:
        clauses.append("d.scope = ?")
        params.append(str(getattr(scope, "value", scope)))
    if since is not None:
        clauses.append("substr(d.date, 1, 10) >= ?")
        params.append(since.isoformat())
    if until is not None:
        clauses.append("substr(d.date, 1, 10) <= ?")
        params.append(until.isoformat())
    return "".join(f" AND {c}" for c in clauses), params


# --- the catalog of a project ----------------------------------------------------------


class Catalog:
    """A project's :class:`TextIndex`, kept in step with its files.

    Refs of hits: a memory's path relative to the memory directory
    (``team/x.md``); a log entry's ``logs/YYYY/MM/YYYY-MM-DD.md#L<line>``; session
    notes' ``sessions/<id>/session-memory/summary.md`` (relative to the project
    folder); a transcript turn's ``<absolute path>#<turn index>``.
    """

    def __init__(
        self,
        layout: Layout,
        index: TextIndex,
        *,
        auto_refresh: bool = True,
        refresh_every: float = 0.0,
    ) -> None:
        self.layout = layout
        self.index = index
        self.auto_refresh = auto_refresh
        self.refresh_every = refresh_every
        self._refreshed_at = -math.inf

    @property
    def path(self) -> Path:
        return self.layout.state_dir / CATALOG_NAME

    @classmethod
    def open(
        cls,
        layout: Layout,
        *,
        options: RankingOptions | None = None,
        embedder: Embedder | None = None,
        auto_refresh: bool = True,
        refresh_every: float = 0.0,
    ) -> Catalog:
        """Open (creating, or rebuilding when unreadable or outdated) a project's catalog.

        With ``auto_refresh`` each search first checks the files (one ``stat``
        each: ~10 ms per thousand files); ``refresh_every`` > 0 skips that check
        when this object refreshed less than that many seconds ago, for
        long-lived processes over very large directories.
        """
        ensure_dir(layout.state_dir)
        path = layout.state_dir / CATALOG_NAME
        try:
            conn = _open_checked(path)
        except sqlite3.DatabaseError:
            _discard(path)
            conn = _open_checked(path)
        return cls(
            layout,
            TextIndex(path, options=options, embedder=embedder, conn=conn),
            auto_refresh=auto_refresh,
            refresh_every=refresh_every,
        )

    def close(self) -> None:
        """Close the database connection."""
        self.index.close()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- transcripts --------------------------------------------------------------

    @property
    def _roots_file(self) -> Path:
        return self.layout.state_dir / "transcripts.json"

    def transcript_roots(self) -> list[Path]:
        """Files and directories registered with :meth:`add_transcripts`."""
        try:
            data = json.loads(self._roots_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        return [Path(p) for p in data if isinstance(p, str)]

    def add_transcripts(
        self, path: str | Path, *, progress: Progress | None = None
    ) -> RefreshStats:
        """Remember a transcript file or a directory of ``.jsonl`` files, then refresh."""
        target = Path(path).expanduser().resolve()
        if not target.exists():
            raise MemdirError(
                "no transcript file or directory there", path=target, hint="check the path"
            )
        with file_lock(self.layout.lock_dir / "catalog.lock"):
            roots = [str(p) for p in self.transcript_roots()]
            if str(target) not in roots:
                roots.append(str(target))
                atomic_write(self._roots_file, json.dumps(roots, indent=1))
        return self.refresh(progress=progress)

    # --- refresh ------------------------------------------------------------------

    def refresh(self, *, progress: Progress | None = None, wait: bool = True) -> RefreshStats:
        """Bring the index in step with the files; with ``wait=False`` skip if one is running."""
        start = time.perf_counter()
        try:
            with file_lock(self.layout.lock_dir / "catalog.lock", timeout=30.0 if wait else 0.0):
                stats = self._guarded(lambda: self._refresh(progress, start))
                self._refreshed_at = time.monotonic()
                return stats
        except LockTimeout:
            if wait:
                raise
            return RefreshStats(added=0, updated=0, removed=0, seconds=0.0)

    def rebuild(self, *, progress: Progress | None = None) -> RefreshStats:
        """Index every file again from scratch (in one transaction: readers never see it empty)."""
        with file_lock(self.layout.lock_dir / "catalog.lock"):
            return self._guarded(lambda: self._refresh(progress, time.perf_counter(), clear=True))

    def search(
        self,
        query: str,
        *,
        kinds: Sequence[str] | None = None,
        limit: int = 10,
        types: Sequence[MemoryType | str] | None = None,
        scope: Scope | str | None = None,
        since: dt.date | None = None,
        until: dt.date | None = None,
    ) -> list[Hit]:
        """Ranked search (refreshing first unless ``auto_refresh`` is off)."""
        if self.auto_refresh and time.monotonic() - self._refreshed_at >= self.refresh_every:
            self.refresh(wait=False)
        return self._guarded(
            lambda: self.index.search(
                query, kinds=kinds, limit=limit, types=types, scope=scope, since=since, until=until
            ),
            rebuild=True,
        )

    def _guarded(self, action: Callable[[], _T], *, rebuild: bool = False) -> _T:
        try:
            return action()
        except sqlite3.DatabaseError:
            # The file was damaged under us: start over from the files.
            self._reset()
            if rebuild:
                with contextlib.suppress(LockTimeout):
                    self.refresh(wait=False)
            return action()

    def _reset(self) -> None:
        self.index.close()
        _discard(self.path)
        self.index.conn = _open_checked(self.path)

    def _refresh(
        self, progress: Progress | None, start: float, *, clear: bool = False
    ) -> RefreshStats:
        found = dict(self._scan())
        conn = self.index.conn
        known = {
            row[1]: row
            for row in conn.execute("SELECT id, path, kind, mtime_ns, size, hash FROM sources")
            if not clear
        }
        stale = [
            (path, kind, info, known.get(path))
            for path, (kind, info) in found.items()
            if _changed(known.get(path), info)
        ]
        gone = [row for path, row in known.items() if path not in found]
        if not stale and not gone and not clear and self.index.embedder is None:
            # Nothing to write: no write transaction, no fsync.
            return RefreshStats(added=0, updated=0, removed=0, seconds=time.perf_counter() - start)
        added = updated = 0
        conn.execute("BEGIN IMMEDIATE")
        try:
            if clear:
                for table in ("docs", "fts", "vectors", "sources"):
                    conn.execute(f"DELETE FROM {table}")
            for done, (path, kind, info, row) in enumerate(stale, start=1):
                change = self._sync_file(Path(path), kind, info, row)
                added += change == "added"
                updated += change == "updated"
                if progress is not None:
                    progress(done, len(stale))
            for row in gone:
                self.index.remove_source(row[0])
                conn.execute("DELETE FROM sources WHERE id = ?", (row[0],))
            self.index.embed_missing()
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return RefreshStats(
            added=added, updated=updated, removed=len(gone), seconds=time.perf_counter() - start
        )

    def _sync_file(
        self, path: Path, kind: str, info: os.stat_result, row: tuple[Any, ...] | None
    ) -> str | None:
        try:
            data = path.read_bytes()
        except OSError:
            return None  # vanished since the scan: the next refresh drops it
        digest = hashlib.sha256(data).hexdigest()
        conn = self.index.conn
        if row is not None and row[5] == digest:
            conn.execute(
                "UPDATE sources SET mtime_ns = ?, size = ? WHERE id = ?",
                (info.st_mtime_ns, info.st_size, row[0]),
            )
            return None
        if row is not None:
            self.index.remove_source(row[0])
            source = int(row[0])
            conn.execute(
                "UPDATE sources SET mtime_ns = ?, size = ?, hash = ? WHERE id = ?",
                (info.st_mtime_ns, info.st_size, digest, source),
            )
        else:
            cur = conn.execute(
                "INSERT INTO sources (path, kind, mtime_ns, size, hash) VALUES (?,?,?,?,?)",
                (str(path), kind, info.st_mtime_ns, info.st_size, digest),
            )
            source = int(cur.lastrowid or 0)
        self.index.add(self._documents(path, kind, data, info.st_mtime), source=source)
        return "updated" if row is not None else "added"

    def _scan(self) -> Iterator[tuple[str, tuple[str, os.stat_result]]]:
        for path, info, rel in _walk(str(self.layout.memory_dir), ".md", follow=False):
            if rel and rel[0] == "logs":
                if len(rel) == 3 and _LOG_NAME.match(os.path.basename(path)):
                    yield path, ("log", info)
            elif os.path.basename(path) != "MEMORY.md":
                yield path, ("memory", info)
        notes = self.layout.sessions_dir
        for path, info, rel in _walk(str(notes), "summary.md", follow=False):
            if len(rel) == 2 and rel[1] == "session-memory":
                yield path, ("notes", info)
        for root in self.transcript_roots():
            if root.is_file():
                yield str(root), ("transcript", root.stat())
            else:
                for path, info, _ in _walk(str(root), ".jsonl", follow=True):
                    yield path, ("transcript", info)

    def _documents(self, path: Path, kind: str, data: bytes, mtime: float) -> list[Document]:
        text = data.decode("utf-8", "replace")
        if kind == "memory":
            return [_memory_doc(path, self.layout.memory_dir, text, mtime)]
        if kind == "log":
            return _log_docs(path, self.layout.memory_dir)
        if kind == "notes":
            rel = path.relative_to(self.layout.project_dir).as_posix()
            title = f"session notes {path.parent.parent.name}"
            return [
                Document(
                    id=rel,
                    kind="notes",
                    title=title,
                    fields={"body": text},
                    date=dt.datetime.fromtimestamp(mtime),
                )
            ]
        return _transcript_docs(path)


_LOG_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")


def _changed(row: tuple[Any, ...] | None, info: os.stat_result) -> bool:
    return row is None or row[3] != info.st_mtime_ns or row[4] != info.st_size


def _walk(
    root: str, suffix: str, *, follow: bool
) -> Iterator[tuple[str, os.stat_result, tuple[str, ...]]]:
    """Files under ``root`` ending in ``suffix`` with their stat and folder parts.

    Hidden entries are skipped; without ``follow``, symlinked files too.
    """
    stack: list[tuple[str, tuple[str, ...]]] = [(root, ())]
    while stack:
        folder, rel = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=follow):
                    stack.append((entry.path, (*rel, entry.name)))
                elif entry.name.endswith(suffix) and entry.is_file(follow_symlinks=follow):
                    yield entry.path, entry.stat(follow_symlinks=follow), rel
            except OSError:
                continue


def _open_checked(path: Path) -> sqlite3.Connection:
    """Connect and make sure the file is a catalog of this schema version."""
    conn = _connect(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            has_tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if has_tables:
                raise sqlite3.DatabaseError(f"catalog schema {version}, expected {SCHEMA_VERSION}")
            conn.executescript(_SCHEMA)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("SELECT count(*) FROM docs").fetchone()
    except sqlite3.DatabaseError:
        conn.close()
        raise
    return conn


def _discard(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            Path(f"{path}{suffix}").unlink()


def _memory_doc(path: Path, memory_dir: Path, text: str, mtime: float) -> Document:
    from .codec import parse_memory

    rel = path.relative_to(memory_dir)
    scope = Scope.TEAM if rel.parts[0] == "team" and len(rel.parts) > 1 else Scope.PRIVATE
    stem_words = path.stem.replace("_", " ").replace("-", " ")
    try:
        memory = parse_memory(text, path=path)
    except MemdirError:
        # A file that does not parse is still searchable as plain text.
        return Document(
            id=rel.as_posix(),
            kind="memory",
            title=path.stem,
            fields={"name": stem_words, "body": text},
            scope=scope,
            date=dt.datetime.fromtimestamp(mtime),
        )
    when = memory.updated or memory.created or dt.datetime.fromtimestamp(mtime)
    return Document(
        id=rel.as_posix(),
        kind="memory",
        title=memory.name or path.stem,
        fields={
            "name": f"{memory.name} {stem_words}",
            "description": memory.description,
            "body": memory.body,
        },
        text=f"{memory.description}\n{memory.body}",
        date=when,
        scope=scope,
        type=memory.type,
    )


def _log_docs(path: Path, memory_dir: Path) -> list[Document]:
    rel = path.relative_to(memory_dir).as_posix()
    docs = []
    for entry in read_log(path):
        when = entry.at or dt.datetime.combine(entry.day, dt.time())
        docs.append(
            Document(
                id=f"{rel}#L{entry.line}",
                kind="log",
                title=f"log {when:%Y-%m-%d %H:%M}",
                fields={"body": entry.text},
                date=when,
                scope=Scope.PRIVATE,
                group=rel,
                seq=entry.line,
            )
        )
    return docs


def _transcript_docs(path: Path) -> list[Document]:
    from .transcript import TranscriptError, read_transcript

    try:
        transcript = read_transcript(path)
    except TranscriptError:
        return []
    turns = [t for t in transcript.turns if not t.is_sidechain and t.text.strip()]
    docs = []
    for i, turn in enumerate(turns):
        near = [turns[j].text for j in (i - 1, i + 1) if 0 <= j < len(turns)]
        docs.append(
            Document(
                id=f"{path}#{turn.index}",
                kind="transcript",
                title=f"{turn.role} · {path.stem} #{turn.index}",
                fields={"name": _speaker(turn.text), "body": turn.text, "context": " ".join(near)},
                date=turn.timestamp,
                group=str(path),
                seq=i,
            )
        )
    return docs


def _speaker(text: str) -> str:
    """The ``Name:`` a chat line starts with, if any (multi-party transcripts)."""
    head, sep, _ = text[:60].partition(":")
    return head if sep and 0 < len(head.split()) <= 3 and head[:1].isupper() else ""
