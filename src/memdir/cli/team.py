"""Commands on team memory's git sync: ``team init``, ``team sync``, ``team status``.

``memdir team init --remote URL [--hook]`` makes the team folder a git work
tree of the remote (its memories are kept and published); ``memdir team
sync`` commits, merges, re-scans and pushes; ``memdir team status`` shows
ahead/behind, the files not yet pushed, the conflict copies to settle and the
team changes awaiting review; ``memdir team conflicts [NAME]`` shows each
conflict's two versions as a diff (the remote's in the file, this clone's in
the copy) and ``memdir team resolve NAME --keep mine|theirs|both`` settles one
(``--show`` prints the diff first, and settles nothing). A sync (or an init
that syncs) that leaves a conflict ends with one line per conflict and exits
3 (:data:`~memdir.cli._common.EXIT_CONFLICT`), not 0 and not 1: it did its
work, and a person has something to settle; ``memdir team rules`` lists the
team's enforced rules and teammates' rules held until ``memdir team rules
accept NAME|--all``; ``memdir team rewrite-unpushed``
folds the unpushed commits into one without the secrets a push refused. Each is one call into
:mod:`memdir.team.sync`, rendered as text or ``--json``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast, get_args

import click

from memdir.cli._common import (
    EXIT_CONFLICT,
    emit,
    json_option,
    open_memdir,
    project_option,
)
from memdir.cli._reporting import MemdirGroup
from memdir.enforcement.enforced import EnforcedRule, load_rules
from memdir.enforcement.team_rules import pending_path, read_pending
from memdir.errors import InvalidMemory
from memdir.model import Scope
from memdir.team.conflicts import Keep, PendingConflict, pending_conflicts, resolve
from memdir.team.sync import (
    QuarantinedFile,
    SyncReport,
    init_team,
    rewrite_unpushed,
    sync_team,
    team_status,
)
from memdir.team.teammate_rules import accept_held

__all__ = [
    "exit_on_conflict",
    "keep_option",
    "say_copies",
    "say_files",
    "say_joined",
    "say_pushed",
    "say_standing",
    "team",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memdir.api import Memdir
    from memdir.sync.run import PrivateInit, PrivateStatus, PrivateSyncReport
    from memdir.team.reports import InitResult, TeamStatus

_F = TypeVar("_F", bound=Callable[..., Any])


@click.group(cls=MemdirGroup)
def team() -> None:
    """Team memory shared through a git remote."""


@team.command(name="init")
@click.option("--remote", required=True, help="The team's git remote (URL or path).")
@click.option("--hook", is_flag=True, help="Install a pre-commit hook that refuses secrets.")
@project_option
@json_option
def init(remote: str, hook: bool, project: Path, as_json: bool) -> None:
    """Set up the team folder to sync with REMOTE (nothing local is lost)."""
    mem = open_memdir(project)
    result = init_team(mem, remote, hook=hook)

    def human() -> None:
        say_joined("team memory", result)
        _render(result.sync)
        if result.hook is not None:
            click.echo(f"pre-commit secret scan installed: {result.hook}")
        _say_conflicts(result.sync)

    emit(as_json, result, human)
    exit_on_conflict(result.sync)


@team.command(name="sync")
@project_option
@json_option
def sync(project: Path, as_json: bool) -> None:
    """Commit local changes, merge the remote's, re-scan, push.

    Exits 3 when a memory changed on both sides could not be merged: the remote's
    version stays in the file, yours is kept as a conflict copy to settle.
    """
    report = sync_team(open_memdir(project))

    def human() -> None:
        _render(report)
        _say_conflicts(report)

    emit(as_json, report, human)
    exit_on_conflict(report)


def _say_conflicts(report: SyncReport | None) -> None:
    """Each conflict on a line of its own, last, with the commands that settle it."""
    if report is None or not report.conflicts:
        return
    for conflict in report.conflicts:
        copy = f"; yours is kept in {conflict.copy}" if conflict.copy else ""
        click.echo(
            f"conflict: team/{conflict.file}: {conflict.reason}{copy}; see both: "
            f"memdir team conflicts {conflict.file}; settle: memdir team resolve "
            f"{conflict.file} --keep mine|theirs|both"
        )


def say_joined(what: str, result: InitResult | PrivateInit) -> None:
    """The first line of an init (team's or private): set up before, published, or joined."""
    if result.already:
        click.echo(f"{what} already syncs with {result.remote} ({result.branch})")
    elif result.published:
        click.echo(f"{what} published to {result.remote} ({result.branch})")
    else:
        click.echo(f"{what} joined {result.remote} ({result.branch})")


def exit_on_conflict(report: SyncReport | PrivateSyncReport | None) -> None:
    """Exit 3 after a sync that did its work and left a conflict for a person to settle."""
    if report is not None and report.conflicts:
        raise click.exceptions.Exit(EXIT_CONFLICT)


def say_standing(state: TeamStatus | PrivateStatus, not_synced: str) -> None:
    """A status's first line: the remote, ahead and behind (``not_synced`` when not set up)."""
    if not state.initialized:
        click.echo(not_synced)
    else:
        stale = "" if state.fetched else " (remote not reached: last known state)"
        click.echo(
            f"{state.remote} ({state.branch}): {state.ahead} ahead, {state.behind} behind{stale}"
        )


def say_copies(state: TeamStatus | PrivateStatus, command: str) -> None:
    """A status's unsynced files and its conflict copies, each with ``command`` to settle it."""
    for file in state.unsynced_files:
        click.echo(f"  unsynced: {file}")
    for conflict in state.conflicts:
        click.echo(
            f"  conflict copy: {conflict.copy} (of {conflict.file}): {conflict.reason}; "
            f"settle it with `{command} resolve {conflict.copy} --keep mine|theirs|both`"
        )


def say_files(report: SyncReport | PrivateSyncReport) -> None:
    """What a sync committed, pulled and deleted, a line each."""
    for label, files in (
        ("committed", report.committed),
        ("pulled", report.pulled),
        ("deleted", report.deleted),
    ):
        for file in files:
            click.echo(f"  {label}: {file}")


def say_pushed(report: SyncReport | PrivateSyncReport) -> None:
    """A sync's last line: pushed (after how many retries), or already up to date."""
    if report.pushed:
        retried = f" after {report.retries} retries" if report.retries else ""
        click.echo(f"pushed to {report.remote} ({report.branch}){retried}")
    else:
        click.echo(f"up to date with {report.remote} ({report.branch})")


@team.command(name="rewrite-unpushed")
@project_option
@json_option
def rewrite(project: Path, as_json: bool) -> None:
    """Fold unpushed commits into one, with secrets and non-memory files quarantined."""
    result = rewrite_unpushed(open_memdir(project))

    def human() -> None:
        for item in result.quarantined:
            click.echo(f"  quarantined: {_quarantined(item)}")
        click.echo(
            f"rewrote {result.replaced} unpushed commit(s) into one; "
            "run `memdir team sync` to share it"
        )

    emit(as_json, result, human)


@team.command(name="status")
@click.option("--no-fetch", is_flag=True, help="Compare with the last fetched state only.")
@project_option
@json_option
def status(no_fetch: bool, project: Path, as_json: bool) -> None:
    """Show commits ahead of and behind the remote, and unsynced files."""
    state = team_status(open_memdir(project), fetch=not no_fetch)

    def human() -> None:
        say_standing(state, "team memory is not synced: run `memdir team init --remote URL`")
        if state.stuck:
            click.echo(f"  stuck: {state.stuck} (the next `memdir team sync` clears it)")
        say_copies(state, "memdir team")
        if state.pending_review:
            click.echo(
                f"  {state.pending_review} team change(s) await review (not pushed until "
                "approved): `memdir review`"
            )

    emit(as_json, state, human)


def keep_option(mine: str, *, required: bool) -> Callable[[_F], _F]:
    """``--keep mine|theirs|both`` of a ``resolve`` command; ``mine``: whose copy "mine" is."""
    return click.option(
        "--keep",
        type=click.Choice(get_args(Keep)),
        required=required,
        help=f"mine: {mine} copy replaces the file; theirs: the copy goes to the trash; "
        "both: the copy becomes a memory of its own.",
    )


@team.command(name="resolve")
@click.argument("name")
@keep_option("your", required=False)
@click.option("--show", is_flag=True, help="Print both versions as a diff; settle nothing.")
@project_option
@json_option
def resolve_command(name: str, keep: str | None, show: bool, project: Path, as_json: bool) -> None:
    """Settle the conflict copy NAME (the copy, or its memory's file or name)."""
    mem = open_memdir(project)
    if show:
        _show_conflicts(mem, name, as_json)
        return
    if keep is None:
        raise click.UsageError("choose --keep mine|theirs|both (or --show to see both first)")
    done = resolve(mem, name, cast(Keep, keep))

    def human() -> None:
        if done.keep == "mine":
            click.echo(f"{done.file}: your version is kept; `memdir team sync` shares it")
        elif done.keep == "both":
            click.echo(
                f"{done.file}: the remote's version stays; yours is now {done.written}; "
                "`memdir team sync` shares it"
            )
        else:
            click.echo(f"{done.file}: the remote's version is kept; your copy is in {done.trashed}")

    emit(as_json, done, human)


@team.command(name="conflicts")
@click.argument("name", required=False)
@project_option
@json_option
def conflicts_command(name: str | None, project: Path, as_json: bool) -> None:
    """Show each unsettled conflict (or NAME's): the remote's version against yours, as a
    diff, before `memdir team resolve`."""
    _show_conflicts(open_memdir(project), name, as_json)


def _show_conflicts(mem: Memdir, name: str | None, as_json: bool) -> None:
    root = mem.layout.team_dir
    found = pending_conflicts(root)
    if name is not None:
        wanted = name.strip().removeprefix("team/")
        found = [c for c in found if wanted in _names_of(c)]
        if not found:
            from memdir.errors import MemoryNotFound

            raise MemoryNotFound(
                f"no conflict copy matches {name!r}",
                hint="`memdir team conflicts` lists every unsettled one",
            )
    shown = [{**_conflict_dict(c), "diff": _conflict_diff(root, c)} for c in found]

    def human() -> None:
        if not shown:
            click.echo("no conflict to settle")
        for item in shown:
            click.echo(f"team/{item['file']}: {item['reason']}")
            click.echo("  theirs: the remote's version, in the file; mine: yours, in the copy")
            click.echo(item["diff"], nl=False)
            click.echo(f"  settle: memdir team resolve {item['file']} --keep mine|theirs|both\n")

    emit(as_json, shown, human)


def _names_of(conflict: PendingConflict) -> set[str]:
    """What a person may call a conflict: its copy (with or without the folder), its file."""
    base = conflict.copy.rsplit("/", 1)[-1]
    return {conflict.copy, conflict.copy.split("/", 1)[-1], base, conflict.file,
            conflict.file.removesuffix(".md")}  # fmt: skip


def _conflict_dict(conflict: PendingConflict) -> dict[str, object]:
    return {"file": conflict.file, "copy": conflict.copy, "reason": conflict.reason}


def _conflict_diff(root: Path, conflict: PendingConflict) -> str:
    """The remote's version (the file) against this clone's (the copy), as a unified diff."""
    import difflib

    def lines(rel: str) -> list[str]:
        try:
            return (root / rel).read_text("utf-8", errors="replace").splitlines(keepends=True)
        except OSError:  # gone (theirs deleted it): every line of mine is new
            return []

    return "".join(
        difflib.unified_diff(
            lines(conflict.file),
            lines(conflict.copy),
            fromfile=f"theirs: team/{conflict.file}",
            tofile=f"mine: team/{conflict.copy}",
        )
    )


def _quarantined(item: QuarantinedFile) -> str:
    """A quarantined file as both ``rewrite-unpushed`` and a sync name it: where it went, why."""
    return f"{item.file} ({', '.join(item.labels)}) -> {item.moved_to}"


def _render(report: SyncReport) -> None:
    if report.recovered:
        click.echo(f"  recovered: {report.recovered}")
    for file in report.skipped:
        click.echo(
            f"  left out: {file}: not a memory file (only *.md memories are shared; "
            "`memdir doctor` says how to fix it)",
            err=True,
        )
    say_files(report)
    for item in report.quarantined:
        click.echo(
            f"  quarantined: {_quarantined(item)}; "
            "a teammate pushed it: have the remote purged and rotate any secret",
            err=True,
        )
    for entry in report.refused:
        click.echo(f"  not taken in: {entry.file}: {entry.reason}", err=True)
    if report.rewritten:
        click.echo(
            f"the history of {report.remote} ({report.branch}) was rewritten: this clone now "
            "follows it and pushed nothing; review the copies listed above (delete any that "
            "should stay removed), then run `memdir team sync`"
        )
    else:
        say_pushed(report)


@team.group(name="rules", invoke_without_command=True)
@project_option
@json_option
@click.pass_context
def rules_group(ctx: click.Context, project: Path, as_json: bool) -> None:
    """Team rules: those enforced, and teammates' rules held until you accept them."""
    if ctx.invoked_subcommand is not None:
        return
    mem = open_memdir(project)
    found = load_rules(mem.layout)
    pending = read_pending(pending_path(mem.layout))
    enforced = [r for r in found.rules if r.scope is Scope.TEAM]

    def row(rule: EnforcedRule, held: bool) -> dict[str, object]:
        origin = pending.get(f"team:{rule.file}", {}) if held else {}
        return {
            **rule.rule.as_dict(),
            "memory": rule.ref,
            "name": rule.name,
            "held": held,
            "author": origin.get("author"),
        }

    data = [row(r, False) for r in enforced] + [row(r, True) for r in found.held]

    def human() -> None:
        if not data:
            click.echo("no team rules")
        for rule in enforced:
            click.echo(f"enforced  {rule.rule.action:<4} {rule.rule.summary}  <- {rule.ref}")
        for rule in found.held:
            author = pending.get(f"team:{rule.file}", {}).get("author") or "a teammate"
            click.echo(
                f"held      {rule.rule.action:<4} {rule.rule.summary}  <- {rule.ref} "
                f"(from {author}; `memdir team rules accept {rule.file}` enforces it)"
            )

    emit(as_json, {"rules": data}, human)


@rules_group.command(name="accept")
@click.argument("name", required=False)
@click.option("--all", "accept_all", is_flag=True, help="Accept every held rule.")
@project_option
def accept_command(name: str | None, accept_all: bool, project: Path) -> None:
    """Enforce the held rules of team memory NAME (a teammate's, pulled by sync)."""
    if not accept_all and not name:
        raise InvalidMemory(
            "name the memory whose rules to accept, or pass --all",
            hint="`memdir team rules` lists the held rules",
        )
    mem = open_memdir(project)
    file = None
    if not accept_all and name is not None:
        held = {rule.file for rule in load_rules(mem.layout).held}
        wanted = name.removeprefix("team/")
        file = wanted if wanted in held else mem.team.get(wanted).file
        if file not in held:
            raise InvalidMemory(
                f"team/{file} has no held rules",
                hint="`memdir team rules` lists the held rules",
            )
    accepted = accept_held(mem.layout, file)
    for done in accepted:
        click.echo(f"team/{done}: its rules are enforced now")
    if not accepted:
        click.echo("no held rules")
