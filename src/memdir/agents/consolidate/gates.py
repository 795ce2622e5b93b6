"""Consolidation's gates and its lock.

Gates run cheapest first, and a later one is not evaluated when an earlier
one fails: enabled (the caller's boolean), time since the last run (a stat),
the scan throttle (a small state file), sessions since the last run (a folder
listing), the lock (a write). Each is a pure function of what it is given,
returning a :class:`GateCheck`; :mod:`memdir.agents.consolidate.run` decides the order.

Sessions are counted by id from session-notes folders
(``<project_dir>/sessions/<id>/``) and transcripts (``<project_dir>/<id>.jsonl``,
where Claude Code keeps them) changed after the last run; an id found in both
counts once, and the current session never counts.

``<memory_dir>/.consolidate-lock`` does two jobs, as in Claude Code (whose
profile shares the file): its mtime is the time of the last consolidation,
and its body is the PID of the process running one now. The lock is *held*
when its mtime is younger than the stale limit (an hour) and that PID is
alive; otherwise anyone may take it over.

Acquiring writes our PID (atomically), stamps the mtime with the caller's
clock and reads the PID back: a writer that is not memdir (a coding agent's
own consolidation) may race us, and the read-back tells who won. Among memdir
processes the check-and-write runs under an inter-process mutex in the
derived-state folder, so two of them never both win. A finished run clears
the PID and keeps the mtime (the new "last run"); a failed or cancelled run
puts the old mtime back, or removes the file if it was new, so the next
attempt is not pushed back a day.

The scan throttle's last time lives in ``<state_dir>/consolidate.json``:
derived state, so losing it only allows one early scan.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from memdir.config import Settings
from memdir.history.project import ProjectMemory
from memdir.storage.fs import atomic_write, file_lock, pid_alive, read_json_object
from memdir.storage.paths import Layout

__all__ = [
    "LOCK_NAME",
    "MUTEX_NAME",
    "STATE_NAME",
    "Gate",
    "GateCheck",
    "GateStatus",
    "Lease",
    "LockAttempt",
    "LockState",
    "acquire_lock",
    "as_datetime",
    "clock",
    "consolidation_status",
    "count_sessions",
    "enabled_gate",
    "gate_steps",
    "last_run",
    "lock_gate",
    "lock_path",
    "read_last_scan",
    "read_lock",
    "read_memdir_lock",
    "release_lock",
    "rollback_lock",
    "sessions_gate",
    "stale_limit",
    "state_path",
    "take_lock",
    "throttle_gate",
    "time_gate",
    "write_last_scan",
]

LOCK_NAME = ".consolidate-lock"
MUTEX_NAME = "consolidate.lock"
STATE_NAME = "consolidate.json"
_MUTEX_TIMEOUT = 30.0


@dataclass(frozen=True, kw_only=True)
class LockState:
    """What the lock file says: the last run (its mtime) and the holder, if any.

    ``mtime`` is ``None`` when there is no lock file (never consolidated);
    ``held`` means a live process took it less than the stale limit ago.
    """

    path: Path
    mtime: float | None
    holder: int | None
    holder_alive: bool
    held: bool


@dataclass(frozen=True, kw_only=True)
class Lease:
    """A lock we hold: what to restore if the run fails."""

    path: Path
    pid: int
    acquired_at: float
    prior_mtime: float | None  # None: the file is ours alone, remove it on failure


@dataclass(frozen=True, kw_only=True)
class LockAttempt:
    """The outcome of :func:`acquire_lock`: a lease, or the state that refused us."""

    lease: Lease | None
    seen: LockState


def _read_pid(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    # isdecimal, not isdigit: int() refuses digits such as "²" that isdigit accepts.
    return int(text) if text.isdecimal() else None


def read_lock(path: Path, *, now: dt.datetime, stale_after: dt.timedelta) -> LockState:
    """The lock's state at ``now``; reading never changes it."""
    try:
        mtime: float | None = path.stat().st_mtime
    except FileNotFoundError:
        mtime = None
    holder = _read_pid(path) if mtime is not None else None
    alive = holder is not None and pid_alive(holder)
    fresh = mtime is not None and now.timestamp() - mtime < stale_after.total_seconds()
    return LockState(
        path=path, mtime=mtime, holder=holder, holder_alive=alive, held=fresh and alive
    )


