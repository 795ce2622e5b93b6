"""One editor for the files hosts read their settings from: JSON and TOML, theirs, not ours.

Every installer (Claude Code's hooks, each host's MCP entry, the agents' context
files) edits a file that belongs to the user and their team, so every edit goes
the same way:

- the file is read as UTF-8 (:func:`read_text`: a missing file is empty, an
  unreadable one a :class:`~memdir.errors.ConfigError` naming it); a file that
  does not parse is refused, never overwritten (:func:`parse_json_object`,
  :func:`parse_toml`; :func:`read_json_settings` reads and parses a JSON file in one
  step, keeping the text an edit starts from);
- JSON is re-rendered with the file's own indentation and its habit about a
  final newline (:func:`render_json`); TOML is edited as text, one
  ``[table]`` replaced or appended (:func:`replace_toml_table`), so comments and
  layout stay as they were;
- :func:`apply_edit` computes the unified diff, writes nothing for a dry run
  or an unchanged text, checks the file did not change since it was read, and
  writes atomically (temp, fsync, rename) keeping the file's mode; a new file
  gets the mode its kind calls for (a committed project file is read like its
  neighbours, a per-user file may hold tokens);
- ``~/.claude.json``, which Claude Code rewrites while it runs, is edited under
  Claude Code's own lock (:func:`claude_lock`).
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import re
import stat
import time
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from memdir.errors import ConfigError
from memdir.storage.fs import atomic_write, ensure_dir

__all__ = [
    "FIX_BY_HAND",
    "apply_edit",
    "claude_lock",
    "has_toml_table",
    "json_indent",
    "parse_json_object",
    "parse_toml",
    "read_json_settings",
    "read_text",
    "remove_toml_table",
    "render_json",
    "render_toml_table",
    "replace_toml_table",
    "toml_header_key",
]

FIX_BY_HAND = "fix the file by hand; memdir never overwrites settings it cannot read"
_INDENT = re.compile(r"^\{\s*\n([ \t]+)\S", re.MULTILINE)
_HEADER = re.compile(r"^[ \t]*\[\[?(?P<key>[^\[\]]+)\]\]?[ \t]*(#.*)?$")
# proper-lockfile, which Claude Code uses for ~/.claude.json, calls a lock stale after 10 s.
_LOCK_STALE = 10.0
_LOCK_WAIT = 5.0


def read_text(path: Path) -> str:
    """``path``'s text ("" when it does not exist); a :class:`ConfigError` when unreadable."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise ConfigError(f"cannot read {path}: {reason}", path=path) from None


# -- JSON -----------------------------------------------------------------------------


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
            hint=FIX_BY_HAND,
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{label} is not a JSON object", path=path, hint="fix the file by hand")
    return data


def read_json_settings(path: Path) -> tuple[str, dict[str, Any]]:
    """``path``'s text and its JSON object (:func:`read_text`, :func:`parse_json_object`)."""
    text = read_text(path)
    return text, parse_json_object(text, path, str(path))


def json_indent(text: str) -> str:
    """The indentation a JSON file already uses (two spaces for a new one)."""
    match = _INDENT.search(text)
    return match.group(1) if match else "  "


def render_json(data: Mapping[str, Any], before: str) -> str:
    """``data`` as the file that held ``before`` writes JSON: its indentation, and no
    final newline where it had none (Claude Code writes ``~/.claude.json`` so)."""
    end = "" if before and not before.endswith("\n") else "\n"
    return json.dumps(data, indent=json_indent(before), ensure_ascii=False) + end


# -- TOML -----------------------------------------------------------------------------


def parse_toml(text: str, path: Path) -> dict[str, Any]:
    """A TOML file's tables; a :class:`ConfigError` naming the file when it does not parse."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path.name} is not valid TOML ({exc})", path=path, hint=FIX_BY_HAND
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


def toml_header_key(line: str) -> str | None:
    """The dotted key of a ``[table]`` or ``[[array]]`` header line, else None."""
    match = _HEADER.match(line)
    if match is None:
        return None
    return ".".join(part.strip().strip("\"'") for part in match.group("key").split("."))


def has_toml_table(text: str, table: str) -> bool:
    """Whether ``text`` has a ``[table]`` header, or one of a sub-table of it."""
    for line in text.splitlines():
        key = toml_header_key(line)
        if key is not None and (key == table or key.startswith(table + ".")):
            return True
    return False


def replace_toml_table(text: str, table: str, block: str) -> str:
    """``text`` with the ``[table]`` block (and its sub-tables) replaced by ``block``.

    A text without that table's header gets ``block`` appended after a blank line.
    """
    kept: list[str] = []
    at: int | None = None
    inside = False
    for line in text.splitlines(keepends=True):
        key = toml_header_key(line)
        if key is not None:
            inside = key == table or key.startswith(table + ".")
            if inside and at is None:
                at = len(kept)
        if not inside:
            kept.append(line)
    if at is not None:
        return "".join(kept[:at]) + block + ("\n" if at < len(kept) else "") + "".join(kept[at:])
    head = "".join(kept).rstrip("\n")
    return (head + "\n\n" if head else "") + block


def remove_toml_table(text: str, table: str) -> str:
    """``text`` without the ``[table]`` block and its sub-tables; the rest as it was.

    A block runs from its header to the next header, so the blank line that set
    it apart from what follows goes with it; a file that ended inside it ends at
    the text before it, with one newline.
    """
    kept: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        key = toml_header_key(line)
        if key is not None:
            inside = key == table or key.startswith(table + ".")
        if not inside:
            kept.append(line)
    result = "".join(kept)
    if inside and result.strip():  # the file ended inside the block
        return result.rstrip("\r\n") + "\n"
    return result


# -- writing --------------------------------------------------------------------------


def apply_edit(
    path: Path, before: str, after: str, *, shared_folder: bool, shared_file: bool, dry_run: bool
) -> str:
    """Write ``after`` over ``path`` (read as ``before``) unless it is the same or a dry run.

    Returns the unified diff. A new file's folder is made 0755 when it is shared
    (a project's ``.claude/``), else 0700; a new file gets 0644 when it is a
    committed project file, else 0600; an existing file keeps its mode. A file
    that changed since ``before`` was read is refused: the caller runs again.
    """
    if after != before and not dry_run:
        if read_text(path) != before:
            raise ConfigError(
                f"{path} changed while memdir was editing it",
                path=path,
                hint="run the install again",
            )
        ensure_dir(path.parent, mode=0o755 if shared_folder else 0o700)
        atomic_write(path, after, mode=_mode_of(path, shared_file=shared_file))
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=str(path) if before else "/dev/null",
            tofile=str(path),
        )
    )


def _mode_of(path: Path, *, shared_file: bool) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        # A project file is committed and read like its neighbours; a per-user file
        # may hold tokens (an env block, another server's key): owner only.
        return 0o644 if shared_file else 0o600


@contextlib.contextmanager
def claude_lock(path: Path) -> Iterator[None]:
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
