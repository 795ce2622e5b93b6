"""What a server on this machine needs before it serves: its token, and its socket.

Both ``memdir serve --http`` (the MCP server) and ``memdir ui`` (the web page)
answer on loopback behind a bearer token. :func:`resolve_token` gives the token
a server checks: the one the user passed, else the one kept in a file of the
memdir home (0600), generated with :func:`secrets.token_urlsafe` on first use
so clients configured once keep working across restarts. :func:`bind` binds
the listening socket before anything says the server is up, so a port in use
is one clear error rather than a server's raw one after its banner.
"""

from __future__ import annotations

import errno
import secrets
import socket
from pathlib import Path

from memdir.errors import ConfigError
from memdir.storage.fs import FILE_MODE, atomic_write

__all__ = ["LOOPBACK_HOSTS", "bind", "resolve_token"]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
"""The addresses that reach no other machine."""


def resolve_token(home: Path, given: str | None = None, *, file: str = "mcp-token") -> str:
    """``given`` when set, else the token stored in ``home / file``, else a new one stored 0600."""
    if given and given.strip():
        return given.strip()
    path = home / file
    try:
        stored = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        stored = ""
    if stored:
        return stored
    token = secrets.token_urlsafe(32)
    atomic_write(path, token + "\n", mode=FILE_MODE)
    return token


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``; a port in use is a :class:`ConfigError` saying so."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ConfigError(
            f"cannot serve on {host}: {exc.strerror}", hint="pass --host 127.0.0.1"
        ) from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        busy = exc.errno == errno.EADDRINUSE
        raise ConfigError(
            f"cannot serve on {host}:{port}: "
            + ("the port is in use by another program" if busy else str(exc.strerror or exc)),
            hint=f"pass another port, e.g. --port {port + 1}"
            if busy
            else "pass --host 127.0.0.1 or another --port",
        ) from None
    return sock
