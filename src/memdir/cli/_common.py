"""What every memdir command shares: options, opening a Memdir, output, errors.

Each command is parse -> one API call -> render. Every error becomes one
line on stderr (``memdir: error: ...``) naming the file and the next step,
with exit status 1 (:func:`run_reporting_errors`): memdir's own errors as they
are, environment failures (read-only folder, a directory where a file
belongs, a symlink loop) through :func:`~memdir.storage.failures.explain_os_error`,
anything else as a short description. The traceback of an unexpected error
(only those: an ordinary error's line says it all) goes to
``<memdir home>/state/cli-errors.log`` (rotated past 256 KiB to
``cli-errors.log.1``) and to the terminal only with ``--debug`` (or
``MEMDIR_DEBUG=1``). Usage errors are click's, with exit status 2. ``--json``
prints machine-readable output.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from memdir.config import memdir_home
from memdir.errors import ConfigError, LimitExceeded, MemdirError
from memdir.kinds import Scope

if TYPE_CHECKING:  # loaded by the commands that use them (or by an error), not by every start
    from memdir.api import Memdir
    from memdir.llm.base import Provider
    from memdir.model import MemoryRecord

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
    "quiet_broken_pipe",
    "read_stdin_text",
    "record_dict",
    "require_provider",
    "run_reporting_errors",
    "scope_option",
    "scope_project_json_options",
    "server_options",
    "to_jsonable",
]

NO_PROVIDER_HINT = (
    "set MEMDIR_PROVIDER=anthropic with ANTHROPIC_API_KEY, MEMDIR_PROVIDER=openai with "
    "OPENAI_API_KEY (or OPENAI_BASE_URL for any OpenAI-compatible server), or "
    "MEMDIR_PROVIDER=local for a llama.cpp server on 127.0.0.1:8080; with llama.cpp's "
    "server installed, MEMDIR_LOCAL_MODEL=<model.gguf> runs an embedded local model"
)

F = TypeVar("F", bound=Callable[..., Any])


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
    except (click.exceptions.Exit, click.ClickException, click.Abort):
        raise
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


def _report(
    ctx: click.Context, exc: BaseException, message: str, *, unexpected: bool = False
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
    ctx.exit(1)


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


def project_option(func: F) -> F:
    """``--project PATH``: the project whose memory to use (default: here)."""
    return click.option(
        "--project",
        "project",
        # It must exist: a mistyped path would otherwise key a new, empty store.
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        default=Path("."),
        show_default=True,
        help="Any existing directory of the project (its git root identifies it).",
    )(func)


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

    return provider_from_settings(mem.settings, mem.env)


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
