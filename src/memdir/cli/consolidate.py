"""``memdir consolidate``: distil daily logs and sessions into the topic memories.

``memdir consolidate`` runs the gates and, when they pass, one consolidation
with the model the environment configures; ``--force`` skips the time and
session gates (never the lock); ``--dry-run`` runs on a scratch copy and
prints the unified diff of what would change; ``--status`` prints the gates
and runs nothing. Without a configured model it says how to set one (exit 1).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

import click

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


@click.command(name="consolidate")
@click.option("--force", is_flag=True, help="Skip the time and session gates (not the lock).")
@click.option(
    "--dry-run", is_flag=True, help="Run on a scratch copy and print the diff; change nothing."
)
@click.option("--status", is_flag=True, help="Show the gates and run nothing.")
@click.option("--session", "session_id", default=None, help="The current session (not counted).")
@project_option
@json_option
def consolidate_command(
    force: bool, dry_run: bool, status: bool, session_id: str | None, project: Path, as_json: bool
) -> None:
    """Merge, date and prune memories from the daily logs and past sessions."""
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
        if dry_run:
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


COMMANDS = [consolidate_command]
