"""``memdir install <host>``: register memdir's MCP server with an MCP host.

Parse, compute the host's file and memdir's entry
(:mod:`memdir.hosts.mcp_servers`), merge it in, say what happened. The
entry starts this installation by absolute path with the settings that chose
the memory folder (``--command`` names another program). ``--scope`` picks
Claude Code's file (``local``: ``~/.claude.json`` for this project,
``project``: the shared ``.mcp.json``, ``user``: ``~/.claude.json`` for every
project). ``--dry-run`` prints the file and the diff and writes nothing;
``--config`` points at another file (a test copy, a non-standard install).
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from memdir.cli._common import profile_option_value, project_option
from memdir.errors import MemdirError
from memdir.hosts.claude_code import checkout_root
from memdir.hosts.launch import launch_for
from memdir.hosts.mcp_servers import (
    CLAUDE_CODE_SCOPES,
    HOSTS,
    host_target,
    install_mcp_server,
    read_server,
)
from memdir.storage.paths import find_project_root

__all__ = ["COMMANDS", "install"]

_SCOPE_HELP = (
    "claude-code only. local: ~/.claude.json, this project (default); project: .mcp.json, "
    "shared (teammates without memdir see the server fail, nothing else); user: ~/.claude.json, "
    "every project"
)


@click.command()
@click.argument("host", type=click.Choice(HOSTS))
@click.option("--scope", type=click.Choice(CLAUDE_CODE_SCOPES), default=None, help=_SCOPE_HELP)
@click.option("--dry-run", is_flag=True, help="Print the file and the diff; write nothing.")
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
    default=None,
    help="The program the host starts (default: this installation's absolute path).",
)
@click.option("--name", default=None, help="Server name (default: memdir, or memdir-<folder>).")
@project_option
def install(
    host: str,
    scope: str | None,
    dry_run: bool,
    config: Path | None,
    executable: str | None,
    name: str | None,
    project: Path,
) -> None:
    """Add memdir's MCP server to HOST's configuration (idempotent)."""
    if scope is not None and host != "claude-code":
        raise click.UsageError(f"--scope is for claude-code; {host} has one file")
    launch = launch_for(os.environ, profile=profile_option_value(), command=executable)
    target = host_target(
        host,
        find_project_root(project),
        launch=launch,
        name=name,
        path=config,
        scope=scope,
        checkout=checkout_root(project),
    )
    result = install_mcp_server(target, dry_run=dry_run)
    if dry_run:
        if result.diff:
            verb = "create" if result.diff.startswith("--- /dev/null") else "change"
            click.echo(f"would {verb} {result.path}:")
            click.echo(result.diff, nl=not result.diff.endswith("\n"))
        else:
            click.echo(f"nothing to change: {result.path} already has it")
        return
    where = f" ({target.scope} scope)" if target.scope else ""
    if result.changed:
        click.echo(f"added MCP server {result.name!r} to {result.path}{where}")
    else:
        click.echo(f"MCP server {result.name!r} already in {result.path}{where}")
    if target.host == "claude-code":
        for note in _claude_code_notes(target.scope or "local", project, result.name):
            click.echo(f"note: {note}")


def _claude_code_notes(scope: str, project: Path, name: str) -> list[str]:
    """Where else Claude Code finds a memdir server of this name (it would start both)."""
    notes = []
    root = find_project_root(project)
    for other in CLAUDE_CODE_SCOPES:
        if other == scope:
            continue
        target = host_target(
            "claude-code", root, name=name, scope=other, checkout=checkout_root(project)
        )
        try:
            found = read_server(target.path, name, target.table)
        except MemdirError:  # an unreadable file is not this command's to report
            continue
        if found is not None:
            # Claude Code's precedence for one name: local, then project, then user.
            if CLAUDE_CODE_SCOPES.index(scope) < CLAUDE_CODE_SCOPES.index(other):
                outcome = (
                    f"this one wins; the other is unused (`claude mcp remove {name} -s {other}`)"
                )
            else:
                outcome = f"that one wins; to use this one: `claude mcp remove {name} -s {other}`"
            notes.append(
                f"an MCP server {name!r} is also in {target.path} ({other} scope): {outcome}"
            )
    if scope == "project":
        notes.append("Claude Code asks each person to approve the servers of a project's .mcp.json")
    return notes


COMMANDS = [install]
