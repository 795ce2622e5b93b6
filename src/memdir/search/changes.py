"""What changed since a catalog last looked: the journal, folder stamps, a sample of files.

:class:`ChangeFinder` is the half of :class:`~memdir.search.refresh.IndexKeeper`
that reads: it works out which files to index again and which are gone,
without taking the lock or writing (the keeper writes what it finds). A
search does not walk the files: it reads what memdir's stores wrote since
last time from their journal (:data:`~memdir.storage.store.JOURNAL_NAME`),
lists again only the folders whose mtime changed (a file created, deleted or
renamed there), and stats a rotating sample of :data:`SAMPLE` indexed files
(an edit in place). :meth:`ChangeFinder._scan` is the full walk a refresh
makes, and a catch-up falls back on it when the last one is
:data:`FULL_SCAN_EVERY` seconds old.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import stat
import time
from pathlib import Path

from memdir.search.sql_in import rows_in
from memdir.storage import sidecar
from memdir.storage.journal import JOURNAL_NAME
from memdir.storage.paths import Layout, under
from memdir.storage.scope_files import folder_stamp
from memdir.utils.records import field, record

# Not typing.TYPE_CHECKING: a recall looks for changes before every prompt, in a
# fresh process.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, TypeAlias

    from memdir.search.engine import TextIndex

    Stale: TypeAlias = tuple[str, str, os.stat_result, tuple[Any, ...] | None]
else:
    Stale = "tuple[str, str, os.stat_result, tuple[Any, ...] | None]"  # for annotations only

__all__ = [
    "FULL_SCAN_EVERY",
    "ROW",
    "SAMPLE",
    "ChangeFinder",
    "Pending",
    "Stale",
    "file_size",
    "source_changed",
]

SAMPLE = 100
"""Files whose stat a search checks for edits made in place outside memdir."""
FULL_SCAN_EVERY = 600.0
"""Seconds after which a search walks every file again (the safety net)."""
ROW = "SELECT id, path, kind, mtime_ns, size, hash FROM sources"
"""A source row as the keeper and the finder read it."""


@record
class Pending:
    """What a catch-up found to write; ``full``: walk everything instead."""

    full: bool = False
    stale: list[Stale] = field(default_factory=list)
    gone: list[tuple[Any, ...]] = field(default_factory=list)
    folders: dict[str, int] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    offset: int = 0
    moved: bool = False  # the journal holds entries past the stored offset

    @property
    def stamps_only(self) -> bool:
        """Only folder stamps to record: folders listed again, nothing new in them."""
        return not (self.full or self.stale or self.gone or self.dropped or self.moved)


class ChangeFinder:
    """Finds what changed under ``layout`` since ``index`` last looked (reads, never writes)."""

    layout: Layout
    index: TextIndex

    @property
    def _journal(self) -> Path:
        return self.layout.state_dir / JOURNAL_NAME

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

    def _pending(self, extra: set[str]) -> Pending | None:
        """What changed since the catalog last looked (None: nothing), without a walk."""
        conn = self.index.conn
        state = dict(conn.execute("SELECT key, value FROM state"))
        scanned_at = state.get("scanned_at")
        if not isinstance(scanned_at, int | float) or time.time() - scanned_at > FULL_SCAN_EVERY:
            return Pending(full=True)
        stored = state.get("journal_offset")
        stored = stored if isinstance(stored, int) else 0
        paths, offset = _read_journal(self._journal, stored)
        candidates = set(paths) | extra
        folders: dict[str, int] = {}
        dropped: list[str] = []
        changed: list[str] = []
        seen: set[tuple[int, int]] = set()  # folders reached through links are walked once
        stamps = dict(conn.execute("SELECT path, mtime_ns FROM folders").fetchall())
        for folder, mtime in stamps.items():
            try:
                info = os.stat(folder)
            except OSError:
                dropped.append(folder)
                candidates.update(self._knownunder(folder, direct=False))
                continue
            seen.add((info.st_dev, info.st_ino))
            if info.st_mtime_ns != mtime:
                changed.append(folder)
        for folder in changed:
            candidates.update(self._relist(folder, folders, seen))
        candidates.update(str(root) for root in self.transcript_roots() if root.is_file())
        stale, gone = self._check(candidates)
        self._sample(stale, gone, skip=candidates)
        # A folder listed again only because its stamp was too recent to trust
        # (and still is) changes nothing: no lock, no write.
        folders = {path: stamp for path, stamp in folders.items() if stamps.get(path) != stamp}
        if not (stale or gone or folders or dropped or offset != stored):
            return None
        return Pending(
            stale=stale,
            gone=gone,
            folders=folders,
            dropped=dropped,
            offset=offset,
            moved=offset != stored,
        )

    def _knownunder(self, folder: str, *, direct: bool) -> list[str]:
        """Indexed paths inside ``folder`` (only its own files when ``direct``)."""
        rows = self.index.conn.execute(
            "SELECT path FROM sources WHERE path > ? AND path < ?", (f"{folder}/", f"{folder}0")
        )
        cut = len(folder) + 1
        return [row[0] for row in rows if not direct or "/" not in row[0][cut:]]

    def _relist(
        self, folder: str, folders: dict[str, int], seen: set[tuple[int, int]]
    ) -> list[str]:
        """A changed folder's files, new subfolders' files, and its vanished files."""
        follow = self._follows(folder)
        paths = self._knownunder(folder, direct=True)
        try:
            info = os.stat(folder)
            entries = list(os.scandir(folder))
        except OSError:
            return paths
        folders[folder] = folder_stamp(info.st_mtime_ns)
        known = {row[0] for row in self.index.conn.execute("SELECT path FROM folders")}
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=follow):
                    if entry.path not in known:
                        walk = _walk(entry.path, "", follow=follow, folders=folders, seen=seen)
                        paths.extend(path for path, _, _ in walk)
                elif entry.is_file(follow_symlinks=follow):
                    paths.append(entry.path)
            except OSError:
                continue
        return paths

    def _follows(self, path: str) -> bool:
        """Whether ``path`` lies under a transcript root (where links are followed)."""
        return any(under(path, str(root)) for root in self.transcript_roots())

    @functools.cached_property
    def _folders_text(self) -> tuple[str, str]:
        """The memory and sessions folders as text: :meth:`_kind` runs once per file checked."""
        return str(self.layout.memory_dir), str(self.layout.sessions_dir)

    def _kind(self, path: str) -> str | None:
        """What the full scan would index ``path`` as, or None."""
        memory, sessions = self._folders_text
        if under(path, memory):
            parts = path[len(memory) + 1 :].split("/")
            if any(part.startswith(".") for part in parts):
                return None
            if not path.endswith(".md"):  # a note of another extension needs its sidecar
                return "memory" if parts[0] != "logs" and sidecar.exists(path) else None
            if parts[0] == "logs":
                return "log" if len(parts) == 4 and _LOG_NAME.match(parts[-1]) else None
            return None if parts[-1] == "MEMORY.md" else "memory"
        if under(path, sessions):
            parts = path[len(sessions) + 1 :].split("/")
            hidden = any(part.startswith(".") for part in parts)
            shaped = len(parts) == 3 and parts[1:] == ["session-memory", "summary.md"]
            return "notes" if shaped and not hidden else None
        for root in self.transcript_roots():
            if path == str(root):
                return "transcript"
            if under(path, str(root)) and path.endswith(".jsonl"):
                parts = path[len(str(root)) + 1 :].split("/")
                return None if any(p.startswith(".") for p in parts) else "transcript"
        return None

    def _check(self, paths: set[str]) -> tuple[list[Stale], list[Any]]:
        """Which of ``paths`` changed (to index again) and which are gone."""
        stale: list[Stale] = []
        gone: list[tuple[Any, ...]] = []
        rows = self._rows(paths)
        for path in sorted(paths):
            row = rows.get(path)
            kind = self._kind(path)
            info = None
            if kind is not None:
                with contextlib.suppress(OSError):
                    info = os.stat(path, follow_symlinks=kind == "transcript")
            if info is None or not stat.S_ISREG(info.st_mode):
                if row is not None:
                    gone.append(row)
            elif kind is not None and source_changed(row, info):
                stale.append((path, kind, info, row))
        return stale, gone

    def _rows(self, paths: set[str]) -> dict[str, tuple[Any, ...]]:
        """The indexed rows of ``paths``, by path: a query per few hundred, not one each."""
        conn = self.index.conn
        return {
            row[1]: row for row in rows_in(conn, f"{ROW} WHERE path IN ({{in}})", sorted(paths))
        }

    def _sample(
        self,
        stale: list[Stale],
        gone: list[Any],
        *,
        skip: set[str],
    ) -> None:
        """Stat :data:`SAMPLE` indexed files from a random point on: edits made in place."""
        conn = self.index.conn
        # Two subqueries: a min() and a max() side by side would scan the whole table.
        low, high = conn.execute(
            "SELECT (SELECT min(id) FROM sources), (SELECT max(id) FROM sources)"
        ).fetchone()
        if low is None:
            return
        # os.urandom rather than the random module: one less import on every prompt.
        first = low + int.from_bytes(os.urandom(4), "little") % (high - low + 1)
        rows = conn.execute(f"{ROW} WHERE id >= ? ORDER BY id LIMIT ?", (first, SAMPLE))
        rows_list = rows.fetchall()
        if len(rows_list) < SAMPLE:
            more = conn.execute(
                f"{ROW} WHERE id < ? ORDER BY id LIMIT ?", (first, SAMPLE - len(rows_list))
            )
            rows_list += more.fetchall()
        for row in rows_list:
            path, kind = row[1], row[2]
            if path in skip:
                continue
            try:
                info = os.stat(path, follow_symlinks=kind == "transcript")
            except OSError:
                gone.append(row)
                continue
            if source_changed(row, info):
                stale.append((path, kind, info, row))

    def _scan(self, folders: dict[str, int]) -> Iterator[tuple[str, tuple[str, os.stat_result]]]:
        memory = str(self.layout.memory_dir)
        for path, info, rel in _walk(memory, "", follow=False, folders=folders):
            if not path.endswith(".md") and not sidecar.exists(path):
                continue  # a note of another extension is a memory only with its sidecar
            if rel and rel[0] == "logs":
                if len(rel) == 3 and _LOG_NAME.match(os.path.basename(path)):
                    yield path, ("log", info)
            elif os.path.basename(path) != "MEMORY.md":
                yield path, ("memory", info)
        notes = self.layout.sessions_dir
        for path, info, rel in _walk(str(notes), "summary.md", follow=False, folders=folders):
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
                for path, info, _ in _walk(str(root), ".jsonl", follow=True, folders=folders):
                    yield path, ("transcript", info)


_LOG_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")


def source_changed(row: tuple[Any, ...] | None, info: os.stat_result) -> bool:
    """Whether the file ``info`` describes differs from its indexed ``row`` (or has none)."""
    return row is None or row[3] != info.st_mtime_ns or row[4] != info.st_size


def _walk(
    root: str,
    suffix: str,
    *,
    follow: bool,
    folders: dict[str, int] | None = None,
    seen: set[tuple[int, int]] | None = None,
) -> Iterator[tuple[str, os.stat_result, tuple[str, ...]]]:
    """Files under ``root`` ending in ``suffix`` with their stat and folder parts.

    Hidden entries are skipped; without ``follow``, symlinked files too.
    ``folders`` collects every folder walked with its mtime stamp; ``seen``
    holds the folders (device, inode) already walked, and grows.
    """
    stack: list[tuple[str, tuple[str, ...]]] = [(root, ())]
    seen = set() if seen is None else seen  # followed links can loop back to a parent
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
        if folders is not None:
            folders[folder] = folder_stamp(info.st_mtime_ns)
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


def file_size(path: Path) -> int:
    """``path``'s size in bytes; 0 when it cannot be read."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _read_journal(journal: Path, offset: int) -> tuple[list[str], int]:
    """Paths listed after ``offset`` (complete lines only) and the new offset.

    A journal shorter than ``offset`` was emptied: it is read from the start.
    """
    try:
        with open(journal, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size < offset:
                offset = 0
            handle.seek(offset)
            data = handle.read()
    except OSError:
        return [], 0
    end = data.rfind(b"\n") + 1
    lines = data[:end].decode("utf-8", "surrogateescape").splitlines()
    return [line for line in lines if line], offset + end
