"""How a command's errors reach the user: one line, an exit status, a log.

Every error becomes one line on stderr (``memdir: error: ...``) naming the file and
the next step, with exit status 1 (:func:`run_reporting_errors`): memdir's own errors as they
are, environment failures (read-only folder, a directory where a file
belongs, a symlink loop) through :func:`~memdir.storage.failures.explain_os_error`,
anything else as a short description; an error click raises for a command
(a missing extra) is said the same way. The traceback of an unexpected error
(only those: an ordinary error's line says it all) goes to
``<memdir home>/state/cli-errors.log`` (rotated past 256 KiB to
``cli-errors.log.1``) and to the terminal only with ``--debug`` (or
``MEMDIR_DEBUG=1``).

Exit statuses: 0 done; 1 an error; 2 a usage error (the usage line, then
``memdir: error: ...`` naming the argument as the help does); 3
(:data:`~memdir.cli._common.EXIT_CONFLICT`) a team sync that left a conflict for a
person to settle; 130 (:data:`EXIT_INTERRUPTED`) Ctrl-C, or a prompt answered with
Ctrl-C or end of input, said in one line; 141 a reader that closed the pipe.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memdir.config import memdir_home
from memdir.errors import MemdirError

if TYPE_CHECKING:  # loaded by the commands that use them (or by an error), not by every start
    pass

__all__ = ["EXIT_INTERRUPTED", "MemdirGroup", "quiet_broken_pipe", "run_reporting_errors"]

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
