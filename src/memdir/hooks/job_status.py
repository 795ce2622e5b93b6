"""The last background jobs of a project, read back for the people who never see them.

The hook jobs (:mod:`memdir.hooks.background`) record each start as
``<state>/hooks/runs/<run-id>.json`` and end with ``<run-id>.done`` beside it (a
:class:`~memdir.hooks.background.JobReport` as JSON). A run id begins with its
start time (``YYYYmmddTHHMMSS-``), so the names sort in start order. A job runs
detached, after the agent has moved on: when it skips or fails, nobody is looking.
This module says so where people do look:

- :func:`last_runs` / :func:`last_run`: newest first, each a :class:`RunStatus`
  (``done``, ``skipped``, ``failed``, or ``running``); a start that never got its
  marker and whose process is gone (killed, or an interpreter that could not even
  import memdir) counts as ``failed``;
- :func:`run_problem`: for ``memdir doctor``, the newest run of the newest session
  that failed, or skipped for a reason the user can fix (no model configured, the
  daily token cap); a skip the user chose (memory disabled, ``provider = "none"``)
  is none;
- :func:`session_notice`: for the session-start hook, the newest such run not seen
  yet and not ``quiet`` (a report whose news was announced already), as one line;
  the runs up to the newest finished one are then seen (its id is remembered in
  ``<state>/hooks/notice.json``), so each is shown once at most. A session's Stop
  and SessionEnd jobs often finish in the same second, in either order: neither
  hides the other's news.
- :func:`prune_runs`: the job keeps only the newest :data:`KEEP_RUNS` records.

The session-start hook calls :func:`notice_for` on every session start, so it
lists one folder and reads one or two small files, and imports nothing the prompt
does not load already (no facade, no stores, not the hook jobs' module, no
dataclasses, typing or pathlib).
"""

from __future__ import annotations

import os
import time

from memdir.storage.fs import atomic_write, pid_alive, read_json_object
from memdir.utils.json_text import dumps
from memdir.utils.records import record

TYPE_CHECKING = False  # not typing's: the session-start hook loads this module
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any, Literal

    from memdir.storage.paths import Layout

    Status = Literal["done", "skipped", "failed", "running"]

__all__ = [
    "KEEP_RUNS",
    "RunStatus",
    "hooks_dir",
    "last_run",
    "last_runs",
    "notice_for",
    "prune_runs",
    "run_problem",
    "session_notice",
]

KEEP_RUNS = 100
# A start without a marker is still running while its process lives (or, in case its
# pid was reused, for at most a day); a coalesced start's process exits at once and its
# marker comes from the job that took its request over, so give that job an hour.
_LOST_AFTER = 3600.0
_SURELY_LOST_AFTER = 86_400.0
_WINDOW = 10  # the newest runs a notice or doctor looks through
_NOTICE_FILE = "notice.json"
_MAX_LINE = 600
_EVENT_NAMES = {"stop": "Stop", "pre-compact": "PreCompact", "session-end": "SessionEnd"}


def hooks_dir(layout: Layout) -> Path:
    """Where hook jobs keep their state: locks, pending requests, logs, markers."""
    return layout.state_dir / "hooks"


@record
class RunStatus:
    """One background run as its files tell it: what happened, why, and the fix."""

    run_id: str
    status: Status
    event: str
    session_id: str
    reason: str = ""
    fix: str = ""
    finished: str = ""
    quiet: bool = False  # its news was announced already (a paused provider, the cap again)

    @property
    def notable(self) -> bool:
        """Worth a line in doctor: a failure, or a skip the user can fix."""
        return self.status == "failed" or (self.status == "skipped" and bool(self.fix))

    @property
    def news(self) -> bool:
        """Worth a line at the next session start: notable, and not said already."""
        return self.notable and not self.quiet

    def describe(self) -> str:
        """One line for people: what the job was, what became of it, why, and the fix."""
        when = self.finished.replace("T", " ") or _started_at(self.run_id)
        hook = _EVENT_NAMES.get(self.event, self.event)
        text = f"background session notes and extraction {self.status} ({hook} hook, {when})"
        if self.reason:
            text += f": {self.reason.rstrip('.')}"
        if self.fix:
            text += f". Fix: {self.fix}"
        text = " ".join(text.split())  # one line, whatever the reason carried
        return text if len(text) <= _MAX_LINE else text[: _MAX_LINE - 1].rstrip() + "…"


def last_runs(runs: Path, *, limit: int = 5) -> list[RunStatus]:
    """The newest ``limit`` runs recorded in ``runs`` (``<hooks>/runs``), newest first."""
    names = _run_ids(runs)[::-1]
    found = [_status(runs, run_id) for run_id in names[:limit]]
    return [status for status in found if status is not None]


