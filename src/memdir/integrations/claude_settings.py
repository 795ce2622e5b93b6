"""Install memdir's hooks into a project's ``.claude/settings.json``.

The file belongs to the user and their team: memdir adds its five hook
entries (SessionStart, UserPromptSubmit, PreToolUse for every tool, Stop,
PreCompact) and changes nothing else. Every
existing key, hook and matcher group stays as it was and in its order; an
entry whose command is already memdir's is left alone, so installing twice
changes nothing. A file that is not a JSON object is refused, never
overwritten. The new text is written atomically, keeping the file's mode
and its indentation; ``dry_run`` only computes the unified diff.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memdir.errors import ConfigError
from memdir.storage.fs import atomic_write, ensure_dir

__all__ = [
    "HOOK_TIMEOUT",
    "SETTINGS_PATH",
    "InstallResult",
    "hook_commands",
    "install_claude_hooks",
    "json_indent",
    "merge_hooks",
    "parse_json_object",
]

SETTINGS_PATH = Path(".claude") / "settings.json"
HOOK_TIMEOUT = 30  # seconds; the hooks return within a second, this is a backstop
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
_INDENT = re.compile(r"^\{\s*\n([ \t]+)\S", re.MULTILINE)


@dataclass(frozen=True, kw_only=True)
class InstallResult:
    """What an install did (or, with ``dry_run``, would do)."""

    path: Path
    changed: bool
    added: tuple[str, ...]
    diff: str
    dry_run: bool


def hook_commands(executable: str = "memdir") -> dict[str, str]:
    """The command Claude Code runs for each hook event."""
    return {event: f"{executable} hook {name}" for event, name in _EVENTS}


def merge_hooks(
    settings: dict[str, Any], commands: dict[str, str]
) -> tuple[dict[str, Any], list[str]]:
    """``settings`` with a hook entry per event in ``commands``; returns it and the events added.

    The input is not modified. An event that already runs the same command is
    skipped; otherwise a new matcher group is appended after the existing ones.
    """
    merged = copy.deepcopy(settings)
    hooks = merged.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(
            "the 'hooks' setting is not a JSON object",
            hint="fix .claude/settings.json by hand, then install again",
        )
    added = []
    for event, command in commands.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ConfigError(
                f"hooks.{event} is not a list", hint="fix .claude/settings.json by hand"
            )
        if any(_runs(group, command) for group in groups):
            continue
        entry = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
        group: dict[str, Any] = {"matcher": "*"} if event in _TOOL_EVENTS else {}
        groups.append({**group, "hooks": [entry]})
        added.append(event)
    return merged, added


def _runs(group: Any, command: str) -> bool:
    entries = group.get("hooks", []) if isinstance(group, dict) else []
    return any(isinstance(e, dict) and e.get("command") == command for e in entries)


def install_claude_hooks(
    project_root: Path, *, executable: str = "memdir", dry_run: bool = False
) -> InstallResult:
    """Merge memdir's hooks into ``<project_root>/.claude/settings.json``."""
    path = project_root / SETTINGS_PATH
    before = _read(path)
    settings = parse_json_object(before, path, str(SETTINGS_PATH))
    merged, added = merge_hooks(settings, hook_commands(executable))
    after = before if not added else _render(merged, json_indent(before))
    diff = "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{SETTINGS_PATH.as_posix()}",
            tofile=f"b/{SETTINGS_PATH.as_posix()}",
        )
    )
    if added and not dry_run:
        ensure_dir(path.parent, mode=0o755)
        atomic_write(path, after, mode=_mode_of(path))
    return InstallResult(
        path=path, changed=bool(added), added=tuple(added), diff=diff, dry_run=dry_run
    )


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise ConfigError(f"cannot read {SETTINGS_PATH}: {exc.strerror}", path=path) from None


def parse_json_object(text: str, path: Path, label: str) -> dict[str, Any]:
    """A settings file's JSON object (``{}`` when empty); anything else is a
    :class:`ConfigError` naming ``label``, since memdir never rewrites what it cannot read."""
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{label} is not valid JSON (line {exc.lineno}: {exc.msg})",
            path=path,
            hint="fix the file by hand; memdir never overwrites settings it cannot read",
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{label} is not a JSON object", path=path, hint="fix the file by hand")
    return data


def json_indent(text: str) -> str:
    """The indentation a JSON file already uses (two spaces for a new one)."""
    match = _INDENT.search(text)
    return match.group(1) if match else "  "


def _render(settings: dict[str, Any], indent: str) -> str:
    return json.dumps(settings, indent=indent, ensure_ascii=False) + "\n"


def _mode_of(path: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o644  # a project file, usually committed: readable like its neighbours
