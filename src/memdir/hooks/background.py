"""Coding-agent hooks: the background memory work at stop and pre-compact.

Claude Code runs a hook command with a JSON object on stdin (``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name``, and ``source`` or
``trigger``). Two kinds of hook live here:

- **session start** (:mod:`memdir.hooks.session_start`, re-exported
  here) returns the memory section in the shape Claude Code adds to the
  context; this module imports the facade, filelock and subprocess only where
  the background jobs use them;
- **stop**, **pre-compact** and **session-end** start a detached background
  process (``python -m memdir.hooks.background run ...``, its own session,
  output to a log under the state folder) and return at once: the agent never
  waits for a model call (Claude Code gives its SessionEnd hooks about 1.5 s).

The background job reads the transcript, then updates the session notes and
runs extraction through :class:`~memdir.agents.host.MemoryHost`. It runs by
itself, so it uses only the provider memdir's settings or ``MEMDIR_PROVIDER``
name (a key in the environment is not consent, see
:func:`memdir.llm.factory.provider_from_env`); without one it records that it
skipped the model steps, with the fix. Its model calls go through the daily cap
(:mod:`memdir.llm.spend`): each is recorded in the day's ledger, and once the day's
spend reaches ``daily_token_cap`` the job stops, skipped with that reason and the fix,
announced at the next session start the first time in a day only. A ``claude-code``
provider that failed lately is paused: the job skips, unannounced (the failure was),
though ``memdir doctor`` still says why. Such a report is ``quiet``.

A process whose environment carries the child marker
(:data:`memdir.llm.claude_code.CHILD_ENV`: it runs inside memdir's own ``claude -p``)
starts no job: :func:`main` returns at once, as the hook commands do.

One job per session at a time: a job that finds the session's lock taken leaves its
request in a pending file and exits; the holder runs the pending request as one
trailing run before it lets go. A start is recorded in
``<state>/hooks/runs/<run-id>.json`` (with the pid); every job, run or coalesced,
ends with a completion marker ``<run-id>.done`` beside it (a :class:`JobReport` as JSON), which
:mod:`memdir.hooks.job_status` reads back for ``memdir doctor`` and for
the one line the next session start shows when a job failed or skipped.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from memdir.errors import ConfigError, MemdirError
from memdir.hooks.job_status import hooks_dir
from memdir.hooks.payload import HookInput
from memdir.hooks.session_start import project_prompt, session_start_output
from memdir.storage.claude import slugify
from memdir.storage.fs import FILE_MODE, atomic_write, ensure_dir, file_lock, read_json_object

# The session-start hook runs before click and the facade load (see
# memdir.hooks.entry): what only the stop and pre-compact jobs use
# (the facade and its stores, filelock, subprocess) is imported where it is used.
if TYPE_CHECKING:
    import subprocess

    from memdir.agents.host import MemoryHost
    from memdir.api import Memdir
    from memdir.llm.base import Provider

__all__ = [
    "EVENTS",
    "BackgroundRun",
    "JobReport",
    "JobRequest",
    "hooks_dir",
    "main",
    "project_prompt",
    "run_job",
    "run_serialised",
    "session_start_output",
    "start_background",
]

Event = Literal["stop", "pre-compact", "session-end"]
EVENTS: tuple[Event, ...] = ("stop", "pre-compact", "session-end")
_CHILD_ENV = "MEMDIR_CHILD"  # memdir.llm.claude_code.CHILD_ENV, without loading the model layer
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_NO_MODEL = "no model configured for background work"
_MODEL_OFF = "model steps are off (provider none): session notes and extraction skipped"
_PAUSED_FIX = (
    "check that `claude -p hello` works in this project; the next job after the pause tries again"
)
_CHECK_MODEL = (
    "check the model settings (MEMDIR_PROVIDER, MEMDIR_MODEL, and the provider's key or URL)"
)


# -- stop / pre-compact: the detached start ----------------------------------------------


@dataclass(frozen=True, kw_only=True)
class BackgroundRun:
    """A background job just started: its id, process, and where its marker will be."""

    run_id: str
    pid: int
    marker: Path
    log: Path
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False, compare=False)


def _check_session(session_id: str | None) -> str:
    if not session_id or not _SESSION_ID.match(session_id):
        raise ConfigError(
            f"the hook input has no usable session_id ({session_id!r})",
            hint="session ids are letters, digits, '.', '_' and '-'",
        )
    return session_id


def _check_run_id(run_id: str) -> str:
    # It names files under runs/: a run id is never a path.
    if not _SESSION_ID.match(run_id):
        raise ConfigError(f"invalid run id {run_id!r}", hint="run ids come from memdir itself")
    return run_id


def start_background(
    event: Event,
    payload: HookInput,
    *,
    env: Mapping[str, str],
    python: str = sys.executable,
    keep_process: bool = False,
) -> BackgroundRun:
    """Start the job for ``event`` detached from the agent, and return without waiting.

    ``keep_process`` keeps the :class:`subprocess.Popen` handle in the result
    (to wait on it); by default it is let go, as the job outlives the hook.
    """
    import subprocess
    import uuid
    import warnings

    from memdir.api import Memdir

    session_id = _check_session(payload.session_id)
    mem = Memdir.open(payload.cwd or ".", env=env)
    base = hooks_dir(mem.layout)
    run_id = f"{dt.datetime.now():%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:8]}"
    log_path = ensure_dir(base / "logs") / f"{session_id}.log"
    command = [
        python,
        "-m",
        "memdir.hooks.background",
        "run",
        f"--event={event}",
        f"--session={session_id}",
        f"--project={payload.cwd or mem.layout.project_root}",
        f"--run-id={run_id}",
    ]
    if payload.transcript_path:
        command.append(f"--transcript={payload.transcript_path}")
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
    with os.fdopen(fd, "ab") as log:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            env=dict(env),
            cwd=str(mem.layout.project_root),
            start_new_session=True,  # survives the agent's process group; no terminal signals
            close_fds=True,
        )
    pid = process.pid
    started = {"run_id": run_id, "pid": pid, "event": event, "session_id": session_id}
    atomic_write(base / "runs" / f"{run_id}.json", json.dumps(started) + "\n")
    kept = process if keep_process else None
    if not keep_process:
        # Trigger: dropping the handle of a child that is still running. Why: Popen
        # then warns (ResourceWarning), but outliving the hook is this job's purpose.
        # Outcome: let go of it here, with that one warning silenced.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)
            del process
    return BackgroundRun(
        run_id=run_id, pid=pid, marker=base / "runs" / f"{run_id}.done", log=log_path, process=kept
    )


# -- the background job ------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class JobReport:
    """What one background job did: ``done``, ``skipped`` or ``failed``, and its steps.

    A job that skipped or failed says why (``reason``) and, where the user can do
    something about it, what (``fix``).
    """

    status: Literal["done", "skipped", "failed"]
    event: str
    session_id: str
    steps: tuple[str, ...] = ()
    run_ids: tuple[str, ...] = ()
    finished: str = ""
    reason: str = ""
    fix: str = ""
    quiet: bool = False  # not announced at session start: the same news was, already


@dataclass(frozen=True, kw_only=True)
class _Outcome:
    """What the model steps of a job came to (``done`` with no reason when all went well)."""

    status: Literal["done", "skipped", "failed"] = "done"
    steps: tuple[str, ...] = ()
    reason: str = ""
    fix: str = ""
    quiet: bool = False


@dataclass(frozen=True, kw_only=True)
class JobRequest:
    """One request for a job; ``run_ids`` are the starts it answers (coalesced ones too)."""

    event: Event
    session_id: str
    project: str
    transcript: str | None
    run_ids: tuple[str, ...]


def run_job(
    *,
    event: Event,
    session_id: str,
    project: str | Path,
    transcript: str | Path | None,
    env: Mapping[str, str],
    provider: Provider | Literal["env"] | None = "env",
    run_id: str = "",
) -> JobReport:
    """Read the transcript and run session notes + extraction; never raises memdir errors.

    ``provider="env"``: the one memdir's settings or ``MEMDIR_PROVIDER`` name, never
    one guessed from the environment; none named, the job is skipped with the fix.
    ``run_id`` names the run in the spend ledger.
    """
    from memdir.api import Memdir
    from memdir.transcripts.reader import read_transcript

    steps: list[str] = []

    def report(
        status: Literal["done", "skipped", "failed"],
        reason: str,
        fix: str = "",
        quiet: bool = False,
    ) -> JobReport:
        note = f"{reason}: {fix}" if fix else reason
        return JobReport(
            status=status,
            event=event,
            session_id=session_id,
            steps=(*steps, note),
            reason=reason,
            fix=fix,
            quiet=quiet,
        )

    try:
        mem = Memdir.open(project, env=env)
        if not mem.enabled:
            return report("skipped", "memory is disabled")
        if provider == "env" and not mem.settings.provider:
            return report("skipped", _NO_MODEL, _configure_hint(env))
        path = find_transcript(transcript, session_id=session_id, cwd=project, env=env)
        if path is None:
            return report("skipped", "no transcript found for this session")
        turns = list(read_transcript(path).turns)
        steps.append(f"read {len(turns)} turns from the transcript")
        model = _background_provider(mem, env) if provider == "env" else provider
        if model is None:
            return report("skipped", _MODEL_OFF)
        try:
            outcome = _capped_steps(
                mem, model, env, run_id=run_id, session_id=session_id, event=event,
                turns=turns, transcript=path,
            )  # fmt: skip
        finally:
            if provider == "env":
                _close(model)
        steps.extend(outcome.steps)
        if outcome.status != "done":
            return report(outcome.status, outcome.reason, outcome.fix, outcome.quiet)
    except MemdirError as exc:
        return report("failed", exc.message, _fix_for(exc))
    return JobReport(status="done", event=event, session_id=session_id, steps=tuple(steps))


def _configure_hint(env: Mapping[str, str]) -> str:
    from memdir.config import config_path

    return (
        f"set MEMDIR_PROVIDER=anthropic (uses ANTHROPIC_API_KEY) or provider in "
        f'{config_path(env)} (provider = "none" turns model steps off quietly)'
    )


def _fix_for(exc: MemdirError) -> str:
    where = f" ({exc.path})" if exc.path and exc.path not in exc.message else ""
    return (exc.hint or "see the message above") + where


def _background_provider(mem: Memdir, env: Mapping[str, str]) -> Provider | None:
    # Imported here: the hook commands load this module and must answer fast;
    # only the background job needs the model layer.
    from memdir.llm.factory import provider_from_settings

    return provider_from_settings(mem.settings, env, unattended=True, layout=mem.layout)


def _capped_steps(
    mem: Memdir,
    model: Provider,
    env: Mapping[str, str],
    *,
    run_id: str,
    session_id: str,
    event: Event,
    turns: Sequence[Any],
    transcript: Path,
) -> _Outcome:
    """The model steps under the daily cap, each call recorded; what they came to."""
    from memdir.history.provenance import provenance
    from memdir.llm.claude_code import ClaudeCodeProvider
    from memdir.llm.spend import CappedProvider, SpendLedger

    if isinstance(model, ClaudeCodeProvider) and (paused := model.paused_reason()):
        # The failure behind the pause was announced; doctor still says it.
        return _Outcome(status="skipped", reason=paused, fix=_PAUSED_FIX, quiet=True)
    ledger = SpendLedger.for_env(env)
    ledger.prune()
    project = str(mem.layout.project_root)
    cap = mem.settings.daily_token_cap
    capped = CappedProvider(model, ledger, cap=cap, project=project, run=run_id)
    # What the background work writes rests on this transcript (`memdir why` reads it).
    with provenance(route="hook", session=session_id, transcript=str(transcript)):
        done, failure = _model_steps(mem, capped, session_id, event, turns)
    # Only a job that wanted a model call counts as stopped: one with nothing due is not.
    stopped = capped.stopped
    if stopped is not None:
        spent = ledger.day().tokens
        first = ledger.mark_capped(cap=cap, spent=spent, project=project, run=run_id)
        # Announced once a day: the later stops are quiet.
        return _Outcome(
            status="skipped", steps=tuple(done), reason=stopped, fix=_cap_fix(env), quiet=not first
        )
    if failure is not None:
        return _Outcome(status="failed", steps=tuple(done), reason=failure, fix=_CHECK_MODEL)
    return _Outcome(steps=tuple(done))


def _cap_fix(env: Mapping[str, str]) -> str:
    from memdir.config import config_path

    return f"raise daily_token_cap in {config_path(env)} (0: no cap), or wait until tomorrow"


def _close(provider: Provider) -> None:
    close = getattr(provider, "close", None)  # the embedded model stops its server
    if callable(close):
        close()


def _model_steps(
    mem: Memdir, provider: Provider, session_id: str, event: Event, turns: Sequence[Any]
) -> tuple[list[str], str | None]:
    """The steps run, and the first provider failure among them (``None``: none failed)."""
    from memdir.agents.host import MemoryHost

    with MemoryHost(mem, provider, session_id) as host:
        if event == "pre-compact":
            # Compaction is about to drop messages: bring the notes up to date now.
            host.notes.update(turns)
            if host.extractor.should_run(turns):
                host.extractor.extract(turns)
        elif event == "session-end":
            # The last chance: notes that exist get what is new (the update runs no
            # model when nothing is); a session too short to have notes gets them
            # only when their trigger says so.
            if host.notes.read() is not None or host.notes.should_update(turns):
                host.notes.update(turns)
            if host.extractor.should_run(turns):
                host.extractor.extract(turns)
        else:
            host.after_turn(turns)
    steps = [
        f"session notes {'updated' if u.accepted else 'update rejected'}"
        for u in host.notes_updates
    ]
    steps += [r.message for r in host.extractions]
    return (
        steps or ["nothing was due (session notes and extraction triggers not met)"],
        _provider_failure(host),
    )


def _provider_failure(host: MemoryHost) -> str | None:
    """What went wrong when a step's model call failed (not a budget or turn limit)."""
    from memdir.agents.runner import AgentStop

    for update in host.notes_updates:
        if update.run is not None and update.run.stop_reason is AgentStop.ERROR:
            return f"session notes update failed: {update.run.error}"
    for extraction in host.extractions:
        run = extraction.run
        if extraction.error and (run is None or run.stop_reason is AgentStop.ERROR):
            return f"extraction failed: {extraction.error}"
    return None


