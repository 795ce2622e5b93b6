"""Consolidation ("dream"): distil daily logs and sessions into tidy topic memories.

:func:`consolidate` runs the gates of :mod:`memdir.agents.consolidate.gates`, cheapest
first (enabled, 24 h since the last run, the 10-minute scan throttle, 5
sessions since the last run, the lock), then one restricted sub-agent run
(:func:`memdir.agents.runner.run_agent`) whose prompt walks four phases: orient (the
index, the memories), gather (daily logs first, each entry with its date, then
the drift findings memdir computed, then narrow transcript searches),
consolidate (merge near-duplicates, absolute dates, drop contradicted facts),
prune and index. The model works only through the tools of
:mod:`memdir.agents.consolidate.tools`, which go through the store, so confinement,
locks, index upkeep and secret scanning apply, and a delete moves the file to
the dated trash. Afterwards memdir repairs the index itself
(``doctor.diagnose(fix=True)``) and reports what is still over the index's
limits. The whole run, repair included, is one change set in the history
(both indexes copied at its start): ``memdir undo`` puts every file back.

Every run that changes something is kept as a proposal
(:mod:`memdir.agents.consolidate.proposal`): each memory it created,
updated or deleted, with the model's reason and sources. When a scope the
run may write is under ``manual`` review, the run works on a scratch copy
and the proposal waits for a person; only the changes in a scope under
``auto`` are applied at once. Otherwise the run writes in place, as it
always did, and the proposal is recorded as applied, so ``memdir
consolidate rollback ID`` reverses it in one step.

A run that errors or is cancelled puts the lock's mtime back, so the next
attempt is not pushed back a day. :func:`preview_consolidation` runs the same
job on a scratch copy of the memory directory and returns the unified diff;
nothing real is touched. Every function takes the clock as ``now``, and the
model run's limits as ``limits`` (by default
:data:`~memdir.agents.limits.CONSOLIDATION_LIMITS`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from memdir.agents.consolidate.changeset import (
    Proposal,
    apply_changes,
    changes_from_history,
    changes_from_trees,
    new_id,
    one_change,
    save,
)
from memdir.agents.consolidate.gates import (
    Gate,
    GateCheck,
    GateStatus,
    as_datetime,
    clock,
    consolidation_status,
    enabled_gate,
    gate_steps,
    lock_gate,
    read_memdir_lock,
    release_lock,
    rollback_lock,
    take_lock,
)
from memdir.agents.consolidate.scratch import scratch_copy, tree_diff
from memdir.agents.consolidate.tools import Changes, consolidation_policy, format_log_entry
from memdir.agents.extract import memory_ref
from memdir.agents.limits import CONSOLIDATION_LIMITS, JobLimits
from memdir.agents.runner import AgentStop, RunReport, run_agent
from memdir.errors import MemdirError
from memdir.history.project import ProjectMemory
from memdir.history.review import review_mode
from memdir.llm.base import Provider, Usage
from memdir.model import Scope
from memdir.recall.doctor import diagnose
from memdir.recall.drift import DriftChecker
from memdir.recall.freshness import record_checks
from memdir.recall.manifest import build_manifest
from memdir.storage.dailylog import iter_logs, read_log
from memdir.storage.memory_index import truncate_index
from memdir.storage.paths import Layout

__all__ = [
    "ConsolidationPreview",
    "ConsolidationReport",
    "Gate",
    "GateCheck",
    "GateStatus",
    "consolidate",
    "consolidation_policy",
    "consolidation_prompt",
    "consolidation_status",
    "format_log_entry",
    "index_over_limits",
    "preview_consolidation",
    "run_proposal",
    "tree_diff",
]

_LOG_BUDGET_CHARS = 40_000
_INDEX_BUDGET_CHARS = 30_000
_MAX_DRIFT = 40

SYSTEM_PROMPT = """\
You are memdir's memory consolidation, a background job: you do not talk to anyone. \
You tidy a project's file-based memory so that future conversations find a small set \
of accurate, well-named memories and a short index (MEMORY.md) pointing at them.