def acquire_lock(
    path: Path,
    *,
    now: dt.datetime,
    stale_after: dt.timedelta,
    mutex: Path,
    pid: int | None = None,
) -> LockAttempt:
    """Take the lock for ``pid`` (default: this process), unless a live holder has it.

    The mtime becomes ``now``: from here on it is the last-run time.
    """
    pid = os.getpid() if pid is None else pid
    with file_lock(mutex, timeout=_MUTEX_TIMEOUT):
        seen = read_lock(path, now=now, stale_after=stale_after)
        if seen.held:
            return LockAttempt(lease=None, seen=seen)
        atomic_write(path, f"{pid}\n")
        stamp = now.timestamp()
        os.utime(path, (stamp, stamp))
        # Trigger: a process outside memdir may write this file too.
        # Why: the mutex only orders memdir's own processes.
        # Outcome: whoever's PID is in the file after our write owns the lock.
        if _read_pid(path) != pid:
            return LockAttempt(lease=None, seen=read_lock(path, now=now, stale_after=stale_after))
    lease = Lease(path=path, pid=pid, acquired_at=stamp, prior_mtime=seen.mtime)
    return LockAttempt(lease=lease, seen=seen)


def release_lock(lease: Lease) -> None:
    """End a successful run: clear the PID, keep the acquisition time as the last run."""
    if _read_pid(lease.path) != lease.pid:
        return  # taken over as stale meanwhile: the file is someone else's now
    _clear(lease.path, mtime=lease.acquired_at)


def rollback_lock(lease: Lease) -> None:
    """End a failed or cancelled run: restore the previous mtime, or remove a new file."""
    if _read_pid(lease.path) != lease.pid:
        return
    if lease.prior_mtime is None:
        with contextlib.suppress(FileNotFoundError):
            lease.path.unlink()
        return
    _clear(lease.path, mtime=lease.prior_mtime)


def _clear(path: Path, *, mtime: float) -> None:
    """Empty the lock (no holder) and set its mtime, the last-run time."""
    atomic_write(path, "")
    os.utime(path, (mtime, mtime))


def read_last_scan(state_path: Path) -> float | None:
    """When sessions were last counted (epoch seconds), or ``None``."""
    value = (read_json_object(state_path) or {}).get("last_scan")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def write_last_scan(state_path: Path, when: dt.datetime) -> None:
    """Remember that sessions were counted at ``when``."""
    atomic_write(state_path, json.dumps({"last_scan": when.timestamp()}) + "\n")


# --- gates ------------------------------------------------------------------------


class Gate(StrEnum):
    """The gates in the order they run, cheapest first."""

    ENABLED = "enabled"
    TIME = "time"
    THROTTLE = "throttle"
    SESSIONS = "sessions"
    LOCK = "lock"


@dataclass(frozen=True, kw_only=True)
class GateCheck:
    """One gate's verdict and, in words, why."""

    gate: Gate
    passed: bool
    detail: str


def enabled_gate(enabled: bool) -> GateCheck:
    """Memory must be on (MEMDIR_DISABLE off, the setting on): the caller decides."""
    detail = "memory is enabled" if enabled else "memory is disabled (MEMDIR_DISABLE or settings)"
    return GateCheck(gate=Gate.ENABLED, passed=enabled, detail=detail)


def time_gate(last_run: float | None, *, now: dt.datetime, min_hours: float) -> GateCheck:
    """At least ``min_hours`` since the last run (a project never consolidated passes)."""
    if last_run is None:
        return GateCheck(gate=Gate.TIME, passed=True, detail="never consolidated")
    hours = (now.timestamp() - last_run) / 3600
    passed = hours >= min_hours
    verb = "passes" if passed else "needs"
    return GateCheck(
        gate=Gate.TIME,
        passed=passed,
        detail=f"{hours:.1f} h since the last run ({verb} {min_hours:g} h)",
    )


