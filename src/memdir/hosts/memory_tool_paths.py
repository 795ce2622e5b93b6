"""The ``/memories`` folder of the memory tool, mapped onto one scope's root.

:class:`VirtualFolder` is the base of
:class:`~memdir.hosts.memory_tool.MemoryToolBackend`: it turns a path
the model gives into one inside the scope, or refuses it. ``/memories`` is
matched on path components; every path goes through
:func:`~memdir.storage.fs.safe_join` (traversal, encodings, look-alikes,
control characters, symlink escapes); hidden names, another scope's folders,
names that are not portable or too long, the index and binary extensions are
refused for writing. A note is read without following a final symlink and
must be UTF-8 text (:func:`decode_note`). Error text names ``/memories/...``
paths, never a host path (:meth:`VirtualFolder._scrub`).

Like the store's base classes, it keeps no state of its own: the backend's
constructor sets the attributes it reads.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from memdir.errors import InvalidMemory, MemoryNotFound, UnsafePath
from memdir.model import Scope
from memdir.storage.fs import safe_join
from memdir.storage.memory_index import INDEX_NAME

if TYPE_CHECKING:
    from memdir.storage.store import MemoryStore

__all__ = ["VIRTUAL_ROOT", "VirtualFolder", "decode_note"]

VIRTUAL_ROOT = "/memories"
# A FIFO swapped in for a note must not block the read: its type is refused after open.
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
# A sidecar's name is the note's name plus ".yaml": keep both under 255 bytes.
_MAX_NAME_BYTES = 250
# Characters Windows refuses in file names: a team folder must check out everywhere.
_NOT_PORTABLE = frozenset('<>:"|?*')
# Notes are text: names that announce binary content are refused up front.
_BINARY_SUFFIXES = frozenset(
    ".exe .dll .so .dylib .bin .o .a .class .jar .pyc .wasm .png .jpg .jpeg .gif .bmp "
    ".webp .ico .tif .tiff .pdf .zip .gz .tgz .bz2 .xz .7z .rar .tar .sqlite .db .mp3 "
    ".mp4 .mov .avi .wav .ogg .woff .woff2 .ttf .otf".split()
)


def _shown(path: str) -> str:
    """``path`` as it may appear in a reply: printable, else quoted."""
    return path if path.isprintable() else repr(path)


def decode_note(path: str, data: bytes) -> str:
    """The text of the note at ``path`` (as the model named it); one not in UTF-8 is refused."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidMemory(
            f"The file {path} is not a valid UTF-8 text file",
            hint="memory files are text; delete this one or replace it",
        ) from None


