"""The hook server's watch on memory folders: has anything a rule may live in changed?

The pre-tool-use hook must see a rule as soon as it is written, also one
added in place to a memory file (an editor, an append from a shell), which
moves no folder's mtime: on its own it stats every memory file on every
tool call. The server holds an inotify watch on each folder of a scope
instead (:mod:`memdir.hooks.inotify`) and answers the hook with a
*token* per scope, which changes whenever an event under the scope could
change what the walk sees: a memory file (``*.md``, not the top
``MEMORY.md``) created, written, truncated, touched, moved or removed, a
folder added or taken away, events lost to a full queue. Dot entries and
the subfolders another scope owns are left out, as the walk leaves them.

The hook keeps the tokens its last walk was made under in the rule cache;
the same tokens again mean nothing changed since, and the walk is skipped.
Every event a change queued is read before a token is given (the kernel
queues it in the system call that made the change), so a change made
before the hook asked is never missed.

A scope is only watched where inotify sees every change: on a local file
system (not NFS, SMB, FUSE: a change made on another machine raises no
event), within one mount, and while the server watches at most
:data:`MAX_FOLDERS` folders in all (and the user's inotify limit allows);
anywhere else the hook walks as before. A scope's folder is looked up on
every ask: one not there yet, or moved, replaced or created since, is
watched anew under a new token. A change written through a memory-mapped
file raises no event; no editor writes memories that way.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

from memdir.hooks import inotify as ino

__all__ = ["MAX_FOLDERS", "FolderWatch", "local_file_system"]

# Folders one server watches at most, all scopes together: inotify watches are a budget
# the user shares with every other program (8,192 on older kernels); past it, scopes walk.
MAX_FOLDERS = 2_000
_MASK = (
    ino.IN_MODIFY
    | ino.IN_ATTRIB
    | ino.IN_CLOSE_WRITE
    | ino.IN_MOVED_FROM
    | ino.IN_MOVED_TO
    | ino.IN_CREATE
    | ino.IN_DELETE
    | ino.IN_DELETE_SELF
    | ino.IN_MOVE_SELF
    | ino.IN_ONLYDIR
)  # one mask for every watch: adding a folder again with another mask would replace it
_APPEARS = ino.IN_CREATE | ino.IN_MOVED_TO
_GONE = ino.IN_DELETE_SELF | ino.IN_MOVE_SELF | ino.IN_UNMOUNT | ino.IN_IGNORED
# File systems on which every change to a file is made by this kernel, so raises an event.
_LOCAL = frozenset(
    {"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "ramfs", "f2fs", "zfs", "bcachefs"}
    | {"overlay", "jfs", "reiserfs", "nilfs2"}
)
_INDEX_NAME = "MEMORY.md"

Scope = tuple[str, frozenset[str]]
"""A watched scope: its folder and the subfolders (relative paths) it leaves out."""


class _Watched:
    """One scope's watch: its folders, and how many times something in it changed."""

    def __init__(self, number: int, scope: Scope) -> None:
        self.number = number
        self.root, self.excluded = scope
        self.changes = 0
        self.identity: tuple[int, int] | None = None  # (device, inode) of the folder; None: missing
        self.folders: dict[int, str] = {}  # watch descriptor -> path relative to the root
        self.dead = False


