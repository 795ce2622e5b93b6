"""What every memdir command shares: options, opening a Memdir, output, errors.

Each command is parse -> one API call -> render. Every error becomes one
line on stderr (``memdir: error: ...``) naming the file and the next step,
with exit status 1 (:func:`run_reporting_errors`): memdir's own errors as they
are, environment failures (read-only folder, a directory where a file
belongs, a symlink loop) through :func:`~memdir.storage.failures.explain_os_error`,
anything else as a short description; an error click raises for a command
(a missing extra) is said the same way. The traceback of an unexpected error
(only those: an ordinary error's line says it all) goes to
``<memdir home>/state/cli-errors.log`` (rotated past 256 KiB to
``cli-errors.log.1``) and to the terminal only with ``--debug`` (or
``MEMDIR_DEBUG=1``). ``--json`` prints machine-readable output.

Exit statuses: 0 done; 1 an error; 2 a usage error (the usage line, then
``memdir: error: ...`` naming the argument as the help does); 3
(:data:`EXIT_CONFLICT`) a team sync that left a conflict for a person to
settle; 130 (:data:`EXIT_INTERRUPTED`) Ctrl-C, or a prompt answered with
Ctrl-C or end of input, said in one line; 141 a reader that closed the pipe.
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

from memdir.config import memdir_home
from memdir.errors import ConfigError, LimitExceeded, MemdirError, MemoryNotFound, ParseError
from memdir.kinds import Scope
from memdir.utils.installs import install_hint, package_hint

if TYPE_CHECKING:  # loaded by the commands that use them (or by an error), not by every start
    from memdir.api import Memdir
    from memdir.llm.base import Provider
    from memdir.model import MemoryRecord

__all__ = [
    "EXIT_CONFLICT",
    "EXIT_INTERRUPTED",
    "NO_PROVIDER_HINT",
    "PROJECT_PATH",
    "VERSION_ID",
    "MemdirGroup",
    "Unreadable",
    "VersionId",
    "close_provider",
    "configured_provider",
    "emit",
    "install_hint",
    "json_option",
    "open_memdir",
    "package_hint",
    "profile_option_value",
    "project_option",
    "quiet_broken_pipe",
    "reaching",
    "read_stdin_text",
    "record_dict",
    "require_provider",
    "run_reporting_errors",
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
EXIT_INTERRUPTED = 130  # what a shell gives a program Ctrl-C stopped (128 + SIGINT)

_ERROR_LOG = "cli-errors.log"
_MAX_LOG_BYTES = 256 << 10  # per file; with the previous one, at most about 512 KiB
_DEBUG_KEY = "memdir.debug"


class MemdirGroup(click.Group):
    """A click group with ``--debug`` that turns every error into one line and exit status 1."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.params.append(
            click.Option(
                ["--debug"],
                is_flag=True,
                expose_value=False,
                is_eager=True,
                callback=_remember_debug,
                help="Show the traceback of an unexpected error.",
            )
        )

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        # The top-level group's own options (``memdir --project nope list``) are parsed
        # here, before any invoke: their usage errors are said like every other one.
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as exc:
            if parent is not None:  # a nested group: its parent's invoke says it
                raise
            _show_usage_error(exc, exc.ctx)
            raise click.exceptions.Exit(exc.exit_code) from None

    def invoke(self, ctx: click.Context) -> Any:
        from memdir.history.provenance import provenance

        with provenance(route="cli"):  # what the command changes is recorded as the CLI's
            return run_reporting_errors(ctx, lambda: super(MemdirGroup, self).invoke(ctx))


def _remember_debug(ctx: click.Context, _: click.Parameter, value: bool) -> None:
    ctx.meta[_DEBUG_KEY] = value or os.environ.get("MEMDIR_DEBUG", "") not in ("", "0")


def run_reporting_errors(ctx: click.Context, invoke: Callable[[], Any]) -> Any:
    """Run ``invoke``; any error but click's own becomes one line on stderr and exit 1."""
    try:
        return invoke()
    except click.exceptions.Exit:
        raise
    except click.UsageError as exc:
        _usage(ctx, exc)
    except click.ClickException as exc:  # a command's own (a missing extra): one line too
        _report(ctx, exc, exc.format_message(), status=exc.exit_code)
    except (click.Abort, KeyboardInterrupt) as exc:
        # click.Abort: a prompt answered with Ctrl-C or end of input.
        what = "cancelled" if isinstance(exc, click.Abort) else "interrupted"
        click.echo(f"memdir: {what}", err=True)
        ctx.exit(EXIT_INTERRUPTED)
    except BrokenPipeError:
        quiet_broken_pipe()
    except MemdirError as exc:
        _report(ctx, exc, str(exc))
    except OSError as exc:
        from memdir.storage.failures import explain_os_error

        _report(ctx, exc, str(explain_os_error(exc)))
    except UnicodeError as exc:
        _report(ctx, exc, _unicode_message(exc))
    except Exception as exc:
        if type(exc).__module__ == "sqlite3":  # a database that cannot be written: no bug
            from memdir.storage.failures import storage_error

            _report(ctx, exc, str(storage_error(exc)))
        else:
            _report(ctx, exc, f"unexpected {type(exc).__name__}: {exc}", unexpected=True)
    return None


