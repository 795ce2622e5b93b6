"""What every memdir command shares: options, opening a Memdir, output, errors.

Each command is parse -> one API call -> render. How its errors reach the
user (one line naming the file and the next step, an exit status, a log) is
:mod:`memdir.cli._reporting`; exit status 3 (:data:`EXIT_CONFLICT`) is a team
sync that left a conflict for a person to settle. ``--json`` prints
machine-readable output.
``--project`` is taken before the command too (``memdir --project DIR list``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import enum
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from memdir.errors import ConfigError, LimitExceeded, MemdirError, MemoryNotFound, ParseError
from memdir.kinds import Scope
from memdir.utils.installs import install_hint, package_hint

if TYPE_CHECKING:  # loaded by the commands that use them (or by an error), not by every start
    from memdir.api import Memdir
    from memdir.llm.base import Provider
    from memdir.model import MemoryRecord

__all__ = [
    "EXIT_CONFLICT",
    "NO_PROVIDER_HINT",
    "PROJECT_PATH",
    "VERSION_ID",
    "Unreadable",
    "VersionId",
    "close_provider",
    "configured_provider",
    "emit",
    "install_hint",
    "json_option",
    "named_memory_options",
    "open_memdir",
    "package_hint",
    "profile_option_value",
    "project_option",
    "reaching",
    "read_stdin_text",
    "record_dict",
    "require_provider",
    "scope_option",
    "scope_project_json_options",
    "server_options",
    "to_jsonable",
    "unreadable_memory",
]

NO_PROVIDER_HINT = (
    "set MEMDIR_PROVIDER=anthropic with ANTHROPIC_API_KEY, MEMDIR_PROVIDER=openai with "
    "OPENAI_API_KEY (or OPENAI_BASE_URL for any OpenAI-compatible server), or "
    "MEMDIR_PROVIDER=local for a llama.cpp server on 127.0.0.1:8080; with llama.cpp's "
    "server installed, MEMDIR_LOCAL_MODEL=<model.gguf> runs an embedded local model"
)

F = TypeVar("F", bound=Callable[..., Any])


EXIT_CONFLICT = 3  # a team sync that left a conflict copy to settle


def read_stdin_text(waiting_for: str | None = None, *, limit: int | None = None) -> str:
    """Standard input as UTF-8 text; other bytes are a clear error naming the byte.

    From a terminal, ``waiting_for`` (what to type) is said first on stderr, with how to
    finish, so the command does not wait on a blank screen. With ``limit`` (bytes), at
    most one byte more is read: a longer input is refused before it is read whole (a
    50 MB pipe costs no more than the limit).
    """
    if waiting_for is not None and sys.stdin is not None and sys.stdin.isatty():
        click.echo(
            f"memdir: reading {waiting_for} from the terminal; end it with Ctrl-D on a new "
            "line (Ctrl-C cancels)",
            err=True,
        )
    want = -1 if limit is None else limit + 1
    data = sys.stdin.buffer.read(want) if hasattr(sys.stdin, "buffer") else sys.stdin.read(want)
    if limit is not None and len(data) > limit:
        raise LimitExceeded(
            f"standard input is over the {limit:,}-byte limit of one memory",
            hint="keep one memory short and specific, or split it into several",
        )
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MemdirError(
            f"standard input is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start})",
            hint="send UTF-8 text; convert it first, e.g. iconv -f latin1 -t utf-8",
        ) from None


# It must exist: a mistyped path would otherwise key a new, empty store.
PROJECT_PATH = click.Path(exists=True, file_okay=False, path_type=Path)


def project_option(func: F) -> F:
    """``--project PATH``: the project whose memory to use (default: the one given before
    the command, ``memdir --project PATH list``, else here)."""
    return click.option(
        "--project",
        "project",
        type=PROJECT_PATH,
        default=Path("."),
        show_default=True,
        callback=_project_or_the_groups,
        help="Any existing directory of the project (its git root identifies it).",
    )(func)


def _project_or_the_groups(ctx: click.Context, param: click.Parameter, value: Path) -> Path:
    from click.core import ParameterSource

    if param.name and ctx.get_parameter_source(param.name) is ParameterSource.DEFAULT:
        given = (ctx.find_root().obj or {}).get("project")
        if isinstance(given, Path):
            return given
    return value


class VersionId(click.ParamType[int, Any]):
    """A version id as memdir prints it (``v19``), or as a bare number (``19``)."""

    name = "version"

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return "vN"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        text = str(value).strip()
        digits = text[1:] if text[:1] in ("v", "V") else text
        # At most 18 digits: any larger id is no version, and SQLite's integers stop there.
        if digits.isascii() and digits.isdigit() and len(digits) <= 18:
            return int(digits)
        self.fail(
            f"{value!r} is not a version id: give it as `memdir history NAME` prints it "
            "(v19) or as its number (19)",
            param,
            ctx,
        )


VERSION_ID = VersionId()


def json_option(func: F) -> F:
    """``--json``: print JSON instead of text."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(func)


