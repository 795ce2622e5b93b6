"""``memdir install <host>``: register memdir's MCP server with an MCP host.

Parse, compute the host's file and memdir's entry
(:mod:`memdir.hosts.mcp_servers`), merge it in, say what happened. The
entry starts this installation by absolute path with the settings that chose
the memory folder (``--command`` names another program). ``--scope`` picks
Claude Code's file (``local``: ``~/.claude.json`` for this project,
``project``: the shared ``.mcp.json``, ``user``: ``~/.claude.json`` for every
project). ``--dry-run`` prints the file and the diff and writes nothing;
``--config`` points at another file (a test copy, a non-standard install).
Codex gets one ``memdir`` entry for every project (Codex starts it in the
session's folder); the install removes the per-project tables earlier versions
wrote and says so, and ``--required`` makes Codex wait for memdir's tools
before a session's first request, at the cost the output names. Gemini CLI gets
the entry in the project's ``.gemini/settings.json`` (with ``AGENTS.md`` among its
context files) and a user policy allowing memdir's read-only tools, which a
headless ``gemini -p`` otherwise leaves out (:mod:`memdir.hosts.gemini`); the
output says whether Gemini trusts the folder, without which it runs none of it.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from memdir.cli._common import profile_option_value, project_option
from memdir.cli.hook import scope_dry_run_options
from memdir.errors import MemdirError
from memdir.hosts.claude_code import checkout_root, plugin_for
from memdir.hosts.claude_plugin import refuse_beside_plugin
from memdir.hosts.config_files import parse_json_object, read_text
from memdir.hosts.gemini import (
    AGENTS_FILE,
    READ_ONLY_TOOLS,
    PolicyResult,
    context_file_names,
    install_read_only_policy,
    trust_notes,
    user_context_files,
    user_settings_path,
)
from memdir.hosts.launch import launch_for
from memdir.hosts.mcp_servers import (
    CLAUDE_CODE_SCOPES,
    CODEX_STARTUP_TIMEOUT,
    HOSTS,
    HostTarget,
    InstallResult,
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
@scope_dry_run_options(CLAUDE_CODE_SCOPES, _SCOPE_HELP)
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
@click.option(
    "--required/--not-required",
    default=None,
    help="codex only: Codex waits for memdir's tools before a session's first request "
    "(a server that fails to start stops the session). Default: as the file says.",
)
@project_option
def install(
    host: str,
    scope: str | None,
    dry_run: bool,
    config: Path | None,
    executable: str | None,
    name: str | None,
    required: bool | None,
    project: Path,
) -> None:
    """Add memdir's MCP server to HOST's configuration (idempotent)."""
    if scope is not None and host != "claude-code":
        raise click.UsageError(f"--scope is for claude-code; {host} has one file")
    if required is not None and host != "codex":
        raise click.UsageError(f"--required is for codex; {host} starts its servers its own way")
    if host == "claude-code":
        refuse_beside_plugin(
            plugin_for(project), "it gives Claude Code memdir's MCP server already"
        )
    launch = launch_for(os.environ, profile=profile_option_value(), command=executable)
    target = host_target(
        host,
        find_project_root(project),
        launch=launch,
        name=name,
        path=config,
        scope=scope,
        checkout=checkout_root(project),
        required=required,
    )
    result = install_mcp_server(target, dry_run=dry_run)
    policy = _gemini_policy(target, dry_run) if target.host == "gemini" else None
    for gone in result.removed:
        verb = "would remove" if dry_run else "removed"
        click.echo(
            f"{verb} MCP server {gone!r} from {result.path}: an earlier version wrote one per "
            f"project, and Codex offered each to every session; {result.name!r} serves the "
            "session's own project"
        )
    for left in result.kept:
        click.echo(
            f"note: {left!r} in {result.path} serves one project in every Codex session, but is "
            "not a [table] memdir can edit: remove it by hand"
        )
    if dry_run:
        _echo_diff(result.path, result.diff)
        if policy is not None:
            _echo_diff(policy.path, policy.diff)
        return
    where = f" ({target.scope} scope)" if target.scope else ""
    if result.changed:
        click.echo(f"added MCP server {result.name!r} to {result.path}{where}")
    else:
        click.echo(f"MCP server {result.name!r} already in {result.path}{where}")
    if target.host == "claude-code":
        for note in _claude_code_notes(target.scope or "local", project, result.name):
            click.echo(f"note: {note}")
    if target.host == "codex":
        for note in _codex_notes(target, result):
            click.echo(f"note: {note}")
    if policy is not None:
        for note in _gemini_notes(project, target, result, policy):
            click.echo(f"note: {note}")


def _echo_diff(path: Path, diff: str) -> None:
    if diff:
        verb = "create" if diff.startswith("--- /dev/null") else "change"
        click.echo(f"would {verb} {path}:")
        click.echo(diff, nl=not diff.endswith("\n"))
    else:
        click.echo(f"nothing to change: {path} already has it")


def _gemini_policy(target: HostTarget, dry_run: bool) -> PolicyResult:
    """memdir's user policy letting Gemini run the server's read-only tools unasked."""
    return install_read_only_policy(target.name, dry_run=dry_run)


def _gemini_notes(
    project: Path, target: HostTarget, result: InstallResult, policy: PolicyResult
) -> list[str]:
    """What the user should know of Gemini's entry: the folder it is read in, the tools
    that run unasked, the context files, and the folder's trust."""
    verb = "allowed" if policy.changed else "already allowed"
    tools = ", ".join(READ_ONLY_TOOLS)
    notes = [f"Gemini reads {result.path} when started in {result.path.parent.parent}"]
    if result.path.parent.name != ".gemini":  # --config: a file of the user's choosing
        notes = []
    notes += [
        f"{verb} memdir's read-only tools ({tools}) in {policy.path}: Gemini runs them "
        "without asking, headless runs included; its tools that change memory (write, "
        "edit, delete, log) ask first, and `gemini -p` leaves them out unless approvals are "
        "off (--yolo)",
    ]
    where: Path = result.path
    try:
        text = read_text(result.path)
        names = context_file_names(parse_json_object(text, result.path, str(result.path)))
    except MemdirError:
        names = None
    if names is None:  # the project's file names none: the user's apply
        where, names = user_settings_path(os.environ), user_context_files(os.environ)
    if names is not None and AGENTS_FILE in names:
        notes.append(
            f"Gemini reads {', '.join(names)} here (context.fileName in {where}): "
            "the section `memdir export agents-md` writes reaches it"
        )
    return notes + trust_notes(checkout_root(project), os.environ)


def _codex_notes(target: HostTarget, result: InstallResult) -> list[str]:
    """What the user should know of Codex's entry: where it runs, and the wait it costs."""
    notes = ["Codex starts it in each session's folder: it serves that project's memory"]
    try:
        entry = read_server(result.path, result.name) or target.entry
    except MemdirError:
        entry = target.entry
    if entry.get("required") is True:
        timeout = entry.get("startup_timeout_sec", 10)
        notes.append(
            "required: every Codex session waits for memdir's server before its first request "
            "(as long as `memdir serve` takes to start), and stops if it has not started "
            f"within {timeout} s; `memdir install codex --not-required` undoes it"
        )
    else:
        notes.append(
            "Codex does not wait for it: a session's first request can go out before memdir's "
            "tools are ready (they join the next one); `memdir install codex --required` makes "
            f"every session wait for them (up to {CODEX_STARTUP_TIMEOUT} s; one whose server "
            "fails to start stops)"
        )
    return notes


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
