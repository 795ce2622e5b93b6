"""The scope's index, ``MEMORY.md``, kept in step with its files, and its key table.

:class:`IndexedStore` is the base of the store's class chain (beneath
:class:`~memdir.storage.store_apply.AppliedStore`). It points the index at a
written file in one write, under the scope lock the caller holds: a new line
after an index that ends with an intact line is appended (one ``O_APPEND``
write of the whole line, returned open so the caller fsyncs it after the
lock; a short write is cut back off), any other edit replaces the index
atomically, and an unchanged index is not written. The key table
(:mod:`memdir.storage.index_keys`: each file's lines, stamped with the index
it was read from) answers "has this file a line, which" without reading the
index; one connection per thread, rebuilt when the index changed behind it.
Index lines are kept within ``max_index_line_chars`` (a description is
shortened; a name that leaves no room for one is refused).

Like the rest of the chain it keeps no state of its own: the store's
constructor sets the attributes declared here.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.config import Settings
from memdir.errors import InvalidMemory
from memdir.model import FrontmatterStyle, Memory, is_slug
from memdir.storage.fs import (
    ABSENT_STAMP,
    atomic_write,
    ensure_dir,
    fd_stamp,
    file_stamp,
    read_bytes_nofollow,
    read_stamped,
)
from memdir.storage.memory_index import (
    format_entry,
    parse_entries,
    remove_entry,
    title_of,
    upsert_entry,
    upsert_raw,
)

if TYPE_CHECKING:
    import threading

    from memdir.storage.index_keys import KeyTable
    from memdir.storage.rollback import InstallUndo

__all__ = ["IndexedStore"]

# Room an index line keeps for its description after `- [name](file) — `.
_MIN_HOOK_CHARS = 12
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# How far back from the end of the index a tidy last line is looked for.
_TAIL_BYTES = 4096


def _ends_tidy(fd: int, size: int) -> bool:
    """Whether the index open as ``fd`` ends with an intact, non-blank line and
    does not start with a blank one (an append then equals the full edit)."""
    if size == 0 or os.pread(fd, 1, 0) == b"\n":
        return False
    tail = os.pread(fd, min(size, _TAIL_BYTES), max(size - _TAIL_BYTES, 0))
    if not tail.endswith(b"\n"):
        return False
    cut = tail.rfind(b"\n", 0, len(tail) - 1)
    if cut < 0 and size > len(tail):
        return False  # a last line longer than the tail read: the full edit judges it
    return bool(tail[cut + 1 : -1].strip())


class IndexedStore:
    """The index edit under the scope lock, and the key table that lets it skip reading."""

    root: Path
    settings: Settings
    _index_path: Path
    _keys_db: Path | None
    _tables: threading.local

    @property
    def index_path(self) -> Path:
        return self._index_path

    def read_index(self) -> str:
        """The index text, or ``""`` when there is none yet (never read through a link)."""
        try:
            return read_bytes_nofollow(self.index_path).decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    @contextlib.contextmanager
    def _key_table(self) -> Iterator[KeyTable | None]:
        """The scope's key table (see :mod:`memdir.storage.index_keys`); None without one.

        One connection per thread, kept open across writes (its close costs a
        WAL checkpoint); a forked child opens its own; a failing one is reopened.
        """
        if self._keys_db is None:
            yield None
            return
        from memdir.storage.index_keys import open_table  # SQLite: loaded by lookups only

        opened = self._opened_table()
        if opened is None:
            ensure_dir(self._keys_db.parent)
            opened = (os.getpid(), open_table(self._keys_db))
            self._tables.table = opened
        table = opened[1]
        try:
            yield table
        finally:
            if table is not None and table.failed:
                table.close()
                self._tables.table = None

    def _keys_in_step(self, keys: KeyTable | None) -> None:
        """Under the scope lock: rebuild the key table if the index changed behind it."""
        if keys is None:
            return
        stamp = file_stamp(self.index_path)
        if stamp is None or keys.in_step(stamp):
            return
        with contextlib.suppress(OSError):  # unreadable now: the writes go the long way
            raw, stamp = read_stamped(self.index_path)
            keys.rebuild(raw, stamp)

    def _opened_table(self) -> tuple[int, KeyTable | None] | None:
        """This thread's key-table connection (pid, table), if this process opened one."""
        opened: tuple[int, KeyTable | None] | None = getattr(self._tables, "table", None)
        return opened if opened is not None and opened[0] == os.getpid() else None

    def index_hook(self, title: str, file: str, description: str) -> str:
        """The description, shortened so that the index line fits its length limit."""
        budget = self.settings.max_index_line_chars - len(format_entry(title, file, ""))
        budget -= 3  # " — "
        if len(description) <= budget:
            return description
        return description[: max(budget - 1, 0)].rstrip() + "…"

    def _check_line_budget(self, name: str, rel: str) -> None:
        """Refuse a name and file whose index line would leave no room for a description."""
        limit = self.settings.max_index_line_chars
        used = len(format_entry(name, rel, "")) + 3  # " — "
        if used + _MIN_HOOK_CHARS > limit:
            raise InvalidMemory(
                f"the index line for {name!r} in {rel} would take {used} characters before "
                f"its description; the limit is {limit} for the whole line",
                path=self.root / rel,
                hint="shorten the name or the file name",
            )

    def _update_index(
        self,
        title: str,
        file: str,
        description: str,
        *,
        keys: KeyTable | None,
        moved_from: str | None = None,
        undo: InstallUndo | None = None,
    ) -> int | None:
        """Point the index at ``file`` (dropping ``moved_from``'s lines), in one write.

        An unchanged index is not written. A new line after an intact index is
        appended: one ``O_APPEND`` write of the whole line, not fsynced here;
        the open index is returned and the caller fsyncs it after releasing
        the lock (so concurrent writers' fsyncs overlap). Any other edit
        replaces the index atomically (temp, fsync, rename). With the key
        table in step, none of this reads the index.
        """
        hook = self.index_hook(title, file, description)
        line = format_entry(title, file, hook)
        if keys is not None and moved_from is None:
            done, fd = self._keyed_upsert(keys, file, line)
            if done:
                return fd
        before = file_stamp(self.index_path)
        follows = keys is not None and keys.in_step(before)
        if moved_from is not None:
            text = remove_entry(self.read_index(), file=moved_from)
            data = upsert_entry(text, title=title, file=file, hook=hook).encode("utf-8")
            how = "replace"
        else:
            try:
                raw = read_bytes_nofollow(self.index_path)
            except FileNotFoundError:
                raw = b""
            how, data = upsert_raw(raw, title=title, file=file, hook=hook)
        fd = None
        if how == "replace":
            if undo is not None:
                undo.keep_index()
            atomic_write(self.index_path, data)
        elif how == "append":
            fd = self._append_index(data, tidy_only=False)
        if keys is not None and follows:
            after = fd_stamp(fd) if fd is not None else file_stamp(self.index_path)
            if after is not None:
                keys.put(file, line, after, moved_from=moved_from)
        return fd

    def _keyed_upsert(self, keys: KeyTable, file: str, line: str) -> tuple[bool, int | None]:
        """The index edit from the key table alone: ``(done, index to fsync)``.

        Done when the line is already there, or when ``file`` has no line and
        the index ends with an intact line (the new one is appended); else the
        caller edits the whole text.
        """
        stamp = file_stamp(self.index_path)
        known = keys.lines_of(file, stamp)
        if known is None or stamp in (None, ABSENT_STAMP):
            return False, None
        if known == [line]:
            return True, None
        if known:
            return False, None
        fd = self._append_index(f"{line}\n".encode(), tidy_only=True, stamp=stamp)
        if fd is None:
            return False, None
        keys.append(file, line, fd_stamp(fd))
        return True, fd

    def _append_index(
        self, tail: bytes, *, tidy_only: bool, stamp: str | None = None
    ) -> int | None:
        """Append ``tail`` (whole lines) to the index; returns it open, to be fsynced.

        One ``write()`` on an ``O_APPEND`` descriptor, under the scope lock: a
        reader sees the index without the line or with all of it; a short
        write (a full disk) is cut back off. With ``tidy_only``, nothing is
        written (None) unless the index still has ``stamp`` and ends with an
        intact, non-blank line and does not start with a blank one, so the
        result is what the full edit would make.
        """
        try:
            fd = os.open(self.index_path, os.O_RDWR | os.O_APPEND | _NOFOLLOW)
        except FileNotFoundError:
            if tidy_only:
                return None  # removed by hand: the full edit writes a new one
            raise
        try:
            size = os.fstat(fd).st_size
            if tidy_only and (fd_stamp(fd) != stamp or not _ends_tidy(fd, size)):
                os.close(fd)
                return None
            written = os.write(fd, tail)
            if written != len(tail):
                os.ftruncate(fd, size)
                raise OSError(errno.ENOSPC, "short write", str(self.index_path))
        except BaseException:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise
        return fd

    def _index_title(self, memory: Memory, rel: str, keys: KeyTable | None) -> str:
        """The title of the memory's index line: its name; but a memory in Claude Code's
        shape named by its slug alone keeps the title its index line already has."""
        if memory.style is not FrontmatterStyle.CLAUDE or not is_slug(memory.name):
            return memory.name
        lines = None if keys is None else keys.lines_of(rel, file_stamp(self.index_path))
        if lines is not None:
            raw = "\n".join(lines).encode("utf-8")
        else:
            try:
                raw = read_bytes_nofollow(self.index_path)
            except FileNotFoundError:
                return memory.name
        return title_of(raw, rel) or memory.name

    def index_entries(self) -> list[str]:
        """The files the index points at, in order (duplicates kept)."""
        return [entry.file for entry in parse_entries(self.read_index())]