_SCOPES = click.Choice([s.value for s in Scope])


def scope_option(default: str | None = None, help: str | None = None) -> Callable[[F], F]:
    """``--scope private|team``: the store a command works in.

    Without a default, no ``--scope`` means every store; a default (``add``
    writes to private) is shown in the help.
    """
    return click.option(
        "--scope",
        type=_SCOPES,
        default=default,
        # None, not False: a command without a default leaves the choice to click, as before.
        show_default=True if default is not None else None,
        help=help,
    )


def scope_project_json_options(help: str | None = None) -> Callable[[F], F]:
    """``--scope``, ``--project`` and ``--json``, in that order: a command on a named memory.

    ``help`` is the ``--scope`` help, if any.
    """

    def decorate(func: F) -> F:
        return scope_option(help=help)(project_option(json_option(func)))

    return decorate


def named_memory_options(func: F) -> F:
    """``NAME``, then ``--scope``, ``--project`` and ``--json``: a command on one memory."""
    return click.argument("name")(scope_project_json_options()(func))


def server_options(
    *, port: int, port_help: str, token_envvar: str, token_help: str
) -> Callable[[F], F]:
    """``--port`` and ``--token`` of a local server (the MCP server over HTTP, the ui page).

    The token is read from ``token_envvar`` when the option is not given; without
    either, the server uses the one it keeps in the memdir home.
    """

    def decorate(func: F) -> F:
        port_option = click.option(
            "--port", type=click.IntRange(1, 65535), default=port, show_default=True, help=port_help
        )
        token_option = click.option("--token", envvar=token_envvar, default=None, help=token_help)
        return port_option(token_option(func))

    return decorate


def profile_option_value() -> str | None:
    """The ``--profile`` given to the top-level command, if any."""
    root = click.get_current_context().find_root()
    profile: str | None = (root.obj or {}).get("profile")
    return profile


def open_memdir(project: Path, *, check_root: bool = True) -> Memdir:
    """Open the project's memory with the profile given to the top-level command.

    A store created outside any git repository is keyed by the folder itself, so
    the same memory is found only from that folder again: that is said once, on
    stderr, when the store is made.
    """
    from memdir.api import Memdir
    from memdir.config import load_settings
    from memdir.storage.paths import ROOT_RECORD, make_layout

    profile = profile_option_value()
    settings = load_settings(os.environ, profile=profile)
    layout = make_layout(settings.home, project, profile=settings.profile, env=os.environ)
    new = not (layout.project_dir / ROOT_RECORD).exists()
    mem = Memdir.open(project, profile=profile, check_root=check_root)
    if new and not _in_git_repository(mem.layout.project_root):
        click.echo(
            f"memdir: note: {mem.layout.project_root} is not in a git repository, so this "
            "folder keys its memory: run memdir from here (or pass --project) to find it "
            "again; after `git init` the repository's root keys a new, separate memory",
            err=True,
        )
    return mem


