"""What refuses a write before it is made: a memory's fields, limits, versions, overwrites.

:class:`CheckingStore` holds the checks every write of
:class:`~memdir.storage.store.MemoryStore` runs while it is planned (outside
the scope lock, and again under it when the plan is made there):

* the memory itself: a name, a one-line description, one of the four types,
  no user memory in the team scope, and the check the store was handed
  (its ``enforce:`` rules must compile);
* the limits: ``max_memory_bytes`` for the text, ``max_files`` for a new
  file, the index line's length for a new name (a memory kept under its old
  name still saves);
* compare-and-swap: a caller that passes the version it read gets
  :class:`~memdir.errors.Conflict` when the file holds another one;
* overwrites: a file that holds another memory, or one memdir cannot parse,
  is only replaced when the caller passed its version or ``replace``, and
  then goes to the trash first.

Each refusal is a :class:`~memdir.errors.MemdirError` naming the file and the
next step. Like the halves beneath it, the class keeps no state of its own.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from memdir.errors import Conflict, InvalidMemory, LimitExceeded, MemoryExists, ParseError
from memdir.model import Memory, MemoryType, Scope, check_memory_text
from memdir.storage.codec import parse_memory
from memdir.storage.fs import read_bytes_nofollow
from memdir.storage.store_reads import ReadingStore, content_version

__all__ = ["CheckingStore"]


class CheckingStore(ReadingStore):
    """The checks a write passes before anything is staged or installed."""

    _check: Callable[[Memory], object] | None  # the store's own check (see MemoryStore)

    def _validate(self, memory: Memory) -> None:
        check_memory_text(memory, limits=False)
        if not memory.name:
            raise InvalidMemory("a memory needs a name", hint="pass name='Short title'")
        if not memory.description:
            raise InvalidMemory(
                f"memory {memory.name!r} needs a one-line description",
                hint="the description is what recall matches on: make it specific",
            )
        if memory.type is None:
            # An unknown type is kept aside in ``extra`` by the reader: name it, and the
            # four in the message itself (an edit's error keeps the message, not the hint).
            raw = memory.extra.get("type")
            got = "needs a type" if raw is None else f"has type {str(raw)!r}"
            raise InvalidMemory(
                f"memory {memory.name!r} {got}: the type is one of user, feedback, project, "
                "reference",
                hint="see the README's table of the four memory types",
            )
        if memory.type is MemoryType.USER and self.scope is Scope.TEAM:
            raise InvalidMemory(
                f"memory {memory.name!r} is a user memory: user memories are always private",
                hint="write it to the private scope",
            )
        if self._check is not None:
            self._check(memory)  # the enforce: rules must compile and hold a call back

    def _check_count(self) -> None:
        if self._counts is None:
            count = len(self.files())
        else:
            count = self._counts.total(self.settings.max_files)
        if count >= self.settings.max_files:
            raise LimitExceeded(
                f"the {self.scope} scope already holds {self.settings.max_files} memories",
                path=self.root,
                hint="consolidate or delete memories, or raise max_files",
            )

    def _must_trash(
        self,
        rel: str,
        path: Path,
        memory: Memory,
        current: bytes | None,
        expected_version: str | None,
        replace: bool,
    ) -> bool:
        """Refuse to overwrite another memory or an unparseable file; else whether to trash it.

        The same memory (same name) is updated in place; anything else is only
        replaced when the caller proved it read it (``expected_version``) or
        asked for it (``replace``), and then a copy goes to the trash.
        """
        if current is None:
            return False
        previous = self._held(current, path)
        held = previous.name if previous is not None else None
        if previous is not None and previous.answers_to(memory.name):
            return False
        if expected_version is None and not replace:
            what = (
                f"holds another memory, {held!r}"
                if held is not None
                else "holds a file memdir cannot parse"
            )
            raise MemoryExists(
                f"{rel} {what}; not overwritten",
                path=path,
                hint="choose another file name, or pass replace (--replace) to move the "
                "current file to the trash and write this one",
            )
        return True

    @staticmethod
    def _held(current: bytes | None, path: Path) -> Memory | None:
        """The memory the file holds now; ``None`` when absent or unparseable."""
        if current is None:
            return None
        try:
            return parse_memory(current.decode("utf-8"), path=path)
        except (ParseError, UnicodeDecodeError):
            return None

    def _check_bounds(self, memory: Memory, rel: str, previous: Memory | None) -> None:
        """Length limits for what is new: a memory kept under its old name still saves."""
        check_memory_text(memory, previous=previous)
        if previous is None or previous.name != memory.name:
            self._check_line_budget(memory.name, rel)

    def _current(
        self, rel: str, path: Path, expected_version: str | None, *, count: bool = True
    ) -> bytes | None:
        """The file's bytes (None if absent), checked against the caller's version.

        With ``count``, a file that does not exist yet must fit ``max_files``.
        """
        # A directory, FIFO or link with this name is refused here, not overwritten.
        current = read_bytes_nofollow(path) if os.path.lexists(path) else None
        if expected_version is not None:
            actual = "" if current is None else content_version(current)
            self._check_version(rel, path, actual, expected_version)
        if current is None and count:
            self._check_count()
        return current

    def _check_version(self, rel: str, path: Path, actual: str, expected: str | None) -> None:
        """Refuse the write when the caller read another version (``""``: absent)."""
        if expected is None:
            return
        if actual != expected:
            raise Conflict(
                f"{rel} changed since it was read (version {actual or 'absent'}, "
                f"expected {expected or 'absent'})",
                path=path,
                hint="read the memory again and re-apply your change",
                expected=expected,
                actual=actual,
            )

    def _check_size(self, rel: str, text: str) -> None:
        size = len(text.encode("utf-8"))
        if size > self.settings.max_memory_bytes:
            raise LimitExceeded(
                f"{rel} would be {size} bytes; the limit is {self.settings.max_memory_bytes}",
                path=self.root / rel,
                hint="keep one memory short and specific, or split it into several",
            )
