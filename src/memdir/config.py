"""Settings: one frozen value, read in one place.

Only composition roots (the :class:`~memdir.api.Memdir` facade, the CLI, the
MCP server) call :func:`load_settings`; everything else receives a
``Settings``. Sources, later winning: defaults, ``<memdir home>/config.toml``
(or ``MEMDIR_CONFIG``), environment variables, explicit overrides.

``MEMDIR_HOME`` moves all state; the Claude Code profile
(``MEMDIR_PROFILE=claude``) puts memory where Claude Code keeps it:
``CLAUDE_CONFIG_DIR`` or ``~/.claude``.
"""

from __future__ import annotations

import functools
import os
import types
from pathlib import Path

from memdir.errors import ConfigError
from memdir.utils.inputs import note
from memdir.utils.records import record

# Not typing.TYPE_CHECKING: every hook process reads the settings, and importing
# typing (or dataclasses) would cost it more than reading them.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = ["PROFILES", "Settings", "config_path", "load_settings", "memdir_home", "memory_enabled"]

PROFILES = ("memdir", "claude")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@record
class Settings:
    """Every tunable number and switch of memdir, with its default."""

    home: Path
    profile: str = "memdir"
    enabled: bool | None = None  # None: decided by the enable chain (default on)
    team: bool | None = None  # None: on when the team folder holds memories
    daily_log: bool = False
    extra_guidelines: tuple[str, ...] = ()
    # index (MEMORY.md)
    max_index_lines: int = 200
    max_index_chars: int = 25_000
    max_index_line_chars: int = 150
    # store limits
    max_memory_bytes: int = 256 * 1024
    max_files: int = 100_000
    max_view_bytes: int = 256 * 1024
    lock_timeout: float = 120.0
    # history: every version kept this many days (the newest of a memory always)
    history: bool = True
    history_retention_days: float = 30.0
    # review: auto | manual (agents' changes wait for a person) | read-only (for agents)
    review_private: str = "auto"
    review_team: str = "manual"
    # freshness: a memory citing code is re-checked within this many days (0: never stale)
    freshness_days: float = 30.0
    # expiry per type (0: never): older memories go to `memdir review`, nothing is deleted
    expire_user_days: float = 0.0
    expire_feedback_days: float = 0.0
    expire_project_days: float = 0.0
    expire_reference_days: float = 0.0
    # recall
    recall_max_memories: int = 5
    recall_max_lines: int = 200
    recall_max_bytes: int = 4096
    recall_session_budget: int = 60 * 1024
    # recall by meaning (with an embedding model): seconds one recall may spend embedding
    # memories that have no vector yet (the rest is judged by words until a later one)
    recall_embed_budget: float = 1.0
    # recall with a model (`recall --model`, the hook's --model): seconds it may take before
    # the choice by words and meaning goes out instead
    recall_model_deadline: float = 3.0
    manifest_max_entries: int = 200
    # search: hybrid ranking with a local embedding model. "auto": the bundled
    # all-MiniLM-L6-v2 when the embeddings extra is installed, else lexical; a model's
    # name or folder: that model (an error when it cannot load); None or "off": lexical
    search_embeddings: str | None = "auto"
    # what one hook may hand a coding agent (Claude Code cuts a longer context)
    hook_context_chars: int = 10_000
    # what a session start aims at, below that limit: past it, index lines show shorter
    # hooks (every memory still named) before any line is left out; 0: no aim, the limit alone
    start_context_chars: int = 6_000
    # session memory
    session_min_tokens_to_init: int = 4000
    session_min_tokens_between_updates: int = 2000
    session_tool_calls_between_updates: int = 5
    session_max_section_tokens: int = 2000
    session_max_total_tokens: int = 12_000
    # consolidation
    consolidate_min_hours: float = 24.0
    consolidate_scan_throttle_minutes: float = 10.0
    consolidate_min_sessions: int = 5
    consolidate_lock_stale_minutes: float = 60.0
    # models
    provider: str | None = None
    model: str | None = None
    # use: a memory no session recalled, read or changed (nor fired a rule of) in this many
    # days is offered for review, beside the expired ones (0: never)
    unused_review_days: float = 0.0
    # background work: tokens all background jobs together may spend in a day (0: no cap)
    daily_token_cap: int = 200_000
    # a session that read external content (web pages, other MCP servers): its extraction's
    # writes wait for review ("ask"), run as any other ("yes"), or do not run ("no")
    extract_tainted: str = "ask"
    # the model's context window, where its server does not say (None: unknown)
    model_context_tokens: int | None = None
    # provider "claude-code": the claude command to run (None: claude on PATH)
    claude_code_command: str | None = None


def memdir_home(env: Mapping[str, str]) -> Path:
    """memdir's own home: ``MEMDIR_HOME`` or ``~/.memdir``."""
    raw = env.get("MEMDIR_HOME", "").strip()
    return Path(raw).expanduser() if raw else Path.home() / ".memdir"


def config_path(env: Mapping[str, str]) -> Path:
    """memdir's settings file: ``MEMDIR_CONFIG``, else ``config.toml`` in memdir's home."""
    return Path(env.get("MEMDIR_CONFIG", "") or memdir_home(env) / "config.toml")


