"""Consolidation ("dream"): distil daily logs and sessions into tidy topic memories.

:func:`consolidate` runs the gates of :mod:`memdir.agents.consolidate.gates`, cheapest
first (enabled, 24 h since the last run, the 10-minute scan throttle, 5
sessions since the last run, the lock), then one restricted sub-agent run
(:func:`memdir.agents.runner.run_agent`) whose prompt
(:mod:`memdir.agents.consolidate.prompt`) walks four phases: orient (the
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

import contextlib
import dataclasses
import datetime as dt
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memdir.agents.consolidate.changeset import (
    Proposal,
    ProposedChange,
    apply_changes,
    changes_from_history,
    changes_from_trees,
    new_id,
    one_change,
    save,
)
from memdir.agents.consolidate.changeset import Status as ProposalStatus
from memdir.agents.consolidate.gates import (
    Gate,
    GateCheck,
    GateStatus,
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
from memdir.agents.consolidate.prompt import SYSTEM_PROMPT, consolidation_prompt
from memdir.agents.consolidate.scratch import scratch_copy, tree_diff
from memdir.agents.consolidate.tools import Changes, consolidation_policy, format_log_entry
from memdir.agents.extract import memory_ref
from memdir.agents.limits import CONSOLIDATION_LIMITS, JobLimits
from memdir.agents.runner import AgentStop, RunReport, run_agent
from memdir.history.project import ProjectMemory
from memdir.history.review import review_mode
from memdir.llm.base import Provider, Usage
from memdir.model import Scope
from memdir.recall.doctor import diagnose
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
    "skipped_report",
    "tree_diff",
]


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
            return skipped_report(checks)
    attempt = take_lock(memdir, now)
    checks.append(lock_gate(attempt.seen, acquired=attempt.lease is not None))
    if attempt.lease is None:
        return skipped_report(checks)
    job = _Job.of(memdir, provider, now=now, last_run=attempt.lease.prior_mtime, limits=limits)
    try:
        if _needs_review(memdir):
            report = _propose_and_apply(memdir, job)
        else:
            report = _in_place(memdir, job, session=current_session)
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


def _in_place(memdir: ProjectMemory, job: _Job, *, session: str | None) -> ConsolidationReport:
    """Today's run: the tools write the real folder; the run is kept as an applied proposal."""
    changes = Changes()
    with one_change(memdir, session) as change:
        report = job.execute(memdir, changes)
    history = memdir.history_db
    if history is None or change is None or history.change(change) is None:
        return report  # history off, or the run changed nothing
    made = changes_from_history(history, change, changes)
    if not made:
        return report  # only the index was repaired: `memdir undo` still reverses it
    proposal = _keep(memdir, report, made, now=job.now, status="applied", change_sets=(change,))
    return dataclasses.replace(report, proposal=proposal.id)


def _propose_and_apply(memdir: ProjectMemory, job: _Job) -> ConsolidationReport:
    """Under ``manual`` review: a proposal; what is in an ``auto`` scope applies at once."""
    report, proposal = _proposal_run(memdir, job)
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
    job = _Job.of(memdir, provider, now=now, last_run=last_run, limits=limits)
    return _proposal_run(memdir, job)


def _proposal_run(memdir: ProjectMemory, job: _Job) -> tuple[ConsolidationReport, Proposal | None]:
    changes = Changes()
    with _scratch(memdir, prefix="memdir-proposal-") as scratch:
        report = job.execute(scratch, changes)
        made = changes_from_trees(memdir, scratch, changes)
    report = dataclasses.replace(
        report, created=(), updated=(), deleted=(), repaired=(), index_problems=()
    )
    if report.error is not None or not made:
        return report, None
    proposal = _keep(memdir, report, made, now=job.now, status="pending")
    refs = tuple(memory_ref(Scope(c.scope), c.file) for c in made)
    return dataclasses.replace(report, proposal=proposal.id, awaiting=refs), proposal


