"""Memory files as recall and the manifest see them, and the scan of the folders.

A :class:`MemoryFile` is a file found in the private or team memory folder
(its ``ref`` is its path from the memory directory); a :class:`ManifestEntry`
adds what its frontmatter says (name, description, type, dates), or why it
could not be read (the entry is kept). :func:`scan_memory_files` walks the
folders with ``os.scandir`` (every ``*.md`` and memory-tool note but
``MEMORY.md``; excluded subtrees and dot-folders skipped; symlinks are not
memories), one ``stat`` per file; :func:`read_entry` opens only a file's
frontmatter head. The listing that ranks them is :mod:`memdir.recall.listing`.
"""

from __future__ import annotations

import datetime as dt
import heapq
import os
from pathlib import Path

from memdir.errors import MemdirError
from memdir.kinds import MemoryType, Scope
from memdir.recall.age import memory_date
from memdir.utils.records import record, record_fields

# Not typing.TYPE_CHECKING: recall lists memories before every prompt, in a fresh
# process; typing, and the codec that reads files, load only where they are used.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Protocol

    from memdir.config import Settings
    from memdir.storage.paths import Layout
else:
    Protocol = object

__all__ = [
    "ManifestEntry",
    "MemdirLike",
    "MemoryFile",
    "manifest_entry",
    "newest",
    "read_entry",
    "scan_memory_files",
]


class MemdirLike(Protocol):
    """What the manifest and recall need of a :class:`~memdir.api.Memdir`."""

    @property
    def layout(self) -> Layout: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def team_enabled(self) -> bool: ...


@record
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


@record
class ManifestEntry:
    """One manifest line's facts: the file, and what its frontmatter says.

    ``problem`` says why the frontmatter could not be read (the entry is kept).
    """

    found: MemoryFile
    name: str
    description: str
    type: MemoryType | None
    date: dt.date
    verified: dt.date | None = None
    updated: dt.date | None = None
    problem: str | None = None

    @property
    def ref(self) -> str:
        return self.found.ref

    @property
    def file(self) -> str:
        return self.found.file

    @property
    def scope(self) -> Scope:
        return self.found.scope

    @property
    def path(self) -> Path:
        return self.found.path

    @property
    def mtime(self) -> float:
        return self.found.mtime

    def json_fields(self) -> dict[str, Any]:
        """The entry as one flat record (what ``--json`` prints)."""
        flat = {name: getattr(self.found, name) for name in ("ref", "file", "scope", "mtime")}
        facts = {name: getattr(self, name) for name in record_fields(self)}
        return {**flat, "path": self.path, **{k: v for k, v in facts.items() if k != "found"}}

    def line(self) -> str:
        """``[type] path.md (YYYY-MM-DD): description``; team entries say so."""
        kind = self.type.value if self.type is not None else "untyped"
        tag = f"{kind}, team" if self.scope is Scope.TEAM else kind
        text = self.description or (f"({self.problem})" if self.problem else "(no description)")
        return f"[{tag}] {self.ref} ({self.date.isoformat()}): {text}"


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
    from memdir.storage import sidecar
    from memdir.storage.memory_index import INDEX_NAME

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
                        (name.endswith(".md") or sidecar.exists(entry.path))
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
    from memdir.storage import sidecar
    from memdir.storage.codec import memory_from_fields, read_frontmatter_head

    problem: str | None = None
    try:
        fields = sidecar.read_fields(found.path)
        fields = read_frontmatter_head(found.path) if fields is None else fields
        memory = memory_from_fields(fields, "", path=found.path)
    except MemdirError as exc:
        problem = f"frontmatter does not parse: {exc.message}"
        name, description, kind, verified, updated = found.path.stem, "", None, None, None
    except OSError as exc:
        problem = f"unreadable: {exc.strerror}"
        name, description, kind, verified, updated = found.path.stem, "", None, None, None
    else:
        name, description, kind = memory.name or found.path.stem, memory.description, memory.type
        verified, updated = memory.verified, memory.last_updated
    return manifest_entry(found, name, description, kind, verified, updated, problem)


def manifest_entry(
    found: MemoryFile,
    name: str,
    description: str,
    kind: MemoryType | None,
    verified: dt.date | None,
    updated: dt.date | None,
    problem: str | None,
) -> ManifestEntry:
    """The entry of ``found`` with these facts, dated as recall dates a memory."""
    date, _ = memory_date(verified=verified, updated=updated, mtime=found.mtime)
    return ManifestEntry(
        found=found,
        name=name,
        description=description,
        type=kind,
        date=date,
        verified=verified,
        updated=updated,
        problem=problem,
    )
