"""Commands that feed an agent's context: prompt and log.

``memdir prompt --left-out`` lists, instead of the prompt, the index entries a
session start leaves out to stay within its hook's limit (what its one
"entries are not shown" line points to), as the index writes them.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from memdir.cli._common import (
    emit,
    json_option,
    open_memdir,
    profile_option_value,
    project_option,
    read_stdin_text,
)
from memdir.hooks.background import project_prompt
from memdir.hooks.session_start import left_out as session_start_left_out

__all__ = ["COMMANDS"]


@click.command()
@click.option(
    "--mode",
    type=click.Choice(["auto", "individual", "combined", "daily-log"]),
    default="auto",
    show_default=True,
    help="auto: daily-log if on, else combined if team memory is on, else individual.",
)
@click.option("--skip-index", is_flag=True, help="Leave out MEMORY.md and every mention of it.")
@click.option(
    "--left-out",
    "left_out",
    is_flag=True,
    help="Instead: list the index entries a session start leaves out (its hook's limit).",
)
@click.option(
    "--tools",
    type=click.Choice(["files", "memdir"]),
    default="files",
    show_default=True,
    help="files: the agent writes files itself; memdir: through memdir's tools.",
)
@project_option
@json_option
def prompt(
    mode: str, skip_index: bool, left_out: bool, tools: str, project: Path, as_json: bool
) -> None:
    """Print the memory section of an agent's system prompt."""
    if left_out:
        _print_left_out(project, as_json)
        return
    # What Memdir.open(...).prompt() prints, without loading the stores (a faster start).
    text = project_prompt(
        project,
        env=os.environ,
        profile=profile_option_value(),
        mode=mode,  # type: ignore[arg-type]
        skip_index=skip_index,
        tools=tools,  # type: ignore[arg-type]
    )

    def human() -> None:
        if text is None:
            click.echo("memory is disabled (MEMDIR_DISABLE or the 'enabled' setting)", err=True)
        else:
            click.echo(text)

    emit(as_json, {"enabled": text is not None, "prompt": text}, human)


def _print_left_out(project: Path, as_json: bool) -> None:
    """The index entries a session start leaves out, as the index writes them."""
    view = session_start_left_out(project, env=os.environ, profile=profile_option_value())
    entries = view.left_out if view is not None else ()
    data = {
        "enabled": view is not None,
        "limit": view.limit if view is not None else None,
        "shown": len(view.shown) if view is not None else 0,
        "left_out": entries,
    }

    def human() -> None:
        if view is None:
            click.echo("memory is disabled (MEMDIR_DISABLE or the 'enabled' setting)", err=True)
            return
        if not entries:
            click.echo("a session start shows every index entry")
            return
        click.echo(
            f"{len(entries)} index entries are left out of the session start (its hook's "
            f"limit is {view.limit:,} characters); {len(view.shown)} are shown"
        )
        pinned = [entry for entry in entries if entry.pinned]
        by_client = [e for e in pinned if view.client_loads and e.scope == "private"]
        if by_client:
            click.echo(
                f"{len(by_client)} of them pinned: Claude Code loads the private MEMORY.md "
                "itself, only its first lines, and knows nothing of pins"
            )
        if len(pinned) > len(by_client):
            click.echo(
                f"{len(pinned) - len(by_client)} of them pinned: the pinned lines alone exceed "
                "what the session start holds"
            )
        for scope in ("private", "team"):
            lines = [entry.line for entry in entries if entry.scope == scope]
            if lines:
                click.echo(f"\n{scope} MEMORY.md:")
                click.echo("\n".join(lines))

    emit(as_json, data, human)


@click.command()
@click.argument("text", required=False)
@project_option
@json_option
def log(text: str | None, project: Path, as_json: bool) -> None:
    """Append a timestamped entry to today's daily log (TEXT; '-' or none reads standard input)."""
    entry = text if text not in (None, "-") else read_stdin_text("the log entry")
    path = open_memdir(project).log(entry)
    emit(as_json, {"log": path}, lambda: click.echo(f"logged to {path}"))


COMMANDS = [prompt, log]