class VirtualFolder:
    """Paths below ``/memories`` as paths in the scope's root (see the module docstring)."""

    store: MemoryStore
    scope: Scope
    _foreign: frozenset[str]  # the top-level folders of other scopes

    def _scrub(self, text: str) -> str:
        root = self.store.root
        for host in sorted({str(root), os.path.realpath(root)}, key=len, reverse=True):
            text = text.replace(host.rstrip("/") + "/", f"{VIRTUAL_ROOT}/")
            text = text.replace(host, VIRTUAL_ROOT)
        return text

    def _relative(self, path: str) -> str:
        """``path`` below ``/memories`` ("" for the root); compared by component."""
        parts = path.split("/")
        if len(parts) < 2 or parts[0] != "" or parts[1] != VIRTUAL_ROOT.strip("/"):
            raise UnsafePath(
                f"Path must start with {VIRTUAL_ROOT}/, got: {_shown(path)}",
                hint=f"every path is {VIRTUAL_ROOT} or inside it, e.g. {VIRTUAL_ROOT}/notes.md",
            )
        rest = "/".join(parts[2:])
        if rest == "":
            return ""  # "/memories" or "/memories/"
        try:
            safe_join(self.store.root, rest)
        except UnsafePath as exc:
            reason = exc.message.rsplit(": ", 1)[-1]
            if "'..'" in reason or "outside" in reason:
                raise UnsafePath(
                    f"Path {_shown(path)} would escape {VIRTUAL_ROOT} directory ({reason})"
                ) from None
            raise UnsafePath(f"Path {_shown(path)} is refused: {reason}", hint=exc.hint) from None
        top = rest.split("/", 1)[0]
        if top in self._foreign or any(p.startswith(".") for p in rest.split("/") if p):
            raise UnsafePath(
                f"Path {_shown(path)} is not part of this memory (hidden or another scope's)",
                hint=f"use a file directly in {VIRTUAL_ROOT}/ or a subfolder of your own",
            )
        return rest.rstrip("/")

    def _writable(self, path: str) -> str:
        """``path`` as a note that may be written: not the root, the index, nor binary."""
        if path.endswith("/"):
            raise InvalidMemory(f"{_shown(path)} names a directory, not a file")
        rel = self._relative(path)
        if not rel:
            raise InvalidMemory(f"{VIRTUAL_ROOT} is a directory, not a file")
        name = PurePosixPath(rel).name
        if name == INDEX_NAME:
            raise InvalidMemory(
                f"{path} is the index memdir keeps: it may be viewed, not written",
                hint=f"write notes to other files, e.g. {VIRTUAL_ROOT}/notes.md",
            )
        for part in rel.split("/"):
            if _NOT_PORTABLE & set(part) or part.endswith((" ", ".")):
                raise UnsafePath(
                    f"Path {_shown(path)} is refused: {part!r} is not a portable file name",
                    hint='avoid < > : " | ? * and a trailing space or dot',
                )
            if len(part.encode("utf-8")) > _MAX_NAME_BYTES:
                raise UnsafePath(
                    f"Path {_shown(path)} is refused: a name is longer than "
                    f"{_MAX_NAME_BYTES} bytes",
                    hint="use a shorter name",
                )
        if PurePosixPath(name).suffix.lower() in _BINARY_SUFFIXES:
            raise InvalidMemory(
                f"{path} names a binary file: memory files are text",
                hint="use a text extension such as .md, .txt or .json",
            )
        return rel

    def _new_note(self, path: str) -> str:
        """``path`` as a new note's name: in team memory, a ``.md`` one only.

        Team sync shares ``*.md`` memory files and nothing else (a ``.txt``
        would stay on this machine), so the tool says so up front.
        """
        rel = self._writable(path)
        if self.scope is Scope.TEAM and not rel.endswith(".md"):
            stem = PurePosixPath(rel).with_suffix("").as_posix()
            raise InvalidMemory(
                f"{path}: team memory holds .md files only (team sync shares nothing else)",
                hint=f"use a .md name, e.g. {VIRTUAL_ROOT}/{stem}.md",
            )
        return rel

    def _virtual(self, rel: str) -> str:
        return f"{VIRTUAL_ROOT}/{rel}" if rel else VIRTUAL_ROOT

    def _read(self, path: str, target: Path) -> bytes:
        """The bytes of the text file ``target``; a missing one is reported SDK-style.

        Opened without following a final symlink, so one swapped in after the
        path was checked is refused rather than read.
        """
        if not os.path.lexists(target):
            raise MemoryNotFound(
                f"The path {path} does not exist. Please provide a valid path.",
                hint=f"view {VIRTUAL_ROOT} to see what there is",
            )
        if target.is_dir() and not target.is_symlink():
            raise InvalidMemory(f"The path {path} is not a file.")
        try:
            fd = os.open(target, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | _NONBLOCK)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UnsafePath(f"The path {path} is a symlink; memory files are not") from None
            raise
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise InvalidMemory(f"Unsupported file type for {path}")
            data = handle.read()
        decode_note(path, data)
        return data

    def _refuse_root(self, path: str, verb: str) -> None:
        """Refuse ``path`` when it spells the root another way (``/memories/.``, ``a/..``)."""
        if posixpath.normpath(path) == VIRTUAL_ROOT or path == VIRTUAL_ROOT + "/":
            raise UnsafePath(f"Cannot {verb} the {VIRTUAL_ROOT} directory itself")
