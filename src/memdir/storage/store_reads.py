"""Reading one scope's memories: listing, parsing, finding a memory by file or name.

:class:`ReadingStore` is the read half of :class:`~memdir.storage.store.MemoryStore`:

* a scope's files are its ``*.md`` files (and memory-tool notes with a
  sidecar) but the index, outside the excluded subtrees and dot-folders
  (:mod:`memdir.storage.scope_files`); a file name given by a caller is
  confined to the root, never inside ``.git/`` or an excluded folder;
* files are read without following a final symlink (``O_NOFOLLOW``); a file
  that does not parse is reported by :meth:`~ReadingStore.scan`, not dropped;
* a memory is found by its file (``.md`` optional) or by its name: the
  index lines titled so (from the key table when it is in step with the
  index), then the file names memdir derives from a name, then, when asked to be
  thorough, every file. A writer finds "the memory with this name" the
  same way, so it updates that file rather than making a second one.

Like :class:`~memdir.storage.store_apply.AppliedStore` beneath it, it keeps
no state of its own: the store's constructor sets the attributes it reads.
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.errors import InvalidMemory, MemdirError, MemoryNotFound, ParseError, UnsafePath
from memdir.model import FrontmatterStyle, MemoryRecord, is_slug, memory_slug
from memdir.storage import sidecar
from memdir.storage.fs import confined, file_stamp, read_bytes_nofollow, refuse_hidden
from memdir.storage.memory_index import INDEX_NAME, titled_files
from memdir.storage.scope_files import scope_entries
from memdir.storage.store_apply import content_version
from memdir.storage.store_moves import MovingStore
from memdir.utils.records import record

if TYPE_CHECKING:
    from memdir.storage.index_keys import KeyTable

__all__ = ["ReadingStore", "ScanResult", "content_version"]

_FILE_CHARS = re.compile(r"[^\w]+")
_MAX_STEM = 60


@record
class ScanResult:
    """Every memory file of a scope: the files listed, the ones that parse, the errors."""

    files: tuple[str, ...]
    records: tuple[MemoryRecord, ...]
    problems: tuple[ParseError, ...]


class ReadingStore(MovingStore):
    """The reads of one scope's store: files, scan, find and get, and file naming."""

    _excluded: frozenset[str]

    def files(self) -> list[str]:
        """Relative paths of every memory file (``*.md`` but the index), sorted."""
        if not self.root.is_dir():
            return []
        return sorted(self._walk(str(self.root)))

    def has_files(self) -> bool:
        """Whether the scope holds any memory file; stops at the first one found."""
        if not self.root.is_dir():
            return False
        walk = self._walk(str(self.root))
        try:
            return next(walk, None) is not None
        finally:
            walk.close()  # releases the open scandir handles now

    def _walk(self, directory: str) -> Generator[str, None, None]:
        for rel, entry in scope_entries(directory, self._excluded):
            if rel == INDEX_NAME:
                continue
            if entry.name.endswith(".md") or sidecar.exists(os.path.join(directory, rel)):
                yield rel

    def scan(self) -> ScanResult:
        """Read every memory file; unparseable ones are reported, not dropped."""
        files = self.files()
        records: list[MemoryRecord] = []
        problems: list[ParseError] = []
        for rel in files:
            try:
                records.append(self._read(rel, self.root / rel))
            except ParseError as exc:
                problems.append(exc)
            except (FileNotFoundError, UnsafePath):
                continue  # deleted while we listed, or swapped for a link: not a memory
        return ScanResult(files=tuple(files), records=tuple(records), problems=tuple(problems))

    def _read(self, rel: str, path: Path) -> MemoryRecord:
        data = read_bytes_nofollow(path)
        text = data.decode("utf-8", errors="replace")
        memory = sidecar.load_memory(text, path=path)
        return MemoryRecord(
            scope=self.scope,
            file=rel,
            memory=memory,
            version=content_version(data),
            mtime=path.stat().st_mtime,
        )

    def _resolve(self, file: str, *, any_name: bool = False) -> tuple[str, Path]:
        refuse_hidden(file)
        path, rel = confined(self.root, file)
        top = rel.split("/", 1)[0]
        if "/" in rel and top in self._excluded:
            raise InvalidMemory(
                f"{rel!r} is inside {top}/, which is not part of the {self.scope} scope",
                path=path,
                hint="choose a file name outside that folder",
            )
        if ".git" in rel.casefold().split("/"):  # git's own folder: never a memory
            raise InvalidMemory(f"{rel!r} is inside .git/", path=path, hint="choose another name")
        if rel == INDEX_NAME or not (any_name or rel.endswith(".md") or sidecar.exists(path)):
            raise InvalidMemory(
                f"{rel!r} is not a memory file name",
                path=path,
                hint="memory files end in .md and are not MEMORY.md",
            )
        return rel, path

    def find(self, ref: str, *, thorough: bool = True) -> MemoryRecord | None:
        """The memory at file ``ref`` (``.md`` optional) or named ``ref``, else None.

        Names are looked up through the index and the file names derived from
        them first; ``thorough`` then reads every file (hand-written ones).
        """
        for candidate in (ref, f"{ref}.md"):
            record = self._read_if_memory(candidate)
            if record is not None:
                return record
        return self._find_named(ref, thorough=thorough)

    def _find_named(
        self, name: str, *, thorough: bool, keys: KeyTable | None = None, titled: bool = True
    ) -> MemoryRecord | None:
        # By name only: a writer must never take a file whose stem merely equals
        # the new memory's name for "the memory with the same name".
        wanted = " ".join(name.split()).casefold()
        for file in self._name_candidates(name, wanted, keys, titled=titled):
            record = self._read_if_memory(file)
            if record is not None and record.memory.answers_to(name):
                return record
        # Trigger: Claude Code's model names files as it likes (``project_x.md``) and its
        # index titles are prose. Why: a slug alone finds neither, and a miss makes a
        # second memory of one name. Outcome: in Claude Code's folder a slug is looked up
        # in every file (only writes by slug pay it; a titled write finds its line).
        if titled and self.style is FrontmatterStyle.CLAUDE and is_slug(name):
            thorough = True
        if thorough:
            for record in self.scan().records:
                if record.memory.answers_to(name):
                    return record
        return None

    def _name_candidates(
        self, ref: str, wanted: str, keys: KeyTable | None, *, titled: bool = True
    ) -> Iterator[str]:
        if titled:
            yield from self._titled(wanted, keys)
            if is_slug(ref):  # `deploy-freeze` is most often titled `Deploy freeze`
                yield from self._titled(" ".join(re.split(r"[-_]+", ref)).strip(), keys)
        for stem, sep in ((self._file_stem(ref), "_"), (self._slug_stem(ref), "-")):
            yield f"{stem}.md"
            n = 2
            while (self.root / f"{stem}{sep}{n}.md").exists():
                yield f"{stem}{sep}{n}.md"
                n += 1

    def _titled(self, wanted: str, keys: KeyTable | None) -> list[str]:
        """The files of the index lines titled ``wanted``: from the key table when in step."""
        if keys is not None:
            files = keys.files_titled(wanted, file_stamp(self.index_path))
        else:
            with self._key_table() as table:
                stamp = file_stamp(self.index_path)
                files = None if table is None else table.files_titled(wanted, stamp)
        if files is not None:
            return files
        try:
            raw = read_bytes_nofollow(self.index_path)
        except FileNotFoundError:
            raw = b""
        return titled_files(raw, wanted)

    def _read_if_memory(self, file: str) -> MemoryRecord | None:
        if not os.path.lexists(self.root / file):
            return None  # nothing there under any resolution: no need to resolve links
        try:
            rel, path = self._resolve(file)
        except MemdirError:
            return None
        if not path.is_file():
            return None
        try:
            return self._read(rel, path)
        except (MemdirError, FileNotFoundError):
            return None

    def get(self, ref: str) -> MemoryRecord:
        """Like :meth:`find`, but raises :class:`MemoryNotFound`."""
        record = self.find(ref)
        if record is None:
            raise MemoryNotFound(
                f"no {self.scope} memory named {ref!r}",
                path=self.root,
                hint="run `memdir list` to see the memories and their files",
            )
        return record

    @property
    def excluded(self) -> frozenset[str]:
        """Top-level folders under the root that belong to other owners."""
        return self._excluded

    @property
    def style(self) -> FrontmatterStyle:
        """The shape new memory files get: Claude Code's under the ``claude`` profile."""
        claude = self.settings.profile == "claude"
        return FrontmatterStyle.CLAUDE if claude else FrontmatterStyle.MEMDIR

    @staticmethod
    def _file_stem(name: str) -> str:
        stem = _FILE_CHARS.sub("_", name.casefold()).strip("_")[:_MAX_STEM].strip("_")
        return stem or "memory"

    @staticmethod
    def _slug_stem(name: str) -> str:
        """The file stem of a memory in Claude Code's shape: its ``name:`` slug."""
        return memory_slug(name)[:_MAX_STEM].strip("-") or "memory"

    # Defined last: inside the class body the name `list` would shadow the builtin.
    def list(self) -> list[MemoryRecord]:
        """Every memory of the scope that parses, by file name."""
        return list(self.scan().records)