# What a shell reports for a program a closed pipe stopped (128 + SIGPIPE).
_BROKEN_PIPE_STATUS = 141


def quiet_broken_pipe() -> None:
    """Exit quietly because the reader closed our output (``memdir list --json | head``).

    Nothing more can reach the reader, and the interpreter's last flush would fail
    again: standard output becomes /dev/null first, then the exit status is the
    one a shell gives ``cat`` stopped the same way.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real file descriptor (an in-process runner)
        pass
    sys.exit(_BROKEN_PIPE_STATUS)


def _unicode_message(exc: UnicodeError) -> str:
    what = "decode" if isinstance(exc, UnicodeDecodeError) else "encode"
    encoding = getattr(exc, "encoding", "utf-8")
    return (
        f"cannot {what} text as {encoding}: {getattr(exc, 'reason', exc)} "
        f"(send UTF-8 text; convert the input first, e.g. iconv -t utf-8)"
    )


def _usage(ctx: click.Context, exc: click.UsageError) -> None:
    """A usage error: the usage line and where to find help, then one ``memdir: error:`` line.

    An argument is named as the help names it (``AGENT``), never by click's list of
    its choices (``'{claude|codex|gemini}'``).
    """
    _show_usage_error(exc, exc.ctx or ctx)
    ctx.exit(exc.exit_code)


def _show_usage_error(exc: click.UsageError, ctx: click.Context | None) -> None:
    param = getattr(exc, "param", None)
    named = isinstance(param, click.Argument) and param.name
    if isinstance(exc, click.BadParameter) and exc.param_hint is None and named:
        exc.param_hint = str(named).upper()
    if ctx is not None:
        click.echo(ctx.get_usage(), err=True)
        click.echo(f"Try '{ctx.command_path} --help' for help.", err=True)
    message = exc.format_message()
    click.echo(_printable(f"memdir: error: {message[:1].lower()}{message[1:]}"), err=True)


def _report(
    ctx: click.Context,
    exc: BaseException,
    message: str,
    *,
    unexpected: bool = False,
    status: int = 1,
) -> None:
    debug = bool(ctx.meta.get(_DEBUG_KEY)) or os.environ.get("MEMDIR_DEBUG", "") not in ("", "0")
    line = f"memdir: error: {_one_line(message)}"
    if unexpected:  # an ordinary error says all in its line: only a bug needs its traceback
        log = _log_traceback(exc)
        saved = f"the traceback is in {log}" if log is not None else "no log could be written"
        line += f" (this looks like a bug in memdir: {saved}; rerun with --debug to see it)"
    click.echo(_printable(line), err=True)
    if debug:
        import traceback

        text = "".join(traceback.format_exception(exc))
        click.echo(_printable(text.rstrip("\n")), err=True)
    ctx.exit(status)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _printable(text: str) -> str:
    # Control characters (terminal escapes) are shown escaped; bytes that were
    # not UTF-8 (surrogate escapes in paths or input) as \x.. rather than crashing.
    out = "".join(
        c if c == "\n" or (ord(c) >= 0x20 and not 0x7F <= ord(c) < 0xA0) else repr(c)[1:-1]
        for c in text
    )
    return out.encode("utf-8", "backslashreplace").decode("utf-8")


def _log_traceback(exc: BaseException) -> Path | None:
    """Append the traceback to the CLI's error log; ``None`` when that is impossible."""
    import traceback

    try:
        folder = memdir_home(os.environ) / "state"
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = folder / _ERROR_LOG
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
        if path.exists() and path.stat().st_size > _MAX_LOG_BYTES:
            # Bounded: the full log becomes the one previous log, and a new one starts.
            os.replace(path, path.with_name(_ERROR_LOG + ".1"))
        stamp = dt.datetime.now().isoformat(timespec="seconds")
        text = f"--- {stamp} memdir {' '.join(sys.argv[1:2])}\n" + "".join(
            traceback.format_exception(exc)
        )
        fd = os.open(path, flags, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(text)
        return path
    except (OSError, ValueError):
        return None


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
