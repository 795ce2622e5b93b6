"""Commands that read memory for an agent: recall and manifest.

``memdir recall QUERY`` prints the memory blocks an agent gets for a request
(nothing, and the reason on stderr, when recall is skipped: that is an
answer, exit status 0). ``memdir manifest`` prints one line per memory,
newest first, or ranked for ``--query``.
"""

from __future__ import annotations

from pathlib import Path

import click

from ._common import emit, json_option, open_memdir, project_option, to_jsonable

__all__ = ["COMMANDS"]


@click.command(name="recall")
@click.argument("query")
@click.option(
    "--session",
    default=None,
    help="Session id: memories it has seen are not repeated, and its byte budget applies.",
)
@project_option
@json_option
def recall_command(query: str, session: str | None, project: Path, as_json: bool) -> None:
    """Print the memories that may help with QUERY (at most 5)."""
    result = open_memdir(project).recall(query, session=session)

    def human() -> None:
        if result.items:
            click.echo(result.render(), nl=False)
        else:
            click.echo(f"nothing recalled: {result.reason}", err=True)

    emit(as_json, {**to_jsonable(result), "rendered": result.render()}, human)


@click.command(name="manifest")
@click.option("--query", "-q", default=None, help="Rank memories for this request.")
@click.option("--limit", type=click.IntRange(min=0), default=None, help="At most this many.")
@project_option
@json_option
def manifest_command(query: str | None, limit: int | None, project: Path, as_json: bool) -> None:
    """List memories one per line: [type] file (date): description."""
    result = open_memdir(project).manifest(query=query, limit=limit)

    def human() -> None:
        if result.text:
            click.echo(result.text, nl=False)
        else:
            click.echo("no memories yet", err=True)

    emit(as_json, result, human)


COMMANDS = [recall_command, manifest_command]
