"""Commands that feed an agent's context: prompt and log."""

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
    "--tools",
    type=click.Choice(["files", "memdir"]),
    default="files",
    show_default=True,
    help="files: the agent writes files itself; memdir: through memdir's tools.",
)
@project_option
@json_option
def prompt(mode: str, skip_index: bool, tools: str, project: Path, as_json: bool) -> None:
    """Print the memory section of an agent's system prompt."""
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