def _keep(
    memdir: ProjectMemory,
    report: ConsolidationReport,
    made: tuple[ProposedChange, ...],
    *,
    now: dt.datetime,
    status: ProposalStatus,
    change_sets: tuple[int, ...] = (),
) -> Proposal:
    """Save what a run changed as a proposal in ``status``, summed up by the run."""
    proposal = Proposal(
        id=new_id(now),
        created=now.astimezone(dt.UTC),
        status=status,
        summary=_summary(report),
        changes=made,
    )
    save(memdir, proposal, change_sets=change_sets)
    return proposal


def _summary(report: ConsolidationReport) -> str:
    """The model's closing line, else the report's own."""
    final = (report.run.final_text if report.run is not None else "") or ""
    return " ".join(final.split())[:500] or report.message


@contextlib.contextmanager
def _scratch(memdir: ProjectMemory, *, prefix: str) -> Iterator[ProjectMemory]:
    """A scratch copy of ``memdir`` in a temporary folder, removed after the block."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield scratch_copy(memdir, Path(tmp))


def skipped_report(checks: Sequence[GateCheck]) -> ConsolidationReport:
    """The report of a request the last of ``checks`` (a failed gate) turned away."""
    failed = checks[-1]
    return ConsolidationReport(
        skipped_reason=f"{failed.gate.value} gate: {failed.detail}",
        blocked_by=failed.gate,
        checks=tuple(checks),
    )


# --- the run -----------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class _Job:
    """One consolidation asked for: the model, the clock, the last run and the limits.

    ``sources`` is the real project's layout: the run searches its transcripts and
    session notes there, also when it writes a scratch copy.
    """

    provider: Provider
    now: dt.datetime
    last_run: float | None
    limits: JobLimits
    sources: Layout

    @classmethod
    def of(
        cls,
        memdir: ProjectMemory,
        provider: Provider,
        *,
        now: dt.datetime,
        last_run: float | None,
        limits: JobLimits,
    ) -> _Job:
        """The job of a request on ``memdir`` (the real folder, never a scratch copy)."""
        return cls(
            provider=provider, now=now, last_run=last_run, limits=limits, sources=memdir.layout
        )

    def execute(self, memdir: ProjectMemory, changes: Changes | None = None) -> ConsolidationReport:
        """Run the model on ``memdir`` (the real folder or a copy), then repair its index."""
        changes = changes if changes is not None else Changes()
        prompt = consolidation_prompt(
            memdir, now=self.now, last_run=self.last_run, sources=self.sources
        )
        run = run_agent(
            self.provider,
            job="consolidate",
            system=SYSTEM_PROMPT,
            prompt=prompt,
            policy=consolidation_policy(memdir, changes, sources=self.sources),
            limits=self.limits,
        )
        doctor = diagnose(memdir, fix=True)
        # Trigger: the turn limit or the budget ends a run. Why: a retry would hit the
        # same limit and spend again, and what the run changed stands. Outcome: only a
        # provider error counts as a failure (and rolls the lock back).
        failed = run.stop_reason is AgentStop.ERROR
        return ConsolidationReport(
            ran=True,
            created=changes.files("created"),
            updated=changes.files("updated"),
            deleted=changes.files("deleted"),
            usage=run.usage,
            run=run,
            error=(run.error or "the model call failed") if failed else None,
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
        return ConsolidationPreview(report=skipped_report([check]), diff="")
    last_run = read_memdir_lock(memdir, now).mtime
    job = _Job.of(memdir, provider, now=now, last_run=last_run, limits=limits)
    with _scratch(memdir, prefix="memdir-dry-run-") as scratch:
        report = job.execute(scratch)
        diff = tree_diff(memdir.layout.memory_dir, scratch.layout.memory_dir)
    return ConsolidationPreview(report=dataclasses.replace(report, checks=(check,)), diff=diff)
