"""``memdir consolidate``: distil daily logs and sessions into the topic memories.

``memdir consolidate`` runs the gates and, when they pass, one consolidation
with the model the environment configures; ``--force`` skips the time and
session gates (never the lock); ``--dry-run`` runs on a scratch copy and
prints the unified diff of what would change; ``--status`` prints the gates
and runs nothing; ``--propose`` runs on a scratch copy and keeps the changes
as a proposal. Without a configured model it says how to set one (exit 1).

A proposal (see :mod:`memdir.agents.consolidate.proposal`) is decided with
the subcommands: ``proposals`` lists them, ``show ID`` prints each change
with its reason, sources and diff, ``apply ID [--only 1,3]`` applies it (or
some of it), ``rollback ID`` reverses what it applied in one step, ``reject
ID`` drops what it has not.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from memdir.agents.consolidate.changeset import Proposal, ProposedChange
from memdir.agents.consolidate.proposal import (
    apply_proposal,
    list_proposals,
    load_proposal,
    propose_report,
    reject_proposal,
    rollback_proposal,
)
from memdir.agents.consolidate.run import (
    ConsolidationReport,
    GateStatus,
    consolidate,
    consolidation_status,
    preview_consolidation,
)
from memdir.cli._common import (
    NO_PROVIDER_HINT,
    close_provider,
    configured_provider,
    emit,
    json_option,
    open_memdir,
    project_option,
    require_provider,
    to_jsonable,
)

if TYPE_CHECKING:
    from memdir.api import Memdir

__all__ = ["COMMANDS", "consolidate_command"]


@click.group(name="consolidate", invoke_without_command=True)
@click.option("--force", is_flag=True, help="Skip the time and session gates (not the lock).")
@click.option(
    "--dry-run", is_flag=True, help="Run on a scratch copy and print the diff; change nothing."
)
@click.option(
    "--propose", is_flag=True, help="Run on a scratch copy and keep the changes as a proposal."
)
@click.option("--status", is_flag=True, help="Show the gates and run nothing.")
@click.option("--session", "session_id", default=None, help="The current session (not counted).")
@project_option
@json_option
@click.pass_context
def consolidate_command(
    ctx: click.Context,
    force: bool,
    dry_run: bool,
    propose: bool,
    status: bool,
    session_id: str | None,
    project: Path,
    as_json: bool,
) -> None:
    """Merge, date and prune memories from the daily logs and past sessions.

    Under manual review a run only proposes: see `memdir consolidate proposals`.
    """
    if ctx.invoked_subcommand is not None:
        return
    mem = open_memdir(project)
    enabled = mem.enabled
    if status:
        gates = consolidation_status(mem, current_session=session_id, enabled=enabled)
        model = _model_name(mem)
        data = {**to_jsonable(gates), "ready": gates.ready, "model": model}
        emit(as_json, data, lambda: _print_status(gates, model))
        return
    provider = require_provider(mem)
    try:
        if propose:
            report = propose_report(mem, provider, enabled=enabled)
            emit(as_json, _report_dict(report), lambda: _print_report(report))
            failed = report.error is not None
        elif dry_run:
            preview = preview_consolidation(mem, provider, enabled=enabled)
            data = {**_report_dict(preview.report), "diff": preview.diff}
            emit(as_json, data, lambda: _print_preview(preview.report, preview.diff))
            failed = preview.report.error is not None
        else:
            report = consolidate(
                mem, provider, force=force, current_session=session_id, enabled=enabled
            )
            emit(as_json, _report_dict(report), lambda: _print_report(report))
            failed = report.error is not None
    finally:
        close_provider(provider)
    if failed:
        raise click.exceptions.Exit(1)


def _report_dict(report: ConsolidationReport) -> dict[str, object]:
    return {**to_jsonable(report), "improved": report.improved, "message": report.message}


def _local(moment: dt.datetime | None) -> str:
    return "never" if moment is None else moment.astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")


def _model_name(mem: Memdir) -> str | None:
    """The configured model provider's name (none is started), or ``None``."""
    provider = configured_provider(mem)
    if provider is None:
        return None
    try:
        model = getattr(provider, "model", None)
        kind = type(provider).__name__.removesuffix("Provider")
        return f"{kind} ({model})" if model else kind
    finally:
        close_provider(provider)


