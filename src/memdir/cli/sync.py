"""``memdir sync``: private memory across one person's machines, through their own remote.

``memdir sync init REMOTE`` makes the private memory folder a git work tree of
REMOTE (a bare repository path or a URL only you use): the first machine
publishes, the next ones join and merge what they have with what is there.
``memdir sync`` commits, merges and pushes (never forced); ``memdir sync
status`` shows ahead/behind, unsynced files and the conflict copies to settle;
``memdir sync resolve NAME --keep mine|theirs|both`` settles one (as ``team
resolve`` does for team memory).
A likely secret stops the sync before anything leaves the machine, naming the
file and line, unless ``--allow-secrets`` is given for that sync. A sync that
leaves a conflict exits 3 (:data:`~memdir.cli._common.EXIT_CONFLICT`), as team
sync does: the remote's version stays in the file, this machine's in the copy.
Each command is one call on the facade (:mod:`memdir.sync`), rendered as text
or ``--json``, in the lines team sync's commands print (:mod:`memdir.cli.team`).
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import click

from memdir.cli._common import emit, json_option, open_memdir, project_option
from memdir.cli._reporting import MemdirGroup
from memdir.cli.team import (
    exit_on_conflict,
    keep_option,
    say_copies,
    say_files,
    say_joined,
    say_pushed,
    say_standing,
)
from memdir.kinds import Scope
from memdir.team.conflicts import Keep, resolve

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memdir.sync.run import PrivateSyncReport

__all__ = ["COMMANDS", "sync"]

_ALLOW_SECRETS = click.option(
    "--allow-secrets",
    is_flag=True,
    help="Send likely secrets to your own remote this once (they are named, never shown).",
)


@click.group(cls=MemdirGroup, invoke_without_command=True)
@_ALLOW_SECRETS
@project_option
@json_option
@click.pass_context
def sync(ctx: click.Context, allow_secrets: bool, project: Path, as_json: bool) -> None:
    """Sync private memory with your own git remote: commit, merge, push.

    Exits 3 when a memory changed on both machines: the remote's version stays in
    the file, this machine's is kept as a conflict copy in .conflicts/.
    """
    if ctx.invoked_subcommand is not None:
        return
    report = open_memdir(project).sync_private(allow_secrets=allow_secrets)

    def human() -> None:
        _render(report)
        _say_conflicts(report)

    emit(as_json, report, human)
    exit_on_conflict(report)


@sync.command(name="init")
@click.argument("remote")
@_ALLOW_SECRETS
@project_option
@json_option
def init(remote: str, allow_secrets: bool, project: Path, as_json: bool) -> None:
    """Set up private memory to sync with REMOTE, a git repository only you use."""
    result = open_memdir(project).init_private_sync(remote, allow_secrets=allow_secrets)

    def human() -> None:
        say_joined("private memory", result)
        _render(result.sync)
        _say_conflicts(result.sync)

    emit(as_json, result, human)
    exit_on_conflict(result.sync)


@sync.command(name="status")
@click.option("--no-fetch", is_flag=True, help="Compare with the last fetched state only.")
@project_option
@json_option
def status(no_fetch: bool, project: Path, as_json: bool) -> None:
    """Show commits ahead of and behind your remote, unsynced files, conflict copies."""
    state = open_memdir(project).private_sync_status(fetch=not no_fetch)

    def human() -> None:
        say_standing(state, "private memory is not synced: run `memdir sync init REMOTE`")
        if state.failure:
            click.echo(f"  last sync failed: {state.failure}")
        if state.stuck:
            click.echo(f"  stuck: {state.stuck} (the next `memdir sync` clears it)")
        say_copies(state, "memdir sync")

    emit(as_json, state, human)


@sync.command(name="resolve")
@click.argument("name")
@keep_option("this machine's", required=True)
@project_option
@json_option
def resolve_command(name: str, keep: str, project: Path, as_json: bool) -> None:
    """Settle the conflict copy of NAME (the copy, or its memory's file or name)."""
    done = resolve(open_memdir(project), name, cast(Keep, keep), scope=Scope.PRIVATE)

    def human() -> None:
        if done.keep == "mine":
            click.echo(f"{done.file}: this machine's version is back in the file")
        elif done.keep == "both":
            click.echo(f"{done.file}: this machine's version is now {done.written}")
        else:
            click.echo(f"{done.file}: the copy went to the trash ({done.trashed})")
        click.echo("run `memdir sync` to share it")

    emit(as_json, done, human)


def _render(report: PrivateSyncReport) -> None:
    if report.recovered:
        click.echo(f"  recovered: {report.recovered}")
    say_files(report)
    say_pushed(report)


def _say_conflicts(report: PrivateSyncReport) -> None:
    """Each conflict on a line of its own, last, with where both versions are."""
    for conflict in report.conflicts:
        copy = f"; this machine's is kept in {conflict.copy}" if conflict.copy else ""
        click.echo(
            f"conflict: {conflict.file}: {conflict.reason}{copy}; settle: "
            f"memdir sync resolve {conflict.file} --keep mine|theirs|both"
        )


COMMANDS = [sync]
