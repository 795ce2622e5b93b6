"""Gemini CLI: where it keeps its settings, as it reads them, and memdir's hooks there.

Gemini CLI (0.61) reads the user's ``~/.gemini/settings.json`` (``~`` is
``GEMINI_CLI_HOME`` when set) and the ``.gemini/settings.json`` of the folder it
starts in, whose keys win; its MCP servers are JSON under ``mcpServers``
(:mod:`memdir.hosts.mcp_servers` writes memdir's entry in the project's file).
Everything below holds only in a folder the user trusts: Gemini keeps that
choice in ``~/.gemini/trustedFolders.json`` (``GEMINI_CLI_TRUSTED_FOLDERS_PATH``;
a folder or its parent, the longest rule winning), asks the first time it
starts in a folder, and in an untrusted one ignores the project's settings,
runs no hooks and no MCP server, and refuses a headless ``gemini -p`` outright.
memdir never writes that trust: the installers say where the folder stands
(:func:`trust_notes`).

**Hooks** are Claude Code's shape (event, matcher groups, command handlers)
under ``hooks`` in either file: scope ``user`` (every project, the default,
since each hook finds the session's project by its folder) or ``project`` (the
checkout's file, shared with the team, so its commands never break a teammate
without memdir). memdir adds one entry per event in :data:`EVENTS`, each
``memdir hook <name> --host gemini`` (Gemini's dialect:
:mod:`memdir.hooks.dialects`), named ``memdir-<event>`` (what ``/hooks disable``
takes), with Gemini's timeout, which is in milliseconds
(:data:`HOOK_TIMEOUT_MS`): ``gemini hooks migrate --from-claude`` copies Claude
Code's seconds as they are, and memdir's 30 becomes 30 ms. Merging is Claude
Code's (:func:`memdir.hosts.claude_code.merge_hooks`: memdir's entries updated in
place, nothing else moved); memdir's entries in events it does not install for
Gemini (a migrated Stop, PreCompact or SessionEnd, whose background jobs read
Claude Code's transcripts, not Gemini's) are taken out, and the result says so.
AfterTool runs the pre-tool-use hook again: Gemini gives the model a warning only
with a call's result.

Gemini expands ``$VAR``, ``${VAR}`` and ``${VAR:-default}`` in every string of
its settings against its own environment before a hook's shell sees them:
memdir's commands hold none but the shared wrapper's ``"$@"`` (left alone) and
``${MEMDIR_PROFILE:-...}``, which comes out as the shell would have made it.

**MCP tools**: a headless run offers the model only the tools its policy allows,
and Gemini allows no MCP tool by default. ``memdir install gemini`` writes a
user policy, ``~/.gemini/policies/memdir.toml`` (:func:`install_read_only_policy`):
the server's read-only tools (:data:`READ_ONLY_TOOLS`, and only while the server
marks them ``readOnlyHint``) are allowed; its tools that change memory still
ask, and a headless run leaves them out. Gemini reads no policy from a project's
folder, and a server's ``trust`` would allow every tool it has.

**Context files**: Gemini loads ``GEMINI.md`` unless ``context.fileName`` names
others (the project's value replaces the user's). The installers add
``AGENTS.md`` to it, keeping what it named (``GEMINI.md`` when nothing), so the
section ``memdir export agents-md`` writes reaches Gemini (:func:`with_agents_md`).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memdir.errors import ConfigError
from memdir.hosts.claude_code import (
    HOOK_TIMEOUT,
    InstallResult,
    checkout_root,
    hooks_elsewhere,
    memdir_hook_entries,
    merge_hooks,
    remove_hooks,
    remove_hooks_from,
    write_settings,
)
from memdir.hosts.config_files import (
    apply_edit,
    parse_toml,
    read_json_settings,
    read_text,
    render_json,
)
from memdir.hosts.launch import Launch, hook_name

__all__ = [
    "AGENTS_FILE",
    "EVENTS",
    "HOOK_SCOPES",
    "HOOK_TIMEOUT_MS",
    "PROJECT_SETTINGS",
    "READ_ONLY_TOOLS",
    "FolderTrust",
    "PolicyResult",
    "agents_md_note",
    "context_file_names",
    "folder_trust",
    "gemini_home",
    "gemini_hook_commands",
    "install_gemini_hooks",
    "install_read_only_policy",
    "policy_path",
    "settings_path",
    "stray_hooks",
    "trust_notes",
    "trusted_folders_path",
    "uninstall_gemini_hooks",
    "user_context_files",
    "user_settings_path",
    "with_agents_md",
]

PROJECT_SETTINGS = Path(".gemini") / "settings.json"
HOOK_SCOPES = ("user", "project")
# Gemini's event name -> memdir's hook command: the session's memory section, recall for
# each prompt, the feedback rules before each tool call, and their warnings after it.
EVENTS = (
    ("SessionStart", "session-start"),
    ("BeforeAgent", "user-prompt-submit"),
    ("BeforeTool", "pre-tool-use"),
    ("AfterTool", "pre-tool-use"),
)
_TOOL_EVENTS = frozenset({"BeforeTool", "AfterTool"})
HOOK_TIMEOUT_MS = HOOK_TIMEOUT * 1000  # Gemini counts a hook's timeout in milliseconds
# memdir's MCP tools that only read (the server marks them readOnlyHint).
READ_ONLY_TOOLS = ("view", "search", "recall", "why")
AGENTS_FILE = "AGENTS.md"
_DEFAULT_CONTEXT = "GEMINI.md"
_POLICY_MARK = "# memdir: written by `memdir install gemini`"
_TRUST_LEVELS = ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")


def gemini_home(env: Mapping[str, str]) -> Path:
    """Gemini's per-user folder: ``$GEMINI_CLI_HOME/.gemini`` or ``~/.gemini``."""
    home = env.get("GEMINI_CLI_HOME") or env.get("HOME") or str(Path.home())
    return Path(home) / ".gemini"


