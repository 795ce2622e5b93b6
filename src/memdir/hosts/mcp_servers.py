"""Register memdir's MCP server with the hosts people use.

Each host keeps its MCP servers in a file of its own: Claude Desktop in
``claude_desktop_config.json`` (a per-user folder that depends on the
platform), Claude Code in ``~/.claude.json`` (scope ``local``: under
``projects[<project root>]``, this project only; ``user``: every project) or
in the project's shared ``.mcp.json`` (scope ``project``), Cursor in
``.cursor/mcp.json``, Gemini CLI in the project's ``.gemini/settings.json``
(all JSON under ``mcpServers``; Gemini's file also gets ``AGENTS.md`` among its
context files, :func:`memdir.hosts.gemini.with_agents_md`), Codex CLI in
``~/.codex/config.toml`` (TOML, a ``[mcp_servers.<name>]`` table).
:func:`install_mcp_server` adds or updates memdir's one entry and changes
nothing else.

The files are edited as :mod:`memdir.hosts.config_files` edits every host's
file: JSON re-rendered with its own indentation and key order, TOML edited as
text (only memdir's table is replaced or appended, and the result is parsed
again to prove every other setting is unchanged); an entry that already says
the same thing is left alone (installing twice writes nothing); a file that
does not parse, or holds memdir's entry in a form memdir cannot edit safely,
is refused, never overwritten; ``~/.claude.json``, which Claude Code rewrites
while it runs, is edited under Claude Code's own lock; ``dry_run`` only
computes the unified diff. Where each host keeps its file is its own module's
(:mod:`~memdir.hosts.claude_code`, :mod:`~memdir.hosts.desktop`,
:mod:`~memdir.hosts.codex`, :mod:`~memdir.hosts.gemini`).

Every entry starts this installation by absolute path with the settings that
chose the folder (:mod:`memdir.hosts.launch`). Project files are
shared: they name the server ``memdir``, start it in the project, and wrap it
so a teammate without this installation gets ``memdir`` from PATH or one
line saying what is missing. Claude Desktop's per-user file holds one entry
per project, ``memdir-<folder>``, with ``--project`` set to the project's root
(it starts servers in no project). Claude Code's local and user entries, and
Codex's one ``memdir`` entry, start in the session's project and serve it:
Codex starts its stdio servers in the session's folder, so a session is
offered its own project's memory and no other's.

Codex's table is memdir's for ``command``, ``args`` and ``env``; the keys a
user adds beside them (``enabled``, ``startup_timeout_sec``...) stay. With
``required`` set, Codex waits for memdir's server before a session's first
request (a server that fails to start stops the session); the per-project
``memdir-<folder>`` tables earlier versions wrote there (each offered one
project's memory, write and delete included, to every session) are removed by
the next install, which names them; a table memdir did not write stays.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from memdir.errors import ConfigError
from memdir.hosts import codex, desktop, gemini
from memdir.hosts.claude_code import MCP_PROJECT_FILE, SCOPES, claude_json_path
from memdir.hosts.config_files import (
    apply_edit,
    claude_lock,
    has_toml_table,
    parse_json_object,
    parse_toml,
    read_text,
    remove_toml_table,
    render_json,
    render_toml_table,
    replace_toml_table,
)
from memdir.hosts.launch import Launch, launch_for
from memdir.hosts.written import served_project

__all__ = [
    "CLAUDE_CODE_SCOPES",
    "CODEX_STARTUP_TIMEOUT",
    "HOSTS",
    "HostTarget",
    "InstallResult",
    "earlier_codex_table",
    "host_target",
    "install_mcp_server",
    "read_server",
]

HOSTS = ("claude-desktop", "claude-code", "cursor", "codex", "gemini")
CLAUDE_CODE_SCOPES = SCOPES
# The hosts whose file is the project's own, shared with the team.
_PROJECT_FILES = {
    "claude-code": MCP_PROJECT_FILE,
    "cursor": desktop.CURSOR_MCP_FILE,
    "gemini": gemini.PROJECT_SETTINGS,
}
# The per-user files of hosts that start servers in no project: one entry per project.
_PER_PROJECT = frozenset({"claude-desktop"})
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# Seconds Codex waits for a required memdir server (its default, 10, is tight for a
# first start that compiles memdir's modules).
CODEX_STARTUP_TIMEOUT = 30
# The keys of Codex's table that memdir writes; the user's others stay.
_OURS = frozenset({"command", "args", "env"})

Format = Literal["json", "toml"]


@dataclass(frozen=True, kw_only=True)
class HostTarget:
    """Where one host keeps its MCP servers, and the entry memdir wants there."""

    host: str
    path: Path
    name: str
    entry: dict[str, Any]
    format: Format
    # Where the servers table sits in a JSON file: ("mcpServers",), or in
    # ~/.claude.json ("projects", <root>, "mcpServers") for one project.
    table: tuple[str, ...] = ("mcpServers",)
    scope: str | None = None  # Claude Code's scope, for the other hosts None
    locked: bool = False  # edited under the host's own lock (~/.claude.json)
    dropped: tuple[str, ...] = ()  # keys of the entry to remove (Codex's required)
    # Gemini's: the context files the user's settings name, which the project's
    # file replaces when it names its own (AGENTS.md is added to them).
    context_files: tuple[str, ...] | None = None


@dataclass(frozen=True, kw_only=True)
class InstallResult:
    """What an install did (or, with ``dry_run``, would do)."""

    host: str
    path: Path
    name: str
    changed: bool
    diff: str
    dry_run: bool
    removed: tuple[str, ...] = ()  # earlier versions' per-project entries, taken out
    kept: tuple[str, ...] = ()  # those memdir cannot edit safely (inline tables), left


def host_target(
    host: str,
    project_root: Path,
    *,
    launch: Launch | None = None,
    name: str | None = None,
    path: Path | None = None,
    env: Mapping[str, str] | None = None,
    scope: str | None = None,
    checkout: Path | None = None,
    required: bool | None = None,
) -> HostTarget:
    """The file ``host`` reads (``path`` overrides it) and memdir's entry for ``project_root``.

    ``launch`` says how to start memdir (default: this installation, carrying
    ``env``'s settings); ``scope`` is Claude Code's (default ``local``; other
    hosts take none); ``checkout`` is the folder a shared project file goes in
    (default ``project_root``); ``required`` is Codex's (True: its sessions wait
    for memdir's server; False: they do not; None: as the file says).
    """
    env = os.environ if env is None else env
    if host not in HOSTS:
        raise ConfigError(f"unknown MCP host {host!r}", hint=f"one of {', '.join(HOSTS)}")
    if host == "claude-code":
        scope = scope or "local"
        if scope not in CLAUDE_CODE_SCOPES:
            raise ConfigError(
                f"unknown scope {scope!r}", hint=f"use one of {', '.join(CLAUDE_CODE_SCOPES)}"
            )
    elif scope is not None:
        raise ConfigError(
            f"{host} takes no --scope", hint="--scope is for claude-code (local, project, user)"
        )
    if required is not None and host != "codex":
        raise ConfigError(f"{host} takes no --required", hint="--required is for codex")
    launch = launch or launch_for(env)
    shared = host in _PROJECT_FILES and scope in (None, "project")
    per_user = host in _PER_PROJECT
    args = ["serve"]
    if per_user:
        args += ["--project", str(project_root)]
    elif host == "cursor":
        args += ["--project", desktop.CURSOR_PROJECT_ARG]  # Cursor may start servers elsewhere
    if name is None:
        name = _per_project_name(project_root) if per_user else "memdir"
    if not _NAME.match(name):
        raise ConfigError(
            f"server name {name!r} is not 1-64 letters, digits, '_' or '-'",
            hint="pass another --name",
        )
    table: tuple[str, ...] = ("mcpServers",)
    if scope == "local":
        table = ("projects", str(project_root), "mcpServers")
    if path is None:
        if host == "claude-desktop":
            path = desktop.claude_desktop_config_path(env)
        elif host == "codex":
            path = codex.codex_config_path(env)
        elif scope in ("local", "user"):
            path = claude_json_path(env)
        else:
            path = (checkout or project_root) / _PROJECT_FILES[host]
    entry = launch.server_entry(args, shared=shared)
    context_files = None
    if host == "gemini":
        inherited = gemini.user_context_files(env)
        context_files = tuple(inherited) if inherited is not None else None
    if required:
        entry.update(required=True, startup_timeout_sec=CODEX_STARTUP_TIMEOUT)
    return HostTarget(
        host=host,
        path=path,
        name=name,
        entry=entry,
        format="toml" if host == "codex" else "json",
        table=table,
        scope=scope,
        locked=scope in ("local", "user"),
        dropped=("required",) if required is False else (),
        context_files=context_files,
    )


def _per_project_name(project_root: Path) -> str:
    """``memdir-<folder>``: the name of a per-user file's entry for one project."""
    folder = re.sub(r"[^A-Za-z0-9_-]+", "-", project_root.name).strip("-")[:50]
    return f"memdir-{folder or 'project'}"


def install_mcp_server(target: HostTarget, *, dry_run: bool = False) -> InstallResult:
    """Add or update memdir's entry in ``target.path`` (see the module docstring)."""
    lock = claude_lock(target.path) if target.locked and not dry_run else contextlib.nullcontext()
    shared = _is_project_file(target)
    with lock:
        before = read_text(target.path)
        removed: tuple[str, ...] = ()
        kept: tuple[str, ...] = ()
        if target.format == "json":
            after = _merge_json(before, target)
        else:
            after, removed, kept = _merge_toml(before, target)
        diff = apply_edit(
            target.path,
            before,
            after,
            shared_folder=shared,
            shared_file=shared,
            dry_run=dry_run,
        )
    return InstallResult(
        host=target.host,
        path=target.path,
        name=target.name,
        changed=after != before,
        diff=diff,
        dry_run=dry_run,
        removed=removed,
        kept=kept,
    )


def read_server(
    path: Path, name: str, table: tuple[str, ...] = ("mcpServers",)
) -> dict[str, Any] | None:
    """The MCP server entry ``name`` in the host file ``path`` (JSON or TOML), if any.

    ``table`` is where a JSON file keeps its servers (see :class:`HostTarget`).
    """
    text = read_text(path)
    if path.suffix == ".toml":
        servers = parse_toml(text, path).get(codex.MCP_TABLE, {})
    else:
        servers = _dig(parse_json_object(text, path, path.name), table)
    entry = servers.get(name) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None


def _dig(data: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


# -- JSON -----------------------------------------------------------------------------


def _server_table(data: dict[str, Any], key: str, kind: str, target: HostTarget) -> dict[str, Any]:
    """The host's table of MCP servers (empty when absent); refused when it is not one."""
    servers = data.get(key, {})
    if not isinstance(servers, dict):
        raise ConfigError(
            f"'{key}' in {target.path.name} is not {kind}",
            path=target.path,
            hint="fix it by hand, then install again",
        )
    return servers


def _merge_json(text: str, target: HostTarget) -> str:
    data = parse_json_object(text, target.path, target.path.name)
    node: Any = data
    for depth, key in enumerate(target.table):
        node = node.get(key, {})
        if not isinstance(node, dict):
            where = ".".join(target.table[: depth + 1])
            raise ConfigError(
                f"'{where}' in {target.path} is not an object",
                path=target.path,
                hint="fix it by hand, then install again",
            )
    merged = data
    if node.get(target.name) != target.entry:
        merged = copy.deepcopy(data)
        node = merged
        for key in target.table:
            node = node.setdefault(key, {})
        node[target.name] = target.entry
    if target.host == "gemini":  # the section `memdir export agents-md` writes, read too
        inherited = list(target.context_files) if target.context_files is not None else None
        merged, _ = gemini.with_agents_md(merged, inherited, target.path)
    return text if merged is data else render_json(merged, text)


# -- TOML -----------------------------------------------------------------------------


def _merge_toml(text: str, target: HostTarget) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """The text with memdir's table, without earlier versions' per-project tables; the
    names of those removed, and of those left because memdir cannot edit them."""
    servers = _server_table(parse_toml(text, target.path), codex.MCP_TABLE, "a table", target)
    entry = _entry_keeping_theirs(servers.get(target.name), target)
    stale = [
        name for name in servers if name != target.name and earlier_codex_table(name, servers[name])
    ]
    removed = [name for name in stale if has_toml_table(text, f"{codex.MCP_TABLE}.{name}")]
    kept = tuple(name for name in stale if name not in removed)
    new = text
    for name in removed:
        new = remove_toml_table(new, f"{codex.MCP_TABLE}.{name}")
    if servers.get(target.name) != entry:
        ours = f"{codex.MCP_TABLE}.{target.name}"
        if target.name in servers and not has_toml_table(text, ours):
            raise ConfigError(
                f"{target.path.name} defines {ours} in a form memdir does not edit (inline or "
                "dotted keys)",
                path=target.path,
                hint=f"replace it with a [{ours}] table, or remove it",
            )
        new = replace_toml_table(new, ours, render_toml_table(ours, entry))
    if new == text:
        return text, (), kept
    _check_toml(text, new, target, entry, removed)
    return new, tuple(removed), kept


def _entry_keeping_theirs(existing: object, target: HostTarget) -> dict[str, Any]:
    """memdir's entry, with the keys the user set beside memdir's own (Codex's only)."""
    if target.host != "codex" or not isinstance(existing, dict):
        return target.entry
    theirs = {
        key: value
        for key, value in existing.items()
        if key not in _OURS and key not in target.entry and key not in target.dropped
    }
    return {**target.entry, **theirs}


def earlier_codex_table(name: str, entry: object) -> bool:
    """Whether a Codex table is one earlier versions wrote for one project: its default
    name, ``memdir-<folder>``, and its command memdir's ``serve --project <folder>``."""
    project = served_project(entry)
    return project is not None and name == _per_project_name(Path(project))


def _check_toml(
    old: str, new: str, target: HostTarget, entry: dict[str, Any], removed: list[str]
) -> None:
    """Refuse an edit that changed anything but memdir's table and the tables it removed
    (a header inside a string...)."""
    before, after = parse_toml(old, target.path), parse_toml(new, target.path)
    ours = after.get("mcp_servers", {}).pop(target.name, None)
    for name in [target.name, *removed]:
        before.get("mcp_servers", {}).pop(name, None)
    if ours != entry or _without_empty_servers(after) != _without_empty_servers(before):
        raise ConfigError(
            f"memdir cannot edit {target.path.name} without touching other settings",
            path=target.path,
            hint=f"add a [mcp_servers.{target.name}] table by hand: " + json.dumps(entry),
        )


def _without_empty_servers(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if not (k == "mcp_servers" and v == {})}


# -- files ----------------------------------------------------------------------------


def _is_project_file(target: HostTarget) -> bool:
    return target.host in _PROJECT_FILES and not target.locked
