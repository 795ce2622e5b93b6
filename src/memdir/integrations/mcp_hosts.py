"""Register memdir's MCP server with the hosts people use.

Each host keeps its MCP servers in a file of its own: Claude Desktop in
``claude_desktop_config.json`` (a per-user folder that depends on the
platform), Claude Code in the project's ``.mcp.json``, Cursor in
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
  ``dry_run`` only computes the unified diff.

Project files name the server ``memdir`` and start it in the project (they
are usually committed, so they hold no absolute path); per-user files
(Claude Desktop, Codex) hold one entry per project, ``memdir-<folder>``, with
``--project`` set to the project's root.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
import stat
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from memdir.errors import ConfigError
from memdir.integrations.claude_settings import json_indent, parse_json_object
from memdir.storage.fs import atomic_write, ensure_dir

__all__ = [
    "HOSTS",
    "HostTarget",
    "InstallResult",
    "claude_desktop_config_path",
    "host_target",
    "install_mcp_server",
    "read_server",
    "render_toml_table",
]

HOSTS = ("claude-desktop", "claude-code", "cursor", "codex", "gemini")
_PROJECT_FILES = {
    "claude-code": Path(".mcp.json"),
    "cursor": Path(".cursor") / "mcp.json",
    "gemini": Path(".gemini") / "settings.json",
}
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_HEADER = re.compile(r"^[ \t]*\[\[?(?P<key>[^\[\]]+)\]\]?[ \t]*(#.*)?$")

Format = Literal["json", "toml"]


@dataclass(frozen=True, kw_only=True)
class HostTarget:
    """Where one host keeps its MCP servers, and the entry memdir wants there."""

    host: str
    path: Path
    name: str
    entry: dict[str, Any]
    format: Format


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


def host_target(
    host: str,
    project_root: Path,
    *,
    executable: str = "memdir",
    profile: str | None = None,
    name: str | None = None,
    path: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> HostTarget:
    """The file ``host`` reads (``path`` overrides it) and memdir's entry for ``project_root``."""
    env = os.environ if env is None else env
    if host not in HOSTS:
        raise ConfigError(f"unknown MCP host {host!r}", hint=f"one of {', '.join(HOSTS)}")
    per_user = host not in _PROJECT_FILES
    args = ["--profile", profile] if profile else []
    args.append("serve")
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
    if path is None:
        if host == "claude-desktop":
            path = claude_desktop_config_path(env)
        elif host == "codex":
            path = _codex_config_path(env)
        else:
            path = project_root / _PROJECT_FILES[host]
    entry: dict[str, Any] = {"command": executable, "args": args}
    return HostTarget(
        host=host,
        path=path,
        name=name,
        entry=entry,
        format="toml" if host == "codex" else "json",
    )


def install_mcp_server(target: HostTarget, *, dry_run: bool = False) -> InstallResult:
    """Add or update memdir's entry in ``target.path`` (see the module docstring)."""
    before = _read(target.path)
    merge = _merge_json if target.format == "json" else _merge_toml
    after = merge(before, target)
    changed = after != before
    if changed and not dry_run:
        if _read(target.path) != before:
            raise ConfigError(
                f"{target.path.name} changed while memdir was editing it",
                path=target.path,
                hint="run the install again",
            )
        ensure_dir(target.path.parent, mode=0o755 if target.host in _PROJECT_FILES else 0o700)
        atomic_write(target.path, after, mode=_mode_of(target.path, target.host))
    diff = "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{target.path.name}",
            tofile=f"b/{target.path.name}",
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


def read_server(path: Path, name: str) -> dict[str, Any] | None:
    """The MCP server entry ``name`` in the host file ``path`` (JSON or TOML), if any."""
    text = _read(path)
    if path.suffix == ".toml":
        servers = _toml_data(text, path).get("mcp_servers", {})
    else:
        servers = _json_data(text, path).get("mcpServers", {})
    entry = servers.get(name) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None


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
    servers = _server_table(data, "mcpServers", "an object", target)
    if servers.get(target.name) == target.entry:
        return text
    merged = copy.deepcopy(data)
    merged.setdefault("mcpServers", {})[target.name] = target.entry
    return json.dumps(merged, indent=json_indent(text), ensure_ascii=False) + "\n"


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


def _mode_of(path: Path, host: str) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        # Project files are committed and read like their neighbours; a per-user
        # config may hold tokens for other servers: owner only.
        return 0o644 if host in _PROJECT_FILES else 0o600