def throttle_gate(last_scan: float | None, *, now: dt.datetime, minutes: float) -> GateCheck:
    """Sessions are counted at most once every ``minutes``."""
    if last_scan is None:
        return GateCheck(gate=Gate.THROTTLE, passed=True, detail="sessions never counted")
    since = (now.timestamp() - last_scan) / 60
    passed = since >= minutes
    return GateCheck(
        gate=Gate.THROTTLE,
        passed=passed,
        detail=f"sessions counted {since:.1f} min ago (at most every {minutes:g} min)",
    )


def sessions_gate(count: int, *, minimum: int) -> GateCheck:
    """At least ``minimum`` sessions since the last run."""
    return GateCheck(
        gate=Gate.SESSIONS,
        passed=count >= minimum,
        detail=f"{count} sessions since the last run (needs {minimum})",
    )


def lock_gate(state: LockState, *, acquired: bool | None = None) -> GateCheck:
    """The lock: ``acquired`` by us (or, when ``None``, merely free), or held by a live process."""
    if acquired:
        return GateCheck(gate=Gate.LOCK, passed=True, detail="lock acquired")
    if acquired is None and not state.held:
        stale = f" (PID {state.holder} is stale)" if state.holder is not None else ""
        return GateCheck(gate=Gate.LOCK, passed=True, detail=f"lock free{stale}")
    return GateCheck(
        gate=Gate.LOCK,
        passed=False,
        detail=f"another consolidation is running (PID {state.holder})",
    )


def count_sessions(layout: Layout, *, since: float | None, exclude: str | None = None) -> int:
    """Sessions (by id) whose notes or transcript changed after ``since``."""
    found: set[str] = set()
    for session_id, mtime in _session_times(layout):
        if session_id != exclude and (since is None or mtime > since):
            found.add(session_id)
    return len(found)


def _session_times(layout: Layout) -> list[tuple[str, float]]:
    times: list[tuple[str, float]] = []
    with contextlib.suppress(OSError):
        for folder in layout.sessions_dir.iterdir():
            if folder.is_dir() and not folder.name.startswith("."):
                notes = folder / "session-memory" / "summary.md"
                times.append((folder.name, max(_mtimes(folder, notes), default=0.0)))
    with contextlib.suppress(OSError):
        for transcript in layout.project_dir.glob("*.jsonl"):
            times.extend((transcript.stem, m) for m in _mtimes(transcript))
    return times


def _mtimes(*paths: Path) -> list[float]:
    out = []
    for path in paths:
        with contextlib.suppress(OSError):
            out.append(path.stat().st_mtime)
    return out


# --- the gates of one memory directory ---------------------------------------------


@dataclass(frozen=True, kw_only=True)
class GateStatus:
    """Every gate at ``now``, read without changing anything.

    ``checks`` holds all five verdicts in gate order; :attr:`blocked_by` is the
    first that fails.
    """

    now: dt.datetime
    enabled: bool
    last_run: dt.datetime | None
    hours_since: float | None
    min_hours: float
    last_scan: dt.datetime | None
    throttle_minutes: float
    sessions_since: int
    min_sessions: int
    lock_holder: int | None
    holder_alive: bool
    lock_held: bool
    checks: tuple[GateCheck, ...]

    @property
    def blocked_by(self) -> Gate | None:
        """The first gate that fails, or ``None`` when a run would start."""
        return next((check.gate for check in self.checks if not check.passed), None)

    @property
    def ready(self) -> bool:
        return self.blocked_by is None


def clock(now: dt.datetime | None) -> dt.datetime:
    """``now``, or the current time (aware, UTC)."""
    return dt.datetime.now(dt.UTC) if now is None else now


