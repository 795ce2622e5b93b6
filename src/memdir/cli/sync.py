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
or ``--json``.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import click

from memdir.cli._common import (
    EXIT_CONFLICT,
    MemdirGroup,
    emit,
    json_option,
    open_memdir,
    project_option,
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
    _exit_on_conflict(report)


@sync.command(name="init")
@click.argument("remote")
@_ALLOW_SECRETS
@project_option
@json_option
def init(remote: str, allow_secrets: bool, project: Path, as_json: bool) -> None:
    """Set up private memory to sync with REMOTE, a git repository only you use."""
    result = open_memdir(project).init_private_sync(remote, allow_secrets=allow_secrets)

    def human() -> None:
        if result.already:
            click.echo(f"private memory already syncs with {result.remote} ({result.branch})")
        elif result.published:
            click.echo(f"private memory published to {result.remote} ({result.branch})")
        else:
            click.echo(f"private memory joined {result.remote} ({result.branch})")
        _render(result.sync)
        _say_conflicts(result.sync)

    emit(as_json, result, human)
    _exit_on_conflict(result.sync)


@sync.command(name="status")
@click.option("--no-fetch", is_flag=True, help="Compare with the last fetched state only.")
@project_option
@json_option
def status(no_fetch: bool, project: Path, as_json: bool) -> None:
    """Show commits ahead of and behind your remote, unsynced files, conflict copies."""
    state = open_memdir(project).private_sync_status(fetch=not no_fetch)

    def human() -> None:
        if not state.initialized:
            click.echo("private memory is not synced: run `memdir sync init REMOTE`")
        else:
            stale = "" if state.fetched else " (remote not reached: last known state)"
            click.echo(
                f"{state.remote} ({state.branch}): {state.ahead} ahead, "
                f"{state.behind} behind{stale}"
            )
        if state.failure:
            click.echo(f"  last sync failed: {state.failure}")
        if state.stuck:
            click.echo(f"  stuck: {state.stuck} (the next `memdir sync` clears it)")
        for file in state.unsynced_files:
            click.echo(f"  unsynced: {file}")
        for conflict in state.conflicts:
            click.echo(
                f"  conflict copy: {conflict.copy} (of {conflict.file}): {conflict.reason}; "
                f"settle it with `memdir sync resolve {conflict.copy} --keep mine|theirs|both`"
            )

    emit(as_json, state, human)


@sync.command(name="resolve")
@click.argument("name")
@click.option(
    "--keep",
    type=click.Choice(["mine", "theirs", "both"]),
    required=True,
    help="mine: this machine's copy replaces the file; theirs: the copy goes to the trash; "
    "both: the copy becomes a memory of its own.",
)
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
    for label, files in (
        ("committed", report.committed),
        ("pulled", report.pulled),
        ("deleted", report.deleted),
    ):
        for file in files:
            click.echo(f"  {label}: {file}")
    if report.pushed:
        retried = f" after {report.retries} retries" if report.retries else ""
        click.echo(f"pushed to {report.remote} ({report.branch}){retried}")
    else:
        click.echo(f"up to date with {report.remote} ({report.branch})")


def _say_conflicts(report: PrivateSyncReport) -> None:
    """Each conflict on a line of its own, last, with where both versions are."""
    for conflict in report.conflicts:
        copy = f"; this machine's is kept in {conflict.copy}" if conflict.copy else ""
        click.echo(
            f"conflict: {conflict.file}: {conflict.reason}{copy}; settle: "
            f"memdir sync resolve {conflict.file} --keep mine|theirs|both"
        )


def _exit_on_conflict(report: PrivateSyncReport) -> None:
    if report.conflicts:
        raise click.exceptions.Exit(EXIT_CONFLICT)


COMMANDS = [sync]