Work in four phases:
1. Orient: read the index and the list of memories below; read the topic files you may \
change.
2. Gather: the daily logs first (given below, each entry with its date), then the \
memories whose claims drifted from the code (findings below), then, only for a \
specific open question, a narrow search of past transcripts (an error message, a file \
name, a flag; never a broad word).
3. Consolidate: fold what the logs teach into the memories. Merge into an existing \
memory rather than writing a near-duplicate: when two memories say the same thing, \
update one with everything worth keeping and delete the other. Convert relative dates \
to absolute ones: "yesterday" in an entry dated 2026-03-04 means 2026-03-03. When a \
newer fact contradicts an older one, keep the newer and remove the old claim. A memory \
whose code drifted: correct it if the logs or the code say what is true now, else \
delete it.
4. Prune and index: the index is rebuilt from each memory's name and description, one \
line each, and is loaded only up to its line and size limits, so keep descriptions to \
one specific line and delete memories that are stale, trivial or derivable from the \
code or git history.

Memory types: user (who the user is; always private), feedback (how to work: the rule, \
then a **Why:** line and a **How to apply:** line), project (decisions, deadlines, \
incidents not visible in the code: the fact, then **Why:** and **How to apply:**), \
reference (where information lives outside the project). Never put secrets in team \
memory. Do not save code patterns, architecture, file paths or fix recipes the code \
already shows.

Rules: change memories only with write_memory and delete_memory; deleted memories go to \
a trash folder and can be recovered, but delete only what is merged, contradicted or \
useless. Give every write_memory and delete_memory a one-line reason for the user (what \
it merges, corrects or drops, and why) and its sources (the log dates, memory files or \
transcript hits it rests on). The daily logs are append-only: never rewrite them. Change \
nothing when nothing needs changing. Finish with a one-line summary of what you changed \
and no tool calls."""


# --- values ------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ConsolidationReport:
    """What a consolidation did, or why it did not run.

    ``checks`` lists the gates evaluated, in order (a gate after a failing one
    is not evaluated). ``created``, ``updated`` and ``deleted`` are files of
    the memory directory (team ones as ``team/<file>``); ``repaired`` lists the
    index repairs memdir made afterwards; ``index_problems`` what is still over
    the index's limits.
    """

    ran: bool = False
    skipped_reason: str | None = None
    blocked_by: Gate | None = None
    checks: tuple[GateCheck, ...] = ()
    created: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    usage: Usage = field(default_factory=Usage)
    run: RunReport | None = None
    error: str | None = None
    repaired: tuple[str, ...] = ()
    index_problems: tuple[str, ...] = ()
    proposal: str | None = None
    awaiting: tuple[str, ...] = ()

    @property
    def improved(self) -> int:
        """How many memories the run created, updated or deleted."""
        return len(self.created) + len(self.updated) + len(self.deleted)

    @property
    def message(self) -> str:
        """``Improved N memories (...)``, or why nothing ran, or what failed."""
        if self.skipped_reason is not None:
            return f"Consolidation skipped: {self.skipped_reason}"
        if self.error is not None:
            return f"Consolidation failed: {self.error}"
        show = f"`memdir consolidate show {self.proposal}`"
        held = f"{len(self.awaiting)} change{'s' if len(self.awaiting) != 1 else ''}"
        if self.awaiting and not self.improved:
            return f"Proposed {held} for review: {show}"
        waiting = f"; {held} await review: {show}" if self.awaiting else ""
        noun = "memory" if self.improved == 1 else "memories"
        touched = [
            f"{verb} {', '.join(files)}"
            for verb, files in (
                ("created", self.created),
                ("updated", self.updated),
                ("deleted", self.deleted),
            )
            if files
        ]
        done = f" ({'; '.join(touched)})" if touched else ""
        return f"Improved {self.improved} {noun}{done}{waiting}"


@dataclass(frozen=True, kw_only=True)
class ConsolidationPreview:
    """A dry run: what consolidation would do, as a report and a unified diff."""

    report: ConsolidationReport
    diff: str


def consolidate(
    memdir: ProjectMemory,
    provider: Provider,
    *,
    force: bool = False,
    now: dt.datetime | None = None,
    current_session: str | None = None,
    enabled: bool = True,
    limits: JobLimits = CONSOLIDATION_LIMITS,
) -> ConsolidationReport:
    """Run the gates, then (if they pass) one consolidation; never raises for model errors.

    ``force`` skips the time, throttle and session gates, never the lock.
    ``enabled`` is the enable chain's verdict, decided by the caller.
    """
    now = clock(now)
    checks: list[GateCheck] = []
    for step in gate_steps(
        memdir, now, force=force, enabled=enabled, current_session=current_session
    ):
        checks.append(step())
        if not checks[-1].passed:
            return _skipped(checks)
    attempt = take_lock(memdir, now)
    checks.append(lock_gate(attempt.seen, acquired=attempt.lease is not None))
    if attempt.lease is None:
        return _skipped(checks)
    try:
        if _needs_review(memdir):
            report = _propose_and_apply(
                memdir, provider, now=now, last_run=attempt.lease.prior_mtime, limits=limits
            )
        else:
            report = _in_place(
                memdir,
                provider,
                now=now,
                last_run=attempt.lease.prior_mtime,
                limits=limits,
                session=current_session,
            )
    except BaseException:
        rollback_lock(attempt.lease)  # failure or cancel: the next attempt must not wait a day
        raise
    if report.error is not None:
        rollback_lock(attempt.lease)
    else:
        release_lock(attempt.lease)
    return dataclasses.replace(report, checks=tuple(checks))


def _needs_review(memdir: ProjectMemory) -> bool:
    """Whether a scope the run may write is under ``manual`` review.

    Not with history off: a proposal applies as a change the history can undo,
    so the run goes in place and the store refuses what the manual scope
    would hold, saying why.
    """
    if memdir.history_db is None:
        return False
    scopes = [Scope.PRIVATE] + ([Scope.TEAM] if memdir.team_enabled else [])
    return any(review_mode(memdir.settings, scope) == "manual" for scope in scopes)


def _in_place(
    memdir: ProjectMemory,
    provider: Provider,
    *,
    now: dt.datetime,
    last_run: float | None,
    limits: JobLimits,
    session: str | None,
) -> ConsolidationReport:
    """Today's run: the tools write the real folder; the run is kept as an applied proposal."""
    changes = Changes()
    with one_change(memdir, session) as change:
        report = _execute(
            memdir,
            provider,
            now=now,
            last_run=last_run,
            sources=memdir.layout,
            limits=limits,
            changes=changes,
        )
    history = memdir.history_db
    if history is None or change is None or history.change(change) is None:
        return report  # history off, or the run changed nothing
    made = changes_from_history(history, change, changes)
    if not made:
        return report  # only the index was repaired: `memdir undo` still reverses it
    proposal = Proposal(
        id=new_id(now),
        created=now.astimezone(dt.UTC),
        status="applied",
        summary=_summary(report),
        changes=made,
    )
    save(memdir, proposal, change_sets=(change,))
    return dataclasses.replace(report, proposal=proposal.id)