def find_transcript(
    given: str | Path | None, *, session_id: str, cwd: str | Path, env: Mapping[str, str]
) -> Path | None:
    """The transcript file: the one the hook named, else Claude Code's file for the session."""
    if given and Path(given).is_file():
        return Path(given)
    config = env.get("CLAUDE_CONFIG_DIR", "").strip()
    base = Path(config).expanduser() if config else Path.home() / ".claude"
    candidate = base / "projects" / slugify(os.path.realpath(cwd)) / f"{session_id}.jsonl"
    return candidate if candidate.is_file() else None


def run_serialised(request: JobRequest, *, env: Mapping[str, str]) -> list[JobReport]:
    """Run ``request`` unless the session's job is running; then leave it pending.

    The holder of the session lock runs every pending request (one trailing
    run) before releasing it, and checks once more after releasing, so a
    request is never stranded.
    """
    import filelock

    from memdir.api import Memdir

    base = hooks_dir(Memdir.open(request.project, env=env).layout)
    lock = filelock.FileLock(
        str(ensure_dir(base / "locks") / f"{request.session_id}.lock"), mode=FILE_MODE
    )
    reports: list[JobReport] = []
    todo: JobRequest | None = request
    while True:
        try:
            lock.acquire(timeout=0)
        except filelock.Timeout:
            if todo is not None:
                _add_pending(base, todo)
            return reports
        try:
            while todo is not None:
                reports.append(_run_and_mark(base, todo, env=env))
                todo = _take_pending(base, request.session_id)
        finally:
            lock.release()
        todo = _take_pending_if_any(base, request.session_id)
        if todo is None:
            return reports


