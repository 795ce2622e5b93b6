"""Storage failures as memdir errors: a full disk, an I/O error, a damaged database.

The operating system and SQLite report a full disk in their own words
(``OSError: [Errno 28]``, ``sqlite3.OperationalError: database or disk is
full``, or, when SQLite cannot even grow its shared-memory file, ``disk I/O
error``). Every route that writes (the stores, the history, the catalog)
passes those through :func:`storage_error`, so a caller of the Python API
sees a :class:`~memdir.errors.StorageError` (:class:`~memdir.errors.DiskFull`
for a full disk) naming the file, and the CLI prints one line: ``no space
left on device writing <path>``.

:func:`is_damage` tells a database that is damaged (delete it and rebuild it
from the files) from one that only could not be written now (a full disk, a
lock): derived state is rebuilt only in the first case, so a full disk never
makes memdir throw its catalog away and fill the disk again rebuilding it.

:func:`explain_os_error` turns any other environment failure (a read-only
folder, a directory where a file belongs, a symlink loop) into a
:class:`~memdir.errors.StorageError` naming the path and the next step.

:func:`free_bytes` and :func:`ensure_room` let a large derived write (a
catalog build) refuse to start when it would take the disk's last free
space, instead of failing once that space is gone.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from memdir.errors import DiskFull, MemdirError, StorageError
from memdir.storage.fs import TEMP_PATTERN

__all__ = [
    "describe",
    "ensure_room",
    "explain_os_error",
    "free_bytes",
    "is_damage",
    "is_disk_full",
    "storage_error",
    "translated",
]

_FULL_ERRNOS = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})
# SQLite's primary result codes (the low byte of an extended code).
_SQLITE_IOERR = 10
_SQLITE_CORRUPT = 11
_SQLITE_FULL = 13
_SQLITE_NOTADB = 26
# Below this much free space an SQLite I/O error is taken for a full disk: SQLite
# reports a shared-memory file it cannot grow as an I/O error, not as "full".
_NEARLY_FULL = 1 << 20
_FULL_HINT = "free some space on that disk, then retry"


def free_bytes(path: Path | str) -> int | None:
    """Bytes an unprivileged writer may still use on the disk holding ``path`` (None: unknown).

    ``path`` need not exist: its nearest existing folder is asked.
    """
    probe = Path(path)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        st = os.statvfs(probe)
    except (OSError, AttributeError):  # no statvfs (Windows)
        return None
    return st.f_bavail * st.f_frsize


def ensure_room(path: Path | str, need: int, doing: str, *, reserve: int) -> None:
    """Raise :class:`DiskFull` unless ``need`` bytes fit on ``path``'s disk with ``reserve`` left.

    For derived state (the catalog): it must never take the last free space,
    which the memory files need. ``doing`` says what needs the room.
    """
    room = free_bytes(path)
    if room is None or room - need >= reserve:
        return
    raise DiskFull(
        f"no space left on device writing {path}: {doing} needs about {_kib(need)}, and "
        f"{_kib(room)} is free, of which memdir leaves {_kib(reserve)} to the memory files",
        path=path,
        hint="free some space on that disk and retry; the memory files are not affected",
    )


def _kib(size: int) -> str:
    return f"{max(size, 0) >> 10:,} KiB"


def _sqlite_code(exc: BaseException) -> int | None:
    sqlite3 = sys.modules.get("sqlite3")  # not loaded: no SQLite error can be in hand
    if sqlite3 is None or not isinstance(exc, sqlite3.Error):
        return None
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def is_disk_full(exc: BaseException, path: Path | str | None = None) -> bool:
    """Whether ``exc`` means the disk (holding ``path``) has no room left."""
    if isinstance(exc, OSError):
        return exc.errno in _FULL_ERRNOS
    code = _sqlite_code(exc)
    if code == _SQLITE_FULL or (code is None and "disk is full" in str(exc)):
        return True
    if code == _SQLITE_IOERR and path is not None:
        room = free_bytes(path)
        return room is not None and room < _NEARLY_FULL
    return False


def is_damage(exc: BaseException) -> bool:
    """Whether an SQLite error means the file is damaged (rebuild it), not merely unwritable.

    A full disk, an I/O error, a busy or read-only database are not damage:
    deleting derived state then would lose it for nothing (and rebuilding it
    would fill the disk again).
    """
    sqlite3 = sys.modules.get("sqlite3")
    if sqlite3 is None or not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = _sqlite_code(exc)
    if code is not None:
        return code in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    # Raised by memdir itself (another schema version) or without a code: damage,
    # unless it is an operational failure (a lock, a full disk).
    return not isinstance(exc, sqlite3.OperationalError)


def storage_error(exc: BaseException, path: Path | str | None = None) -> MemdirError:
    """``exc`` (an ``OSError`` or an SQLite error) as a :class:`StorageError` naming the file.

    ``path`` is the file memdir was writing when the error names none.
    """
    if isinstance(exc, MemdirError):
        return exc
    where = _where(exc, path)
    if is_disk_full(exc, where):
        target = f" writing {where}" if where is not None else ""
        return DiskFull(f"no space left on device{target}", path=where, hint=_FULL_HINT)
    if isinstance(exc, OSError):
        return explain_os_error(exc)
    reason = str(exc) or type(exc).__name__
    message = f"cannot use {where}: {reason}" if where is not None else reason
    return StorageError(
        message,
        path=where,
        hint="run `memdir doctor --fix` (derived state is rebuilt from the memory files)",
    )


def _where(exc: BaseException, path: Path | str | None) -> Path | None:
    if isinstance(exc, OSError):
        raw = exc.filename if exc.filename is not None else exc.filename2
        if isinstance(raw, str | bytes | os.PathLike):
            where = Path(os.fsdecode(raw))
            # The temp file of an atomic write: the file it was to replace is the one.
            if TEMP_PATTERN.match(where.name):
                folder = where.parent
                if folder.name == ".staging":  # a write's staged copy: its memory folder
                    folder = folder.parent
                return folder / where.name[1:].rsplit(".", 2)[0]
            return where
    return Path(path) if path is not None else None


@contextlib.contextmanager
def translated(path: Path | str | None = None) -> Iterator[None]:
    """Raise the block's ``OSError`` or SQLite error as a :class:`StorageError`.

    memdir's own errors pass through unchanged.
    """
    try:
        yield
    except MemdirError:
        raise
    except OSError as exc:
        raise storage_error(exc, path) from exc
    except Exception as exc:
        if _sqlite_code(exc) is None and not _is_sqlite(exc):
            raise
        raise storage_error(exc, path) from exc


def _is_sqlite(exc: BaseException) -> bool:
    sqlite3 = sys.modules.get("sqlite3")
    return sqlite3 is not None and isinstance(exc, sqlite3.Error)


def describe(exc: BaseException) -> str:
    """``exc`` in one line: a storage failure as memdir says it, anything else as it is."""
    if isinstance(exc, OSError) or _is_sqlite(exc):
        return str(storage_error(exc))
    return str(exc)


_OS_HINTS = {
    errno.EACCES: "memdir may not write there: check the permissions (chmod u+w) or the owner",
    errno.EPERM: "memdir may not write there: check the permissions (chmod u+w) or the owner",
    errno.EROFS: "the file system is read-only: remount it writable or move the memory home "
    "(MEMDIR_HOME)",
    errno.EISDIR: "a directory sits where memdir expects a file: move the directory aside",
    errno.ENOTDIR: "a file sits where memdir expects a folder: move the file aside",
    errno.ELOOP: "a symbolic link (or a loop of them) sits there: memdir does not follow it; "
    "remove the link",
    errno.ENOSPC: "the disk is full: free some space and retry",
    errno.EDQUOT: "the disk quota is exhausted: free some space and retry",
    errno.ENAMETOOLONG: "the name is too long for the file system: choose a shorter one",
}


def explain_os_error(exc: OSError) -> MemdirError:
    """An environment failure as a :class:`StorageError` naming the path and what to do.

    A full disk is a :class:`DiskFull`: ``no space left on device writing <path>``.
    """
    raw = exc.filename if exc.filename is not None else exc.filename2
    where = Path(os.fsdecode(raw)) if isinstance(raw, str | bytes | os.PathLike) else None
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return storage_error(exc)
    if where is not None and TEMP_PATTERN.match(where.name):
        where = where.parent  # the temp file of an atomic write: the folder is the problem
    reason = exc.strerror or type(exc).__name__
    hint = _OS_HINTS.get(exc.errno or 0, "check the path and its permissions, then retry")
    message = f"cannot use {where}: {reason}" if where is not None else reason
    return StorageError(message, path=where, hint=hint)
