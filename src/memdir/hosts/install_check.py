"""Check that the memdir commands Claude Code, Codex and Gemini would run for a project answer.

``memdir doctor`` calls :func:`check_installs`. It reads every file Claude
Code takes hooks or MCP servers from for the project: the three settings
files (``.claude/settings.local.json``, ``.claude/settings.json``, the user's
``settings.json``), the project's ``.mcp.json`` and ``~/.claude.json`` (this
project's servers and the user's). For each entry that runs memdir:

- a hook command runs in the project with ``{}`` on stdin and the hook name
  swapped for ``pre-tool-use`` (which answers an empty call at once; ``stop``
  would start background work). It answers when it exits 0 with nothing on
  stderr: a shared command that skips because memdir is missing says so there;
- an MCP server starts as the host would start it (its ``env`` added) and
  must answer MCP's ``initialize`` request;
- the user's own files (``~/.claude/settings.json``, ``~/.claude.json``) are
  run as Claude Code runs them (hooks through ``/bin/sh``). The files in the
  project come with the repository, so their commands are never handed to a
  shell: one runs only when it reads back as a form memdir writes
  (:mod:`memdir.hosts.written`) and starts this installation or the
  ``memdir`` on PATH, as an argv list; one that starts another program is
  checked to exist; any other form is reported, not run;
- a command that finds memdir only through PATH (a bare ``memdir``) is
  reported even when it works here: Claude Code started from a desktop
  launcher or an IDE often has another PATH;
- memdir's hooks in more than one settings file are reported: Claude Code
  runs each;
- memdir's Claude Code plugin, when a settings file enables it
  (``enabledPlugins``), is run as Claude Code runs it: its launcher
  (``python3 <plugin>/bin/memdir-plugin``) says which memdir it would start, or why
  none (its environment still building, a failed build, a wrong setting), then its
  hook answers an empty call and its server ``initialize``. memdir's installed
  hooks or server beside it are reported: the plugin's hooks step aside for them.

Codex CLI's files are checked the same way: its ``hooks.json`` (the user's,
run through ``/bin/sh``; the checkout's ``.codex/``, never through a shell) and
the memdir servers of its ``config.toml``, where the per-project tables earlier
versions wrote are reported too (each offered one project's memory to every
session; ``memdir install codex`` removes them).

Gemini CLI's are too: the hooks and MCP servers of the project's
``.gemini/settings.json`` (never through a shell) and of the user's
``~/.gemini/settings.json``. A memdir hook there that answers in Claude Code's
dialect (Gemini ignores its deny: the rule fails open), whose timeout is a
number of seconds where Gemini reads milliseconds, or that sits in an event
memdir does not install for Gemini (``gemini hooks migrate --from-claude`` copies
all three) is reported with the fix, and so is a project Gemini was told not to
trust while memdir is installed for it (Gemini then runs none of it).

Each finding names the file, what failed and the command that fixes it.
A file that does not parse is reported, never touched.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memdir.errors import ConfigError
from memdir.hosts.claude_code import (
    SCOPES,
    claude_json_path,
    memdir_hook_entries,
    plugin_for,
    settings_path,
)
from memdir.hosts.claude_plugin import LAUNCHER, PluginInstall
from memdir.hosts.config_files import parse_json_object
from memdir.hosts.launch import hook_name, launch_for, runs_memdir_server
from memdir.hosts.probes import HOOK_TIMEOUT, SERVER_TIMEOUT, run_hook, start_server
from memdir.hosts.written import (
    Resolved,
    Written,
    read_hook_command,
    read_server_entry,
)
from memdir.storage.paths import find_project_root

__all__ = ["HOOK_TIMEOUT", "SERVER_TIMEOUT", "InstallFinding", "check_installs"]

# A Gemini hook timeout under a second is one written in seconds (Gemini reads milliseconds).
_SHORTEST_MS = 1000
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True, kw_only=True)
class InstallFinding:
    """One installed command that does not (or may not) run memdir.

    ``problem``: ``broken-hook``, ``path-hook``, ``duplicate-hooks``,
    ``unchecked-hook``, ``broken-server``, ``path-server``, ``unchecked-server``,
    ``per-project-server``, ``hook-server-folder``, ``unreadable``, the plugin's
    ``broken-plugin``, ``plugin-building``, ``duplicate-install``, or Gemini's
    ``wrong-dialect``, ``short-timeout``, ``stray-hook``, ``untrusted-folder``;
    ``fix``: the command to run.
    """

    problem: str
    path: Path
    message: str
    fix: str


def check_installs(project: Path, env: Mapping[str, str] | None = None) -> list[InstallFinding]:
    """Everything wrong with the memdir hooks and MCP servers Claude Code, Codex and Gemini
    have for ``project``."""
    env = dict(os.environ if env is None else env)
    root = find_project_root(project)
    findings: list[InstallFinding] = []
    with_hooks: list[Path] = []
    for scope in SCOPES:
        path = settings_path(scope, project, env)
        settings = _load(path, findings)
        entries = memdir_hook_entries(settings) if settings is not None else []
        if entries:
            with_hooks.append(path)
        findings += _check_hooks(path, scope, entries, root, env)
    if len(with_hooks) > 1:
        findings.append(
            InstallFinding(
                problem="duplicate-hooks",
                path=with_hooks[0],
                message="memdir's hooks are in "
                + ", ".join(str(p) for p in with_hooks)
                + ": Claude Code runs each, so the model gets memory twice",
                fix="keep one: memdir hook uninstall claude --scope <the others>",
            )
        )
    plugin = plugin_for(project, env)
    for scope, path, servers in _server_tables(project, root, env, findings):
        for name, entry in servers.items():
            if runs_memdir_server(entry):
                findings += _check_server(path, scope, name, entry, root, env)
                if plugin is not None:
                    findings.append(
                        _beside_plugin(plugin, path, f"claude mcp remove {name} -s {scope}")
                    )
    if plugin is not None:
        findings += _check_plugin(plugin, root, env)
        if with_hooks:
            fix = f"memdir hook uninstall claude --scope <the scope of {with_hooks[0]}>"
            findings.append(_beside_plugin(plugin, with_hooks[0], fix))
    findings += _check_codex(project, root, env)
    findings += _check_gemini(project, root, env)
    if with_hooks or plugin is not None:
        findings += _check_socket_folder(env)
    return findings


def _beside_plugin(plugin: PluginInstall, path: Path, remove: str) -> InstallFinding:
    return InstallFinding(
        problem="duplicate-install",
        path=path,
        message=f"installs memdir for Claude Code, and so does memdir's plugin ({plugin.id}, "
        f"enabled in {plugin.settings}): the plugin's hooks step aside for installed ones, "
        "and two servers offer every tool twice",
        fix=f"keep one: {remove}, or {plugin.uninstall}",
    )


def _check_plugin(
    plugin: PluginInstall, root: Path, env: Mapping[str, str]
) -> list[InstallFinding]:
    """Why memdir's plugin does not answer in ``root`` as Claude Code runs it, if it does not."""
    launcher = plugin.root / LAUNCHER if plugin.root is not None else None
    python = shutil.which("python3", path=env.get("PATH", os.defpath))
    if launcher is None or not launcher.is_file():
        why = "Claude Code has no copy of it here"
        fix = f"claude plugin install {plugin.id} --scope {plugin.scope}"
    elif python is None:
        why, fix = "Claude Code starts it with python3, and none is on PATH", "install python3"
    else:
        argv, extra = [python, "-I", "-S", str(launcher)], plugin.hook_env(root)
        state = _plugin_state(argv, extra, root, env)
        fix = f"python3 {launcher} --build, or set MEMDIR_PYTHON to a Python with memdir"
        if state.get("state") in ("building", "due"):
            wait = "wait: it finishes alone" if state["state"] == "building" else fix
            return [_plugin_finding(plugin, "plugin-building", state, wait)]
        if state.get("state") != "ready":
            return [_plugin_finding(plugin, "broken-plugin", state, fix)]
        server = {"command": python, "args": [*argv[1:], "serve"], "env": extra}
        trouble = run_hook([*argv, "hook", "pre-tool-use"], extra, root, env)
        trouble = trouble or start_server(server, root, env)
        if trouble is None:
            return []
        why = f"its launcher {trouble}"
    return [_plugin_finding(plugin, "broken-plugin", {"message": why}, fix)]