def _run_and_mark(base: Path, request: JobRequest, *, env: Mapping[str, str]) -> JobReport:
    try:
        report = run_job(
            event=request.event,
            session_id=request.session_id,
            project=request.project,
            transcript=request.transcript,
            env=env,
            run_id=request.run_ids[-1] if request.run_ids else "",
        )
    except Exception as exc:  # a background job reports, it never dies silently
        note = f"unexpected {type(exc).__name__}: {exc}"
        log = base / "logs" / f"{request.session_id}.log"
        report = JobReport(
            status="failed",
            event=request.event,
            session_id=request.session_id,
            steps=(note,),
            reason=note,
            fix=f"this looks like a bug in memdir; the job's output is in {log}",
        )
    report = replace(
        report, run_ids=request.run_ids, finished=dt.datetime.now().isoformat(timespec="seconds")
    )
    for run_id in request.run_ids:
        atomic_write(base / "runs" / f"{run_id}.done", json.dumps(asdict(report), indent=2) + "\n")
    from memdir.hooks.job_status import prune_runs

    prune_runs(base / "runs")
    return report


def _pending_path(base: Path, session_id: str) -> Path:
    return base / "pending" / f"{session_id}.json"


def _add_pending(base: Path, request: JobRequest) -> None:
    path = _pending_path(base, request.session_id)
    with file_lock(path.with_suffix(".lock"), timeout=30):
        previous = _load_pending(path)
        run_ids = (*(previous.run_ids if previous else ()), *request.run_ids)
        # The latest request wins (its transcript is the longest); every id gets a marker.
        merged = JobRequest(**{**asdict(request), "run_ids": run_ids})
        atomic_write(path, json.dumps(asdict(merged)) + "\n")


