"""Commands on the history: history, restore, undo, redact, why.

Each is parse -> one call on the facade -> render (see
:mod:`memdir.history.undo` for what the calls do).
"""

from __future__ import annotations

from pathlib import Path

import click

from memdir.cli._common import (
    emit,
    json_option,
    open_memdir,
    project_option,
    record_dict,
    scope_option,
    scope_project_json_options,
)
from memdir.history.undo import render_why, version_line

__all__ = ["COMMANDS", "history", "redact", "restore", "undo", "why"]


@click.command()
@click.argument("name", required=False)
@scope_option()
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
            click.echo(version_line(v))

    emit(as_json, versions, human)


@click.command()
@click.argument("name")
@click.option("--version", "version", type=int, default=None, help="The version id (v12: 12).")
@scope_project_json_options()
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
@scope_project_json_options()
def redact(name: str, version: int, scope: str | None, project: Path, as_json: bool) -> None:
    """Remove a version's text (a secret) from the history."""
    report = open_memdir(project).redact(name, version, scope=scope)
    emit(as_json, report, lambda: click.echo(report.message))


@click.command()
@click.argument("name")
@scope_project_json_options()
def why(name: str, scope: str | None, project: Path, as_json: bool) -> None:
    """Why memdir holds a memory: where it came from, the turns behind it, its history."""
    answer = open_memdir(project).why(name, scope=scope)

    emit(as_json, answer, lambda: click.echo(render_why(answer)))


COMMANDS = [history, restore, undo, redact, why]
