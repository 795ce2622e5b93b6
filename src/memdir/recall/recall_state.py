"""What one session has been shown by recall, and the lock that keeps it whole.

A small JSON file per session (``<sessions>/<id>/recall.json``): the refs
surfaced, in order, and the bytes spent against ``recall_session_budget``.
:mod:`memdir.recall.relevant` reads and writes it under :func:`session_lock`,
so separate processes that share a session id never surface one memory twice.

A memory counts as seen once it reached the agent, not once it was chosen.
A hook prints what it recalled in the process that saved it; the hook server
(:mod:`memdir.hooks.server`) sends it to another process, and could die, or
find that process gone, in between. So the server runs a request under
:func:`held_saves`: what recall saves is kept back, and written
(:meth:`HeldSaves.commit`) only once the answer is in the hook's socket, as
what it adds to the seen-list as it then stands (another process may have
added to it meanwhile). A server killed before that leaves the list as it
was: the memory is offered again at the next prompt, never lost for the
session.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

from memdir.errors import LockTimeout
from memdir.storage.fs import FILE_MODE, atomic_write, ensure_dir, file_lock, read_json_object
from memdir.storage.paths import Layout
from memdir.utils.flock_wait import wait_for_flock
from memdir.utils.records import record

__all__ = [
    "LOCK_NAME",
    "STATE_NAME",
    "HeldSaves",
    "SessionState",
    "held_saves",
    "load_state",
    "read_session_state",
    "save_state",
    "session_lock",
    "session_state_path",
]

STATE_NAME = "recall.json"
LOCK_NAME = "recall.lock"  # beside the state: what session_lock is given
_STATE_VERSION = 1
_COMMIT_WAIT = 5.0  # seconds a held save waits for the session's lock; then it is dropped


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


def save_state(path: Path, state: SessionState, *, since: SessionState | None = None) -> None:
    """Write ``state``, what the session has seen now (read as ``since`` under the lock).

    Under :func:`held_saves` it is kept back instead, until the answer is delivered.
    """
    held = _HELD.get()
    if held is not None:
        held.keep(path, state, since or SessionState())
        return
    _write_state(path, state)


def _write_state(path: Path, state: SessionState) -> None:
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
        import fcntl  # noqa: F401  (only whether there is flock)
    except ImportError:  # not POSIX
        with file_lock(path, timeout=timeout):
            yield
        return
    ensure_dir(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)
    try:
        wait_for_flock(
            fd,
            path,
            timeout=timeout,
            hint="another memdir process is recalling for this session; retry",
        )
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


class HeldSaves:
    """Seen-list saves kept back until the answer that shows those memories is delivered."""

    def __init__(self) -> None:
        self._saves: list[tuple[Path, SessionState, SessionState]] = []

    def keep(self, path: Path, state: SessionState, since: SessionState) -> None:
        """Hold the save of ``state`` (``since``: the state it was made from)."""
        self._saves.append((path, state, since))

    @property
    def pending(self) -> int:
        """Saves held and not yet committed or dropped."""
        return len(self._saves)

    def commit(self) -> None:
        """Write what each held save added to its session's list as the list stands now.

        A lock that stays busy or a full disk drops the save: the memory may be
        shown to that session again, which is the side to err on.
        """
        saves, self._saves = self._saves, []
        for path, state, since in saves:
            lock = path.with_name(LOCK_NAME)
            with (
                contextlib.suppress(LockTimeout, OSError),
                session_lock(lock, timeout=_COMMIT_WAIT),
            ):
                _write_state(path, _added(load_state(path), state, since))

    def drop(self) -> None:
        """Forget the held saves: what they would have counted was never delivered."""
        self._saves = []


def _added(now: SessionState, state: SessionState, since: SessionState) -> SessionState:
    """``now`` plus what ``state`` added to ``since``: the refs, and the bytes."""
    before, have = set(since.surfaced), set(now.surfaced)
    new = tuple(ref for ref in state.surfaced if ref not in before and ref not in have)
    spent = max(state.bytes_used - since.bytes_used, 0)
    return SessionState(surfaced=(*now.surfaced, *new), bytes_used=now.bytes_used + spent)


_HELD: ContextVar[HeldSaves | None] = ContextVar("memdir_held_saves", default=None)


@contextlib.contextmanager
def held_saves() -> Iterator[HeldSaves]:
    """Within the block, :func:`save_state` holds its saves in what this yields.

    The caller commits them once what recall returned has reached the agent, or
    drops them; saves not committed are never written.
    """
    held = HeldSaves()
    token = _HELD.set(held)
    try:
        yield held
    finally:
        _HELD.reset(token)