def _take_pending(base: Path, session_id: str) -> JobRequest | None:
    path = _pending_path(base, session_id)
    with file_lock(path.with_suffix(".lock"), timeout=30):
        request = _load_pending(path)
        if request is not None:
            path.unlink()
        return request


def _take_pending_if_any(base: Path, session_id: str) -> JobRequest | None:
    return _take_pending(base, session_id) if _pending_path(base, session_id).exists() else None


def _load_pending(path: Path) -> JobRequest | None:
    data = read_json_object(path)
    if data is None:
        return None
    data["run_ids"] = tuple(data.get("run_ids", ()))
    return JobRequest(**data)


# -- the background entry point ----------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m memdir.hooks.background run ...``: the detached job (exit 0 always)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m memdir.hooks.background")
    sub = parser.add_subparsers(dest="action", required=True)
    run = sub.add_parser("run", help="run a stop, pre-compact or session-end job now")
    run.add_argument("--event", choices=EVENTS, required=True)
    run.add_argument("--session", required=True)
    run.add_argument("--project", required=True)
    run.add_argument("--transcript", default=None)
    run.add_argument("--run-id", required=True)
    args = parser.parse_args(argv)
    if os.environ.get(_CHILD_ENV):  # inside memdir's own claude -p: no memdir work there
        return 0
    request = JobRequest(
        event=args.event,
        session_id=_check_session(args.session),
        project=args.project,
        transcript=args.transcript,
        run_ids=(_check_run_id(args.run_id),),
    )
    try:
        for report in run_serialised(request, env=os.environ):
            print(json.dumps(asdict(report)), flush=True)
    except Exception as exc:  # the log is the only witness of a background failure
        print(f"memdir hook job failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
