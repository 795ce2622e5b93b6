"""``memdir export``: memory for agents that read files, not hooks.

``export agents-md`` writes memdir's marked section of the project's
``AGENTS.md`` (the memory index and the enforced feedback rules as plain
instructions); ``--cursor`` also writes ``.cursor/rules/memdir.mdc``. Running
it again updates only memdir's section (see
:mod:`memdir.integrations.agents_md`).
"""

from __future__ import annotations

from pathlib import Path

import click

from memdir.cli._common import open_memdir, project_option
from memdir.integrations.agents_md import export_agents_md, export_cursor_rules, tracked_by_git

__all__ = ["COMMANDS", "export"]


@click.group()
def export() -> None:
    """Write memory where other agents read it (AGENTS.md, Cursor rules)."""


@export.command("agents-md")
@click.option("--cursor", is_flag=True, help="Also write .cursor/rules/memdir.mdc.")
@click.option("--team-only", is_flag=True, help="Leave private memory out (for a committed file).")
@project_option
def agents_md(cursor: bool, team_only: bool, project: Path) -> None:
    """Write memdir's section of AGENTS.md; the rest of the file is left as it is."""
    mem = open_memdir(project)
    results = [export_agents_md(mem, team_only=team_only)]
    if cursor:
        results.append(export_cursor_rules(mem, team_only=team_only))
    for result in results:
        click.echo(f"{'updated' if result.changed else 'unchanged'}: {result.path}")
        if not team_only and tracked_by_git(result.path):
            click.echo(
                f"memdir: warning: git tracks {result.path.name}, and it now holds your private "
                "memory index: commit it only if that is meant to be shared, or run again "
                "with --team-only",
                err=True,
            )


COMMANDS = [export]
