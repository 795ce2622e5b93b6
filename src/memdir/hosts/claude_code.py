"""Claude Code: memdir's hooks in its settings files, and where its files are.

Three scopes, as Claude Code 2.1 reads them: ``local`` is the project's
``.claude/settings.local.json`` (at the canonical git root, which Claude Code
reads from every subfolder and worktree; git does not track it), ``project``
the shared ``.claude/settings.json`` of the checkout (teammates get it, so its
commands never break one who lacks memdir: :mod:`memdir.hosts.launch`),
``user`` is ``~/.claude/settings.json`` (``$CLAUDE_CONFIG_DIR/settings.json``).

The file belongs to the user and their team: memdir adds one hook entry per
event in :data:`_EVENTS` (PreToolUse for every tool) and changes nothing
else. Every other key, hook and matcher group stays as it was and in its
order. memdir's own entries (any command that runs ``memdir hook ...``: a bare
``memdir`` from earlier versions, an old path) are updated in place and their
duplicates dropped, so installing twice changes nothing. Where memdir's own
folder holds the memory (any profile but ``claude``), the file also gets
``"autoMemoryEnabled": false`` so the model gets one memory section, not
Claude Code's as well; under the claude profile Claude Code loads the shared
``MEMORY.md`` itself and its auto memory stays on. A file that is not a JSON
object is refused, never overwritten. The new text is written atomically,
keeping the file's mode and indentation; ``dry_run`` only computes the diff.

Where memdir's Claude Code plugin is enabled for the project (:func:`plugin_for`), the
install is refused, naming the plugin and how to remove it: the plugin runs the same
hooks, and the two would answer twice.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from memdir.errors import ConfigError
from memdir.hosts.claude_plugin import PluginInstall, enabled_plugin, refuse_beside_plugin
from memdir.hosts.config_files import (
    apply_edit,
    parse_json_object,
    read_json_settings,
    render_json,
)
from memdir.hosts.launch import Launch, hook_name
from memdir.storage.paths import find_project_root

__all__ = [
    "HOOK_TIMEOUT",
    "MCP_PROJECT_FILE",
    "SCOPES",
    "InstallResult",
    "checkout_root",
    "claude_config_dir",
    "claude_json_path",
    "hook_commands",
    "hooks_elsewhere",
    "install_claude_hooks",
    "memdir_hook_entries",
    "merge_hooks",
    "plugin_for",
    "remove_hooks",
    "remove_hooks_from",
    "settings_path",
    "uninstall_claude_hooks",
    "write_settings",
]

SCOPES = ("local", "project", "user")
MCP_PROJECT_FILE = Path(".mcp.json")  # the project's shared MCP servers (scope project)
HOOK_TIMEOUT = 30  # seconds; the hooks return within a second, this is a backstop
# Claude Code's event name -> memdir's hook command. Add an event here and the
# installer, the uninstaller and doctor all follow.
_EVENTS = (
    ("SessionStart", "session-start"),
    ("UserPromptSubmit", "user-prompt-submit"),
    ("PreToolUse", "pre-tool-use"),
    ("Stop", "stop"),
    ("PreCompact", "pre-compact"),
    ("SessionEnd", "session-end"),
)
# Events whose matcher selects tools: memdir's rules decide per tool, so it sees every call.
_TOOL_EVENTS = frozenset({"PreToolUse"})
_AUTO_MEMORY = "autoMemoryEnabled"


@dataclass(frozen=True, kw_only=True)
class InstallResult:
    """What an install or uninstall did (or, with ``dry_run``, would do).

    ``added``: events that got a new entry; ``updated``: events whose memdir
    entry changed (or, uninstalling, was removed); ``notes``: what the user
    should know (auto memory turned off, memdir's hooks in another scope too).
    """

    path: Path
    scope: str
    changed: bool
    created: bool
    added: tuple[str, ...]
    updated: tuple[str, ...]
    notes: tuple[str, ...]
    diff: str
    dry_run: bool


def claude_json_path(env: Mapping[str, str] | None = None) -> Path:
    """Claude Code's per-user file: ``$CLAUDE_CONFIG_DIR/.claude.json`` or ``~/.claude.json``."""
    env = os.environ if env is None else env
    configured = env.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured) / ".claude.json"
    return Path(env.get("HOME") or Path.home()) / ".claude.json"