class FolderWatch:
    """The watches of one server; :meth:`tokens` is all a hook asks of it."""

    def __init__(self) -> None:
        self._inotify = ino.Inotify()
        self._instance = f"{os.getpid():x}-{time.time_ns():x}"
        self._numbered = 0
        self._scopes: dict[Scope, _Watched] = {}
        self._owners: dict[int, list[_Watched]] = {}  # watch descriptor -> scopes using it

    def close(self) -> None:
        """Drop every watch."""
        self._inotify.close()

    def tokens(self, scopes: Sequence[Scope]) -> list[str] | None:
        """A token per scope, or None when one of them cannot be watched (walk it)."""
        self._drain()
        found = []
        for scope in scopes:
            watched = self._current(scope)
            if watched is None:
                return None
            state = "missing" if watched.identity is None else "here"
            found.append(f"{self._instance}.{watched.number}.{state}.{watched.changes}")
        return found

    def _current(self, scope: Scope) -> _Watched | None:
        watched = self._scopes.get(scope)
        if watched is not None and (watched.dead or _identity(watched.root) != watched.identity):
            self._forget(watched)  # moved, replaced or created since: watched anew
            watched = None
        if watched is None:
            watched = self._start(scope)
        return watched

    def _start(self, scope: Scope) -> _Watched | None:
        self._numbered += 1
        watched = _Watched(self._numbered, scope)
        self._scopes[scope] = watched
        try:
            watched.identity = _identity(watched.root)
            if watched.identity is None:
                return watched  # nothing to watch: each ask looks whether it is there now
            if not local_file_system(watched.root):
                raise OSError(f"{watched.root} is not on a local file system")
            self._add_tree(watched, watched.root, "")
        except OSError:
            self._forget(watched)
            return None
        return watched

    def _add_tree(self, watched: _Watched, path: str, rel: str) -> None:
        """Watch ``path`` and every folder below it the walk would enter."""
        if len(self._owners) >= MAX_FOLDERS:
            raise OSError(f"watching {watched.root} would pass {MAX_FOLDERS} folders")
        if watched.identity is None or os.stat(path).st_dev != watched.identity[0]:
            raise OSError(f"{path} is on another mount")
        wd = self._inotify.add(path, _MASK)  # before listing: what appears meanwhile raises one
        if wd not in watched.folders:
            self._owners.setdefault(wd, []).append(watched)
        watched.folders[wd] = rel
        with os.scandir(path) as entries:
            for entry in entries:
                child = f"{rel}{entry.name}"
                if _walked_folder(entry, child, watched.excluded):
                    self._add_tree(watched, entry.path, child + "/")

    def _drain(self) -> None:
        """Take in every event queued so far."""
        while events := self._inotify.read():
            for wd, mask, name in events:
                if mask & ino.IN_Q_OVERFLOW:
                    for watched in self._scopes.values():
                        watched.dead = True  # events were lost: every scope is watched anew
                    continue
                for watched in list(self._owners.get(wd, ())):
                    self._event(watched, wd, mask, name)

    def _event(self, watched: _Watched, wd: int, mask: int, name: str) -> None:
        rel = watched.folders.get(wd)
        if rel is None:
            return
        if mask & _GONE:
            watched.changes += 1
            if mask & ino.IN_IGNORED:
                self._drop(watched, wd)
            if rel == "":
                watched.dead = True  # the scope's own folder went
            return
        if not name or name.startswith("."):
            return
        child = rel + name
        if mask & ino.IN_ISDIR:
            if child in watched.excluded:
                return
            watched.changes += 1
            if mask & _APPEARS:
                try:
                    self._add_tree(watched, os.path.join(watched.root, child), child + "/")
                except OSError:
                    watched.dead = True  # cannot be watched whole: the next ask decides
        elif name.endswith(".md") and child != _INDEX_NAME:
            watched.changes += 1

    def _drop(self, watched: _Watched, wd: int) -> None:
        watched.folders.pop(wd, None)
        owners = self._owners.get(wd, [])
        if watched in owners:
            owners.remove(watched)
        if not owners:
            self._owners.pop(wd, None)

    def _forget(self, watched: _Watched) -> None:
        """Stop watching a scope (its folders stay watched for other scopes using them)."""
        if self._scopes.get((watched.root, watched.excluded)) is watched:
            del self._scopes[(watched.root, watched.excluded)]
        for wd in list(watched.folders):
            self._drop(watched, wd)
            if wd not in self._owners:
                self._inotify.remove(wd)


def _walked_folder(entry: os.DirEntry[str], rel: str, excluded: frozenset[str]) -> bool:
    """Whether the rule walk enters ``entry`` (see :mod:`memdir.storage.scope_files`)."""
    if entry.name.startswith(".") or rel in excluded:
        return False
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)  # followed, as the walk opens a linked root
    except OSError:
        return None
    return st.st_dev, st.st_ino


def local_file_system(path: str, *, table: str = "/proc/self/mountinfo") -> bool:
    """Whether ``path`` lies on a local file system of a type inotify sees every change on
    (``table``: the mount table to read)."""
    real = os.path.realpath(path)
    best, kind = "", ""
    try:
        with open(table, encoding="utf-8", errors="replace") as handle:
            lines = handle.readlines()
    except OSError:
        return False  # no mount table to read: not known to be local
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        if len(fields) < 5 or not rest:
            continue
        point = _unescape(fields[4])
        inside = real == point or real.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, rest[0]
    return kind in _LOCAL


def _unescape(field: str) -> str:
    """A mountinfo path: spaces, tabs, line breaks and backslashes come as octal escapes."""
    if "\\" not in field:
        return field
    for code in ("040", "011", "012", "134"):
        field = field.replace("\\" + code, chr(int(code, 8)))
    return field
