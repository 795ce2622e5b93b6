"""The catalog: a project's derived search index, kept in step with its files.

:class:`Catalog` keeps a :class:`~memdir.search.engine.TextIndex` at
``<project>/.memdir/catalog.sqlite3`` in step with the files: memories of
both scopes, daily-log entries, session notes and registered transcripts
(turn level). It reads the files itself, so a directory edited by hand is
indexed too. Refresh is incremental (size and mtime, then a content hash)
under a file lock, in WAL mode so readers go on while it writes; a file with
another schema version or one SQLite cannot read is deleted and rebuilt,
which loses nothing. The ranking names are re-exported from here.
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from memdir.errors import LockTimeout, MemdirError
from memdir.model import Scope
from memdir.search.embeddings import Embedder
from memdir.search.engine import (
    CATALOG_NAME,
    DEFAULT_WEIGHTS,
    FIELDS,
    KINDS,
    SCHEMA_VERSION,
    Document,
    Hit,
    RankingOptions,
    SearchQuery,
    TextIndex,
    open_index_db,
)
from memdir.storage import sidecar
from memdir.storage.dailylog import read_log
from memdir.storage.fs import atomic_write, ensure_dir, file_lock
from memdir.storage.paths import Layout

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
    "SearchQuery",
    "TextIndex",
    "memory_document",
]

_T = TypeVar("_T")
Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` while files are checked."""


@dataclass(frozen=True, kw_only=True)
class RefreshStats:
    """What a refresh changed, counted in source files."""

    added: int
    updated: int
    removed: int
    seconds: float


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
            conn = open_index_db(path)
        except sqlite3.DatabaseError:
            _discard(path)
            conn = open_index_db(path)
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

    def search(self, query: SearchQuery | str) -> list[Hit]:
        """Ranked search (refreshing first unless ``auto_refresh`` is off)."""
        self.refresh_if_due()
        return self._guarded(lambda: self.index.search(query), rebuild=True)

    def rank(self, query: SearchQuery | str) -> list[tuple[str, float]]:
        """Ranked refs and scores only (see :meth:`TextIndex.rank`), refreshing like search."""
        self.refresh_if_due()
        return self._guarded(lambda: self.index.rank(query), rebuild=True)

    def refresh_if_due(self) -> None:
        """Refresh unless ``auto_refresh`` is off or the last refresh is recent enough."""
        if self.auto_refresh and time.monotonic() - self._refreshed_at >= self.refresh_every:
            self.refresh(wait=False)

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
        self.index.conn = open_index_db(self.path)

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
        for path, info, rel in _walk(str(self.layout.memory_dir), "", follow=False):
            if not path.endswith(".md") and not sidecar.exists(path):
                continue  # a note of another extension is a memory only with its sidecar
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
                try:
                    info = root.stat()
                except OSError:  # removed since it was checked
                    continue
                yield str(root), ("transcript", info)
            else:
                for path, info, _ in _walk(str(root), ".jsonl", follow=True):
                    yield path, ("transcript", info)

    def _documents(self, path: Path, kind: str, data: bytes, mtime: float) -> list[Document]:
        text = data.decode("utf-8", "replace")
        if kind == "memory":
            return [memory_document(path, self.layout.memory_dir, text, mtime)]
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
    seen: set[tuple[int, int]] = set()  # followed links can loop back to a parent
    while stack:
        folder, rel = stack.pop()
        try:
            info = os.stat(folder)
            entries = list(os.scandir(folder))
        except OSError:
            continue
        if (info.st_dev, info.st_ino) in seen:
            continue
        seen.add((info.st_dev, info.st_ino))
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


def _discard(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            Path(f"{path}{suffix}").unlink()


def memory_document(path: Path, memory_dir: Path, text: str, mtime: float) -> Document:
    """A memory file as a document: ranked fields, and the manifest's facts in ``meta``.

    ``meta`` holds the description, ``verified``/``updated`` dates (ISO) and,
    for a file whose frontmatter does not parse, the ``problem``; so a manifest
    can list memories from the index without opening their files.
    """
    rel = path.relative_to(memory_dir)
    scope = Scope.TEAM if rel.parts[0] == "team" and len(rel.parts) > 1 else Scope.PRIVATE
    stem_words = path.stem.replace("_", " ").replace("-", " ")
    try:
        memory = sidecar.load_memory(text, path=path)
    except MemdirError as exc:
        # A file that does not parse is still searchable as plain text.
        return Document(
            id=rel.as_posix(),
            kind="memory",
            title=path.stem,
            fields={"name": stem_words, "body": text},
            scope=scope,
            date=dt.datetime.fromtimestamp(mtime),
            meta={"problem": f"frontmatter does not parse: {exc.message}"},
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
        meta={
            "description": memory.description,
            "verified": memory.verified.isoformat() if memory.verified else None,
            "updated": memory.updated.isoformat() if memory.updated else None,
        },
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
    from memdir.storage.transcript import TranscriptError, read_transcript

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
                title=f"{turn.speaker or turn.role} · {path.stem} #{turn.index}",
                # The speaker comes from the record, never from the text: a turn
                # starting "Note:" or "Error:" names no one.
                fields={"name": turn.speaker or "", "body": turn.text, "context": " ".join(near)},
                date=turn.timestamp,
                group=str(path),
                seq=i,
            )
        )
    return docs
