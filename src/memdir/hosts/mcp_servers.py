"""Register memdir's MCP server with the hosts people use.

Each host keeps its MCP servers in a file of its own: Claude Desktop in
``claude_desktop_config.json`` (a per-user folder that depends on the
platform), Claude Code in ``~/.claude.json`` (scope ``local``: under
``projects[<project root>]``, this project only; ``user``: every project) or
in the project's shared ``.mcp.json`` (scope ``project``), Cursor in
``.cursor/mcp.json``, Gemini CLI in ``.gemini/settings.json`` (all JSON under
``mcpServers``), Codex CLI in ``~/.codex/config.toml`` (TOML, a
``[mcp_servers.<name>]`` table). :func:`install_mcp_server` adds or updates
memdir's one entry and changes nothing else:

- JSON files are parsed and re-rendered with their own indentation and key
  order; TOML files are edited as text (only memdir's table is replaced or
  appended), so the user's comments and layout stay as they were, and the
  result is parsed again to prove every other setting is unchanged;
- an entry that already says the same thing is left alone (installing twice
  writes nothing); a file that does not parse, or holds memdir's entry in a
  form memdir cannot edit safely, is refused, never overwritten;
- the new text is written atomically (temp file, fsync, rename) keeping the
  file's mode, after checking the file did not change since it was read;
  ``~/.claude.json``, which Claude Code rewrites while it runs, is edited
  under Claude Code's own lock (the ``<file>.lock`` folder it makes);
  ``dry_run`` only computes the unified diff.

Every entry starts this installation by absolute path with the settings that
chose the folder (:mod:`memdir.hosts.launch`). Project files are
shared: they name the server ``memdir``, start it in the project, and wrap it
so a teammate without this installation gets ``memdir`` from PATH or one
line saying what is missing. Per-user files (Claude Desktop, Codex) hold one
entry per project, ``memdir-<folder>``, with ``--project`` set to the
project's root; Claude Code's local and user entries are ``memdir`` and start
in the session's project.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import json
import os
import re
import stat
import sys
import time
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from memdir.errors import ConfigError
from memdir.hosts.claude_code import json_indent, parse_json_object
from memdir.hosts.launch import Launch, launch_for
from memdir.storage.fs import atomic_write, ensure_dir

__all__ = [
    "CLAUDE_CODE_SCOPES",
    "HOSTS",
    "HostTarget",
    "InstallResult",
    "claude_desktop_config_path",
    "claude_json_path",
    "host_target",
    "install_mcp_server",
    "read_server",
    "render_toml_table",
]

HOSTS = ("claude-desktop", "claude-code", "cursor", "codex", "gemini")
CLAUDE_CODE_SCOPES = ("local", "project", "user")
_PROJECT_FILES = {
    "claude-code": Path(".mcp.json"),
    "cursor": Path(".cursor") / "mcp.json",
    "gemini": Path(".gemini") / "settings.json",
}
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_HEADER = re.compile(r"^[ \t]*\[\[?(?P<key>[^\[\]]+)\]\]?[ \t]*(#.*)?$")
# proper-lockfile, which Claude Code uses for ~/.claude.json, calls a lock stale after 10 s.
_LOCK_STALE = 10.0
_LOCK_WAIT = 5.0

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


@dataclass(frozen=True, kw_only=True)
class InstallResult:
    """What an install did (or, with ``dry_run``, would do)."""

    host: str
    path: Path
    name: str
    changed: bool
    diff: str
    dry_run: bool


def claude_desktop_config_path(
    env: Mapping[str, str] | None = None, platform: str | None = None
) -> Path:
    """Claude Desktop's config file on this platform (macOS, Windows, else the XDG folder)."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    home = Path(env.get("HOME") or Path.home())
    if platform == "darwin":
        folder = home / "Library" / "Application Support"
    elif platform.startswith("win"):
        folder = Path(env.get("APPDATA") or home / "AppData" / "Roaming")
    else:
        folder = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    return folder / "Claude" / "claude_desktop_config.json"


def _codex_config_path(env: Mapping[str, str]) -> Path:
    codex_home = env.get("CODEX_HOME")
    if codex_home:
        return Path(codex_home) / "config.toml"
    return Path(env.get("HOME") or Path.home()) / ".codex" / "config.toml"