def user_settings_path(env: Mapping[str, str]) -> Path:
    """The user's ``settings.json``."""
    return gemini_home(env) / "settings.json"


def trusted_folders_path(env: Mapping[str, str]) -> Path:
    """Where Gemini records the folders the user trusts (or not)."""
    configured = env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(configured) if configured else gemini_home(env) / "trustedFolders.json"


def policy_path(env: Mapping[str, str]) -> Path:
    """memdir's user policy file, in the folder Gemini loads the user's policies from."""
    return gemini_home(env) / "policies" / "memdir.toml"


def settings_path(scope: str, project: Path, env: Mapping[str, str]) -> Path:
    """The ``settings.json`` of ``scope``: the user's, or the checkout's ``.gemini/``."""
    if scope == "user":
        return user_settings_path(env)
    if scope == "project":
        return checkout_root(project) / PROJECT_SETTINGS
    raise ConfigError(
        f"Gemini CLI has no {scope!r} settings file", hint=f"use one of {', '.join(HOOK_SCOPES)}"
    )


def gemini_hook_commands(launch: Launch, *, shared: bool = False) -> dict[str, str]:
    """The command Gemini runs for each hook event, in Gemini's dialect."""
    return {
        event: launch.hook_command(name, shared=shared, host="gemini") for event, name in EVENTS
    }


# -- hooks ----------------------------------------------------------------------------


def _hook_label(event: str) -> str:
    """``memdir-before-tool``: the name ``/hooks disable`` takes for memdir's entry."""
    words = "".join(f"-{c.lower()}" if c.isupper() else c for c in event).strip("-")
    return f"memdir-{words}"