def _print_status(gates: GateStatus, model: str | None) -> None:
    ago = "" if gates.hours_since is None else f" ({gates.hours_since:.1f} h ago)"
    holder = "none"
    if gates.lock_holder is not None:
        holder = f"PID {gates.lock_holder} ({'alive' if gates.holder_alive else 'not running'})"
    lines = [
        f"memory enabled:  {'yes' if gates.enabled else 'no'}",
        f"last run:        {_local(gates.last_run)}{ago}; at most every {gates.min_hours:g} h",
        f"last scan:       {_local(gates.last_scan)} (throttle {gates.throttle_minutes:g} min)",
        f"sessions since:  {gates.sessions_since} (needs {gates.min_sessions})",
        f"lock holder:     {holder}{' (held)' if gates.lock_held else ''}",
    ]
    blocked = gates.blocked_by
    verdict = "ready to run" if blocked is None else f"blocked by the {blocked.value} gate"
    lines.append(f"model:           {model or 'none configured'}")
    click.echo("\n".join([*lines, f"verdict:         {verdict}"]))
    if model is None:
        click.echo(f"consolidation needs a model to run: {NO_PROVIDER_HINT}")
    for check in gates.checks:
        click.echo(f"  {'ok ' if check.passed else 'no '} {check.gate.value}: {check.detail}")


def _print_report(report: ConsolidationReport) -> None:
    click.echo(report.message)
    if report.proposal is not None and report.improved:
        click.echo(
            f"kept as proposal {report.proposal}: "
            f"`memdir consolidate rollback {report.proposal}` reverses it",
            err=True,
        )
    for problem in report.index_problems:
        click.echo(f"warning: {problem}", err=True)
    if report.run is not None and report.error is None:
        run = report.run
        click.echo(
            f"{run.turns} model turns, {run.tool_calls} tool calls ({run.refused} refused), "
            f"{report.usage.input_tokens} tokens in, {report.usage.output_tokens} out, "
            f"stopped: {run.stop_reason.value}",
            err=True,
        )


def _print_preview(report: ConsolidationReport, diff: str) -> None:
    if report.skipped_reason is not None or report.error is not None:
        click.echo(report.message, err=True)
        return
    click.echo(diff if diff else "(no changes)", nl=not diff)
    click.echo(f"dry run: {report.message}; nothing was changed", err=True)


# --- proposals ------------------------------------------------------------------------


def _change_dict(change: ProposedChange, *, diff: bool) -> dict[str, object]:
    data: dict[str, object] = {
        "index": change.index,
        "kind": change.kind,
        "name": change.name,
        "scope": change.scope,
        "file": change.file,
        "reason": change.reason,
        "sources": list(change.sources),
        "applied": change.applied,
    }
    if diff:
        data.update(before=change.before, after=change.after, diff=change.diff())
    return data


def _proposal_dict(proposal: Proposal, *, diff: bool = False) -> dict[str, object]:
    return {
        "id": proposal.id,
        "created": proposal.created.isoformat(),
        "status": proposal.status,
        "summary": proposal.summary,
        "changes": [_change_dict(c, diff=diff) for c in proposal.changes],
    }


def _headline(proposal: Proposal) -> str:
    done = sum(1 for c in proposal.changes if c.applied)
    count = len(proposal.changes)
    return (
        f"{proposal.id}  {proposal.status:<11}  {_local(proposal.created)}  "
        f"{count} change{'s' if count != 1 else ''} ({done} applied)  {proposal.summary}"
    )


