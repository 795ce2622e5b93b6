"""``memdir serve`` on stdio: the first answers at once, the SDK's server for everything.

Importing the MCP SDK takes a second or more, and hosts do not wait that long:
Codex CLI starts its first turn without a server that has not answered,
Claude Code's version probe gives up on it. So the process answers from its
first milliseconds, and the SDK's server takes over when it is ready:

- The main thread owns the client's stdin and stdout (private duplicates: fd 0
  becomes ``/dev/null`` and fd 1 stderr, so stray output misses the wire, as
  under the SDK's own transport). It reads each line, writes at once the
  answer :class:`~memdir.mcp.answers.EarlyAnswers` has for it (the SDK's own
  recorded line for the handshake, the lists, a listen) and passes the line on.
- A thread, started at once, opens the project's memory (a bad project fails
  here, with the CLI's one-line error), imports the SDK, builds the server and
  runs it on a :class:`~memdir.mcp.lines.LineInbox` and
  :class:`~memdir.mcp.lines.LineOutbox`. It reads every line the client sent,
  in order, so its state (the negotiated version, a listen) is the client's;
  its answers to the lines answered early are the same lines, which the outbox
  drops. Once it serves, every answer is its own.
- Without answers for this installation's versions
  (:func:`~memdir.mcp.answers.load_answers`), the thread records them from the
  server it built, for the next start, and the SDK answers everything.

Stopping: the client closes stdin, or sends SIGINT or SIGTERM (Claude Code
does at the end of a session). The main thread waits in ``select`` on stdin
and on a wake-up pipe that signals (``signal.set_wakeup_fd``) and the server
thread's end write to, so a signal ends the wait whichever thread it arrives
on. If the server runs, its input ends and the process exits when it has
closed the memory (0, or 1 with the error); a second signal ends the process
the default way. If it does not run yet, nothing is open and no request waits
on it: the process exits at once, without waiting for the import (a host that
probed, then closed, as Claude Code's version negotiation may, is not kept
waiting, nor is its next server slowed by this one).
"""

from __future__ import annotations

import os
import select
import signal
import sys
import threading

from memdir.mcp.answers import (
    EarlyAnswers,
    answers_key,
    cache_path,
    installed,
    load_answers,
    save_answers,
)
from memdir.mcp.lines import LineInbox, LineOutbox

TYPE_CHECKING = False  # no typing at run time: this module starts `memdir serve`
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path
    from types import FrameType
    from typing import Any

    from memdir.mcp.server import MemdirServer