def _plugin_state(
    argv: list[str], extra: Mapping[str, str], root: Path, env: Mapping[str, str]
) -> dict[str, Any]:
    """What the plugin's launcher says it would run (``--check``: it builds nothing)."""
    try:
        done = subprocess.run(
            [*argv, "--check"],
            capture_output=True,
            text=True,
            cwd=root,
            env={**env, **extra},
            timeout=HOOK_TIMEOUT,
            check=False,
        )
        state = json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return {"state": "broken", "message": "its launcher does not say what it would run"}
    return state if isinstance(state, dict) else {"state": "broken"}


def _plugin_finding(
    plugin: PluginInstall, problem: str, state: Mapping[str, Any], fix: str
) -> InstallFinding:
    said = str(state.get("message") or "does not answer").removeprefix("memdir: ")
    return InstallFinding(
        problem=problem,
        path=plugin.settings,
        message=f"enables memdir's Claude Code plugin ({plugin.id}), but {said}",
        fix=fix,
    )


def _check_codex(project: Path, root: Path, env: Mapping[str, str]) -> list[InstallFinding]:
    """Codex's hooks files and the memdir servers in its ``config.toml``."""
    from memdir.hosts.codex import HOOK_SCOPES, codex_config_path, codex_hooks_path
    from memdir.hosts.config_files import parse_toml
    from memdir.hosts.mcp_servers import earlier_codex_table
    from memdir.hosts.written import served_project

    findings: list[InstallFinding] = []
    for scope in HOOK_SCOPES:
        path = codex_hooks_path(scope, project, env)
        settings = _load(path, findings)
        entries = memdir_hook_entries(settings) if settings is not None else []
        findings += _check_hooks(path, scope, entries, root, env, agent="codex")
    path = codex_config_path(env)
    try:
        servers = _table(parse_toml(path.read_text(encoding="utf-8"), path), ("mcp_servers",))
    except FileNotFoundError:
        return findings
    except (OSError, UnicodeDecodeError, ConfigError) as exc:
        findings.append(_unreadable(path, getattr(exc, "message", None) or str(exc)))
        return findings
    for name, entry in servers.items():
        if earlier_codex_table(name, entry):
            findings.append(
                InstallFinding(
                    problem="per-project-server",
                    path=path,
                    message=f"the MCP server {name!r} serves {served_project(entry)} in every "
                    "Codex session, whatever its project (write and delete included)",
                    fix="memdir install codex (one entry serves each session's own project)",
                )
            )
        elif runs_memdir_server(entry):
            trouble = start_server(entry, root, env)
            if trouble is not None:
                findings.append(
                    InstallFinding(
                        problem="broken-server",
                        path=path,
                        message=f"the MCP server {name!r} {trouble}",
                        fix="memdir install codex",
                    )
                )
    return findings


