"""Linux's inotify, as far as the hook server's folder watch needs it.

The standard library has no binding, and the watch needs exactly the
kernel's semantics: every event a change queued before a read is returned
by that read (inotify queues an event in the very system call that made
the change), so "no event since the last read" means "nothing changed".
Watchers that batch or debounce events (a thread, a timer) cannot promise
that, so this is a thin layer over the three system calls, through libc.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys

__all__ = [
    "IN_ATTRIB",
    "IN_CLOSE_WRITE",
    "IN_CREATE",
    "IN_DELETE",
    "IN_DELETE_SELF",
    "IN_IGNORED",
    "IN_ISDIR",
    "IN_MODIFY",
    "IN_MOVED_FROM",
    "IN_MOVED_TO",
    "IN_MOVE_SELF",
    "IN_ONLYDIR",
    "IN_Q_OVERFLOW",
    "IN_UNMOUNT",
    "Event",
    "Inotify",
    "available",
]

IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_UNMOUNT = 0x2000
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_ISDIR = 0x40000000
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = getattr(os, "O_CLOEXEC", 0o2000000)
_HEADER = struct.Struct("iIII")  # wd, mask, cookie, length of the name that follows
_READ_SIZE = 1 << 16

Event = tuple[int, int, str]
"""One event: (watch descriptor, mask, name in the watched folder or ``""``)."""


def available() -> bool:
    """Whether this system has inotify (Linux)."""
    return sys.platform.startswith("linux")


class Inotify:
    """One inotify instance, read without blocking; close it when done."""

    def __init__(self) -> None:
        if not available():
            raise OSError(errno.ENOSYS, "inotify is Linux's")
        self._libc = ctypes.CDLL(None, use_errno=True)
        fd = self._libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            raise _error("inotify_init1")
        self.fd: int = fd

    def add(self, path: str, mask: int) -> int:
        """Watch ``path`` for ``mask``; the watch descriptor (the same one for a folder
        already watched). Raises :class:`OSError` (``ENOSPC``: the user's watches are used up)."""
        wd = self._libc.inotify_add_watch(self.fd, os.fsencode(path), ctypes.c_uint32(mask))
        if wd < 0:
            raise _error(f"inotify_add_watch {path}")
        return int(wd)

    def remove(self, wd: int) -> None:
        """Stop watch ``wd`` (already gone is fine: its folder was removed)."""
        self._libc.inotify_rm_watch(self.fd, wd)

    def read(self) -> list[Event]:
        """Every event queued now (none: an empty list, at once)."""
        events: list[Event] = []
        while True:
            try:
                data = os.read(self.fd, _READ_SIZE)
            except BlockingIOError:
                return events
            if not data:
                return events
            events += _parse(data)

    def close(self) -> None:
        """Release the instance and all its watches."""
        os.close(self.fd)


def _parse(data: bytes) -> list[Event]:
    events: list[Event] = []
    at = 0
    while at + _HEADER.size <= len(data):
        wd, mask, _cookie, size = _HEADER.unpack_from(data, at)
        at += _HEADER.size
        raw = data[at : at + size].split(b"\0", 1)[0]
        at += size
        events.append((wd, mask, os.fsdecode(raw)))
    return events


def _error(what: str) -> OSError:
    code = ctypes.get_errno()
    return OSError(code, f"{what}: {os.strerror(code)}")