def claude_json_path(env: Mapping[str, str] | None = None) -> Path:
    """Claude Code's per-user file: ``$CLAUDE_CONFIG_DIR/.claude.json`` or ``~/.claude.json``."""
    env = os.environ if env is None else env
    configured = env.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured) / ".claude.json"
    return Path(env.get("HOME") or Path.home()) / ".claude.json"


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
) -> HostTarget:
    """The file ``host`` reads (``path`` overrides it) and memdir's entry for ``project_root``.

    ``launch`` says how to start memdir (default: this installation, carrying
    ``env``'s settings); ``scope`` is Claude Code's (default ``local``; other
    hosts take none); ``checkout`` is the folder a shared project file goes in
    (default ``project_root``).
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
    launch = launch or launch_for(env)
    shared = host in _PROJECT_FILES and scope in (None, "project")
    per_user = host not in _PROJECT_FILES
    args = ["serve"]
    if per_user:
        args += ["--project", str(project_root)]
    elif host == "cursor":
        args += ["--project", "${workspaceFolder}"]  # Cursor may start servers elsewhere
    if name is None:
        folder = re.sub(r"[^A-Za-z0-9_-]+", "-", project_root.name).strip("-")[:50]
        name = f"memdir-{folder or 'project'}" if per_user else "memdir"
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
            path = claude_desktop_config_path(env)
        elif host == "codex":
            path = _codex_config_path(env)
        elif scope in ("local", "user"):
            path = claude_json_path(env)
        else:
            path = (checkout or project_root) / _PROJECT_FILES[host]
    return HostTarget(
        host=host,
        path=path,
        name=name,
        entry=launch.server_entry(args, shared=shared),
        format="toml" if host == "codex" else "json",
        table=table,
        scope=scope,
        locked=scope in ("local", "user"),
    )


def install_mcp_server(target: HostTarget, *, dry_run: bool = False) -> InstallResult:
    """Add or update memdir's entry in ``target.path`` (see the module docstring)."""
    lock = _host_lock(target.path) if target.locked and not dry_run else contextlib.nullcontext()
    with lock:
        before = _read(target.path)
        merge = _merge_json if target.format == "json" else _merge_toml
        after = merge(before, target)
        changed = after != before
        if changed and not dry_run:
            if _read(target.path) != before:
                raise ConfigError(
                    f"{target.path} changed while memdir was editing it",
                    path=target.path,
                    hint="run the install again",
                )
            ensure_dir(target.path.parent, mode=0o755 if _is_project_file(target) else 0o700)
            atomic_write(target.path, after, mode=_mode_of(target.path, target))
    diff = "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=str(target.path) if before else "/dev/null",
            tofile=str(target.path),
        )
    )
    return InstallResult(
        host=target.host,
        path=target.path,
        name=target.name,
        changed=changed,
        diff=diff,
        dry_run=dry_run,
    )


@contextlib.contextmanager
def _host_lock(path: Path) -> Iterator[None]:
    """Hold the lock Claude Code takes on ``path``: a ``<file>.lock`` folder (proper-lockfile).

    A lock older than proper-lockfile's stale limit is one a killed process
    left, and is taken over, as Claude Code itself would.
    """
    target = Path(os.path.realpath(path))
    lock = target.with_name(target.name + ".lock")
    deadline = time.monotonic() + _LOCK_WAIT
    ensure_dir(target.parent, mode=0o700)
    while True:
        try:
            os.mkdir(lock)
            break
        except FileExistsError:
            with contextlib.suppress(OSError):
                if time.time() - os.stat(lock).st_mtime > _LOCK_STALE:
                    os.rmdir(lock)
                    continue
            if time.monotonic() > deadline:
                raise ConfigError(
                    f"{path} is locked ({lock} exists): Claude Code is writing it",
                    path=path,
                    hint="run the install again; if no Claude Code is running, remove the folder",
                ) from None
            time.sleep(0.05)  # Claude Code holds it for milliseconds
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(lock)


def read_server(
    path: Path, name: str, table: tuple[str, ...] = ("mcpServers",)
) -> dict[str, Any] | None:
    """The MCP server entry ``name`` in the host file ``path`` (JSON or TOML), if any.

    ``table`` is where a JSON file keeps its servers (see :class:`HostTarget`).
    """
    text = _read(path)
    if path.suffix == ".toml":
        servers = _toml_data(text, path).get("mcp_servers", {})
    else:
        servers = _dig(_json_data(text, path), table)
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


