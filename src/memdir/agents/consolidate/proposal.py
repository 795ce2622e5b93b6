"""Consolidation as a proposal: preview a run's changes, apply them whole or in part, roll back.

:func:`propose_consolidation` runs the consolidation agent on a scratch copy
of the memory directory (as the dry run does) and keeps each memory it
created, updated or deleted, with the model's reason and sources, as a
pending :class:`Proposal`; nothing real is touched. :func:`apply_proposal`
applies it (or ``only`` some of its changes) through the store as one change
in the history, route ``consolidation``, refusing when a memory changed
since the proposal was made; :func:`rollback_proposal` undoes that in one
step, leaving the folder, both ``MEMORY.md`` files included, byte for byte
as it was; :func:`reject_proposal` drops what is not applied.

The gated run (:func:`memdir.agents.consolidate.run.consolidate`) uses the
same record: under ``manual`` review it makes a pending proposal (and
applies only what falls in a scope under ``auto``); under ``auto`` it
changes memory in place as before and keeps the run as an applied proposal,
so it too rolls back as one step. The values and the store of proposals are
in :mod:`memdir.agents.consolidate.changeset`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection

from memdir.agents.consolidate.changeset import (
    Proposal,
    ProposedChange,
    apply_changes,
    load,
    load_all,
    rollback_changes,
    set_status,
)
from memdir.agents.consolidate.gates import clock, enabled_gate, read_memdir_lock
from memdir.agents.consolidate.run import ConsolidationReport, run_proposal, skipped_report
from memdir.agents.limits import CONSOLIDATION_LIMITS, JobLimits
from memdir.errors import MemdirError
from memdir.history.project import ProjectMemory
from memdir.history.undo import require_history
from memdir.llm.base import Provider
from memdir.recall.doctor_notices import Notice

__all__ = [
    "Proposal",
    "ProposedChange",
    "apply_proposal",
    "list_proposals",
    "load_proposal",
    "pending_proposals",
    "proposal_notice",
    "propose_consolidation",
    "reject_proposal",
    "rollback_proposal",
]


def propose_consolidation(
    memdir: ProjectMemory,
    provider: Provider,
    *,
    now: dt.datetime | None = None,
    enabled: bool = True,
    limits: JobLimits = CONSOLIDATION_LIMITS,
) -> Proposal:
    """Run consolidation on a scratch copy and keep its changes as a pending proposal.

    The gates are not applied (a proposal is asked for now), except
    ``enabled``; a run that changes nothing gives a proposal with no changes
    (status ``applied``: there is nothing left to do), which is not kept.
    Raises when the model call fails.
    """
    report = propose_report(
        memdir,
        provider,
        now=now,
        enabled=enabled,
        limits=limits,
    )
    if report.error is not None or report.skipped_reason is not None:
        raise MemdirError(report.message, hint="`memdir consolidate --status` shows the gates")
    if report.proposal is None:
        return Proposal(
            id="", created=clock(now), status="applied", summary=report.message, changes=()
        )
    return load_proposal(memdir, report.proposal)


def propose_report(
    memdir: ProjectMemory,
    provider: Provider,
    *,
    now: dt.datetime | None = None,
    enabled: bool = True,
    limits: JobLimits = CONSOLIDATION_LIMITS,
) -> ConsolidationReport:
    """:func:`propose_consolidation` as a report (its ``proposal`` the id), never raising."""
    require_history(memdir)  # a proposal applies as a change the history can undo
    now = clock(now)
    check = enabled_gate(enabled)
    if not check.passed:
        return skipped_report([check])
    report, _ = run_proposal(
        memdir,
        provider,
        now=now,
        last_run=read_memdir_lock(memdir, now).mtime,
        limits=limits,
    )
    return report


def list_proposals(memdir: ProjectMemory) -> list[Proposal]:
    """Every kept proposal, newest first."""
    return load_all(memdir)


def pending_proposals(memdir: ProjectMemory) -> list[Proposal]:
    """The proposals with changes still waiting for a decision (pending or partial)."""
    return [p for p in load_all(memdir) if p.status in ("pending", "partial")]


def proposal_notice(memdir: ProjectMemory) -> list[Notice]:
    """What ``memdir doctor`` says of proposals awaiting a decision (none: nothing)."""
    waiting = pending_proposals(memdir)
    if not waiting:
        return []
    return [
        Notice(
            kind="pending-proposal",
            count=len(waiting),
            message=f"{len(waiting)} consolidation proposal(s) await a decision",
            fix="memdir consolidate show ID, then memdir consolidate apply ID or reject ID",
            items=tuple(
                f"{p.id}: {sum(1 for c in p.changes if not c.applied)} change(s) not applied"
                for p in waiting[:5]
            ),
        )
    ]


def load_proposal(memdir: ProjectMemory, proposal_id: str) -> Proposal:
    """The proposal ``proposal_id``; a clear error when the id is malformed or unknown."""
    return load(memdir, proposal_id)[0]


def apply_proposal(
    memdir: ProjectMemory, proposal_id: str, *, only: Collection[int] | None = None
) -> Proposal:
    """Apply a proposal (or ``only`` the changes with these numbers) as one undoable change.

    A person applies it: the writes are not held for review. Refuses, and
    changes nothing, when a memory no longer holds the text the proposal was
    made against.
    """
    proposal = load_proposal(memdir, proposal_id)
    if proposal.status == "applied":
        raise MemdirError(
            f"proposal {proposal_id} is already applied",
            hint=f"`memdir consolidate rollback {proposal_id}` reverses it",
        )
    return apply_changes(memdir, proposal_id, only=only)


def rollback_proposal(memdir: ProjectMemory, proposal_id: str) -> Proposal:
    """Undo everything the proposal applied, in one step; refuses if those files moved on."""
    return rollback_changes(memdir, proposal_id)


def reject_proposal(memdir: ProjectMemory, proposal_id: str) -> Proposal:
    """Drop what the proposal has not applied: it is never applied. What is applied stays."""
    proposal = load_proposal(memdir, proposal_id)
    if proposal.status not in ("pending", "partial"):
        raise MemdirError(
            f"proposal {proposal_id} is {proposal.status}: there is nothing to reject",
            hint=f"`memdir consolidate rollback {proposal_id}` reverses an applied one",
        )
    return set_status(memdir, proposal_id, "rejected")
