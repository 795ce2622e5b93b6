"""``memdir install <host>``: register memdir's MCP server with an MCP host.

Parse, compute the host's file and memdir's entry
(:mod:`memdir.integrations.mcp_hosts`), merge it in, say what happened.
``--dry-run`` prints the change as a diff and writes nothing; ``--config``
points at another file (a test copy, a non-standard install).
"""

from __future__ import annotations

from pathlib import Path

import click

from memdir.cli._common import profile_option_value, project_option
from memdir.integrations.mcp_hosts import HOSTS, host_target, install_mcp_server
from memdir.storage.paths import find_project_root

__all__ = ["COMMANDS", "install"]


@click.command()
@click.argument("host", type=click.Choice(HOSTS))
@click.option("--dry-run", is_flag=True, help="Print the change as a diff; write nothing.")
@click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The host's config file to edit (default: where the host reads it).",
)
@click.option(
    "--command",
    "executable",
    default="memdir",
    show_default=True,
    help="How the host should start memdir (e.g. a full path).",
)
@click.option("--name", default=None, help="Server name (default: memdir, or memdir-<folder>).")
@project_option
def install(
    host: str,
    dry_run: bool,
    config: Path | None,
    executable: str,
    name: str | None,
    project: Path,
) -> None:
    """Add memdir's MCP server to HOST's configuration (idempotent)."""
    target = host_target(
        host,
        find_project_root(project),
        executable=executable,
        profile=profile_option_value(),
        name=name,
        path=config,
    )
    result = install_mcp_server(target, dry_run=dry_run)
    if dry_run:
        click.echo(result.diff or f"nothing to change: {result.path} already has it\n", nl=False)
    elif result.changed:
        click.echo(f"added MCP server {result.name!r} to {result.path}")
    else:
        click.echo(f"MCP server {result.name!r} already in {result.path}")


COMMANDS = [install]