def _change_line(change: ProposedChange) -> str:
    mark = "applied" if change.applied else "not applied"
    return f"[{change.index}] {change.kind} {change.scope}:{change.file} {change.name!r} ({mark})"


@consolidate_command.command(name="proposals")
@project_option
@json_option
def proposals_command(project: Path, as_json: bool) -> None:
    """List consolidation proposals, newest first."""
    found = list_proposals(open_memdir(project))

    def human() -> None:
        if not found:
            click.echo("no consolidation proposals")
        for proposal in found:
            click.echo(_headline(proposal))

    emit(as_json, [_proposal_dict(p) for p in found], human)


@consolidate_command.command(name="show")
@click.argument("proposal_id", metavar="ID")
@project_option
@json_option
def show_command(proposal_id: str, project: Path, as_json: bool) -> None:
    """Print a proposal's changes with their reasons, sources and diffs."""
    proposal = load_proposal(open_memdir(project), proposal_id)
    emit(as_json, _proposal_dict(proposal, diff=True), lambda: _print_proposal(proposal))


def _print_proposal(proposal: Proposal) -> None:
    click.echo(_headline(proposal))
    for change in proposal.changes:
        click.echo("")
        click.echo(_change_line(change))
        click.echo(f"    reason: {change.reason or '(none given)'}")
        if change.sources:
            click.echo(f"    sources: {', '.join(change.sources)}")
        click.echo(change.diff(), nl=False)
    if proposal.status in ("pending", "partial"):
        click.echo(
            f"\napply: memdir consolidate apply {proposal.id} [--only 1,3]; "
            f"reject: memdir consolidate reject {proposal.id}"
        )


def _numbers(raw: str | None) -> list[int] | None:
    if raw is None:
        return None
    try:
        return [int(part) for part in raw.split(",") if part.strip()]
    except ValueError:
        raise click.BadParameter(
            f"{raw!r} is not a list of change numbers such as 1,3", param_hint="--only"
        ) from None


@consolidate_command.command(name="apply")
@click.argument("proposal_id", metavar="ID")
@click.option("--only", "only", default=None, help="Apply only these changes, e.g. 1,3.")
@project_option
@json_option
def apply_command(proposal_id: str, only: str | None, project: Path, as_json: bool) -> None:
    """Apply a proposal (or --only some of its changes) as one undoable change."""
    proposal = apply_proposal(open_memdir(project), proposal_id, only=_numbers(only))
    _emit_decided(as_json, "applied", proposal)


def _decision_command(
    name: str, decide: Callable[[Memdir, str], Proposal], verb: str, help: str
) -> click.Command:
    """The subcommand ``name ID``: ``decide`` the proposal ID, then say it is now ``verb``.

    Rollback and reject differ only in the decision and its words; apply takes
    ``--only`` as well, so it is written out above.
    """

    @consolidate_command.command(name=name, help=help)
    @click.argument("proposal_id", metavar="ID")
    @project_option
    @json_option
    def command(proposal_id: str, project: Path, as_json: bool) -> None:
        _emit_decided(as_json, verb, decide(open_memdir(project), proposal_id))

    return command


rollback_command = _decision_command(
    "rollback",
    rollback_proposal,
    "rolled back",
    "Reverse everything a proposal applied, in one step.",
)
reject_command = _decision_command(
    "reject",
    reject_proposal,
    "rejected",
    "Drop what a proposal has not applied: it is never applied.",
)


def _emit_decided(as_json: bool, verb: str, proposal: Proposal) -> None:
    emit(as_json, _proposal_dict(proposal), lambda: _print_decided(verb, proposal))


def _print_decided(verb: str, proposal: Proposal) -> None:
    click.echo(f"{verb} proposal {proposal.id}: now {proposal.status}")
    for change in proposal.changes:
        click.echo(f"  {_change_line(change)}")


COMMANDS = [consolidate_command]
