"""The hook server: session start and per-prompt recall answered by a warm process.

``memdir hook server run`` (started by the first hook that finds none, see
:mod:`memdir.hooks.client`) listens on this user's socket for
this installation (:mod:`memdir.hooks.wire`) and answers one
request at a time with the very code a hook process runs
(:func:`memdir.hooks.entry.run_fast`), under the hook's own
environment, working folder and umask, which it puts in place for the
request and takes back after. It answers only processes of its own user
(the peer's credentials are checked), and holds a lock for as long as it
runs, in which it notes its pid, start time and how many hooks it answered
(``memdir hook server status``). It also keeps the inotify watch on memory
folders that the pre-tool-use hook asks whether anything changed since its
last walk (:mod:`memdir.hooks.folder_watch`), made at the first ask.

It stops on its own after :data:`IDLE_SECONDS` without a request
(``MEMDIR_HOOK_SERVER_IDLE`` sets another number), when any of its loaded
memdir modules or the Python executable changed on disk since it loaded them
(an upgrade: the request that notices is answered "stale" and its hook does
the work itself), on SIGTERM or SIGINT, and on ``memdir hook server stop``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import struct
import sys
import time
from collections.abc import Iterator, Mapping

from memdir.errors import ConfigError
from memdir.hooks.wire import (
    PROTOCOL,
    WATCH_REQUEST,
    lock_path,
    pack,
    receive,
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

__all__ = ["IDLE_SECONDS", "ServerStatus", "handle", "serve", "server_status", "stop_server"]

IDLE_SECONDS = 600.0
_REQUEST_TIMEOUT = 2.0  # seconds a connected client has to send its request (it is sent at once)


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

    keep_models_warm(env.get("MEMDIR_EMBEDDINGS", "").strip() or "auto")
    try:
        with _listening(path) as listener:
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
    os.ftruncate(lock, 0)
    os.pwrite(lock, line, 0)


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


class _Stop(Exception):
    """Raised by the signal handlers: leave the loop, clean up."""


def _stop(signum: int, frame: object) -> None:
    raise _Stop


def _loop(listener: socket.socket, lock: int, idle: float) -> None:
    started, answered = time.time(), 0
    watch = _CodeWatch()
    folders = _Folders()
    _note(lock, started, answered)
    previous = {s: signal.signal(s, _stop) for s in (signal.SIGTERM, signal.SIGINT)}
    listener.settimeout(idle if idle > 0 else None)
    try:
        while True:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                return  # idle: the next hook starts another when it needs one
            with conn:
                if not _same_user(conn):
                    continue
                stale = watch.changed()
                if _answer(conn, folders, stale=stale):
                    answered += 1
                    _note(lock, started, answered)
                if stale:
                    return
                watch.note_loaded()  # what the request loaded, checked from the next one on
    except _Stop:
        return
    finally:
        folders.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _same_user(conn: socket.socket) -> bool:
    if not hasattr(socket, "SO_PEERCRED"):
        return True  # no credentials to read (not Linux): the folder's mode still guards it
    data = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", data)
    return bool(uid == os.getuid())


def _answer(conn: socket.socket, folders: _Folders, *, stale: bool) -> bool:
    """Read one request from ``conn`` and answer it; True when it was a hook's, answered
    (what ``answered`` counts: a watch request is not a hook's work)."""
    conn.settimeout(_REQUEST_TIMEOUT)
    try:
        request = receive(conn)
        if stale:
            conn.sendall(pack([b"stale", b"", b""]))
            return False
        if request.startswith(WATCH_REQUEST):
            conn.sendall(folders.answer(request))
            return False
        conn.sendall(handle(request))
    except (OSError, ValueError):
        return False  # the client gave up or sent nonsense: it does the work itself
    return True


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


def handle(request: bytes) -> bytes:
    """The framed answer to one framed request (:mod:`memdir.hooks.client`)."""
    fields = unpack(request)
    if len(fields) < 6 or fields[0] != PROTOCOL:
        raise ValueError("not a hook request")
    from memdir.hooks.client import SERVED
    from memdir.hooks.entry import run_fast

    name, cwd, mask = fields[1].decode(), os.fsdecode(fields[2]), int(fields[3])
    if name not in SERVED:
        raise ValueError(f"not a served hook: {name!r}")
    count = int(fields[4])
    if len(fields) != 6 + count:
        raise ValueError("a hook request with a wrong count of variables")
    env = dict(_pair(item) for item in fields[5 : 5 + count])
    text = fields[5 + count].decode("utf-8", "surrogatepass")
    out: list[str] = []
    err: list[str] = []
    with _as_client(env, cwd, mask):
        run_fast(name, stdin_text=text, env=env, write=out.append, warn=err.append)
    encoded = [s.encode("utf-8", "surrogateescape") for s in ("".join(out), "".join(err))]
    return pack([b"ok", *encoded])


def _pair(item: bytes) -> tuple[str, str]:
    key, sep, value = item.partition(b"\0")
    if not sep or not key:
        raise ValueError("a malformed variable")
    return os.fsdecode(key), os.fsdecode(value)


@contextlib.contextmanager
def _as_client(env: dict[str, str], cwd: str, mask: int) -> Iterator[None]:
    """The client's environment, folder and umask for the length of one request.

    Code that reads ``os.environ`` (``Path.home()``, a subprocess's
    environment), the working folder or the umask sees the hook's, as it
    would in the hook's own process; the server's own are put back after.
    """
    saved_env, saved_tz = dict(os.environ), os.environ.get("TZ")
    here = os.open(".", os.O_RDONLY)  # back to it even if its path is gone meanwhile
    saved_mask = os.umask(mask)
    try:
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
        if env.get("TZ") != saved_tz:
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
