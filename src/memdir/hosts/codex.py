"""Codex CLI: where it keeps its settings, as it reads them, and memdir's hooks there.

Codex reads one per-user ``config.toml`` in ``$CODEX_HOME`` (default
``~/.codex``); its MCP servers are ``[mcp_servers.<name>]`` tables there,
which :mod:`memdir.hosts.mcp_servers` edits as text (the user's comments and
layout stay). Codex reads the project's ``AGENTS.md`` itself
(:mod:`memdir.hosts.agents_md`).

Its hooks are Claude Code's JSON shape (event, matcher groups, command
handlers) in a ``hooks.json`` beside each ``config.toml`` it loads:
``$CODEX_HOME/hooks.json`` (scope ``user``: every project, the default, since
each hook finds the session's project by its folder) or the checkout's
``.codex/hooks.json`` (scope ``project``: shared with the team, so its commands
never break a teammate without memdir; Codex reads it only in a project the user
trusts). memdir adds one entry per event in :data:`EVENTS`, each ``memdir hook
<name> --host codex`` (Codex's dialect: :mod:`memdir.hooks.dialects`), merged
as Claude Code's are (:func:`memdir.hosts.claude_code.merge_hooks`: memdir's own
entries updated in place, nothing else moved, new groups after the user's, so
the positions Codex keys its trust by stay theirs). Codex's Stop and PreCompact
hooks would hand memdir's background jobs Codex's own transcript, which they do
not read: those are not installed.

Codex runs a hook from these files only once the user has trusted that exact
hook (its hash, under ``[hooks.state]`` in ``config.toml``); a new or changed one
is skipped without a word, ``codex exec`` included, until then. memdir never
writes that trust for the user: the installer says how to give it
(:data:`TRUST_NOTE`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from memdir.errors import ConfigError
from memdir.hosts.claude_code import (
    InstallResult,
    checkout_root,
    hooks_elsewhere,
    merge_hooks,
    remove_hooks_from,
    write_settings,
)
from memdir.hosts.config_files import parse_toml, read_json_settings, read_text
from memdir.hosts.launch import Launch

__all__ = [
    "EVENTS",
    "HOOK_SCOPES",
    "MCP_TABLE",
    "TRUST_NOTE",
    "codex_config_path",
    "codex_home",
    "codex_hook_commands",
    "codex_hooks_path",
    "install_codex_hooks",
    "uninstall_codex_hooks",
]

MCP_TABLE = "mcp_servers"  # config.toml's table of MCP servers
HOOKS_FILE = "hooks.json"
HOOK_SCOPES = ("user", "project")
# Codex's event name -> memdir's hook command: the session's memory section, recall for
# each prompt, and the feedback rules before each tool call.
EVENTS = (
    ("SessionStart", "session-start"),
    ("UserPromptSubmit", "user-prompt-submit"),
    ("PreToolUse", "pre-tool-use"),
)
TRUST_NOTE = (
    "Codex runs a new or changed hook only once you trust it, and skips it without a word "
    'until then (codex exec too): start `codex` in a terminal and choose "Trust all and '
    "continue\" when it lists memdir's hooks, or review them with /hooks"
)


def codex_home(env: Mapping[str, str]) -> Path:
    """Codex's per-user folder: ``CODEX_HOME`` or ``~/.codex``."""
    configured = env.get("CODEX_HOME")
    if configured:
        return Path(configured)
    return Path(env.get("HOME") or Path.home()) / ".codex"


def codex_config_path(env: Mapping[str, str]) -> Path:
    """Codex's ``config.toml``."""
    return codex_home(env) / "config.toml"


def codex_hooks_path(scope: str, project: Path, env: Mapping[str, str]) -> Path:
    """The ``hooks.json`` of ``scope``: the user's, or the checkout's ``.codex/``."""
    if scope == "user":
        return codex_home(env) / HOOKS_FILE
    if scope == "project":
        return checkout_root(project) / ".codex" / HOOKS_FILE
    raise ConfigError(
        f"Codex has no {scope!r} hooks file", hint=f"use one of {', '.join(HOOK_SCOPES)}"
    )


def codex_hook_commands(launch: Launch, *, shared: bool = False) -> dict[str, str]:
    """The command Codex runs for each hook event, in Codex's dialect."""
    return {event: launch.hook_command(name, shared=shared, host="codex") for event, name in EVENTS}


def install_codex_hooks(
    project: Path,
    launch: Launch,
    *,
    scope: str = "user",
    dry_run: bool = False,
    env: Mapping[str, str] | None = None,
) -> InstallResult:
    """Merge memdir's hooks into the ``hooks.json`` of ``scope`` (see the module docstring)."""
    env = os.environ if env is None else env
    path = codex_hooks_path(scope, project, env)
    before, settings = read_json_settings(path)
    commands = codex_hook_commands(launch, shared=scope == "project")
    merged, added, updated = merge_hooks(settings, commands, label=str(path))
    notes = [TRUST_NOTE, *_config_notes(env), *_elsewhere(scope, project, env)]
    if scope == "project":
        notes.append("Codex reads a project's .codex/ folder only once you trust the project")
    return write_settings(path, scope, before, merged, added, updated, notes, dry_run)


def uninstall_codex_hooks(
    project: Path,
    *,
    scope: str = "user",
    dry_run: bool = False,
    env: Mapping[str, str] | None = None,
) -> InstallResult:
    """Remove memdir's hook entries from the ``hooks.json`` of ``scope``; nothing else."""
    env = os.environ if env is None else env
    return remove_hooks_from(codex_hooks_path(scope, project, env), scope, dry_run=dry_run)


def _config_notes(env: Mapping[str, str]) -> list[str]:
    """What in the user's ``config.toml`` changes how Codex runs the hooks."""
    path = codex_config_path(env)
    try:
        config = parse_toml(read_text(path), path)
    except ConfigError:
        return []  # not this command's to report: Codex itself names a broken config.toml
    notes = []
    features = config.get("features")
    if isinstance(features, dict) and False in (features.get("hooks"), features.get("codex_hooks")):
        notes.append(f"hooks are turned off in {path} ([features] hooks = false): Codex runs none")
    hooks = config.get("hooks")
    if isinstance(hooks, dict) and set(hooks) - {"state"}:
        notes.append(
            f"{path} defines hooks as well: Codex runs both files' and warns of the two forms"
        )
    return notes


def _elsewhere(scope: str, project: Path, env: Mapping[str, str]) -> list[str]:
    """Notes naming the other scope's file when it holds memdir's hooks too (both run)."""
    others = {o: codex_hooks_path(o, project, env) for o in HOOK_SCOPES if o != scope}
    return hooks_elsewhere(others, host="Codex", command="codex")
