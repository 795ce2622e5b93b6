"""``memdir used``: which memories a session was shown and used, and why.

Parse -> one call on the facade (:meth:`~memdir.api.Memdir.used`, over
:mod:`memdir.history.used`) -> render: one line per event, oldest first (the
session start's index lines, each recall with its query, the agent's reads
and writes of memory files from its transcript, the rules that fired), then
how many memories the session has not seen at all. ``--sessions`` lists the
logged sessions instead.
"""

from __future__ import annotations

from pathlib import Path

import click

from memdir.cli._common import emit, json_option, open_memdir, project_option
from memdir.kinds import memory_ref

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memdir.history.used import SessionUse, Use

__all__ = ["COMMANDS", "used"]

# How many refs one line names before it says how many more.
_NAMED = 8


@click.command()
@click.option("--session", "session", default=None, help="The session id (default: the latest).")
@click.option(
    "--transcript",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="The session's transcript, when its session start did not name it.",
)
@click.option("--sessions", "list_sessions", is_flag=True, help="List the logged sessions.")
@project_option
@json_option
def used(
    session: str | None,
    transcript: Path | None,
    list_sessions: bool,
    project: Path,
    as_json: bool,
) -> None:
    """Which memories a session was shown, recalled, read and wrote, and the rules that fired."""
    mem = open_memdir(project)
    if list_sessions:
        from memdir.history.used import recent_sessions

        found = recent_sessions(mem.layout)
        emit(as_json, found, lambda: _print_sessions(found))
        return
    use = mem.used(session, transcript=transcript)
    if use is None:
        message = "no session has been logged yet (the hooks log each session's use)"
        emit(as_json, None, lambda: click.echo(message))
        return
    refs = [memory_ref(r.scope, r.file) for r in mem.list()]
    unseen = [ref for ref in refs if ref not in use.seen]
    data = {**use.json_fields(), "unseen": unseen}
    emit(as_json, data, lambda: _print_use(use, unseen, len(refs)))


def _names(refs: tuple[str, ...] | list[str]) -> str:
    shown = ", ".join(refs[:_NAMED])
    more = len(refs) - _NAMED
    return f"{shown}, and {more} more" if more > 0 else shown


def _line(use: Use) -> str:
    refs = _names(use.refs)
    if use.kind == "start":
        count = len(use.refs)
        what = f"index lines of {count} memor{'y' if count == 1 else 'ies'}"
        return f"start    {what}{': ' + refs if refs else ''}"
    if use.kind == "recall":
        return f'recall   "{use.detail}": {refs}'
    if use.kind == "rule":
        return f"rule     {use.detail} ({refs})"
    return f"{use.kind:<8} {use.detail} {refs}"


def _print_use(use: SessionUse, unseen: list[str], total: int) -> None:
    where = f", transcript {use.transcript}" if use.transcript else ", no transcript known"
    click.echo(f"session {use.session}{where}")
    for item in use.uses:
        click.echo(f"{item.when}  {_line(item)}")
    if not use.uses:
        click.echo("nothing logged")
    if unseen:
        click.echo(
            f"not seen this session: {len(unseen)} of {total} memories (no index line shown, "
            f"not recalled, read or written): {_names(unseen)}"
        )


def _print_sessions(found: list[SessionUse]) -> None:
    if not found:
        click.echo("no session has been logged yet")
    for item in found:
        last = item.uses[-1].when if item.uses else "-"
        click.echo(
            f"{item.session}  last {last}  {len(item.shown)} shown, {len(item.recalled)} "
            f"recalled, {len(item.read)} read, {len(item.written)} written, "
            f"{len(item.fired)} rule firings"
        )


COMMANDS = [used]