__all__ = ["main", "serve_stdio", "stdio_args"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_CHUNK = 1 << 16


def main(argv: Sequence[str]) -> int | None:
    """Serve here when ``argv`` is plainly ``[--profile P] serve [--project DIR]``.

    Returns the exit status, or None: the click CLI then runs (and says what is
    wrong with the arguments, or that the ``mcp`` extra is missing).
    """
    args = stdio_args(argv, os.environ)
    if args is None or os.name != "posix" or installed(("mcp",)) is None:
        return None
    project, profile = args
    return serve_stdio(project, profile=profile, check=True)


def stdio_args(argv: Sequence[str], env: Mapping[str, str]) -> tuple[str, str | None] | None:
    """(project, profile) when ``argv`` asks for the stdio server and nothing else."""
    args = list(argv)
    profile = None
    if args[:1] == ["--profile"] and len(args) > 1:
        profile, args = args[1], args[2:]
    elif args and args[0].startswith("--profile="):
        profile, args = args[0].partition("=")[2], args[1:]
    if args[:1] != ["serve"]:
        return None
    project = "."
    rest = args[1:]
    if len(rest) == 2 and rest[0] == "--project":
        project = rest[1]
    elif len(rest) == 1 and rest[0].startswith("--project="):
        project = rest[0].partition("=")[2]
    elif rest:
        return None  # --http, --help, anything else: the CLI's
    if not os.path.isdir(project):
        return None  # the CLI says the folder does not exist
    chosen = profile if profile is not None else env.get("MEMDIR_PROFILE")
    if chosen is not None:
        from memdir.config import PROFILES

        if chosen not in PROFILES:
            return None  # the CLI names the profiles it knows
    return project, profile


def serve_stdio(project: str | Path, *, profile: str | None = None, check: bool = True) -> int:
    """Serve the project's memory on stdin and stdout until the client leaves; the exit status.

    ``check`` opens the memory before serving, for its errors and the note about
    a folder outside git (the CLI passes False: it has opened it already).
    """
    try:
        serving = _Serving(str(project), profile, check=check)
    except (ImportError, OSError, ValueError):  # not POSIX, not the main thread, no stdin
        from memdir.mcp.server import build_server

        build_server(project, profile=profile).run("stdio")
        return 0
    return serving.run()


class _Serving:
    """One stdio connection: the early answers here, the SDK's server in a thread."""

    def __init__(self, project: str, profile: str | None, *, check: bool) -> None:
        import fcntl  # POSIX only: elsewhere the SDK's own stdio runs

        if threading.current_thread() is not threading.main_thread():
            raise ValueError("signal handlers belong to the main thread")
        self._project = project
        self._profile = profile
        self._check = check
        # The client's ends, kept above the standard descriptors and out of children.
        self._client_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
        self._client_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
        self._key = answers_key()
        self._early = _early_answers(self._key)
        self._inbox = LineInbox()
        self._outbox = LineOutbox(self._client_out)
        self._serving = threading.Event()
        self._done = threading.Event()
        self._failure: BaseException | None = None
        self._stopping = False
        self._owed = False  # a request only the SDK's server can answer came in
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_write, False)
        signal.set_wakeup_fd(self._wake_write, warn_on_full_buffer=False)
        self._previous = {sig: signal.signal(sig, self._on_signal) for sig in _SIGNALS}
        sys.stdout.flush()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)  # print() and children write to stderr, never into the protocol

    def run(self) -> int:
        """Serve until the client leaves or a signal stops it; the exit status."""
        thread = threading.Thread(target=self._server, name="memdir-mcp-server", daemon=True)
        thread.start()
        self._read_client()
        if not (self._serving.is_set() or self._done.is_set()) and (
            self._stopping or not self._owed
        ):
            # Nothing is open yet and nobody waits on the server: no reason to import it.
            sys.stderr.flush()
            os._exit(0)
        self._inbox.close()
        while not self._done.is_set():
            self._wait()
        thread.join()
        return self._report()

    def _read_client(self) -> None:
        """Answer and pass on the client's lines until it leaves, a signal, or the server ends."""
        pending: list[bytes] = []  # the start of a line longer than one read
        while not (self._stopping or self._done.is_set()):
            if not self._wait(self._client_in):
                continue
            data = os.read(self._client_in, _CHUNK)
            if not data:
                if pending:
                    self._take(b"".join(pending))
                return
            *lines, rest = data.split(b"\n")
            for line in lines:
                self._take(b"".join([*pending, line, b"\n"]))
                pending = []
            if rest:
                pending.append(rest)

    def _wait(self, fd: int | None = None) -> bool:
        """Wait for ``fd`` (or only the wake-up pipe); True when ``fd`` can be read."""
        watched = [self._wake_read] if fd is None else [fd, self._wake_read]
        ready, _, _ = select.select(watched, [], [])
        if self._wake_read in ready:
            os.read(self._wake_read, _CHUNK)  # a signal's number, or the server's end
        return fd is not None and fd in ready

    def _take(self, raw: bytes) -> None:
        if b"\\u" in raw or not raw.isascii():  # may hold text no strict reader takes
            from memdir.mcp.arguments import refused_call

            refused = refused_call(raw)  # a tool call the SDK would drop unanswered
            if refused is not None:
                self._send(refused.decode())
                return
        text = raw.decode("utf-8", "replace")  # as the SDK's transport reads it
        answer, owed = None, True
        if self._early is not None and not self._serving.is_set():
            answer, owed = self._early.reply(text)
        if answer is not None:
            self._outbox.expect(answer)  # before the server can see the line
            self._send(answer)
        self._owed = self._owed or owed
        self._inbox.put(text)

    def _send(self, line: str) -> None:
        try:
            self._outbox.send(line)
        except OSError:  # the client stopped reading: it is gone
            self._stopping = True

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        """Stop reading the client; a second signal gets the default action."""
        if self._stopping:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        self._stopping = True

    def _server(self) -> None:
        """The server thread: open the memory, import and build the server, serve."""
        try:
            root = _open_memory(self._project, self._profile) if self._check else self._project
            import anyio

            from memdir.mcp.server import build_server

            server = build_server(root, profile=self._profile)
            if self._early is None and self._key is not None:
                _record(server, self._key, os.environ)
            self._serving.set()
            anyio.run(server.serve_lines, self._inbox, self._outbox)
        except BaseException as exc:  # reported by the main thread, which exits with it
            self._failure = exc
        finally:
            self._done.set()
            # Not contextlib.suppress: importing it costs every start a few ms.
            try:  # noqa: SIM105
                os.write(self._wake_write, b"\0")
            except OSError:  # the pipe is full: that wakes the main thread as well
                pass

    def _report(self) -> int:
        """The exit status; a failure of the server is one line on stderr (or a traceback)."""
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        failure = self._failure
        if failure is None:
            return 0
        from memdir.errors import MemdirError
        from memdir.storage.failures import explain_os_error

        if isinstance(failure, MemdirError):
            message = str(failure)
        elif isinstance(failure, OSError):
            message = str(explain_os_error(failure))
        else:
            import traceback

            traceback.print_exception(failure)
            message = f"unexpected {type(failure).__name__}: {failure}"
        sys.stderr.write(f"memdir: error: {' '.join(message.split())}\n")
        return 1