def claude_config_dir(env: Mapping[str, str]) -> Path:
    """Claude Code's per-user folder: ``CLAUDE_CONFIG_DIR`` (as given) or ``~/.claude``."""
    configured = env.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured)
    return Path(env.get("HOME") or Path.home()) / ".claude"


def checkout_root(start: Path) -> Path:
    """The top folder of the checkout holding ``start`` (a worktree's own), else ``start``.

    The shared settings file is committed, so it belongs to the checkout the
    user works in, not to the main worktree memdir keys memory by.
    """
    here = Path(os.path.realpath(start))
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return here


def settings_path(scope: str, project: Path, env: Mapping[str, str] | None = None) -> Path:
    """The settings file of ``scope`` for the project holding ``project``."""
    env = os.environ if env is None else env
    if scope == "local":
        return find_project_root(project) / ".claude" / "settings.local.json"
    if scope == "project":
        return checkout_root(project) / ".claude" / "settings.json"
    if scope == "user":
        return claude_config_dir(env) / "settings.json"
    raise ConfigError(f"unknown scope {scope!r}", hint=f"use one of {', '.join(SCOPES)}")


def plugin_for(project: Path, env: Mapping[str, str] | None = None) -> PluginInstall | None:
    """memdir's Claude Code plugin, when a settings file Claude Code reads for ``project``
    enables it (:mod:`memdir.hosts.claude_plugin`)."""
    env = os.environ if env is None else env
    files = [(scope, settings_path(scope, project, env)) for scope in SCOPES]
    return enabled_plugin(files, claude_config_dir(env))


def hook_commands(launch: Launch, *, shared: bool = False) -> dict[str, str]:
    """The command Claude Code runs for each hook event."""
    return {event: launch.hook_command(name, shared=shared) for event, name in _EVENTS}


def _groups(hooks: dict[str, Any], event: str, label: str) -> list[Any]:
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise ConfigError(f"hooks.{event} is not a list", hint=f"fix {label} by hand")
    return groups


def _hooks_table(settings: dict[str, Any], label: str) -> dict[str, Any]:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(
            "the 'hooks' setting is not a JSON object",
            hint=f"fix {label} by hand, then install again",
        )
    return hooks


def _entries(group: Any) -> list[Any]:
    entries = group.get("hooks") if isinstance(group, dict) else None
    return entries if isinstance(entries, list) else []


def _is_ours(entry: Any) -> bool:
    return isinstance(entry, dict) and hook_name(entry.get("command")) is not None