def _propose_and_apply(
    memdir: ProjectMemory,
    provider: Provider,
    *,
    now: dt.datetime,
    last_run: float | None,
    limits: JobLimits,
) -> ConsolidationReport:
    """Under ``manual`` review: a proposal; what is in an ``auto`` scope applies at once."""
    report, proposal = run_proposal(memdir, provider, now=now, last_run=last_run, limits=limits)
    if proposal is None:
        return report
    applied = apply_changes(memdir, proposal.id, approved=False)
    refs = {c.index: memory_ref(Scope(c.scope), c.file) for c in applied.changes}
    done = [c for c in applied.changes if c.applied]
    return dataclasses.replace(
        report,
        created=tuple(refs[c.index] for c in done if c.kind == "create"),
        updated=tuple(refs[c.index] for c in done if c.kind == "update"),
        deleted=tuple(refs[c.index] for c in done if c.kind == "delete"),
        proposal=proposal.id,
        awaiting=tuple(refs[c.index] for c in applied.changes if not c.applied),
        index_problems=index_over_limits(memdir),
    )


def run_proposal(
    memdir: ProjectMemory,
    provider: Provider,
    *,
    now: dt.datetime,
    last_run: float | None,
    limits: JobLimits = CONSOLIDATION_LIMITS,
) -> tuple[ConsolidationReport, Proposal | None]:
    """Run on a scratch copy and keep what it changed as a pending proposal.

    No proposal (None) when the run failed or changed nothing.
    """
    changes = Changes()
    with tempfile.TemporaryDirectory(prefix="memdir-proposal-") as tmp:
        scratch = scratch_copy(memdir, Path(tmp))
        report = _execute(
            scratch,
            provider,
            now=now,
            last_run=last_run,
            sources=memdir.layout,
            limits=limits,
            changes=changes,
        )
        made = changes_from_trees(memdir, scratch, changes)
    report = dataclasses.replace(
        report, created=(), updated=(), deleted=(), repaired=(), index_problems=()
    )
    if report.error is not None or not made:
        return report, None
    proposal = Proposal(
        id=new_id(now),
        created=now.astimezone(dt.UTC),
        status="pending",
        summary=_summary(report),
        changes=made,
    )
    save(memdir, proposal)
    refs = tuple(memory_ref(Scope(c.scope), c.file) for c in made)
    return dataclasses.replace(report, proposal=proposal.id, awaiting=refs), proposal