def _json_data(text: str, path: Path) -> dict[str, Any]:
    return parse_json_object(text, path, path.name)


def _merge_json(text: str, target: HostTarget) -> str:
    data = _json_data(text, target.path)
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
    if node.get(target.name) == target.entry:
        return text
    merged = copy.deepcopy(data)
    node = merged
    for key in target.table:
        node = node.setdefault(key, {})
    node[target.name] = target.entry
    # Claude Code writes ~/.claude.json without a final newline: keep each file's habit.
    end = "" if text and not text.endswith("\n") else "\n"
    return json.dumps(merged, indent=json_indent(text), ensure_ascii=False) + end


# -- TOML -----------------------------------------------------------------------------


def _toml_data(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path.name} is not valid TOML ({exc})",
            path=path,
            hint="fix the file by hand; memdir never overwrites settings it cannot read",
        ) from None


def _toml_string(value: str) -> str:
    out = []
    for char in value:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise ConfigError(f"cannot write {type(value).__name__} values to TOML")


def render_toml_table(table: str, values: Mapping[str, Any]) -> str:
    """``[table]`` with ``values``; nested mappings become ``[table.key]`` sub-tables."""
    lines = [f"[{table}]"]
    subtables = []
    for key, value in values.items():
        if isinstance(value, Mapping):
            subtables.append(render_toml_table(f"{table}.{key}", value))
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n" + "".join("\n" + sub for sub in subtables)


def _header_key(line: str) -> str | None:
    match = _HEADER.match(line)
    if match is None:
        return None
    return ".".join(part.strip().strip("\"'") for part in match.group("key").split("."))


def _merge_toml(text: str, target: HostTarget) -> str:
    data = _toml_data(text, target.path)
    servers = _server_table(data, "mcp_servers", "a table", target)
    if servers.get(target.name) == target.entry:
        return text
    ours = f"mcp_servers.{target.name}"
    block = render_toml_table(ours, target.entry)
    kept: list[str] = []
    at: int | None = None
    inside = False
    for line in text.splitlines(keepends=True):
        key = _header_key(line)
        if key is not None:
            inside = key == ours or key.startswith(ours + ".")
            if inside and at is None:
                at = len(kept)
        if not inside:
            kept.append(line)
    if at is None:
        if target.name in servers:
            raise ConfigError(
                f"{target.path.name} defines mcp_servers.{target.name} in a form memdir "
                "does not edit (inline or dotted keys)",
                path=target.path,
                hint=f"replace it with a [mcp_servers.{target.name}] table, or remove it",
            )
        head = "".join(kept).rstrip("\n")
        new = (head + "\n\n" if head else "") + block
    else:
        new = "".join(kept[:at]) + block + ("\n" if at < len(kept) else "") + "".join(kept[at:])
    _check_toml(text, new, target)
    return new


def _check_toml(old: str, new: str, target: HostTarget) -> None:
    """Refuse an edit that changed anything but memdir's table (a header inside a string...)."""
    before, after = _toml_data(old, target.path), _toml_data(new, target.path)
    ours = after.get("mcp_servers", {}).pop(target.name, None)
    before.get("mcp_servers", {}).pop(target.name, None)
    if ours != target.entry or _without_empty_servers(after) != _without_empty_servers(before):
        raise ConfigError(
            f"memdir cannot edit {target.path.name} without touching other settings",
            path=target.path,
            hint=f"add a [mcp_servers.{target.name}] table by hand: " + json.dumps(target.entry),
        )


def _without_empty_servers(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if not (k == "mcp_servers" and v == {})}


# -- files ----------------------------------------------------------------------------


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise ConfigError(f"cannot read {path.name}: {reason}", path=path) from None


def _is_project_file(target: HostTarget) -> bool:
    return target.host in _PROJECT_FILES and not target.locked


def _mode_of(path: Path, target: HostTarget) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        # Project files are committed and read like their neighbours; a per-user
        # config may hold tokens for other servers: owner only.
        return 0o644 if _is_project_file(target) else 0o600