@dataclasses.dataclass(frozen=True, kw_only=True)
class Unreadable:
    """A memory file whose frontmatter does not parse, named by a command all the same."""

    scope: Scope
    file: str
    path: Path
    error: ParseError

    @property
    def ref(self) -> str:
        return f"{self.scope.value}:{self.file}"

    @property
    def reason(self) -> str:
        """The parse error's words, on one line, with the line it names."""
        text = self.error.message
        where = f" (line {self.error.line})" if self.error.line is not None else ""
        return " ".join(text.split()) + where

    def refusal(self) -> ParseError:
        """The error a command that needs the memory's fields raises about this file."""
        return ParseError(
            f"{self.ref} cannot be read as a memory: {self.reason}",
            path=self.path,
            line=self.error.line,
            hint=f"fix its frontmatter with `memdir edit {self.file}` (`memdir show "
            f"{self.file}` prints it as it is, `memdir rm {self.file}` removes it)",
        )


def unreadable_memory(mem: Memdir, name: str, scope: str | None) -> Unreadable | None:
    """The memory file ``name`` names (its file, ``.md`` optional, or the ``name:`` line
    YAML could not read) when its frontmatter does not parse; ``None`` otherwise."""
    if scope is None and name.startswith("team/"):  # how listings name team files
        scope, name = Scope.TEAM.value, name.removeprefix("team/")
    stores = [mem.store(scope)] if scope is not None else [mem.private, mem.team]
    key = " ".join(name.split()).casefold()
    for store in stores:
        for problem in store.scan().problems:
            if problem.path is None:
                continue
            path = Path(problem.path)
            try:
                rel = path.relative_to(store.root).as_posix()
            except ValueError:
                continue
            if name in (rel, rel.removesuffix(".md")) or _raw_name(path) == key:
                return Unreadable(scope=store.scope, file=rel, path=path, error=problem)
    return None


def _raw_name(path: Path) -> str | None:
    """The ``name:`` line of a frontmatter YAML could not read, as plain words."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            head = handle.read(8192)
    except OSError:
        return None
    for line in head.splitlines()[1:40]:
        if line.strip() == "---":
            break
        if line.startswith("name:"):
            return " ".join(line[5:].strip().strip("'\"").split()).casefold()
    return None


@contextlib.contextmanager
def reaching(mem: Memdir, name: str, scope: str | None) -> Iterator[None]:
    """Where a call finds no memory named ``name`` but a file whose frontmatter is broken
    answers to it, say that file cannot be read (and how to fix it), not "no memory"."""
    try:
        yield
    except MemoryNotFound:
        broken = unreadable_memory(mem, name, scope)
        if broken is None:
            raise
        raise broken.refusal() from None


def _in_git_repository(root: Path) -> bool:
    # The project root is a repository's root (a .git folder or file) or, for a
    # worktree of a bare repository, the bare repository itself.
    return (root / ".git").exists() or ((root / "HEAD").is_file() and (root / "objects").is_dir())


def configured_provider(mem: Memdir) -> Provider | None:
    """The model provider for a command a person runs; ``None`` when none is configured.

    The settings' provider and model (``MEMDIR_PROVIDER``, ``MEMDIR_MODEL`` or the
    settings file) when named, else what the environment offers: a person running a
    model verb by hand may use the key they exported (the hooks may not, see
    :func:`memdir.llm.factory.provider_from_env`).
    """
    from memdir.llm.factory import provider_from_settings

    return provider_from_settings(mem.settings, mem.env, layout=mem.layout)


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
    """Dataclasses, enums, paths and dates as plain JSON values.

    A record composed of others (a recall item) says its flat shape through ``json_fields()``.
    """
    if callable(getattr(value, "json_fields", None)) and not isinstance(value, type):
        return to_jsonable(value.json_fields())
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
