"""``memdir review``: what waits for a person, and the verdicts.

``memdir review`` lists agents' changes held for review, each with why it is
held (the scope's manual review mode, or what screening found in its text:
see :mod:`memdir.history.review`; in encoded text, what that decodes to), and a
teammate's pulled memory screening held (approve or reject them), consolidation
proposals awaiting a decision, and memories that expired ("re-validate or
delete"); ``memdir verify NAME`` re-validates one: it checks the memory against
the code and stamps ``verified``.

Each command is parse -> one call -> render (see :mod:`memdir.history.pending`
and :mod:`memdir.recall.freshness`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from memdir.cli._common import (
    emit,
    json_option,
    named_memory_options,
    open_memdir,
    project_option,
    reaching,
    record_dict,
    to_jsonable,
)
from memdir.errors import MemoryNotFound
from memdir.history.undo import version_line
from memdir.history.versions import Version

__all__ = ["COMMANDS", "review", "verify"]


@click.group(invoke_without_command=True)
@project_option
@json_option
@click.pass_context
def review(ctx: click.Context, project: Path, as_json: bool) -> None:
    """List agents' changes awaiting review, with their diffs."""
    if ctx.invoked_subcommand is not None:
        return
    from memdir.agents.consolidate.proposal import pending_proposals
    from memdir.recall.expiry import expired

    mem = open_memdir(project)
    pending = mem.review()
    proposals = pending_proposals(mem)
    gone = expired(mem)

    def human() -> None:
        if not pending and not proposals and not gone:
            click.echo("nothing awaits review")
        for item in pending:
            click.echo(version_line(item.version))
            if item.version.reason:  # screening's findings, or the review mode
                click.echo(f"  held: {item.version.reason}")
                for line in _decoded_lines(item.version.reason, item.diff):
                    click.echo(line)
            click.echo(item.diff, nl=False)
        for proposal in proposals:
            left = sum(1 for c in proposal.changes if not c.applied)
            click.echo(
                f"consolidation proposal {proposal.id}: {left} change(s) not applied; "
                f"`memdir consolidate show {proposal.id}`"
            )
        for e in gone:
            click.echo(
                f"expired: re-validate or delete {e.ref} ({e.name!r}: {e.reason}); "
                f"`memdir verify {e.ref}` or `memdir rm {e.ref}`"
            )

    emit(as_json, pending, human)  # JSON: the pending changes, as before


def _decoded_lines(reason: str, diff: str) -> list[str]:
    """What an agent would read in the encoded text screening held, shown to the person
    (the diff shows the text only as written): a line per decoded part, at most
    :data:`_DECODED_SHOWN`, each cut to :data:`_DECODED_WIDTH` characters."""
    if ", decoded" not in reason:
        return []
    from memdir.screening.screen import held_decoded

    added = "\n".join(
        line[1:]
        for line in diff.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    )
    lines = []
    for part in held_decoded(added)[:_DECODED_SHOWN]:
        text = " ".join(part.text.split())
        cut = text if len(text) <= _DECODED_WIDTH else text[: _DECODED_WIDTH - 1] + "…"
        lines.append(f"  decoded ({part.scheme}): {cut}")
    return lines


_DECODED_SHOWN = 3
_DECODED_WIDTH = 160


@review.command()
@click.argument("name", required=False)
@click.option("--all", "all_", is_flag=True, help="Approve every pending change.")
@project_option
@json_option
def approve(name: str | None, all_: bool, project: Path, as_json: bool) -> None:
    """Apply a pending change (NAME, or vID), or --all of them."""
    if (name is None) == (not all_):
        raise click.UsageError("name one pending change, or pass --all")
    mem = open_memdir(project)
    done = mem.approve(None) if all_ else _pending_named(mem.approve, str(name))
    emit(as_json, done, lambda: _each("approved", done))


@review.command()
@click.argument("name")
@project_option
@json_option
def reject(name: str, project: Path, as_json: bool) -> None:
    """Drop a pending change (NAME, or vID): it is never applied."""
    done = _pending_named(open_memdir(project).reject, name)
    emit(as_json, done, lambda: _each("rejected", done))


def _pending_named(verdict: Callable[[str], list[Version]], name: str) -> list[Version]:
    """``verdict`` on the pending change ``name``: a file or name, or an id as `memdir review`
    prints it (v19), or as the bare number ``--json`` gives (19)."""
    try:
        return verdict(name)
    except MemoryNotFound:
        if not (name.isascii() and name.isdigit()):
            raise
        return verdict(f"v{name}")


def _each(verb: str, versions: list[Version]) -> None:
    for v in versions:
        click.echo(f"{verb} {version_line(v)}")


@click.command()
@named_memory_options
def verify(name: str, scope: str | None, project: Path, as_json: bool) -> None:
    """Re-validate a memory: check it against the code now and stamp it verified."""
    from memdir.recall.expiry import verify as verify_memory

    mem = open_memdir(project)
    with reaching(mem, name, scope):
        result = verify_memory(mem, name, scope=scope)
    data = {
        "memory": record_dict(result.record),
        "problems": to_jsonable(result.problems),
        "stamped": result.stamped,
    }

    def human() -> None:
        where = f"{result.record.scope.value}:{result.record.file}"
        if result.stamped:
            click.echo(f"verified {where}: every path and symbol it names exists")
            return
        click.echo(f"{where} was not marked verified; what it cites no longer holds:")
        for problem in result.problems:
            click.echo(f"  - {problem}")
        click.echo(f"correct it (`memdir edit {name}`) or delete it (`memdir rm {name}`)")

    emit(as_json, data, human)
    if not result.stamped:
        raise click.exceptions.Exit(1)


COMMANDS = [review, verify]
