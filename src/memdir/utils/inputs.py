"""Which files a computation read, so its answer can be reused until one of them changes.

Working out where a project's memory lives reads a handful of small things:
the git markers from the working directory up, a worktree's pointer files,
the settings files. The per-call hooks would pay for that (and for the
modules that do it) on every tool call, so they remember the answer
(:mod:`memdir.hooks.memo`) together with the state of every file
it depended on. Code that looks at such a file calls :func:`note`;
:func:`record` collects the notes of the computation it wraps, and
:func:`states` / :func:`unchanged` take and compare the files' states.

A file's state is its type, inode, size and mtime (in ns); a directory's is
its type and inode only (a file created in it changes nothing these answers
depend on, and an agent creates files all the time); a symbolic link adds its
target's state. A missing file has the state ``None``, so a file that appears
later is a change as well.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False  # loaded by the per-call hooks: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from contextlib import AbstractContextManager

__all__ = ["note", "note_chain", "record", "state", "states", "unchanged"]

# The open recordings, innermost last (a note goes to all of them). A plain list,
# not a ContextVar (whose import the hooks would pay): recording is for one thread
# at a time; noting is free when nothing records.
_open: list[list[str]] = []


def note(path: str | os.PathLike[str]) -> None:
    """Record that the computation being recorded (if any) looked at ``path``."""
    if _open:
        noted = os.path.abspath(os.fspath(path))
        for seen in _open:
            seen.append(noted)


def note_chain(path: str | os.PathLike[str]) -> None:
    """Note ``path`` and each of its ancestors: what resolving its links depends on."""
    if not _open:
        return
    current = os.path.abspath(os.path.expanduser(os.fspath(path)))
    while True:
        note(current)
        parent = os.path.dirname(current)
        if parent == current:
            return
        current = parent


class _Recorder:
    """``with record() as seen:`` collects into ``seen`` the paths noted inside the block."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __enter__(self) -> list[str]:
        _open.append(self.seen)
        return self.seen

    def __exit__(self, *exc: object) -> None:
        for i in range(len(_open) - 1, -1, -1):
            if _open[i] is self.seen:
                del _open[i]
                return


def record() -> AbstractContextManager[list[str]]:
    """A block whose noted paths are collected (an outer block sees an inner one's too)."""
    return _Recorder()


def state(path: str) -> list[int] | None:
    """The file's state as compared by :func:`unchanged` (None when missing)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.stat(path)
        except OSError:
            return [st.st_mode, st.st_ino, st.st_mtime_ns, -1]
        return [st.st_mode, st.st_ino, st.st_mtime_ns, *_own(target)]
    return _own(st)


def _own(st: os.stat_result) -> list[int]:
    if stat.S_ISDIR(st.st_mode):
        return [st.st_mode, st.st_ino]
    return [st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns]


def _unique(paths: Sequence[str]) -> Iterator[str]:
    seen: set[str] = set()
    for path in paths:
        if path not in seen:
            seen.add(path)
            yield path


def states(paths: Sequence[str]) -> list[list[object]]:
    """``[path, state]`` for each distinct path, in order."""
    return [[path, state(path)] for path in _unique(paths)]


def unchanged(recorded: object) -> bool:
    """Whether every ``[path, state]`` in ``recorded`` still holds (False when malformed)."""
    if not isinstance(recorded, list):
        return False
    for item in recorded:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
            return False
        if state(item[0]) != item[1]:
            return False
    return True