def _check_gemini(project: Path, root: Path, env: Mapping[str, str]) -> list[InstallFinding]:
    """Gemini's two settings files: memdir's hooks and servers there, and the folder's trust."""
    from memdir.hosts.claude_code import checkout_root
    from memdir.hosts.gemini import HOOK_SCOPES, folder_trust, settings_path

    findings: list[InstallFinding] = []
    installed = False
    with_hooks: list[Path] = []
    for scope in HOOK_SCOPES:
        path = settings_path(scope, project, env)
        settings = _load(path, findings)
        if settings is None:
            continue
        entries = memdir_hook_entries(settings)
        if entries:
            with_hooks.append(path)
        findings += _check_hooks(path, scope, entries, root, env, agent="gemini")
        findings += _gemini_dialect(path, scope, settings)
        for name, entry in _table(settings, ("mcpServers",)).items():
            if not runs_memdir_server(entry):
                continue
            installed = True
            findings += _start_check(path, scope, name, entry, root, env, "memdir install gemini")
        installed = installed or bool(entries)
    if len(with_hooks) > 1:
        findings.append(
            InstallFinding(
                problem="duplicate-hooks",
                path=with_hooks[0],
                message=f"memdir's hooks are in {with_hooks[0]} and {with_hooks[1]}: Gemini "
                "runs both, so the model gets memory twice",
                fix="keep one: memdir hook uninstall gemini --scope project",
            )
        )
    trust = folder_trust(checkout_root(project), env)
    if installed and trust.state == "untrusted":
        findings.append(
            InstallFinding(
                problem="untrusted-folder",
                path=trust.source,
                message=f"says not to trust {checkout_root(project)} ({trust.rule}): Gemini "
                "runs none of memdir's hooks or MCP servers there",
                fix="trust the folder with /permissions in an interactive gemini",
            )
        )
    return findings