def last_run(runs: Path) -> RunStatus | None:
    """The newest run recorded in ``runs``, or ``None`` before the first."""
    found = last_runs(runs, limit=1)
    return found[0] if found else None


def run_problem(layout: Layout) -> RunStatus | None:
    """The newest session's newest run that failed or skipped for a fixable reason.

    A skip the user chose (memory disabled, model steps set to ``none``) is no problem;
    nor is one of an older session, once a newer session's jobs went well.
    """
    runs = last_runs(hooks_dir(layout) / "runs", limit=_WINDOW)
    session = runs[0].session_id if runs else None
    return next((r for r in runs if r.session_id == session and r.notable), None)


def session_notice(project: str | Path, *, env: Mapping[str, str]) -> str | None:
    """The line to show at session start about a background run not seen yet.

    ``None`` when every run since the last notice went well, skipped for no fixable
    reason, or is still running.
    """
    from memdir.config import load_settings
    from memdir.storage.paths import make_layout

    settings = load_settings(env)
    return notice_for(make_layout(settings.home, project, profile=settings.profile, env=env))


def notice_for(layout: Layout) -> str | None:
    """:func:`session_notice` for a layout already at hand."""
    base = hooks_dir(layout)
    shown = (read_json_object(base / _NOTICE_FILE) or {}).get("shown")
    seen = shown if isinstance(shown, str) else ""
    fresh = [r for r in last_runs(base / "runs", limit=_WINDOW) if r.run_id > seen]
    news = next((r for r in fresh if r.news), None)
    if news is None:
        return None
    # Seen: every run up to the newest finished one (a running one may still have news).
    newest = next(r.run_id for r in fresh if r.status != "running")
    atomic_write(base / _NOTICE_FILE, dumps({"shown": newest}) + "\n")
    return f"memdir: {news.describe()}"


def prune_runs(runs: Path, *, keep: int = KEEP_RUNS) -> int:
    """Remove all but the newest ``keep`` runs' records; returns how many went."""
    names = _run_ids(runs)
    old = names[: max(0, len(names) - keep)]
    for run_id in old:
        for suffix in (".done", ".json"):  # the marker first: a start alone reads as lost
            (runs / f"{run_id}{suffix}").unlink(missing_ok=True)
    return len(old)


def _run_ids(runs: Path) -> list[str]:
    """The ids of the starts recorded in ``runs``, oldest first."""
    try:
        with os.scandir(runs) as entries:
            return sorted(e.name[:-5] for e in entries if e.name.endswith(".json"))
    except (FileNotFoundError, NotADirectoryError):
        return []


def _status(runs: Path, run_id: str) -> RunStatus | None:
    done = read_json_object(runs / f"{run_id}.done")
    if done is not None:
        return _from_report(run_id, done)
    start = read_json_object(runs / f"{run_id}.json")
    if start is None:
        return None  # pruned or being written this instant
    event, session = str(start.get("event", "")), str(start.get("session_id", ""))
    if not _lost(runs / f"{run_id}.json", start.get("pid")):
        return RunStatus(run_id=run_id, status="running", event=event, session_id=session)
    log = runs.parent / "logs" / f"{session}.log"
    return RunStatus(
        run_id=run_id,
        status="failed",
        event=event,
        session_id=session,
        reason="the job ended without a report (killed, or memdir could not start)",
        fix=f"its output is in {log}",
    )


def _from_report(run_id: str, data: Mapping[str, Any]) -> RunStatus | None:
    status = data.get("status")
    if status not in ("done", "skipped", "failed"):
        return None
    steps = [str(s) for s in data.get("steps") or ()]
    # Markers written before reasons were recorded: the last step says why.
    reason = str(data.get("reason") or (steps[-1] if steps and status != "done" else ""))
    return RunStatus(
        run_id=run_id,
        status=status,
        event=str(data.get("event", "")),
        session_id=str(data.get("session_id", "")),
        reason=reason,
        fix=str(data.get("fix") or ""),
        finished=str(data.get("finished") or ""),
        quiet=data.get("quiet") is True,
    )


def _lost(start: Path, pid: object) -> bool:
    try:
        age = time.time() - start.stat().st_mtime
    except OSError:
        return False
    if age > _SURELY_LOST_AFTER:
        return True
    if age < _LOST_AFTER:
        return False
    return not _alive(pid)


def _alive(pid: object) -> bool:
    # A process of another user answers alive: someone else's process may now hold
    # the number, and that cannot be told apart, so the job counts as still running.
    return isinstance(pid, int) and pid_alive(pid)


def _started_at(run_id: str) -> str:
    stamp = run_id.split("-", 1)[0]
    if len(stamp) == 15 and stamp[8] == "T":
        return f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]} {stamp[9:11]}:{stamp[11:13]}:{stamp[13:]}"
    return run_id