def _ours(groups: object) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(group, entry) for each memdir entry in one event's list of groups."""
    found = []
    for group in groups if isinstance(groups, list) else []:
        entries = group.get("hooks") if isinstance(group, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and hook_name(entry.get("command")) is not None:
                found.append((group, entry))
    return found


def stray_hooks(settings: Mapping[str, Any]) -> list[str]:
    """The events holding a memdir hook that memdir does not install for Gemini."""
    installed = {event for event, _ in EVENTS}
    found = {event for event, _ in memdir_hook_entries(settings) if event not in installed}
    return sorted(found)


def _merge(
    settings: dict[str, Any], commands: Mapping[str, str], label: str
) -> tuple[dict[str, Any], list[str], list[str], list[str]]:
    """``settings`` with memdir's Gemini hooks: (merged, events added, updated, taken out)."""
    merged, added, updated = merge_hooks(settings, commands, label=label)
    hooks = merged["hooks"]
    for event in commands:
        for group, entry in _ours(hooks.get(event)):
            wanted = {"name": _hook_label(event), "timeout": HOOK_TIMEOUT_MS}
            if any(entry.get(key) != value for key, value in wanted.items()):
                entry.update(wanted)
                if event not in added and event not in updated:
                    updated.append(event)
            if event in _TOOL_EVENTS and "matcher" not in group:
                group["matcher"] = "*"  # every tool: the rules decide per call
    stray = stray_hooks(merged)
    if stray:
        part, _ = remove_hooks({"hooks": {event: hooks[event] for event in stray}}, label)
        for event in stray:
            left = part.get("hooks", {}).get(event)
            if left:
                hooks[event] = left
            else:
                del hooks[event]
    return merged, added, updated, stray


def install_gemini_hooks(
    project: Path,
    launch: Launch,
    *,
    scope: str = "user",
    dry_run: bool = False,
    env: Mapping[str, str] | None = None,
) -> InstallResult:
    """Merge memdir's hooks (and ``AGENTS.md`` among the context files) into the
    ``settings.json`` of ``scope`` (see the module docstring)."""
    env = os.environ if env is None else env
    path = settings_path(scope, project, env)
    before, settings = read_json_settings(path)
    commands = gemini_hook_commands(launch, shared=scope == "project")
    merged, added, updated, stray = _merge(settings, commands, str(path))
    inherited = user_context_files(env) if scope == "project" else None
    merged, context = with_agents_md(merged, inherited, path)
    notes = [*_stray_notes(stray, path), *trust_notes(checkout_root(project), env)]
    notes += _config_notes(merged, path, commands) + _elsewhere(scope, project, env)
    if context is not None:
        notes.append(context)
    if scope == "user":
        notes += _project_context_note(project, env)
    return write_settings(path, scope, before, merged, added, [*updated, *stray], notes, dry_run)


def uninstall_gemini_hooks(
    project: Path,
    *,
    scope: str = "user",
    dry_run: bool = False,
    env: Mapping[str, str] | None = None,
) -> InstallResult:
    """Remove memdir's hook entries from the ``settings.json`` of ``scope``; nothing else
    (``AGENTS.md`` stays among the context files: the user may have put it there)."""
    env = os.environ if env is None else env
    return remove_hooks_from(settings_path(scope, project, env), scope, dry_run=dry_run)


def _stray_notes(stray: list[str], path: Path) -> list[str]:
    if not stray:
        return []
    return [
        f"took memdir's {', '.join(stray)} hooks out of {path}: they start Claude Code's "
        "background jobs, which read Claude Code's transcripts, not Gemini's (`gemini hooks "
        "migrate --from-claude` copies them over)"
    ]


def _config_notes(
    settings: Mapping[str, Any], path: Path, commands: Mapping[str, str]
) -> list[str]:
    """What in the file keeps Gemini from running memdir's hooks."""
    config = settings.get("hooksConfig")
    if not isinstance(config, dict):
        return []
    notes = []
    if config.get("enabled") is False:
        notes.append(f"hooks are off in {path} (hooksConfig.enabled: false): Gemini runs none")
    disabled = config.get("disabled")
    names = {_hook_label(event) for event in commands} | set(commands.values())
    if isinstance(disabled, list) and names & set(map(str, disabled)):
        off = sorted(names & set(map(str, disabled)))
        notes.append(f"{path} turns off {', '.join(off)} (hooksConfig.disabled): Gemini skips it")
    return notes


def _elsewhere(scope: str, project: Path, env: Mapping[str, str]) -> list[str]:
    """Notes naming the other scope's file when it holds memdir's hooks too (both run)."""
    others = {o: settings_path(o, project, env) for o in HOOK_SCOPES if o != scope}
    return hooks_elsewhere(others, host="Gemini", command="gemini")


# -- folder trust ---------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class FolderTrust:
    """Whether Gemini trusts a folder: ``trusted``, ``untrusted``, ``unknown`` (it will
    ask), or ``everywhere`` (folder trust is off); the file and rule that say so."""

    state: str
    source: Path
    rule: str = ""


def folder_trust(folder: Path, env: Mapping[str, str]) -> FolderTrust:
    """How Gemini 0.61 would judge ``folder``: folder trust off in the user's settings
    trusts every folder; otherwise the longest rule of the trust file that covers it
    (``TRUST_PARENT`` covers its folder's parent)."""
    settings_file = user_settings_path(env)
    try:
        _, settings = read_json_settings(settings_file)
    except ConfigError:
        settings = {}
    security = settings.get("security")
    trust = security.get("folderTrust") if isinstance(security, dict) else None
    if isinstance(trust, dict) and trust.get("enabled") is False:
        return FolderTrust(state="everywhere", source=settings_file)
    path = trusted_folders_path(env)
    try:
        _, rules = read_json_settings(path)
    except ConfigError:
        rules = {}
    here = os.path.realpath(folder)
    best: tuple[int, str, str] | None = None
    for rule, level in rules.items():
        if level not in _TRUST_LEVELS:
            continue
        covered = os.path.dirname(rule) if level == "TRUST_PARENT" else rule
        root = os.path.realpath(os.path.expanduser(covered))
        inside = here == root or here.startswith(root.rstrip(os.sep) + os.sep)
        if inside and (best is None or len(rule) > best[0]):
            best = (len(rule), rule, level)
    if best is None:
        return FolderTrust(state="unknown", source=path)
    state = "untrusted" if best[2] == "DO_NOT_TRUST" else "trusted"
    return FolderTrust(state=state, source=path, rule=f"{best[1]}: {best[2]}")


def trust_notes(folder: Path, env: Mapping[str, str]) -> list[str]:
    """What the user should know of Gemini's trust in ``folder``, in one note."""
    trust = folder_trust(folder, env)
    if trust.state == "everywhere":
        return [
            f"folder trust is off in {trust.source} (security.folderTrust.enabled: false): "
            "Gemini runs hooks, MCP servers and project settings in every folder"
        ]
    if trust.state == "trusted":
        return [
            f"Gemini trusts {folder} ({trust.source} says {trust.rule}): it runs memdir's "
            "hooks and MCP server there"
        ]
    if trust.state == "untrusted":
        return [
            f"{folder} is NOT trusted ({trust.source} says {trust.rule}): Gemini ignores its "
            ".gemini/settings.json and runs no hooks and no MCP server there, and `gemini -p` "
            "refuses to start; change it with /permissions in an interactive `gemini`"
        ]
    return [
        f"Gemini has not been told whether to trust {folder} ({trust.source} has no rule for "
        'it): start `gemini` there once and choose "Trust folder"; until then it runs no '
        "hooks, MCP servers or project settings there, and `gemini -p` refuses to start"
    ]


# -- context files --------------------------------------------------------------------


def context_file_names(settings: Mapping[str, Any]) -> list[str] | None:
    """The context files a settings object names (``context.fileName``), None: not set."""
    context = settings.get("context")
    names = context.get("fileName") if isinstance(context, dict) else None
    if isinstance(names, str):
        return [names]
    if isinstance(names, list) and all(isinstance(n, str) for n in names):
        return list(names)
    return None


def with_agents_md(
    settings: dict[str, Any], inherited: list[str] | None, path: Path
) -> tuple[dict[str, Any], str | None]:
    """``settings`` naming ``AGENTS.md`` among Gemini's context files, and a note saying
    so (None: nothing changed). ``inherited``: the names this file would otherwise get
    (the user's, for a project's file); none at all is Gemini's ``GEMINI.md``."""
    context = settings.get("context", {})
    if not isinstance(context, dict):
        raise ConfigError(
            f"'context' in {path} is not an object",
            path=path,
            hint="fix it by hand, then install again",
        )
    names = context_file_names(settings)
    if names is None:
        names = inherited or [_DEFAULT_CONTEXT]
        if AGENTS_FILE in names and inherited:
            return settings, None  # the user's own setting already reads it
    elif AGENTS_FILE in names:
        return settings, None
    merged = copy.deepcopy(settings)
    merged.setdefault("context", {})["fileName"] = [*names, AGENTS_FILE]
    shown = ", ".join([*names, AGENTS_FILE])
    note = (
        f"Gemini CLI now reads {shown} (context.fileName in {path}): the section "
        "`memdir export agents-md` writes reaches it"
    )
    return merged, note


def user_context_files(env: Mapping[str, str]) -> list[str] | None:
    """The context files the user's settings name (a project's own value replaces them)."""
    path = user_settings_path(env)
    try:
        return context_file_names(read_json_settings(path)[1])
    except ConfigError:
        return None  # not the installer's to report: Gemini names a broken settings file


def _project_context_note(project: Path, env: Mapping[str, str]) -> list[str]:
    """A note when the project's file names context files without ``AGENTS.md``: its value
    replaces the user's."""
    path = settings_path("project", project, env)
    try:
        names = context_file_names(read_json_settings(path)[1])
    except ConfigError:
        return []
    if names is None or AGENTS_FILE in names:
        return []
    return [
        f"{path} names its own context files ({', '.join(names)}), which replace yours: "
        "Gemini reads no AGENTS.md in this project (`memdir install gemini` adds it there)"
    ]


def agents_md_note(project: Path, env: Mapping[str, str] | None = None) -> str | None:
    """After ``export agents-md``: make ``AGENTS.md`` one of Gemini's context files in the
    checkout's ``.gemini/settings.json`` when Gemini is set up there; say how it stands."""
    env = os.environ if env is None else env
    path = settings_path("project", project, env)
    before, settings = read_json_settings(path)
    own = context_file_names(settings)
    inherited = user_context_files(env)
    reads = own if own is not None else inherited
    if reads is not None and AGENTS_FILE in reads:
        where = path if own is not None else user_settings_path(env)
        return f"Gemini CLI reads it too (context.fileName in {where})"
    if not before:
        if not user_settings_path(env).exists():
            return None  # no sign of Gemini CLI on this machine
        return (
            "Gemini CLI reads GEMINI.md, not AGENTS.md, unless told: `memdir install gemini` "
            "or `memdir hook install gemini` adds AGENTS.md to its context files"
        )
    merged, note = with_agents_md(settings, inherited, path)
    if merged != settings:
        apply_edit(
            path,
            before,
            render_json(merged, before),
            shared_folder=True,
            shared_file=True,
            dry_run=False,
        )
    return note


# -- the read-only tools' policy ------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class PolicyResult:
    """What writing memdir's policy file did (or, with ``dry_run``, would do)."""

    path: Path
    servers: tuple[str, ...]
    changed: bool
    diff: str


def _render_policy(servers: list[str]) -> str:
    lines = [
        _POLICY_MARK,
        "# Gemini CLI may run these MCP servers' read-only memdir tools without asking,",
        "# headless runs included; their tools that change memory still ask. Installing",
        "# again rewrites this file.",
    ]
    tools = ", ".join(f'"{tool}"' for tool in READ_ONLY_TOOLS)
    for server in servers:
        lines += [
            "",
            "[[rule]]",
            f'mcpName = "{server}"',
            f"toolName = [{tools}]",
            "toolAnnotations = { readOnlyHint = true }",
            'decision = "allow"',
            "priority = 100",
        ]
    return "\n".join(lines) + "\n"


def install_read_only_policy(
    server: str, *, env: Mapping[str, str] | None = None, dry_run: bool = False
) -> PolicyResult:
    """Allow the read-only tools of MCP server ``server`` (memdir's) in the user's policies,
    keeping the servers the file already allows; a file memdir did not write is refused."""
    env = os.environ if env is None else env
    path = policy_path(env)
    before = read_text(path)
    if before and not before.startswith(_POLICY_MARK):
        raise ConfigError(
            f"{path} exists and was not written by memdir",
            path=path,
            hint="rename or remove it; memdir only rewrites its own policy file",
        )
    known: set[str] = set()
    for rule in parse_toml(before, path).get("rule", []):
        if isinstance(rule, dict) and isinstance(rule.get("mcpName"), str):
            known.add(rule["mcpName"])
    servers = sorted(known | {server})
    after = _render_policy(servers)
    diff = apply_edit(path, before, after, shared_folder=False, shared_file=False, dry_run=dry_run)
    return PolicyResult(path=path, servers=tuple(servers), changed=after != before, diff=diff)