def _early_answers(key: Mapping[str, Any] | None) -> EarlyAnswers | None:
    """The early answers recorded for this installation, if any (and readable)."""
    recorded = load_answers(key, os.environ) if key is not None else None
    try:
        return EarlyAnswers(recorded) if recorded is not None else None
    except ValueError:  # a damaged cache: the server records it again
        return None


def _open_memory(project: str, profile: str | None) -> Path:
    """Open the project's memory as the CLI does; its root.

    A store created outside any git repository is keyed by the folder itself,
    which is said once on stderr, when the store is made.
    """
    from memdir.api import Memdir
    from memdir.config import load_settings
    from memdir.storage.paths import ROOT_RECORD, make_layout

    settings = load_settings(os.environ, profile=profile)
    layout = make_layout(settings.home, project, profile=settings.profile, env=os.environ)
    new = not (layout.project_dir / ROOT_RECORD).exists()
    root = Memdir.open(project, profile=profile).layout.project_root
    # The root is a repository's (a .git folder or file), or a bare repository's worktree.
    in_git = (root / ".git").exists() or ((root / "HEAD").is_file() and (root / "objects").is_dir())
    if new and not in_git:
        sys.stderr.write(
            f"memdir: note: {root} is not in a git repository, so this folder keys its "
            "memory: run memdir from here (or pass --project) to find it again; after "
            "`git init` the repository's root keys a new, separate memory\n"
        )
    return root


def _record(server: MemdirServer, key: Mapping[str, Any], env: Mapping[str, str]) -> None:
    """Record this installation's early answers for its next start (best effort)."""
    from memdir.mcp.recording import recorded_answers

    try:
        save_answers(cache_path(env), recorded_answers(server, key))
    except Exception as exc:  # the next start answers late again: worth a line, not a failure
        sys.stderr.write(f"memdir: note: the MCP answers were not cached ({exc})\n")