def _parse_bool(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(f"{name}={raw!r} is not a boolean", hint="use 1/0, true/false or on/off")


def _read_file(path: Path) -> dict[str, Any]:
    note(path)
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read settings: {exc}", path=path) from None
    # Imported only when a settings file exists: the hooks run on every tool call.
    import tomllib

    try:
        with handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read settings: {exc}", path=path) from None


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if env.get("MEMDIR_PROFILE"):
        values["profile"] = env["MEMDIR_PROFILE"].strip()
    for var, key in (("MEMDIR_TEAM", "team"), ("MEMDIR_DAILY_LOG", "daily_log")):
        if env.get(var, "").strip():
            values[key] = _parse_bool(var, env[var])
    if env.get("MEMDIR_EXTRA_GUIDELINES", "").strip():
        values["extra_guidelines"] = (env["MEMDIR_EXTRA_GUIDELINES"].strip(),)
    if env.get("MEMDIR_MODEL", "").strip():
        values["model"] = env["MEMDIR_MODEL"].strip()
    if env.get("MEMDIR_PROVIDER", "").strip():
        values["provider"] = env["MEMDIR_PROVIDER"].strip()
    if env.get("MEMDIR_EMBEDDINGS", "").strip():
        raw = env["MEMDIR_EMBEDDINGS"].strip()
        values["search_embeddings"] = None if raw.lower() in _FALSE else raw
    if env.get("MEMDIR_REVIEW", "").strip():
        mode = env["MEMDIR_REVIEW"].strip().lower()
        if mode not in ("auto", "manual", "read-only"):
            raise ConfigError(
                f"MEMDIR_REVIEW={env['MEMDIR_REVIEW']!r} is not a review mode",
                hint="use auto, manual or read-only",
            )
        values["review_private"] = values["review_team"] = mode
    return values


@functools.cache
def _setting_types() -> dict[str, Any]:
    # Evaluating the annotations costs milliseconds: once per process is enough, and
    # only a process with a settings file or overrides to check pays it.
    from typing import get_type_hints

    return get_type_hints(Settings)


def _accepts(kind: Any, value: Any) -> bool:
    """Whether a settings value fits its field's type (bool is not a number here)."""
    from typing import get_args, get_origin

    if isinstance(kind, types.UnionType):
        return any(_accepts(k, value) for k in get_args(kind))
    if kind is type(None):
        return value is None
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, get_origin(kind) or kind)


def _coerce(values: dict[str, Any], source: str) -> dict[str, Any]:
    if not values:
        return {}  # no settings file, no overrides: the usual case for every hook
    hints = _setting_types()
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key not in hints:
            raise ConfigError(f"unknown setting {key!r}", path=source, hint="check its spelling")
        if key == "home":
            value = Path(str(value)).expanduser()
        elif key == "extra_guidelines":
            value = (value,) if isinstance(value, str) else tuple(str(v) for v in value)
        elif not _accepts(hints[key], value):
            raise ConfigError(
                f"setting {key!r} has the wrong type: {value!r}",
                path=source,
                hint=f"it takes {hints[key]}".replace("<class '", "").replace("'>", ""),
            )
        out[key] = value
    return out


def load_settings(env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
    """Settings from defaults, the settings file, the environment and ``overrides``."""
    env = os.environ if env is None else env
    base_home = memdir_home(env)
    settings_file = config_path(env)
    values = _coerce(_read_file(settings_file), str(settings_file))
    values.update(_from_env(env))
    values.update(_coerce({k: v for k, v in overrides.items() if v is not None}, "arguments"))
    profile = values.get("profile", "memdir")
    if profile not in PROFILES:
        raise ConfigError(f"unknown profile {profile!r}", hint=f"use one of {', '.join(PROFILES)}")
    if "home" not in values:
        if profile == "claude":
            # As Claude Code reads it: used as given (no ``~``, an empty value is
            # a value), NFC-normalised.
            claude = env.get("CLAUDE_CONFIG_DIR")
            import unicodedata

            values["home"] = (
                Path(unicodedata.normalize("NFC", claude))
                if claude is not None
                else Path.home() / ".claude"
            )
        else:
            values["home"] = base_home
    return Settings(**values)


def memory_enabled(env: Mapping[str, str], setting: bool | None) -> bool:
    """The enable chain: MEMDIR_DISABLE, then the setting, then on.

    ``MEMDIR_DISABLE`` set to 1/true/yes/on turns memory off; set explicitly to
    0/false/no/off it forces memory on whatever the setting says. Any other
    non-empty value is a :class:`ConfigError`.
    """
    raw = env.get("MEMDIR_DISABLE", "")
    value = raw.strip().lower()
    if value in _TRUE:
        return False
    if value in _FALSE:
        return True
    if value:
        raise ConfigError(
            f"MEMDIR_DISABLE={raw!r} is not a boolean",
            hint="use 1/true/yes/on to disable memory, 0/false/no/off to force it on",
        )
    return True if setting is None else setting
