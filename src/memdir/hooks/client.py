"""Asking the hook server for a hook's answer, and starting it when it is not running.

Session start and per-prompt recall spend most of a fresh process's time
importing (SQLite, pathlib, the search code) before a few milliseconds of
work. A server started once (:mod:`memdir.hooks.server`) keeps
those modules loaded: the hook process sends it the hook's input, its
environment, folder and umask, and prints what comes back. The hook process
itself then loads no more than this module and the interpreter's socket
extension.

Nothing depends on the server. Whenever it cannot answer (not running,
another installation's, busy past :data:`TIMEOUT`, its code changed on
disk), :func:`answer` returns None and the hook does the work itself, as it
always did; a missing server is started in the background for the next
call, at most once every :data:`SPAWN_PAUSE` seconds. ``MEMDIR_HOOK_SERVER=0``
(or ``off``, ``false``, ``no``) turns the server off: no connection, no start.
"""

from __future__ import annotations

import os
import sys
import time

from memdir.hooks.wire import (
    PROTOCOL,
    pack,
    package_dir,
    receive,
    safe_folder,
    socket_folder,
    socket_path,
    unpack,
    watch_request,
)

TYPE_CHECKING = False  # not typing's: this module runs before every prompt
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

__all__ = [
    "SERVED",
    "SPAWN_PAUSE",
    "TIMEOUT",
    "WATCH_TIMEOUT",
    "answer",
    "server_enabled",
    "start_server",
    "watch_tokens",
]

SERVED = ("session-start", "user-prompt-submit")
"""The hooks the server answers (not ``--model``). ``pre-tool-use`` does its own work,
always, and asks the server only whether the memory folders changed since its last walk
(:func:`watch_tokens`): a round trip, where the walk stats every memory file."""
TIMEOUT = 10.0  # seconds a hook waits for the server before doing the work itself
WATCH_TIMEOUT = 1.0  # seconds pre-tool-use waits for the watch's tokens before it walks
SPAWN_PAUSE = 30.0  # seconds between two attempts to start a server that is missing
_OFF = ("0", "off", "false", "no")


def server_enabled(env: Mapping[str, str]) -> bool:
    """Whether hooks may use (and start) the server: on POSIX systems (a Unix socket, a
    user id), unless ``MEMDIR_HOOK_SERVER`` says no."""
    if os.name != "posix":
        return False
    return env.get("MEMDIR_HOOK_SERVER", "").strip().lower() not in _OFF


def answer(name: str, stdin_text: str, env: Mapping[str, str]) -> tuple[str, str] | None:
    """The server's (stdout, stderr) for hook ``name``, or None: do the work here."""
    if name not in SERVED or not server_enabled(env):
        return None
    path = _reachable(env)
    if path is None:
        return None
    request = _request(name, stdin_text, env)
    if request is None:
        return None
    reply = _exchange(env, path, request, TIMEOUT)
    return None if reply is None else _answer_of(reply)


def watch_tokens(
    scopes: Sequence[tuple[str, str, Collection[str]]], env: Mapping[str, str]
) -> list[str] | None:
    """The server's folder-watch tokens for the rule walk's ``scopes``
    (:mod:`memdir.hooks.folder_watch`), or None: walk.

    ``scopes`` are the rule cache's (scope name, folder, subfolders left out).
    """
    if not server_enabled(env):
        return None
    path = _reachable(env)
    if path is None:
        return None
    request = watch_request([(root, sorted(excluded)) for _, root, excluded in scopes])
    reply = _exchange(env, path, request, WATCH_TIMEOUT)
    try:
        fields = unpack(reply) if reply is not None else []
    except ValueError:
        return None
    if len(fields) != 1 + len(scopes) or fields[0] != b"ok":
        return None
    return [field.decode("ascii", "replace") for field in fields[1:]]


def _reachable(env: Mapping[str, str]) -> str | None:
    """The server's socket, when its folder is safe to use (else a start is tried)."""
    path = socket_path(env, sys.executable)
    if path is None or not safe_folder(socket_folder(env), create=False):
        if path is not None:
            start_server(env, path)
        return None
    return path


def _exchange(env: Mapping[str, str], path: str, request: bytes, timeout: float) -> bytes | None:
    """The server's reply to ``request``; None when none came (a missing server is started)."""
    import _socket  # the C extension: socket.py would load enum, selectors and more

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        try:
            sock.connect(path)
        except OSError:
            start_server(env, path)
            return None
        sock.sendall(request)
        sock.shutdown(_socket.SHUT_WR)
        return receive(sock, timeout)  # the whole answer within it, however it trickles
    except (OSError, ValueError):
        return None  # timed out, cut off or too long: this process answers instead
    finally:
        sock.close()


def _request(name: str, stdin_text: str, env: Mapping[str, str]) -> bytes | None:
    try:
        cwd = os.getcwd()
    except OSError:
        return None  # a folder removed under us: the work here says so as it always did
    mask = os.umask(0)
    os.umask(mask)
    pairs = [os.fsencode(k) + b"\0" + os.fsencode(v) for k, v in env.items()]
    fields = [PROTOCOL, name.encode(), os.fsencode(cwd), b"%d" % mask, b"%d" % len(pairs)]
    text = stdin_text.encode("utf-8", "surrogatepass")
    return pack([*fields, *pairs, text])


def _answer_of(reply: bytes) -> tuple[str, str] | None:
    try:
        fields = unpack(reply)
    except ValueError:
        return None
    if len(fields) != 3 or fields[0] != b"ok":
        return None  # "stale" (the server stops) or anything unexpected
    return fields[1].decode("utf-8", "replace"), fields[2].decode("utf-8", "replace")


def start_server(env: Mapping[str, str], path: str) -> bool:
    """Start the server for ``path`` detached, unless one was started moments ago.

    True when a process was started. It runs in a session of its own with its
    standard streams on the null device, so nothing waits for it to end.
    """
    if not server_enabled(env) or not safe_folder(socket_folder(env), create=True):
        return False
    marker = path.removesuffix(".sock") + ".spawn"
    try:
        if time.time() - os.stat(marker).st_mtime < SPAWN_PAUSE:
            return False
    except OSError:
        pass
    try:
        os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        os.utime(marker)
        launcher = os.path.join(package_dir(), "hook_launcher.py")
        argv = [sys.executable, "-P", launcher, "hook", "server", "run"]
        devnull = os.devnull
        actions: list[tuple[int, ...] | tuple[int, int, str, int, int]] = [
            (os.POSIX_SPAWN_OPEN, 0, devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ]
        actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited()]
        os.posix_spawn(sys.executable, argv, dict(env), file_actions=actions, setsid=True)
    except (OSError, NotImplementedError, ValueError):  # no spawn here: hooks do their work
        return False
    return True


def _inherited() -> list[int]:
    """This process's descriptors past the standard three that a child would inherit.

    The agent may hand its hook more than stdin, stdout and stderr (a pipe it
    reads to its end): a server holding a copy for ten minutes would keep the
    agent waiting on it.
    """
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        found = []
        for name in names:
            if name.isdigit() and int(name) > 2:
                try:
                    if os.get_inheritable(int(name)):
                        found.append(int(name))
                except OSError:
                    continue  # the listing's own descriptor, closed by now
        return found
    return []