def memdir_hook_entries(settings: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(event, command) for every memdir hook entry in parsed settings."""
    hooks = settings.get("hooks")
    found: list[tuple[str, str]] = []
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            for entry in _entries(group):
                if _is_ours(entry):
                    found.append((event, entry["command"]))
    return found


def merge_hooks(
    settings: dict[str, Any], commands: Mapping[str, str], *, label: str = "the settings file"
) -> tuple[dict[str, Any], list[str], list[str]]:
    """``settings`` with memdir's entry per event; returns it, the events added, those updated.

    The input is not modified. An event's first memdir entry takes the new
    command in place (its group, matcher and timeout stay); later ones are
    dropped, and a group left empty with them. An event without one gets a
    new matcher group after the existing ones.
    """
    merged = copy.deepcopy(settings)
    hooks = _hooks_table(merged, label)
    added, updated = [], []
    for event, command in commands.items():
        groups = _groups(hooks, event, label)
        first: dict[str, Any] | None = None
        changed = False
        for group in list(groups):
            entries = _entries(group)
            for entry in [e for e in entries if _is_ours(e)]:
                if first is None:
                    first = entry
                    if entry.get("command") != command:
                        entry["command"] = command
                        changed = True
                else:
                    entries.remove(entry)
                    changed = True
                    if not entries:
                        groups.remove(group)
        if first is None:
            entry = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
            group = {"matcher": "*"} if event in _TOOL_EVENTS else {}
            groups.append({**group, "hooks": [entry]})
            added.append(event)
        elif changed:
            updated.append(event)
    return merged, added, updated


def remove_hooks(settings: dict[str, Any], label: str) -> tuple[dict[str, Any], list[str]]:
    """``settings`` without memdir's hook entries, and the events that had one.

    Only containers memdir emptied go: a group, an event's list, ``hooks``.
    """
    merged = copy.deepcopy(settings)
    hooks = merged.get("hooks")
    if not isinstance(hooks, dict):
        return merged, []
    removed = []
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        for group in list(groups):
            entries = _entries(group)
            ours = [e for e in entries if _is_ours(e)]
            for entry in ours:
                entries.remove(entry)
            if ours and not entries:
                groups.remove(group)
            if ours and event not in removed:
                removed.append(event)
        if event in removed and not groups:
            del hooks[event]
    if removed and not hooks:
        del merged["hooks"]
    return merged, removed


def _auto_memory(
    settings: dict[str, Any], *, own_folder: bool, had_ours: bool, path: Path
) -> list[str]:
    """Set ``autoMemoryEnabled`` for the folder memdir uses; notes saying what changed."""
    value = settings.get(_AUTO_MEMORY)
    if own_folder:
        if value is False:
            return []
        settings[_AUTO_MEMORY] = False
        why = (
            "memdir's hooks give the model its memory from memdir's folder, and Claude "
            "Code's own auto memory would add a second memory section with other instructions"
        )
        if value is True:
            return [
                f"{_AUTO_MEMORY} was true in {path}: memdir turned it off, because {why} "
                f"(set it back to true to keep both)"
            ]
        return [f"turned off Claude Code's auto memory ({_AUTO_MEMORY}: false) in {path}: {why}"]
    if value is not False:
        return []
    if had_ours:  # an earlier install under memdir's own folder wrote it
        del settings[_AUTO_MEMORY]
        return [
            f"turned Claude Code's auto memory back on in {path} (removed {_AUTO_MEMORY}: "
            "false): under --profile claude, Claude Code loads MEMORY.md itself"
        ]
    return [
        f"{_AUTO_MEMORY} is false in {path}: Claude Code will not load MEMORY.md, and the "
        "claude profile relies on it; memdir leaves the setting as you set it"
    ]


def install_claude_hooks(
    project: Path,
    launch: Launch,
    *,
    scope: str = "local",
    own_folder: bool = True,
    dry_run: bool = False,
    env: Mapping[str, str] | None = None,
) -> InstallResult:
    """Merge memdir's hooks into the settings file of ``scope`` (see the module docstring).

    ``own_folder``: memory lives in memdir's folder (any profile but claude), so
    Claude Code's auto memory is turned off in the same file.
    """
    env = os.environ if env is None else env
    refuse_beside_plugin(plugin_for(project, env), "it runs memdir's hooks already")
    path = settings_path(scope, project, env)
    before, settings = read_json_settings(path)
    had_ours = bool(memdir_hook_entries(settings))
    commands = hook_commands(launch, shared=scope == "project")
    merged, added, updated = merge_hooks(settings, commands, label=str(path))
    if scope == "project":
        # The shared file reaches teammates who may not use memdir: turning Claude Code's
        # auto memory off there would take theirs away. It goes in this user's local file.
        local = _local_auto_memory(
            project, own_folder=own_folder, had_ours=had_ours, dry_run=dry_run, env=env
        )
        notes = list(local.notes) + _elsewhere(scope, project, env)
        result = write_settings(path, scope, before, merged, added, updated, notes, dry_run)
        return replace(result, diff=result.diff + local.diff)
    notes = _auto_memory(merged, own_folder=own_folder, had_ours=had_ours, path=path)
    notes += _elsewhere(scope, project, env)
    return write_settings(path, scope, before, merged, added, updated, notes, dry_run)


def _local_auto_memory(
    project: Path, *, own_folder: bool, had_ours: bool, dry_run: bool, env: Mapping[str, str]
) -> InstallResult:
    """``autoMemoryEnabled`` set for this user alone, in the local settings file."""
    path = settings_path("local", project, env)
    before, settings = read_json_settings(path)
    merged = copy.deepcopy(settings)
    notes = _auto_memory(merged, own_folder=own_folder, had_ours=had_ours, path=path)
    return write_settings(path, "local", before, merged, [], [], notes, dry_run)


def uninstall_claude_hooks(
    project: Path,
    *,
    scope: str = "local",
    dry_run: bool = False,
    env: Mapping[str, str] | None = None,
) -> InstallResult:
    """Remove memdir's hook entries from the settings file of ``scope``; nothing else.

    ``autoMemoryEnabled: false`` goes too when memdir's hooks were there (an
    install wrote it), and the note says so.
    """
    env = os.environ if env is None else env
    path = settings_path(scope, project, env)
    before, settings = read_json_settings(path)
    merged, removed = remove_hooks(settings, str(path))
    notes = []
    if removed and merged.get(_AUTO_MEMORY) is False:
        del merged[_AUTO_MEMORY]
        notes.append(
            f"turned Claude Code's auto memory back on in {path} (removed {_AUTO_MEMORY}: "
            "false, which the install wrote; set it again to keep it off)"
        )
    return write_settings(path, scope, before, merged, [], removed, notes, dry_run)


def _elsewhere(scope: str, project: Path, env: Mapping[str, str]) -> list[str]:
    """Notes naming the other scopes' files that hold memdir hooks too (both would run)."""
    others = {other: settings_path(other, project, env) for other in SCOPES if other != scope}
    return hooks_elsewhere(others, host="Claude Code", command="claude")


