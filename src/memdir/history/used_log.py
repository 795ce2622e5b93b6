"""The log of what one session used of memory: one small JSONL file per session.

Each session has ``used.jsonl`` in its folder (``<sessions>/<id>/``), one JSON
object per line, each with its time (``t``) and ``event``:

- ``start``: the session-start hook delivered these memories' index lines
  (``refs``); it names the session's transcript when the client passed one;
- ``recall``: per-prompt recall delivered these memories' bodies (``refs``),
  for a query;
- ``read`` / ``write``: the agent read or changed a memory file (``ref``,
  ``tool``, the call's id), found in the session's transcript
  (:mod:`memdir.history.used` appends them when the session is looked at);
- ``synced``: how far the transcript was read (its size and change time), so
  an unchanged transcript is not read again.

Lines are only ever appended, each under the file's own lock (``flock``), so
hooks running side by side neither interleave nor lose one; a reader takes
no lock (a line is written whole) and skips a line that does not parse.

Trigger: derived state in the session's folder, not the history database. Why:
the hooks append at every session start and every recall, in fresh processes;
appending a line to a small file costs them less than opening SQLite.
Outcome: a few hundred bytes per prompt; a lost log loses only the record.
This module loads nothing the hooks do not load already.
"""

from __future__ import annotations

import contextlib
import os
import time

from memdir.errors import MemdirError
from memdir.storage.fs import ensure_dir
from memdir.utils.flock_wait import wait_for_flock
from memdir.utils.json_text import dumps, loads

TYPE_CHECKING = False  # the session-start and recall hooks load this module
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from pathlib import Path
    from typing import Any, Protocol

    from memdir.storage.paths import Layout

    class _Item(Protocol):
        @property
        def ref(self) -> str: ...

    class _Recalled(Protocol):
        @property
        def query(self) -> str: ...
        @property
        def items(self) -> Sequence[_Item]: ...


__all__ = [
    "USED_NAME",
    "append_events",
    "log_path",
    "note_recall",
    "note_start",
    "read_events",
    "session_logs",
    "update_log",
]

USED_NAME = "used.jsonl"
_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
_LOCK_TIMEOUT = 5.0
_QUERY_CHARS = 200


def log_path(layout: Layout, session: str) -> Path:
    """``<sessions>/<session>/used.jsonl``; the id is confined to the sessions folder
    (:class:`~memdir.errors.UnsafePath` otherwise)."""
    return layout.session_dir(session) / USED_NAME


def read_events(path: Path | str) -> list[dict[str, Any]]:
    """Every event of a log, in the order written (lines that do not parse skipped)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except (FileNotFoundError, NotADirectoryError):
        return []
    events = []
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            event = loads(raw.decode("utf-8", "replace"))
        except ValueError:
            continue
        if isinstance(event, dict) and isinstance(event.get("t"), int | float):
            events.append(event)
    return events


def append_events(path: Path, events: Iterable[dict[str, Any]]) -> None:
    """Append ``events`` to the log at ``path`` under its lock, one line each."""
    fresh = list(events)
    if fresh:
        _append(path, lambda: fresh)


def update_log(path: Path, more: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> None:
    """Under the log's lock: read it, ask ``more`` what to add given what it holds, append.

    Raises :class:`~memdir.errors.LockTimeout` when another process holds the lock for
    seconds, and ``OSError`` for a disk problem.
    """
    _append(path, lambda: more(read_events(path)))


def _append(path: Path, added: Callable[[], list[dict[str, Any]]]) -> None:
    """Append what ``added`` returns, asked once the log's lock is held."""
    try:
        fd = os.open(path, _APPEND_FLAGS, 0o600)
    except FileNotFoundError:  # the session's first line: its folder may not exist yet
        ensure_dir(path.parent)
        fd = os.open(path, _APPEND_FLAGS, 0o600)
    try:
        _lock(fd, path)
        data = "".join(dumps(event, ensure_ascii=False) + "\n" for event in added()).encode()
        while data:
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _lock(fd: int, path: Path) -> None:
    """``flock`` the log, waiting up to a few seconds (no lock where there is no flock)."""
    try:
        import fcntl  # noqa: F401  (only whether there is flock)
    except ImportError:  # not POSIX: appends of a line are still whole
        return
    wait_for_flock(
        fd,
        path,
        timeout=_LOCK_TIMEOUT,
        hint="another memdir process is writing this session's log; retry",
    )


def note_start(
    layout: Layout,
    session: str | None,
    refs: Sequence[str],
    *,
    source: str | None = None,
    transcript: str | None = None,
    now: float | None = None,
) -> None:
    """Record what a session start delivered (the memories whose index lines it held).

    Never raises: the record must not cost the session its memory.
    """
    if not session:
        return
    event: dict[str, Any] = {
        "t": round(time.time() if now is None else now, 3),
        "event": "start",
        "refs": list(refs),
    }
    if source:
        event["source"] = source
    if transcript:
        event["transcript"] = transcript
    _quietly(layout, session, event)


def note_recall(
    layout: Layout, session: str | None, result: _Recalled, *, now: float | None = None
) -> None:
    """Record the memories a recall delivered to ``session`` (nothing when none, or no
    session). Never raises: the record must not cost the prompt its memories."""
    if not session or not result.items:
        return
    event = {
        "t": round(time.time() if now is None else now, 3),
        "event": "recall",
        "refs": [item.ref for item in result.items],
        "query": result.query[:_QUERY_CHARS],
    }
    _quietly(layout, session, event)


def _quietly(layout: Layout, session: str, event: dict[str, Any]) -> None:
    # An id that is no folder name, a full disk: the session goes on unrecorded.
    with contextlib.suppress(MemdirError, OSError):
        append_events(log_path(layout, session), [event])


def session_logs(layout: Layout) -> list[tuple[str, Path, float]]:
    """Every session with a log: (id, log path, last change), the latest first."""
    found = []
    try:
        folders = list(os.scandir(layout.sessions_dir))
    except (FileNotFoundError, NotADirectoryError):
        return []
    for folder in folders:
        path = layout.sessions_dir / folder.name / USED_NAME
        try:
            found.append((folder.name, path, path.stat().st_mtime))
        except (FileNotFoundError, NotADirectoryError):
            continue
    return sorted(found, key=lambda item: (-item[2], item[0]))