def as_datetime(stamp: float | None) -> dt.datetime | None:
    """Epoch seconds as an aware UTC datetime."""
    return None if stamp is None else dt.datetime.fromtimestamp(stamp, dt.UTC)


def lock_path(memdir: ProjectMemory) -> Path:
    """``<memory_dir>/.consolidate-lock``."""
    return memdir.layout.memory_dir / LOCK_NAME


def state_path(memdir: ProjectMemory) -> Path:
    """Where the scan throttle's last time is kept (derived state)."""
    return memdir.layout.state_dir / STATE_NAME


def stale_limit(settings: Settings) -> dt.timedelta:
    """How old a lock may be before anyone may take it over."""
    return dt.timedelta(minutes=settings.consolidate_lock_stale_minutes)


def last_run(memdir: ProjectMemory) -> float | None:
    """The last consolidation (the lock's mtime), or ``None``: one stat."""
    try:
        return lock_path(memdir).stat().st_mtime
    except FileNotFoundError:
        return None


def read_memdir_lock(memdir: ProjectMemory, now: dt.datetime) -> LockState:
    """The consolidation lock of ``memdir`` at ``now``."""
    return read_lock(lock_path(memdir), now=now, stale_after=stale_limit(memdir.settings))


def take_lock(memdir: ProjectMemory, now: dt.datetime) -> LockAttempt:
    """Try to take the memory directory's consolidation lock at ``now``."""
    return acquire_lock(
        lock_path(memdir),
        now=now,
        stale_after=stale_limit(memdir.settings),
        mutex=memdir.layout.lock_dir / MUTEX_NAME,
    )


def consolidation_status(
    memdir: ProjectMemory,
    *,
    now: dt.datetime | None = None,
    current_session: str | None = None,
    enabled: bool = True,
) -> GateStatus:
    """The state of every gate at ``now``; nothing is written (not even the scan time)."""
    now, settings = clock(now), memdir.settings
    lock = read_memdir_lock(memdir, now)
    last_scan = read_last_scan(state_path(memdir))
    sessions = count_sessions(memdir.layout, since=lock.mtime, exclude=current_session)
    checks = (
        enabled_gate(enabled),
        time_gate(lock.mtime, now=now, min_hours=settings.consolidate_min_hours),
        throttle_gate(last_scan, now=now, minutes=settings.consolidate_scan_throttle_minutes),
        sessions_gate(sessions, minimum=settings.consolidate_min_sessions),
        lock_gate(lock),
    )
    return GateStatus(
        now=now,
        enabled=enabled,
        last_run=as_datetime(lock.mtime),
        hours_since=None if lock.mtime is None else (now.timestamp() - lock.mtime) / 3600,
        min_hours=settings.consolidate_min_hours,
        last_scan=as_datetime(last_scan),
        throttle_minutes=settings.consolidate_scan_throttle_minutes,
        sessions_since=sessions,
        min_sessions=settings.consolidate_min_sessions,
        lock_holder=lock.holder,
        holder_alive=lock.holder_alive,
        lock_held=lock.held,
        checks=checks,
    )


def gate_steps(
    memdir: ProjectMemory,
    now: dt.datetime,
    *,
    force: bool,
    enabled: bool,
    current_session: str | None,
) -> Iterator[Callable[[], GateCheck]]:
    """The gates before the lock, as thunks: each runs only if every earlier one passed."""
    settings = memdir.settings
    yield lambda: enabled_gate(enabled)
    if force:
        return
    previous = last_run(memdir)
    yield lambda: time_gate(previous, now=now, min_hours=settings.consolidate_min_hours)
    yield lambda: throttle_gate(
        read_last_scan(state_path(memdir)),
        now=now,
        minutes=settings.consolidate_scan_throttle_minutes,
    )

    def sessions() -> GateCheck:
        write_last_scan(state_path(memdir), now)  # the throttle counts scans, not runs
        count = count_sessions(memdir.layout, since=previous, exclude=current_session)
        return sessions_gate(count, minimum=settings.consolidate_min_sessions)

    yield sessions
