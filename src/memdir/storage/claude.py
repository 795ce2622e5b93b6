"""Where Claude Code keeps a project's auto-memory, by Claude Code's own rules.

With the ``claude`` profile memdir must name the very folder Claude Code
reads and writes, or the two silently diverge. The rules, in priority order:

1. ``CLAUDE_COWORK_MEMORY_PATH_OVERRIDE`` (an absolute path, used as given);
2. the ``autoMemoryDirectory`` setting, from managed (policy) settings, then
   the project's ``.claude/settings.local.json``, then the user's
   ``settings.json`` under the config folder. The shared project file
   ``.claude/settings.json`` is ignored, so a repository cannot redirect
   anyone's memory. ``~/`` is expanded; the result must be absolute;
3. ``<base>/projects/<name>/memory/`` where ``<base>`` is
   ``CLAUDE_CODE_REMOTE_MEMORY_DIR`` if set, else the config folder
   (``CLAUDE_CONFIG_DIR`` as given, even empty, else ``~/.claude``), and
   ``<name>`` is the slug of the git root, or ``CLAUDE_CODE_PROJECT_DIR_NAME``
   when ``CLAUDE_CONFIG_DIR`` is non-empty, the base is the config folder and
   the name is ``[A-Za-z0-9_-]{1,64}`` and no reserved Windows device name.

Every resulting path is NFC-normalised, as Claude Code normalises it.
"""

from __future__ import annotations

import os
from pathlib import Path

from memdir.utils.inputs import note
from memdir.utils.json_text import loads
from memdir.utils.records import record

TYPE_CHECKING = False  # not typing's: the session-start hook asks auto_memory_enabled
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "MANAGED_SETTINGS",
    "ClaudeLocation",
    "auto_memory_enabled",
    "claude_config_dir",
    "claude_location",
    "slugify",
]

MAX_SLUG = 200


def _utf16_units(text: str) -> list[int]:
    """``text`` as JavaScript sees it: UTF-16 code units (lone surrogates kept)."""
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i] | (data[i + 1] << 8) for i in range(0, len(data), 2)]


def _hash_base36(units: list[int]) -> str:
    """Claude Code's path hash: ``h = int32(h * 31 + unit)``, absolute value, base 36."""
    value = 0
    for unit in units:
        value = ((value << 5) - value + unit) & 0xFFFFFFFF
    if value >= 0x80000000:
        value -= 0x100000000
    value = abs(value)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        value, rem = divmod(value, 36)
        out = digits[rem] + out
        if value == 0:
            return out


def _is_ascii_alnum(unit: int) -> bool:
    return 48 <= unit <= 57 or 65 <= unit <= 90 or 97 <= unit <= 122


def slugify(path: str | Path) -> str:
    """The project folder name for ``path`` (Claude Code's rule, on UTF-16 code units).

    Every code unit outside ``[A-Za-z0-9]`` becomes ``-`` (so a character outside
    the BMP, a surrogate pair, becomes ``--``); a name longer than 200 units keeps
    its first 200 and gets ``-`` plus the hash of the whole, unsanitised path.
    A path with bytes that are not UTF-8 arrives with surrogate escapes, which are
    code units like any other here.
    """
    units = _utf16_units(str(path))
    slug = "".join(chr(u) if _is_ascii_alnum(u) else "-" for u in units)
    if len(units) <= MAX_SLUG:
        return slug
    return f"{slug[:MAX_SLUG]}-{_hash_base36(units)}"


MANAGED_SETTINGS = "/etc/claude-code/managed-settings.json"
_DIR_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_DEVICE_NAMES = frozenset({"con", "prn", "aux", "nul"})
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_MAX_SETTINGS_BYTES = 1 << 20


@record
class ClaudeLocation:
    """The project folder name under ``<config>/projects`` and, when the memory
    lives anywhere but ``<config>/projects/<folder>/memory``, that folder."""

    folder: str
    memory_dir: Path | None


def _nfc(path: str) -> str:
    if path.isascii():  # ASCII is its own NFC: no unicodedata tables to load
        return path
    import unicodedata

    return unicodedata.normalize("NFC", path)


def _config_dir(env: Mapping[str, str]) -> str:
    given = env.get("CLAUDE_CONFIG_DIR")
    return _nfc(given if given is not None else os.path.join(os.path.expanduser("~"), ".claude"))


def claude_config_dir(env: Mapping[str, str]) -> Path:
    """Claude Code's config folder: ``CLAUDE_CONFIG_DIR`` exactly as given, else ``~/.claude``."""
    return Path(_config_dir(env))