def _summary(report: ConsolidationReport) -> str:
    """The model's closing line, else the report's own."""
    final = (report.run.final_text if report.run is not None else "") or ""
    return " ".join(final.split())[:500] or report.message


def _skipped(checks: list[GateCheck]) -> ConsolidationReport:
    failed = checks[-1]
    return ConsolidationReport(
        skipped_reason=f"{failed.gate.value} gate: {failed.detail}",
        blocked_by=failed.gate,
        checks=tuple(checks),
    )


# --- the run -----------------------------------------------------------------------


def _execute(
    memdir: ProjectMemory,
    provider: Provider,
    *,
    now: dt.datetime,
    last_run: float | None,
    sources: Layout,
    limits: JobLimits,
    changes: Changes | None = None,
) -> ConsolidationReport:
    changes = changes if changes is not None else Changes()
    prompt = consolidation_prompt(memdir, now=now, last_run=last_run, sources=sources)
    run = run_agent(
        provider,
        job="consolidate",
        system=SYSTEM_PROMPT,
        prompt=prompt,
        policy=consolidation_policy(memdir, changes, sources=sources),
        limits=limits,
    )
    doctor = diagnose(memdir, fix=True)
    # Trigger: the turn limit or the budget ends a run. Why: a retry would hit the
    # same limit and spend again, and what the run changed stands. Outcome: only a
    # provider error counts as a failure (and rolls the lock back).
    error = (run.error or "the model call failed") if run.stop_reason is AgentStop.ERROR else None
    return ConsolidationReport(
        ran=True,
        created=changes.files("created"),
        updated=changes.files("updated"),
        deleted=changes.files("deleted"),
        usage=run.usage,
        run=run,
        error=error,
        repaired=tuple(
            f"{f.scope.value}:{f.file}: {f.message}" for f in doctor.findings if f.fixed
        ),
        index_problems=index_over_limits(memdir),
    )


def index_over_limits(memdir: ProjectMemory) -> tuple[str, ...]:
    """A sentence for each index that is still over its line or size limit."""
    settings = memdir.settings
    problems = []
    for store, name in ((memdir.private, "MEMORY.md"), (memdir.team, "team/MEMORY.md")):
        cut = truncate_index(
            store.read_index(),
            max_lines=settings.max_index_lines,
            max_chars=settings.max_index_chars,
        )
        if cut.truncated:
            problems.append(
                f"{name} is {cut.line_count} lines and {cut.char_count} characters "
                f"(limits {settings.max_index_lines} lines, {settings.max_index_chars} "
                "characters): entries past them are not loaded; merge or delete memories"
            )
    return tuple(problems)


# --- the prompt --------------------------------------------------------------------


def consolidation_prompt(
    memdir: ProjectMemory,
    *,
    now: dt.datetime,
    last_run: float | None,
    sources: Layout | None = None,
) -> str:
    """The job's first message: dates, index, memories, daily logs, drift findings."""
    today = now.astimezone().date()
    since = as_datetime(last_run)
    since_day = since.astimezone().date() if since is not None else None
    parts = [
        f"Today is {today.isoformat()} ({today:%A}). "
        + (
            f"The last consolidation ran on {since_day.isoformat()}."
            if since_day is not None
            else "This memory has never been consolidated."
        ),
        _index_section(memdir),
        "## Memories\n\n" + (build_manifest(memdir).text.strip() or "(no memories yet)"),
        _logs_section(memdir.layout.logs_dir, since_day),
        _drift_section(memdir),
        _transcripts_section(sources or memdir.layout),
        "Team memory is "
        + ("on." if memdir.team_enabled else "off: write private memories only.")
        + " Now consolidate, phase by phase.",
    ]
    return "\n\n".join(parts)