def _gemini_dialect(path: Path, scope: str, settings: Mapping[str, Any]) -> list[InstallFinding]:
    """memdir's hooks in a Gemini file that Gemini would run wrongly (as a migration copied
    them from Claude Code's settings): one finding per kind of trouble."""
    from memdir.hosts.gemini import EVENTS

    installed = {event for event, _ in EVENTS}
    hooks = settings.get("hooks")
    troubles: dict[str, str] = {}
    for event, groups in hooks.items() if isinstance(hooks, dict) else []:
        for group in groups if isinstance(groups, list) else []:
            entries = group.get("hooks") if isinstance(group, dict) else None
            for entry in entries if isinstance(entries, list) else []:
                if not isinstance(entry, dict) or hook_name(entry.get("command")) is None:
                    continue
                timeout = entry.get("timeout")
                if event not in installed:
                    troubles.setdefault(
                        "stray-hook",
                        f"memdir's {event} hook starts Claude Code's background jobs, which "
                        "read Claude Code's transcripts, not Gemini's",
                    )
                elif "--host gemini" not in str(entry.get("command")):
                    troubles.setdefault(
                        "wrong-dialect",
                        f"memdir's {event} hook answers in Claude Code's format, which Gemini "
                        "ignores: its rules fail open",
                    )
                if isinstance(timeout, int | float) and timeout < _SHORTEST_MS:
                    troubles.setdefault(
                        "short-timeout",
                        f"memdir's {event} hook times out after {timeout} ms (Gemini counts "
                        "milliseconds): it is stopped before it answers",
                    )
    fix = f"memdir hook install gemini --scope {scope}"
    return [
        InstallFinding(problem=problem, path=path, message=message, fix=fix)
        for problem, message in troubles.items()
    ]


def _check_socket_folder(env: Mapping[str, str]) -> list[InstallFinding]:
    """The hook server's folder, when it exists but hooks must not use it."""
    from memdir.hooks.client import server_enabled
    from memdir.hooks.wire import safe_folder, socket_folder

    folder = socket_folder(env)
    if not server_enabled(env) or not os.path.lexists(folder) or safe_folder(folder, create=False):
        return []
    return [
        InstallFinding(
            problem="hook-server-folder",
            path=Path(folder),
            message="is not a folder of this user's closed to others, so no hook server "
            "answers: every session start and prompt pays for loading memdir",
            fix=f"rm -r {folder} (the next hook makes it again with mode 0700)",
        )
    ]


