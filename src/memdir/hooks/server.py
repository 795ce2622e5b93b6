"""The hook server: session start and per-prompt recall answered by a warm process.

``memdir hook server run`` (started by the first hook that finds none, see
:mod:`memdir.hooks.client`) listens on this user's socket for
this installation (:mod:`memdir.hooks.wire`) and answers its requests with
the very code a hook process runs (:func:`memdir.hooks.entry.run_fast`),
under the hook's own environment, working folder and umask, which it puts
in place for the request and takes back after. It answers only processes of
its own user (the peer's credentials are checked), and holds a lock for as
long as it runs, in which it notes its pid, start time and how many hooks it
answered (``memdir hook server status``). It also keeps the inotify watch on
memory folders that the pre-tool-use hook asks whether anything changed since
its last walk (:mod:`memdir.hooks.folder_watch`), made at the first ask.

Connections are read and written without blocking, from one loop: a client
that connects and says nothing, or sends half a request, holds up no one, and
is dropped when :data:`REQUEST_SECONDS` pass without its whole request (one
that does not take its answer, after :data:`ANSWER_SECONDS`). Requests are
answered one at a time (a request takes over the process's environment,
folder and umask), in the order they came in whole. Whatever a request holds
(a malformed frame, a umask no process has, a variable no environment can
hold) costs that request its answer, never the server: its hook does the work
itself.

What recall shows a session is counted as seen only once the answer has
reached the hook's socket (:func:`memdir.recall.recall_state.held_saves`):
a server killed in between, or a hook gone before its answer, leaves the
memory to be shown at the next prompt, never lost for the session.

It stops on its own after :data:`IDLE_SECONDS` without a request
(``MEMDIR_HOOK_SERVER_IDLE`` sets another number), when any of its loaded
memdir modules or the Python executable changed on disk since it loaded them
(an upgrade: the request that notices is answered "stale" and its hook does
the work itself), on SIGTERM or SIGINT, and on ``memdir hook server stop``.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import socket
import struct
import sys
import time
from collections.abc import Iterator, Mapping

from memdir.errors import ConfigError
from memdir.hooks.wire import (
    MAX_MESSAGE,
    PROTOCOL,
    WATCH_REQUEST,
    lock_path,
    pack,
    safe_folder,
    scopes_of,
    socket_folder,
    socket_path,
    unpack,
)
from memdir.utils.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memdir.hooks.folder_watch import FolderWatch
    from memdir.recall.recall_state import HeldSaves

__all__ = [
    "ANSWER_SECONDS",
    "IDLE_SECONDS",
    "REQUEST_SECONDS",
    "Answer",
    "ServerStatus",
    "answer_for",
    "handle",
    "serve",
    "server_status",
    "stop_server",
]

IDLE_SECONDS = 600.0
REQUEST_SECONDS = 2.0
"""Seconds a connection has, from its accept, to send its whole request (sent at once)."""
ANSWER_SECONDS = 10.0
"""Seconds a hook has to take its whole answer (its own wait: the client's ``TIMEOUT``)."""
_MAX_OPEN = 64  # connections held at once; more are closed at once (their hooks do the work)


@record
class ServerStatus:
    """What ``memdir hook server status`` says: whether it runs, where, since when."""

    socket: str
    running: bool
    pid: int | None = None
    started: float | None = None
    answered: int | None = None


def _socket_for(env: Mapping[str, str], package: str | None = None) -> str:
    path = socket_path(env, sys.executable, package)
    if path is None:
        raise ConfigError(
            f"the hook server's socket path under {socket_folder(env)} is too long",
            hint="set XDG_RUNTIME_DIR to a shorter folder",
        )
    return path


def serve(env: Mapping[str, str], *, idle: float | None = None) -> int:
    """Run the server until it is idle, stopped or out of date; 0, or 1 when one already runs."""
    path = _socket_for(env)
    folder = socket_folder(env)
    if not safe_folder(folder, create=True):
        raise ConfigError(
            f"{folder} is not a folder of this user's, closed to others",
            path=folder,
            hint="remove it (memdir makes it again with mode 0700)",
        )
    lock = _take_lock(lock_path(path))
    if lock is None:
        return 1  # another server answers for this installation
    os.chdir("/")  # each request runs in its hook's folder; between requests, in none
    from memdir.hooks.entry import keep_models_warm

    try:
        with _listening(path) as listener:  # listening first: a hook may connect at once
            keep_models_warm(env.get("MEMDIR_EMBEDDINGS", "").strip() or "auto")
            _loop(listener, lock, _idle_seconds(env, idle))
    finally:
        os.close(lock)
    return 0


def _idle_seconds(env: Mapping[str, str], idle: float | None) -> float:
    if idle is not None:
        return idle
    raw = env.get("MEMDIR_HOOK_SERVER_IDLE", "").strip()
    try:
        return float(raw) if raw else IDLE_SECONDS
    except ValueError:
        raise ConfigError(f"MEMDIR_HOOK_SERVER_IDLE={raw!r} is not a number of seconds") from None


def _take_lock(path: str) -> int | None:
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _note(lock: int, started: float, answered: int) -> None:
    """The status line in the lock file, rewritten in place (one write per request)."""
    line = f"{os.getpid()} {started:.3f} {answered}\n".encode()
    # Written over, then cut to its length: a reader never finds it empty (the line only
    # grows, as the count does).
    os.pwrite(lock, line, 0)
    os.ftruncate(lock, len(line))


@contextlib.contextmanager
def _listening(path: str) -> Iterator[socket.socket]:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # a socket left by a server that died: the lock is ours now
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        old = os.umask(0o177)  # the socket is this user's alone from the start
        try:
            listener.bind(path)
        finally:
            os.umask(old)
        mine = os.stat(path).st_ino
    except BaseException:
        listener.close()
        raise
    try:
        listener.listen(16)
        yield listener
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            if os.stat(path).st_ino == mine:  # not a newer server's socket
                os.unlink(path)


class _Stop(BaseException):
    """Raised by the signal handlers: leave the loop, clean up (no request's handler
    catches it, as it catches every :class:`Exception`)."""


def _stop(signum: int, frame: object) -> None:
    raise _Stop


class _Connection:
    """One client: its request as it comes in, then its answer as it goes out."""

    __slots__ = ("after", "deadline", "inbox", "outbox", "sock")

    def __init__(self, sock: socket.socket, now: float) -> None:
        self.sock = sock
        self.deadline = now + REQUEST_SECONDS
        self.inbox = bytearray()
        self.outbox: memoryview | None = None  # None: still reading the request
        self.after: Answer | None = None  # a hook's answer, delivered once all is sent


class _Loop:
    """The accept loop: every connection read and written without blocking."""

    def __init__(self, listener: socket.socket, lock: int, idle: float) -> None:
        self.listener = listener
        self.lock = lock
        self.idle = idle
        self.started, self.answered = time.time(), 0
        self.watch = _CodeWatch()
        self.folders = _Folders()
        self.selector = selectors.DefaultSelector()
        self.open: dict[int, _Connection] = {}
        self.last = time.monotonic()  # the last connection: the idle clock
        self.stale = False

    def run(self) -> None:
        _note(self.lock, self.started, self.answered)
        self.listener.setblocking(False)
        self.selector.register(self.listener, selectors.EVENT_READ)
        try:
            while not self.stale:
                wait = self._wait(time.monotonic())
                if wait is not None and wait <= 0 and not self.open:
                    return  # idle: the next hook starts another when it needs one
                for key, events in self.selector.select(wait):
                    if key.fileobj is self.listener:
                        self._accept()
                    else:
                        self._serve(key.data, events)
                self._expire(time.monotonic())
        finally:
            for conn in list(self.open.values()):
                self._drop(conn)  # unanswered: those hooks do the work themselves
            self.selector.close()
            self.folders.close()

    def _wait(self, now: float) -> float | None:
        """Seconds until the next deadline (a connection's, or going idle); None: none."""
        ends = [conn.deadline for conn in self.open.values()]
        if self.idle > 0:
            ends.append(self.last + self.idle)
        return max(min(ends) - now, 0.0) if ends else None

    def _accept(self) -> None:
        for _ in range(_MAX_OPEN):  # what the backlog holds now, never an endless run
            try:
                sock, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return  # out of descriptors, say: the hooks that wait do their own work
            now = time.monotonic()
            self.last = now
            if len(self.open) >= _MAX_OPEN or not _same_user(sock):
                sock.close()
                continue
            sock.setblocking(False)
            conn = _Connection(sock, now)
            self.open[sock.fileno()] = conn
            self.selector.register(sock, selectors.EVENT_READ, conn)

    def _serve(self, conn: _Connection, events: int) -> None:
        try:
            if conn.outbox is None and events & selectors.EVENT_READ:
                self._read(conn)
            elif conn.outbox is not None and events & selectors.EVENT_WRITE:
                self._write(conn)
        except OSError:
            self._drop(conn)  # the client gave up: it does the work itself

    def _read(self, conn: _Connection) -> None:
        try:
            chunk = conn.sock.recv(1 << 16)
        except (BlockingIOError, InterruptedError):
            return
        if chunk:
            conn.inbox += chunk
            if len(conn.inbox) > MAX_MESSAGE:
                self._drop(conn)
            return
        # The client shut its side: the request is whole.
        began = time.monotonic()
        reply = self._reply(conn)
        for other in self.open.values():
            # Time spent on this request is not the others' to lose: they waited on it.
            other.deadline += time.monotonic() - began
        if reply is None:
            self._drop(conn)
            return
        conn.outbox = memoryview(reply)
        conn.deadline = time.monotonic() + ANSWER_SECONDS
        self.selector.modify(conn.sock, selectors.EVENT_WRITE, conn)
        self._write(conn)  # mostly sent at once: the socket's buffer is empty

    def _reply(self, conn: _Connection) -> bytes | None:
        """The answer to ``conn``'s request; None for one that gets none."""
        request = bytes(conn.inbox)
        conn.inbox = bytearray()
        if self.watch.changed():
            self.stale = True  # the loop ends once this is said
            return pack([b"stale", b"", b""])
        try:
            if request.startswith(WATCH_REQUEST):
                return self.folders.answer(request)
            conn.after = answer_for(request)
            return conn.after.reply
        except Exception:  # whatever a request holds costs it its answer, never the server
            return None
        finally:
            self.watch.note_loaded()  # what the request loaded, checked from the next one on

    def _write(self, conn: _Connection) -> None:
        assert conn.outbox is not None
        try:
            sent = conn.sock.send(conn.outbox)
        except (BlockingIOError, InterruptedError):
            return
        conn.outbox = conn.outbox[sent:]
        if len(conn.outbox):
            return
        after, conn.after = conn.after, None
        if after is not None:  # all of it is in the hook's socket now
            after.delivered()
            self.answered += 1
            _note(self.lock, self.started, self.answered)
        # Closed last: the hook reads to the end, so once it has its answer, what the
        # answer showed is saved as seen and counted in the status.
        self._close(conn)

    def _expire(self, now: float) -> None:
        for conn in [c for c in self.open.values() if c.deadline <= now]:
            self._drop(conn)  # too slow to ask, or to take its answer

    def _drop(self, conn: _Connection) -> None:
        if conn.after is not None:
            conn.after.undelivered()
        self._close(conn)

    def _close(self, conn: _Connection) -> None:
        if self.open.pop(conn.sock.fileno(), None) is not None:
            self.selector.unregister(conn.sock)
        conn.sock.close()


def _loop(listener: socket.socket, lock: int, idle: float) -> None:
    previous = {s: signal.signal(s, _stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        _Loop(listener, lock, idle).run()
    except _Stop:
        return
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _same_user(conn: socket.socket) -> bool:
    if not hasattr(socket, "SO_PEERCRED"):
        return True  # no credentials to read (not Linux): the folder's mode still guards it
    try:
        data = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except OSError:
        return False
    _pid, uid, _gid = struct.unpack("3i", data)
    return bool(uid == os.getuid())


class _Folders:
    """The server's folder watch, made at the first request for tokens."""

    def __init__(self) -> None:
        self._watch: FolderWatch | None = None
        self._failed = False

    def answer(self, request: bytes) -> bytes:
        """The framed tokens for a framed watch request (:func:`hook_client.watch_tokens`)."""
        scopes = scopes_of(request)
        if self._watch is None and not self._failed:
            from memdir.hooks.folder_watch import FolderWatch

            try:
                self._watch = FolderWatch()
            except OSError:
                self._failed = True  # no inotify here: every hook walks, as without a server
        tokens = None if self._watch is None else self._watch.tokens(scopes)
        return pack([b"none"] if tokens is None else [b"ok", *(t.encode() for t in tokens)])

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()


class Answer:
    """A hook's framed answer, and what its recall showed, counted as seen on delivery.

    :meth:`delivered` once the answer is all in the hook's socket: the session's
    seen-list is saved then (:class:`~memdir.recall.recall_state.HeldSaves`).
    Without it (:meth:`undelivered`, or a server killed first) nothing is counted
    and the next prompt may show the same memories again.
    """

    def __init__(self, reply: bytes, held: HeldSaves, *, shown: bool) -> None:
        self.reply = reply
        self._held = held
        self._shown = shown  # the hook printed something: what recall chose went out

    def delivered(self) -> None:
        """The hook has it: save what it showed its session."""
        if self._shown:
            self._held.commit()
        else:
            self._held.drop()

    def undelivered(self) -> None:
        """The hook never got it: nothing it would have shown counts as seen."""
        self._held.drop()


def answer_for(request: bytes) -> Answer:
    """The answer to one framed request (:mod:`memdir.hooks.client`), not yet delivered.

    A :class:`ValueError` for a request that is not a served hook's, or that
    no process could run under (a umask past 0o777, a relative folder, a
    variable with ``=`` in its name).
    """
    name, cwd, mask, env, text = _parsed(request)
    from memdir.hooks.entry import run_fast
    from memdir.recall.recall_state import held_saves

    out: list[str] = []
    err: list[str] = []
    with held_saves() as held, _as_client(env, cwd, mask):
        run_fast(name, stdin_text=text, env=env, write=out.append, warn=err.append)
    encoded = [s.encode("utf-8", "surrogateescape") for s in ("".join(out), "".join(err))]
    return Answer(pack([b"ok", *encoded]), held, shown=bool(out))


def handle(request: bytes) -> bytes:
    """The framed answer to one framed request, counted as delivered (see :func:`answer_for`)."""
    answer = answer_for(request)
    answer.delivered()
    return answer.reply


def _parsed(request: bytes) -> tuple[str, str, int, dict[str, str], str]:
    """(hook, folder, umask, environment, input) of a hook request; ValueError if malformed."""
    fields = unpack(request)
    if len(fields) < 6 or fields[0] != PROTOCOL:
        raise ValueError("not a hook request")
    from memdir.hooks.client import SERVED

    name = fields[1].decode("ascii")
    if name not in SERVED:
        raise ValueError(f"not a served hook: {name!r}")
    cwd = os.fsdecode(fields[2])
    if not os.path.isabs(cwd) or "\0" in cwd:
        raise ValueError("a hook's folder must be an absolute path")
    mask, count = _small_number(fields[3], 0o777), _small_number(fields[4], len(fields))
    if len(fields) != 6 + count:
        raise ValueError("a hook request with a wrong count of variables")
    env = dict(_pair(item) for item in fields[5 : 5 + count])
    return name, cwd, mask, env, fields[5 + count].decode("utf-8", "surrogatepass")


def _small_number(field: bytes, most: int) -> int:
    """A field of ASCII digits naming a number up to ``most``; ValueError otherwise."""
    if not field.isdigit() or len(field) > len(str(most)) or int(field) > most:
        raise ValueError("a hook request with a number out of range")
    return int(field)


def _pair(item: bytes) -> tuple[str, str]:
    key, sep, value = item.partition(b"\0")
    if not sep or not key or b"=" in key or b"\0" in value:
        raise ValueError("a malformed variable")
    return os.fsdecode(key), os.fsdecode(value)


@contextlib.contextmanager
def _as_client(env: dict[str, str], cwd: str, mask: int) -> Iterator[None]:
    """The client's environment, folder and umask for the length of one request.

    Code that reads ``os.environ`` (``Path.home()``, a subprocess's
    environment), the working folder or the umask sees the hook's, as it
    would in the hook's own process; the server's own are put back after,
    whatever failed on the way.
    """
    saved_env, saved_tz = dict(os.environ), os.environ.get("TZ")
    here = os.open(".", os.O_RDONLY)  # back to it even if its path is gone meanwhile
    saved_mask = os.umask(0o077)
    try:
        os.umask(mask)
        os.environ.clear()
        os.environ.update(env)
        if env.get("TZ") != saved_tz:
            time.tzset()
        os.chdir(cwd)
        yield
    finally:
        os.umask(saved_mask)
        os.fchdir(here)
        os.close(here)
        os.environ.clear()
        os.environ.update(saved_env)
        if os.environ.get("TZ") != env.get("TZ"):
            time.tzset()


class _CodeWatch:
    """Whether any loaded memdir module, or the interpreter, changed on disk since loaded."""

    def __init__(self) -> None:
        self.seen: dict[str, int | None] = {}
        self.note_loaded()

    def changed(self) -> bool:
        """Whether a file noted so far has another mtime now."""
        return any(_mtime(file) != stamp for file, stamp in self.seen.items())

    def note_loaded(self) -> None:
        """Note the modules loaded since the last note, as their files are now."""
        for file in (sys.executable, *_memdir_files()):
            if file not in self.seen:
                self.seen[file] = _mtime(file)


def _memdir_files() -> list[str]:
    files = []
    for name, module in list(sys.modules.items()):
        if name == "memdir" or name.startswith("memdir."):
            file = getattr(module, "__file__", None)
            if isinstance(file, str):
                files.append(file)
    return files


def _mtime(file: str) -> int | None:
    try:
        return os.stat(file).st_mtime_ns
    except OSError:
        return None


def server_status(env: Mapping[str, str], *, package: str | None = None) -> ServerStatus:
    """Whether the server runs for ``env``'s socket folder, and its note.

    ``package``: the memdir package folder of another installation (this one's by default).
    """
    import fcntl

    path = _socket_for(env, package)
    try:
        fd = os.open(lock_path(path), os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return ServerStatus(socket=path, running=False)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            pass  # held: a server runs
        else:
            return ServerStatus(socket=path, running=False)
        words = os.pread(fd, 200, 0).decode("ascii", "replace").split()
    finally:
        os.close(fd)
    try:
        pid, started, answered = int(words[0]), float(words[1]), int(words[2])
    except (IndexError, ValueError):
        return ServerStatus(socket=path, running=True)
    return ServerStatus(socket=path, running=True, pid=pid, started=started, answered=answered)


def stop_server(env: Mapping[str, str], *, package: str | None = None, wait: float = 5.0) -> bool:
    """Stop the server for ``env`` (and ``package``); True when one was running."""
    status = server_status(env, package=package)
    if not status.running or status.pid is None:
        return False
    try:
        os.kill(status.pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and server_status(env, package=package).running:
        time.sleep(0.02)
    return True