def _index_section(memdir: ProjectMemory) -> str:
    settings = memdir.settings
    out = []
    for store, name in ((memdir.private, "MEMORY.md"), (memdir.team, "team/MEMORY.md")):
        text = store.read_index().strip()
        if not text and store is memdir.team:
            continue
        lines = len(text.splitlines())
        shown = text[:_INDEX_BUDGET_CHARS] or "(empty)"
        more = "\n[… index cut here]" if len(text) > _INDEX_BUDGET_CHARS else ""
        out.append(
            f"## {name} ({lines} lines, {len(text)} characters; loaded up to "
            f"{settings.max_index_lines} lines and {settings.max_index_chars} characters)"
            f"\n\n{shown}{more}"
        )
    return "\n\n".join(out)


def _logs_section(logs_dir: Path, since: dt.date | None) -> str:
    head = "## Daily logs" + (f" since {since.isoformat()}" if since else "")
    blocks: list[str] = []
    left_out: list[str] = []
    used = 0
    for day, path in iter_logs(logs_dir, since=since):
        try:
            entries = read_log(path)
        except MemdirError:
            continue
        block = f"### {day.isoformat()} ({day:%A})\n" + "\n".join(map(format_log_entry, entries))
        if used + len(block) > _LOG_BUDGET_CHARS:
            left_out.append(day.isoformat())
            continue
        blocks.append(block)
        used += len(block)
    if not blocks and not left_out:
        return f"{head}\n\n(no daily-log entries)"
    note = (
        f"\n\nNot shown for length (read them with read_log): {', '.join(left_out)}"
        if left_out
        else ""
    )
    intro = "Each entry carries its date: relative dates in it are relative to that date."
    return f"{head}\n\n{intro}\n\n" + "\n\n".join(blocks) + note


def _drift_section(memdir: ProjectMemory) -> str:
    checker = DriftChecker(memdir.layout.project_root)
    lines = []
    checked = []
    for record in memdir.list():
        ref = memory_ref(record.scope, record.file)
        found = [finding.message for finding in checker.check_memory(record.memory)]
        if found or record.memory.anchors:
            checked.append((f"{record.scope.value}:{record.file}", record.name, found))
        lines += [f"- {ref}: {message}" for message in found]
    record_checks(memdir.layout.state_dir, checked, now=time.time())
    if not lines:
        return "## Drifted memories\n\n(none: every path and symbol they name still exists)"
    more = f"\n[{len(lines) - _MAX_DRIFT} more]" if len(lines) > _MAX_DRIFT else ""
    return "## Drifted memories\n\n" + "\n".join(lines[:_MAX_DRIFT]) + more


def _transcripts_section(layout: Layout) -> str:
    count = sum(1 for _ in layout.project_dir.glob("*.jsonl")) if layout.project_dir.is_dir() else 0
    return (
        f"## Past sessions\n\n{count} transcripts and the session notes can be searched "
        "with search_transcripts: use it last, with a narrow term."
    )


# --- dry run -----------------------------------------------------------------------


def preview_consolidation(
    memdir: ProjectMemory,
    provider: Provider,
    *,
    now: dt.datetime | None = None,
    enabled: bool = True,
    limits: JobLimits = CONSOLIDATION_LIMITS,
) -> ConsolidationPreview:
    """Run consolidation on a scratch copy of the memory directory; return the diff.

    Nothing real is written: not the memories, the index, the trash, the lock
    or the scan time. The gates are not applied (a preview is asked for now),
    except ``enabled``.
    """
    now = clock(now)
    check = enabled_gate(enabled)
    if not check.passed:
        return ConsolidationPreview(report=_skipped([check]), diff="")
    last_run = read_memdir_lock(memdir, now).mtime
    with tempfile.TemporaryDirectory(prefix="memdir-dry-run-") as tmp:
        scratch = scratch_copy(memdir, Path(tmp))
        report = _execute(
            scratch, provider, now=now, last_run=last_run, sources=memdir.layout, limits=limits
        )
        diff = tree_diff(memdir.layout.memory_dir, scratch.layout.memory_dir)
    return ConsolidationPreview(report=dataclasses.replace(report, checks=(check,)), diff=diff)
