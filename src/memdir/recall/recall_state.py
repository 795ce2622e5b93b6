"""What one session has been shown by recall, and the lock that keeps it whole.

A small JSON file per session (``<sessions>/<id>/recall.json``): the refs
surfaced, in order, and the bytes spent against ``recall_session_budget``.
:mod:`memdir.recall.relevant` reads and writes it under :func:`session_lock`,
so separate processes that share a session id never surface one memory twice.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

from memdir.errors import LockTimeout
from memdir.storage.fs import FILE_MODE, atomic_write, ensure_dir, file_lock, read_json_object
from memdir.storage.paths import Layout
from memdir.utils.records import record

__all__ = [
    "STATE_NAME",
    "SessionState",
    "load_state",
    "read_session_state",
    "save_state",
    "session_lock",
    "session_state_path",
]

STATE_NAME = "recall.json"
_STATE_VERSION = 1


@record
class SessionState:
    """What one session has been shown (refs, in order) and the bytes it spent."""

    surfaced: tuple[str, ...] = ()
    bytes_used: int = 0


def session_state_path(layout: Layout, session_id: str) -> Path:
    """``<sessions>/<session-id>/recall.json``; the id is confined to the sessions folder."""
    return layout.session_dir(session_id) / STATE_NAME


def load_state(path: Path) -> SessionState:
    # A damaged state file only throttles recall; refusing to recall would hurt
    # more than showing a memory twice, so it means starting over.
    data = read_json_object(path)
    if data is None:
        return SessionState()
    surfaced = data.get("surfaced", [])
    used = data.get("bytes_used", 0)
    return SessionState(
        surfaced=tuple(str(r) for r in surfaced) if isinstance(surfaced, list) else (),
        bytes_used=used if isinstance(used, int) and used >= 0 else 0,
    )


def read_session_state(layout: Layout, session_id: str) -> SessionState:
    """The recall state of a session (empty when it has none yet)."""
    return load_state(session_state_path(layout, session_id))


def save_state(path: Path, state: SessionState) -> None:
    data = {
        "version": _STATE_VERSION,
        "surfaced": list(state.surfaced),
        "bytes_used": state.bytes_used,
    }
    # Derived state, written on every prompt that recalls: lost to a crash, a memory may
    # be shown to this session again; an fsync would cost each of those prompts more.
    atomic_write(path, json.dumps(data, indent=1) + "\n", durable=False)


@contextlib.contextmanager
def session_lock(path: Path, *, timeout: float) -> Iterator[None]:
    """Hold ``path`` locked (``flock``) while a session's state is read and written.

    Recall runs before every prompt, and importing ``filelock`` (what
    :func:`~memdir.storage.fs.file_lock` uses) costs more than the rest of a
    small recall; on POSIX its lock is this same ``flock`` on this file, taken
    here directly. Only recall takes this lock. Elsewhere the shared helper is used.
    """
    try:
        import fcntl
    except ImportError:  # not POSIX
        with file_lock(path, timeout=timeout):
            yield
        return
    ensure_dir(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeout(
                        f"could not take the lock within {timeout:g} s",
                        path=path,
                        hint="another memdir process is recalling for this session; retry",
                    ) from None
                time.sleep(0.002)  # a recall holds it for milliseconds
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