def _project_dir_name(env: Mapping[str, str]) -> str | None:
    name = env.get("CLAUDE_CODE_PROJECT_DIR_NAME") or ""
    if not env.get("CLAUDE_CONFIG_DIR"):
        return None
    if not 1 <= len(name) <= 64 or not _DIR_CHARS.issuperset(name) or _device_name(name):
        return None
    return name


def _device_name(name: str) -> bool:
    """A reserved Windows device name (con, com1, lpt9...), in any case."""
    lower = name.lower()
    if lower in _DEVICE_NAMES:
        return True
    return len(lower) == 4 and lower[:3] in ("com", "lpt") and lower[3] in "0123456789"


def _memory_path(value: Any, *, expand_home: bool) -> Path | None:
    """A configured memory folder, or None when Claude Code would ignore it."""
    if not isinstance(value, str) or not value:
        return None
    text = value
    if expand_home and (text.startswith("~/") or text.startswith("~\\")):
        rest = os.path.normpath(text[2:] or ".")
        if rest in (".", "..") or rest.startswith("../") or rest.startswith("..\\"):
            return None
        text = os.path.join(str(Path.home()), text[2:])
    cleaned = os.path.normpath(text).rstrip("/\\")
    if (
        not os.path.isabs(cleaned)
        or len(cleaned) < 3
        or (len(cleaned) == 2 and cleaned[0] in _LETTERS and cleaned[1] == ":")
        or "\x00" in cleaned
    ):
        return None
    return Path(_nfc(cleaned))


def _setting(path: str | os.PathLike[str], key: str) -> Any:
    note(path)
    try:
        with open(path, "rb") as handle:
            data = loads(handle.read(_MAX_SETTINGS_BYTES + 1)[:_MAX_SETTINGS_BYTES])
    except (OSError, ValueError):
        return None
    return data.get(key) if isinstance(data, dict) else None


def _auto_memory_directory(config: Path, start: Path) -> Path | None:
    for source in (MANAGED_SETTINGS, start / ".claude" / "settings.local.json",
                   config / "settings.json"):  # fmt: skip
        value = _setting(source, "autoMemoryDirectory")
        if value is not None:
            return _memory_path(value, expand_home=True)
    return None


def claude_location(
    root: Path, *, home: Path, env: Mapping[str, str], start: Path | None = None
) -> ClaudeLocation:
    """Where Claude Code keeps the memory of the project whose git root is ``root``.

    ``home`` is the config folder memdir uses for its own state (normally
    :func:`claude_config_dir`); ``start`` is where settings.local.json is looked
    up (the root by default).
    """
    config = claude_config_dir(env)
    remote = env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR") or ""
    own_base = not remote or Path(remote) == config
    folder = (_project_dir_name(env) if own_base else None) or slugify(root)
    override = _memory_path(env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"), expand_home=False)
    if override is None:
        override = _auto_memory_directory(config, start or root)
    if override is not None:
        return ClaudeLocation(folder=folder, memory_dir=override)
    if not own_base:
        return ClaudeLocation(
            folder=folder, memory_dir=Path(_nfc(os.path.join(remote, "projects", folder, "memory")))
        )
    memory = Path(_nfc(os.path.join(str(home), "projects", folder, "memory")))
    return ClaudeLocation(folder=folder, memory_dir=memory)


_ENV_TRUE = {"1", "true", "yes", "on"}
_ENV_FALSE = {"0", "false", "no", "off"}


def auto_memory_enabled(root: Path, *, env: Mapping[str, str], start: Path | None = None) -> bool:
    """Whether Claude Code's own auto memory is on for the project at ``root``.

    Claude Code's rule: ``CLAUDE_CODE_DISABLE_AUTO_MEMORY`` set true turns it off
    and set false forces it on; else the ``autoMemoryEnabled`` setting, from managed
    settings, then the project's ``.claude/settings.local.json``, its shared
    ``.claude/settings.json``, and the user's ``settings.json``; else on.
    """
    flag = (env.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY") or "").strip().lower()
    if flag in _ENV_TRUE:
        return False
    if flag in _ENV_FALSE:
        return True
    # Plain strings, not pathlib: the session-start hook asks this on every start.
    base = os.fspath(start or root)
    for source in (
        MANAGED_SETTINGS,
        os.path.join(base, ".claude", "settings.local.json"),
        os.path.join(base, ".claude", "settings.json"),
        os.path.join(_config_dir(env), "settings.json"),
    ):
        value = _setting(source, "autoMemoryEnabled")
        if isinstance(value, bool):
            return value
    return True
