"""Where the hook server listens, and how a request and its answer travel.

The socket lives in a folder only this user can enter:
``$XDG_RUNTIME_DIR/memdir-<uid>/`` (``/tmp/memdir-<uid>/`` without one), made
with mode 0700 and refused unless it is a real folder (no link) owned by this
user and closed to everyone else. One server serves one installation: the
socket's name is a checksum of the Python executable and memdir's package
folder, so two checkouts or two virtual environments never answer for each
other.

A message is a list of byte strings, each framed as ``<length>:<bytes>,``
(a netstring): no JSON, so the client side imports nothing.
This module imports only ``os``, ``stat`` and ``time`` (built into the
interpreter): the client runs it before every prompt.
"""

from __future__ import annotations

import os
import stat
import time

TYPE_CHECKING = False  # not typing's: this module starts hook processes
if TYPE_CHECKING:
    from _socket import socket
    from collections.abc import Mapping

__all__ = [
    "MAX_MESSAGE",
    "PROTOCOL",
    "WATCH_REQUEST",
    "lock_path",
    "pack",
    "package_dir",
    "receive",
    "safe_folder",
    "scopes_of",
    "socket_folder",
    "socket_path",
    "unpack",
    "watch_request",
]

PROTOCOL = b"memdir-hook/1"
WATCH = b"watch"
# How every watch request begins (its first two fields framed): the server's dispatch.
WATCH_REQUEST = b"%d:%s,%d:%s," % (len(PROTOCOL), PROTOCOL, len(WATCH), WATCH)
MAX_MESSAGE = 64 << 20  # bytes: a request or an answer past this is refused
# AF_UNIX paths hold 108 bytes on Linux, 104 on macOS; past this the server is not used.
_MAX_SOCKET_PATH = 100


def package_dir() -> str:
    """memdir's package folder (what the server's name and its code check are about)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def socket_folder(env: Mapping[str, str]) -> str:
    """This user's folder for the server's socket and lock."""
    base = env.get("XDG_RUNTIME_DIR", "").strip() or "/tmp"
    return os.path.join(base, f"memdir-{os.getuid()}")


def socket_path(env: Mapping[str, str], executable: str, package: str | None = None) -> str | None:
    """The socket of the server for ``executable`` and memdir's ``package`` folder (this
    one's by default); None when the path would be too long for a socket."""
    key = _fnv1a(os.fsencode(f"{executable}\0{package or package_dir()}"))
    path = os.path.join(socket_folder(env), f"hooks-{key:08x}.sock")
    return path if len(os.fsencode(path)) <= _MAX_SOCKET_PATH else None


def _fnv1a(data: bytes) -> int:
    """A 32-bit FNV-1a checksum: a name, not a secret (no module to load for it)."""
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def lock_path(socket: str) -> str:
    """The file the running server holds locked (and in which it says who it is)."""
    return socket.removesuffix(".sock") + ".lock"


def safe_folder(folder: str, *, create: bool) -> bool:
    """Whether ``folder`` is this user's own, closed to others (made so with ``create``)."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        if not create:
            return False
        try:
            os.makedirs(os.path.dirname(folder), exist_ok=True)
            os.mkdir(folder, 0o700)
            info = os.lstat(folder)
        except OSError:
            return False
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.getuid()
        and stat.S_IMODE(info.st_mode) & 0o077 == 0
    )


def pack(fields: list[bytes]) -> bytes:
    """``fields`` framed as netstrings, one after the other."""
    return b"".join(b"%d:%s," % (len(field), field) for field in fields)


def receive(sock: socket, timeout: float | None = None) -> bytes:
    """All ``sock`` sends until it shuts its side; a :class:`ValueError` past
    :data:`MAX_MESSAGE` bytes (a timeout or a reset is the socket's :class:`OSError`).

    ``timeout`` bounds the whole message, not each read: a peer that sends a
    byte at a time cannot hold the reader past it.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    while True:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no whole hook message in time")
            sock.settimeout(left)
        chunk = sock.recv(1 << 16)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_MESSAGE:
            raise ValueError("a hook message past its size limit")
        chunks.append(chunk)


def watch_request(scopes: list[tuple[str, list[str]]]) -> bytes:
    """The request for the folder watch's tokens of ``scopes`` (folder, subfolders left out)."""
    fields = [PROTOCOL, WATCH, b"%d" % len(scopes)]
    for root, excluded in scopes:
        fields += [os.fsencode(root), b"\0".join(os.fsencode(e) for e in excluded)]
    return pack(fields)


def scopes_of(request: bytes) -> list[tuple[str, frozenset[str]]]:
    """The scopes of a :func:`watch_request`; a :class:`ValueError` for anything else."""
    fields = unpack(request)
    if len(fields) < 3 or fields[:2] != [PROTOCOL, WATCH] or not fields[2].isdigit():
        raise ValueError("not a watch request")
    count = int(fields[2])
    if len(fields) != 3 + 2 * count:
        raise ValueError("a watch request with a wrong count of folders")
    scopes = []
    for at in range(3, len(fields), 2):
        root = os.fsdecode(fields[at])
        if not os.path.isabs(root) or "\0" in root:
            raise ValueError("a watched folder must be an absolute path")
        excluded = frozenset(os.fsdecode(e) for e in fields[at + 1].split(b"\0") if e)
        scopes.append((root, excluded))
    return scopes


def unpack(data: bytes) -> list[bytes]:
    """The fields :func:`pack` framed; a :class:`ValueError` for anything else."""
    fields: list[bytes] = []
    at = 0
    while at < len(data):
        colon = data.find(b":", at, at + 12)
        if colon < 0 or not data[at:colon].isdigit():
            raise ValueError("not a framed message: a length is missing")
        end = colon + 1 + int(data[at:colon])
        if end >= len(data) or data[end : end + 1] != b",":
            raise ValueError("not a framed message: a field is cut short")
        fields.append(data[colon + 1 : end])
        at = end + 1
    return fields
