"""``memdir export``: memory for agents that read files, not hooks.

``export agents-md`` writes memdir's marked section of the project's
``AGENTS.md`` (the memory index and the enforced feedback rules as plain
instructions); ``--cursor`` also writes ``.cursor/rules/memdir.mdc``. Running
it again updates only memdir's section (see
:mod:`memdir.hosts.agents_md`). Gemini CLI reads ``GEMINI.md`` unless its
settings name other context files: where the project has a
``.gemini/settings.json``, ``AGENTS.md`` is added to them (GEMINI.md kept), and
the output says whether Gemini reads the file
(:func:`memdir.hosts.gemini.agents_md_note`). Only team memory is written unless
``--include-private`` is given; ``--team-only``, once needed to keep private
memory out, is still accepted and now changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import click

from memdir.cli._common import open_memdir, project_option
from memdir.errors import MemdirError
from memdir.hosts.agents_md import (
    AGENTS_FILE,
    CURSOR_FILE,
    export_agents_md,
    export_cursor_rules,
    tracked_by_git,
)
from memdir.hosts.gemini import agents_md_note

__all__ = ["COMMANDS", "export"]


@click.group()
def export() -> None:
    """Write memory where other agents read it (AGENTS.md, Cursor rules)."""


@export.command("agents-md")
@click.option("--cursor", is_flag=True, help="Also write .cursor/rules/memdir.mdc.")
@click.option(
    "--include-private",
    is_flag=True,
    help="Also write your private memory (for a file that is not committed).",
)
@click.option(
    "--team-only",
    is_flag=True,
    hidden=True,
    help="The default now: private memory is left out unless --include-private.",
)
@project_option
def agents_md(cursor: bool, include_private: bool, team_only: bool, project: Path) -> None:
    """Write memdir's section of AGENTS.md (team memory only, unless --include-private);
    the rest of the file is left as it is."""
    if team_only and include_private:
        raise click.UsageError("--team-only and --include-private contradict each other")
    if team_only:
        click.echo(
            "memdir: note: --team-only is the default now (private memory is left out "
            "unless --include-private); the flag can be dropped",
            err=True,
        )
    mem = open_memdir(project)
    root = mem.layout.project_root  # which files exist yet: a new one is "created"
    existed = {path: path.exists() for path in (root / AGENTS_FILE, root / CURSOR_FILE)}
    results = [export_agents_md(mem, include_private=include_private)]
    try:
        gemini = agents_md_note(mem.layout.project_root)
    except MemdirError as exc:  # AGENTS.md is written: say what kept Gemini's file as it was
        gemini = f"Gemini CLI's settings were left as they are: {exc}"
    if cursor:
        results.append(export_cursor_rules(mem, include_private=include_private))
    for result in results:
        verb = "updated" if existed.get(result.path, True) else "created"
        click.echo(f"{verb if result.changed else 'unchanged'}: {result.path}")
        if include_private and tracked_by_git(result.path):
            click.echo(
                f"memdir: warning: git tracks {result.path.name}, and it now holds your private "
                "memory index: commit it only if that is meant to be shared, or run again "
                "without --include-private",
                err=True,
            )
    if gemini is not None:
        click.echo(f"note: {gemini}")


COMMANDS = [export]