def hooks_elsewhere(others: Mapping[str, Path], *, host: str, command: str) -> list[str]:
    """Notes naming the files of ``others`` (scope -> file) that hold memdir hooks too,
    since ``host`` runs both, and the uninstall that removes them (``memdir hook uninstall
    COMMAND --scope ...``)."""
    notes = []
    for other, path in others.items():
        try:
            _, settings = read_json_settings(path)
        except ConfigError:
            continue  # not ours to judge here; doctor reports a file it cannot read
        if memdir_hook_entries(settings):
            notes.append(
                f"memdir's hooks are also in {path}: {host} runs both; remove those "
                f"with `memdir hook uninstall {command} --scope {other}`"
            )
    return notes


def remove_hooks_from(path: Path, scope: str, *, dry_run: bool) -> InstallResult:
    """Remove memdir's hook entries from the settings file ``path`` of ``scope``; nothing
    else in it changes."""
    before, settings = read_json_settings(path)
    merged, removed = remove_hooks(settings, str(path))
    return write_settings(path, scope, before, merged, [], removed, [], dry_run)


def write_settings(
    path: Path,
    scope: str,
    before: str,
    merged: dict[str, Any],
    added: list[str],
    updated: list[str],
    notes: list[str],
    dry_run: bool,
) -> InstallResult:
    """Write ``merged`` over the settings file ``path`` (read as ``before``) of ``scope``,
    unless it is the same or a dry run; what was done. A scope other than ``user``
    is the project's folder, and only ``project``'s file is shared with the team."""
    unchanged = parse_json_object(before, path, str(path)) == merged
    after = before if unchanged else render_json(merged, before)
    # The project's .claude/ folder is shared; the local file in it is one person's.
    diff = apply_edit(
        path,
        before,
        after,
        shared_folder=scope != "user",
        shared_file=scope == "project",
        dry_run=dry_run,
    )
    changed = after != before
    return InstallResult(
        path=path,
        scope=scope,
        changed=changed,
        created=changed and not before,
        added=tuple(added),
        updated=tuple(updated),
        notes=tuple(notes),
        diff=diff,
        dry_run=dry_run,
    )