def _load(path: Path, findings: list[InstallFinding]) -> dict[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        findings.append(_unreadable(path, f"cannot be read ({reason})"))
        return None
    try:
        return parse_json_object(text, path, str(path))
    except ConfigError as exc:
        findings.append(_unreadable(path, exc.message))
        return None


def _unreadable(path: Path, why: str) -> InstallFinding:
    return InstallFinding(
        problem="unreadable",
        path=path,
        message=f"{why}: the agent may ignore it, and memdir cannot check or repair it",
        fix=f"fix {path} by hand",
    )


def _hook_fix(scope: str, command: str, agent: str = "claude") -> str:
    profile = re.search(r"MEMDIR_PROFILE=['\"]?([a-z]+)", command)
    prefix = f"memdir --profile {profile.group(1)}" if profile else "memdir"
    return f"{prefix} hook install {agent} --scope {scope}"


def _check_hooks(
    path: Path,
    scope: str,
    entries: list[tuple[str, str]],
    root: Path,
    env: Mapping[str, str],
    *,
    agent: str = "claude",
) -> list[InstallFinding]:
    findings = []
    if any(_bare(command) for _, command in entries):
        command = next(c for _, c in entries if _bare(c))
        findings.append(
            InstallFinding(
                problem="path-hook",
                path=path,
                message=f"the hook command {command!r} finds memdir only through PATH, "
                "which the agent may not share (every hook then fails, and rules fail open)",
                fix=_hook_fix(scope, command, agent),
            )
        )
    checked: set[str] = set()
    for _, command in entries:
        name = hook_name(command) or ""
        probe = re.sub(rf"\bhook(\s+){re.escape(name)}\b", r"hook\1pre-tool-use", command)
        if probe in checked:
            continue  # every event's command differs only in the hook's name
        checked.add(probe)
        if scope == "user":
            trouble = run_hook(["/bin/sh", "-c", probe], {}, root, env)
        else:
            trouble = _run_project_hook(command, root, env)
        if trouble is not None:
            problem = "unchecked-hook" if trouble == _UNCHECKED else "broken-hook"
            findings.append(
                InstallFinding(
                    problem=problem,
                    path=path,
                    message=f"the hook command {command!r} {trouble}",
                    fix=_hook_fix(scope, command, agent),
                )
            )
    return findings


_UNCHECKED = (
    "is not in a form memdir writes, so doctor does not run it (it runs no other command "
    "from a project's files): look at it, then install again"
)


def _run_project_hook(command: str, root: Path, env: Mapping[str, str]) -> str | None:
    """Check a hook command from a file of the project, never through a shell."""
    written = read_hook_command(command)
    if written is None:
        return _UNCHECKED
    probe = Written(
        program=written.program,
        env=written.env,
        profile=written.profile,
        args=("hook", "pre-tool-use"),
        shared=written.shared,
        message=written.message,
    )
    resolved = probe.resolve(env)
    if isinstance(resolved, str):
        return resolved
    if not _vouched(resolved, env):
        return None  # another installation's program, and it exists: nothing more to run
    return run_hook(list(resolved.argv), resolved.env, root, env)


def _vouched(resolved: Resolved, env: Mapping[str, str]) -> bool:
    """Whether ``resolved`` starts this installation, or the memdir on PATH, with no
    PYTHONPATH but this installation's own: the only programs doctor starts for a project."""
    ours = launch_for(os.environ)
    found = shutil.which("memdir", path=env.get("PATH", os.defpath))
    mine = [ours.program, *([ours.hooks] if ours.hooks else [])]
    if not any(resolved.argv[: len(p)] == p for p in mine) and resolved.argv[:1] != (
        (found,) if found else ()
    ):
        return False
    return resolved.env.get("PYTHONPATH") in (None, dict(ours.env).get("PYTHONPATH"))


def _bare(command: str) -> bool:
    """Whether ``command`` starts memdir by bare name (after any VAR=value words)."""
    words = command.split()
    while words and _ASSIGNMENT.match(words[0]):
        words.pop(0)
    return bool(words) and words[0] in ("memdir", "memdir.exe")


def _server_tables(
    project: Path, root: Path, env: Mapping[str, str], findings: list[InstallFinding]
) -> list[tuple[str, Path, dict[str, Any]]]:
    """(scope, file, servers) for each place Claude Code takes this project's servers from."""
    from memdir.hosts.claude_code import checkout_root

    tables: list[tuple[str, Path, dict[str, Any]]] = []
    mcp_json = checkout_root(project) / ".mcp.json"
    data = _load(mcp_json, findings)
    if data is not None:
        tables.append(("project", mcp_json, _table(data, ("mcpServers",))))
    claude_json = claude_json_path(env)
    data = _load(claude_json, findings)
    if data is not None:
        tables.append(("local", claude_json, _table(data, ("projects", str(root), "mcpServers"))))
        tables.append(("user", claude_json, _table(data, ("mcpServers",))))
    return tables


def _table(data: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def _check_server(
    path: Path, scope: str, name: str, entry: dict[str, Any], root: Path, env: Mapping[str, str]
) -> list[InstallFinding]:
    args = [a for a in entry.get("args", []) if isinstance(a, str)]
    profile = args[args.index("--profile") + 1] if "--profile" in args[:-1] else None
    prefix = f"memdir --profile {profile}" if profile else "memdir"
    fix = f"{prefix} install claude-code --scope {scope}"
    findings = []
    if entry.get("command") in ("memdir", "memdir.exe"):
        findings.append(
            InstallFinding(
                problem="path-server",
                path=path,
                message=f"the MCP server {name!r} is started as a bare 'memdir', found only "
                "through PATH, which Claude Code may not share",
                fix=fix,
            )
        )
    return findings + _start_check(path, scope, name, entry, root, env, fix)


def _start_check(
    path: Path,
    scope: str,
    name: str,
    entry: dict[str, Any],
    root: Path,
    env: Mapping[str, str],
    fix: str,
) -> list[InstallFinding]:
    """A finding when MCP server ``name`` of ``scope`` does not start as its host starts it."""
    # A project's file comes with the repository; the user's is their own.
    check = _start_project_server if scope == "project" else start_server
    trouble = check(entry, root, env)
    if trouble is None:
        return []
    return [
        InstallFinding(
            problem="unchecked-server" if trouble == _UNCHECKED else "broken-server",
            path=path,
            message=f"the MCP server {name!r} ({scope} scope) {trouble}",
            fix=fix,
        )
    ]


def _start_project_server(entry: dict[str, Any], root: Path, env: Mapping[str, str]) -> str | None:
    """Check a server entry from the project's ``.mcp.json``, never through a shell."""
    written = read_server_entry(entry)
    if written is None:
        return _UNCHECKED
    resolved = written.resolve(env)
    if isinstance(resolved, str):
        return resolved.replace("says: ", "exits 1 before answering: ", 1)
    if not _vouched(resolved, env):
        return None
    return start_server({"command": resolved.argv[0], "args": list(resolved.argv[1:]),
                          "env": resolved.env}, root, env)  # fmt: skip
