"""What every memdir command shares: options, opening a Memdir, output, errors.

Each command is parse -> one API call -> render. Domain errors
(:class:`~memdir.errors.MemdirError`) become a one-line message on stderr
naming the file and the next step, with exit status 1; usage errors are
click's, with exit status 2. ``--json`` prints machine-readable output.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from memdir.errors import ConfigError, MemdirError
from memdir.model import MemoryRecord

if TYPE_CHECKING:  # loaded by the commands that use them, not by every start
    from memdir.api import Memdir
    from memdir.llm.base import Provider

__all__ = [
    "NO_PROVIDER_HINT",
    "MemdirGroup",
    "close_provider",
    "configured_provider",
    "emit",
    "json_option",
    "open_memdir",
    "profile_option_value",
    "project_option",
    "record_dict",
    "require_provider",
    "to_jsonable",
]

NO_PROVIDER_HINT = (
    "set MEMDIR_PROVIDER=anthropic with ANTHROPIC_API_KEY, MEMDIR_PROVIDER=openai with "
    "OPENAI_API_KEY (or OPENAI_BASE_URL for any OpenAI-compatible server), or "
    "MEMDIR_PROVIDER=local for a llama.cpp server on 127.0.0.1:8080; with llama.cpp's "
    "server installed, MEMDIR_LOCAL_MODEL=<model.gguf> runs an embedded local model"
)

F = TypeVar("F", bound=Callable[..., Any])


class MemdirGroup(click.Group):
    """A click group that turns memdir's errors into exit status 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MemdirError as exc:
            click.echo(f"memdir: error: {exc}", err=True)
            ctx.exit(1)


def project_option(func: F) -> F:
    """``--project PATH``: the project whose memory to use (default: here)."""
    return click.option(
        "--project",
        "project",
        type=click.Path(file_okay=False, path_type=Path),
        default=Path("."),
        show_default=True,
        help="Any directory of the project (its git root identifies it).",
    )(func)


def json_option(func: F) -> F:
    """``--json``: print JSON instead of text."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(func)


def profile_option_value() -> str | None:
    """The ``--profile`` given to the top-level command, if any."""
    root = click.get_current_context().find_root()
    profile: str | None = (root.obj or {}).get("profile")
    return profile


def open_memdir(project: Path) -> Memdir:
    """Open the project's memory with the profile given to the top-level command."""
    from memdir.api import Memdir

    return Memdir.open(project, profile=profile_option_value())


def configured_provider(mem: Memdir) -> Provider | None:
    """The model provider of the environment, with the settings' provider and model
    filling in what the environment leaves unset; ``None`` when none is configured."""
    from memdir.llm.factory import provider_from_env

    env = dict(mem.env)
    if mem.settings.provider and not env.get("MEMDIR_PROVIDER"):
        env["MEMDIR_PROVIDER"] = mem.settings.provider
    if mem.settings.model and not env.get("MEMDIR_MODEL"):
        env["MEMDIR_MODEL"] = mem.settings.model
    return provider_from_env(env)


def require_provider(mem: Memdir) -> Provider:
    """Like :func:`configured_provider`, but a missing provider is a :class:`ConfigError`."""
    provider = configured_provider(mem)
    if provider is None:
        raise ConfigError("no model provider is configured", hint=NO_PROVIDER_HINT)
    return provider


def close_provider(provider: Provider) -> None:
    """Close a provider's connection pool, where it has one (the Protocol does not require it)."""
    close = getattr(provider, "close", None)
    if callable(close):
        close()


def to_jsonable(value: Any) -> Any:
    """Dataclasses, enums, paths and dates as plain JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in value]
    return value


def record_dict(record: MemoryRecord, *, body: bool = True) -> dict[str, Any]:
    """A stored memory as a flat JSON object."""
    data: dict[str, Any] = {
        "scope": record.scope.value,
        "file": record.file,
        "version": record.version,
        **to_jsonable(record.memory),
    }
    if not body:
        data.pop("body")
    return data


def emit(as_json: bool, data: Any, human: Callable[[], None]) -> None:
    """Print ``data`` as JSON, or call ``human`` to print text."""
    if as_json:
        json.dump(to_jsonable(data), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        human()
