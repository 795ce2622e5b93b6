"""``memdir review``: what agents proposed under manual review, approve or reject it.

Each command is parse -> one call on the facade -> render (see
:mod:`memdir.storage.pending`).
"""

from __future__ import annotations

from pathlib import Path

import click

from memdir.cli._common import emit, json_option, open_memdir, project_option
from memdir.storage.history import Version
from memdir.storage.undo import version_line

__all__ = ["COMMANDS", "review"]


@click.group(invoke_without_command=True)
@project_option
@json_option
@click.pass_context
def review(ctx: click.Context, project: Path, as_json: bool) -> None:
    """List agents' changes awaiting review, with their diffs."""
    if ctx.invoked_subcommand is not None:
        return
    pending = open_memdir(project).review()

    def human() -> None:
        if not pending:
            click.echo("nothing awaits review")
        for item in pending:
            click.echo(version_line(item.version))
            click.echo(item.diff, nl=False)

    emit(as_json, pending, human)


@review.command()
@click.argument("name", required=False)
@click.option("--all", "all_", is_flag=True, help="Approve every pending change.")
@project_option
@json_option
def approve(name: str | None, all_: bool, project: Path, as_json: bool) -> None:
    """Apply a pending change (NAME, or vID), or --all of them."""
    if (name is None) == (not all_):
        raise click.UsageError("name one pending change, or pass --all")
    done = open_memdir(project).approve(None if all_ else name)
    emit(as_json, done, lambda: _each("approved", done))


@review.command()
@click.argument("name")
@project_option
@json_option
def reject(name: str, project: Path, as_json: bool) -> None:
    """Drop a pending change (NAME, or vID): it is never applied."""
    done = open_memdir(project).reject(name)
    emit(as_json, done, lambda: _each("rejected", done))


def _each(verb: str, versions: list[Version]) -> None:
    for v in versions:
        click.echo(f"{verb} {version_line(v)}")


COMMANDS = [review]
