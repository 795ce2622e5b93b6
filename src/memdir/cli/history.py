"""Commands on the history: history, restore, undo, redact, why.

Each is parse -> one call on the facade -> render (see
:mod:`memdir.storage.undo` for what the calls do).
"""

from __future__ import annotations

from pathlib import Path

import click

from memdir.cli._common import emit, json_option, open_memdir, project_option, record_dict
from memdir.model import Scope
from memdir.storage.history import Version

__all__ = ["COMMANDS", "history", "redact", "restore", "undo", "why"]

_SCOPES = click.Choice([s.value for s in Scope])


def _line(v: Version) -> str:
    """One version: id, time, action, route (and client), session, file."""
    route = f"{v.route}({v.client})" if v.client else v.route
    file = f"{v.old_file} -> {v.file}" if v.old_file else v.file
    redacted = " [redacted]" if v.redacted else ""
    return (
        f"v{v.id}  {v.when}  {v.action:<9} {route:<14} session={v.session or '-'}  "
        f"{v.scope.value}:{file}{redacted}"
    )


@click.command()
@click.argument("name", required=False)
@click.option("--scope", type=_SCOPES, default=None)
@click.option("--prune", is_flag=True, help="Drop versions and trash past the retention.")
@project_option
@json_option
def history(name: str | None, scope: str | None, prune: bool, project: Path, as_json: bool) -> None:
    """List a memory's versions, newest first (deleted memories too)."""
    mem = open_memdir(project)
    if prune:
        report = mem.prune_history()
        emit(
            as_json,
            report,
            lambda: click.echo(
                f"pruned {report.versions} versions, {report.blobs} texts and "
                f"{report.trash_folders} trash folders older than "
                f"{mem.settings.history_retention_days:g} days"
            ),
        )
        return
    if name is None:
        raise click.UsageError("name a memory, or pass --prune")
    versions = mem.history(name, scope=scope)

    def human() -> None:
        if not versions:
            click.echo(f"no version of {name!r} is kept")
        for v in versions:
            click.echo(_line(v))

    emit(as_json, versions, human)


@click.command()
@click.argument("name")
@click.option("--version", "version", type=int, default=None, help="The version id (v12: 12).")
@click.option("--scope", type=_SCOPES, default=None)
@project_option
@json_option
def restore(
    name: str, version: int | None, scope: str | None, project: Path, as_json: bool
) -> None:
    """Bring back a memory's previous version (or --version V), deleted ones too."""
    result = open_memdir(project).restore(name, version=version, scope=scope)
    emit(
        as_json,
        record_dict(result.record),
        lambda: click.echo(f"restored {result.record.scope.value}:{result.record.file}"),
    )


@click.command()
@project_option
@json_option
def undo(project: Path, as_json: bool) -> None:
    """Reverse the last change (a whole consolidation run at once)."""
    report = open_memdir(project).undo()

    def human() -> None:
        if report.change is None:
            click.echo("nothing to undo")
            return
        click.echo(f"undid change {report.change} ({report.action}, by {report.route}):")
        for file in report.files:
            click.echo(f"  {file}")
        for warning in report.warnings:
            click.echo(f"warning: {warning}", err=True)

    emit(as_json, report, human)


@click.command()
@click.argument("name")
@click.option("--version", "version", type=int, required=True, help="The version to remove.")
@click.option("--scope", type=_SCOPES, default=None)
@project_option
@json_option
def redact(name: str, version: int, scope: str | None, project: Path, as_json: bool) -> None:
    """Remove a version's text (a secret) from the history."""
    report = open_memdir(project).redact(name, version, scope=scope)
    emit(as_json, report, lambda: click.echo(report.message))


@click.command()
@click.argument("name")
@click.option("--scope", type=_SCOPES, default=None)
@project_option
@json_option
def why(name: str, scope: str | None, project: Path, as_json: bool) -> None:
    """Why memdir holds a memory: where it came from, the turns behind it, its history."""
    answer = open_memdir(project).why(name, scope=scope)

    def human() -> None:
        if answer.memory is not None:
            m = answer.memory
            click.echo(f"{m.scope.value}:{m.file}  {m.memory.name} — {m.memory.description}")
        else:
            click.echo(f"{name}: deleted (its versions are kept)")
        for label, v in (("created", answer.origin), ("last changed", answer.latest)):
            if v is not None:
                who = f" by {v.user}@{v.host}" if v.user or v.host else ""
                click.echo(f"{label}: {_line(v)}{who}")
                if v.turns:
                    click.echo(f"  turns {v.turns} of {v.transcript or 'an unknown transcript'}")
        if answer.turns:
            click.echo("source turns:")
            for turn in answer.turns:
                click.echo(f"  [{turn.role} {turn.ref}] {turn.text}")
        elif answer.transcript_note:
            click.echo(f"source turns: {answer.transcript_note}")
        click.echo("history:")
        for v in answer.history:
            click.echo(f"  {_line(v)}")

    emit(as_json, answer, human)


COMMANDS = [history, restore, undo, redact, why]
