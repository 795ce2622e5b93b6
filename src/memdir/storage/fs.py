"""File-system primitives every write in memdir goes through.

* :func:`safe_join` confines an untrusted relative path to a root: it refuses
  NUL and control characters, absolute paths, drive letters, backslashes,
  ``..`` (also percent-encoded or written with Unicode look-alikes), and any
  path whose existing components resolve (through symlinks) outside the root.
* :func:`atomic_write` writes a unique temp file in the target's directory,
  fsyncs it, renames it over the target and fsyncs the directory, so a reader
  or a crash sees the old file or the new one, never a mix. :func:`write_temp`
  is its first half, for writers that rename under a lock they take later.
* :func:`file_lock` serialises read-modify-write cycles across processes
  (``flock``, waiting in the kernel; ``filelock`` where there is none),
  turning a timeout into :class:`~memdir.errors.LockTimeout`.
  :func:`pid_alive` tells whether the process a PID file names (a lock's
  holder, a background job's start record) still runs.
* :func:`read_bytes_nofollow` and :func:`read_text_file` are the one way to
  read a file memdir did not necessarily write: the final component is
  opened with ``O_NOFOLLOW`` where the platform has it (a planted symlink is
  refused, not followed), only regular files are read, and text that is not
  UTF-8 is an error naming the file, the byte and the encoding.
* :func:`file_stamp` (device, inode, size, mtime, ctime) tells derived state
  whether the file it was made from has changed since.
* :func:`refuse_hidden` keeps names with a dot-component (``.git``,
  ``.trash``, ``.x.md``) out of every memory route: memdir never lists them.
* Temp files of :func:`atomic_write` are named ``.<target>.<random>.tmp``
  (:data:`TEMP_PATTERN`); a crash can leave one, and doctor cleans them.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import time
import unicodedata
from pathlib import Path

from memdir.errors import InvalidMemory, LockTimeout, UnsafePath

# Not typing.TYPE_CHECKING: every hook process reads and writes through here.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

__all__ = [
    "ABSENT_STAMP",
    "DIR_MODE",
    "FILE_MODE",
    "TEMP_PATTERN",
    "atomic_write",
    "confined",
    "ensure_dir",
    "fd_stamp",
    "file_lock",
    "file_stamp",
    "fsync_dir",
    "pid_alive",
    "read_bytes_nofollow",
    "read_json_object",
    "read_stamped",
    "read_text_file",
    "refuse_hidden",
    "remove_database",
    "safe_join",
    "write_temp",
]

DIR_MODE = 0o700
FILE_MODE = 0o600
_MAX_PATH_CHARS = 1024
# What atomic_write leaves behind when killed between mkstemp and rename.
TEMP_PATTERN = re.compile(r"^\..+\.[^./]+\.tmp$")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a planted FIFO must not hang the open
_MAX_COMPONENT_BYTES = 255
# Control, format (zero-width, bidi overrides) and line/paragraph separators.
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_DRIVE = re.compile(r"^[A-Za-z]:")
# Characters that render as a slash, backslash or dot and could trick a
# reader (or a later normaliser) into seeing a different path.
_LOOKALIKES = frozenset(
    "\u2215\u2044\u29f8\uff0f\u2571\u29f5\u2216\uff3c\ufe68\u2024\ufe52\uff0e\u3002\u0338"
)


def _refuse(reason: str, raw: str) -> UnsafePath:
    return UnsafePath(
        f"unsafe path {raw!r}: {reason}",
        hint="use a plain relative path inside the memory directory, e.g. 'topic.md'",
    )


def _check_text(raw: str) -> None:
    if not raw or not raw.strip():
        raise _refuse("empty", raw)
    if len(raw) > _MAX_PATH_CHARS:
        raise _refuse(f"longer than {_MAX_PATH_CHARS} characters", raw)
    if any(unicodedata.category(c) in _INVISIBLE for c in raw):
        raise _refuse("contains NUL, a control or an invisible formatting character", raw)
    if "\\" in raw:
        raise _refuse("contains a backslash", raw)
    if _DRIVE.match(raw):
        raise _refuse("starts with a drive letter", raw)
    if raw.startswith(("/", "~")):
        raise _refuse("absolute paths are not allowed", raw)
    if any(c in _LOOKALIKES for c in raw):
        raise _refuse("contains a character that imitates a slash or dot", raw)


_ENCODED = re.compile(r"%[0-9A-Fa-f]{2}")


def _check_encoded(raw: str) -> None:
    # Percent-encoding has no business in a memory file name, and a later
    # layer (a URL, an MCP client) may decode it into a separator or a dot.
    if _ENCODED.search(raw):
        raise _refuse("contains percent-encoded characters", raw)
    normal = unicodedata.normalize("NFKC", raw)
    if normal != raw and (normal.count("/") != raw.count("/") or ".." in normal):
        raise _refuse("Unicode normalisation changes its separators or dots", raw)


def _check_parts(raw: str) -> list[str]:
    if raw.endswith("/"):
        raise _refuse("names a directory, not a file", raw)
    parts = [p for p in raw.split("/") if p not in ("", ".")]
    if not parts:
        raise _refuse("names the root itself", raw)
    for part in parts:
        if part == "..":
            raise _refuse("'..' is not allowed", raw)
        if len(part.encode("utf-8", "surrogatepass")) > _MAX_COMPONENT_BYTES:
            raise _refuse(f"a component is longer than {_MAX_COMPONENT_BYTES} bytes", raw)
    return parts


def safe_join(root: Path, relpath: str) -> Path:
    """``root / relpath``, refusing anything that is not plainly inside ``root``.

    The result never equals the root. Symlinks of every existing component
    are resolved; a path that ends up outside ``root`` is refused.
    """
    return confined(root, relpath)[0]


def confined(root: Path, relpath: str) -> tuple[Path, str]:
    """:func:`safe_join`, and the joined path relative to the resolved root (``a/b.md``)."""
    if not isinstance(relpath, str):
        raise _refuse("not a string", repr(relpath))
    _check_text(relpath)
    _check_encoded(relpath)
    parts = _check_parts(relpath)
    real_root = Path(os.path.realpath(root))
    candidate = real_root.joinpath(*parts)
    resolved = Path(os.path.realpath(candidate))
    if resolved == real_root or not resolved.is_relative_to(real_root):
        raise _refuse("resolves outside the memory directory (through a symlink?)", relpath)
    return candidate, "/".join(parts)


def refuse_hidden(relpath: str) -> None:
    """Refuse a memory path with a hidden component (``.git/x.md``, ``.notes.md``).

    memdir never lists such files, so a memory written there would vanish
    from every listing and doctor would drop its index line.
    """
    for part in relpath.split("/"):
        if part.startswith(".") and part not in (".", ".."):
            raise UnsafePath(
                f"unsafe path {relpath!r}: {part!r} is hidden (starts with a dot)",
                hint="memory files and folders never start with a dot; use e.g. 'topic.md'",
            )


def read_bytes_nofollow(path: Path) -> bytes:
    """The bytes of the regular file ``path``, never through a final symlink.

    Raises :class:`~memdir.errors.UnsafePath` for a symlink and
    :class:`~memdir.errors.InvalidMemory` for a directory, FIFO or device;
    ``FileNotFoundError`` when it is gone.
    """
    with os.fdopen(_open_regular(path), "rb") as handle:
        return handle.read()


def _open_regular(path: Path) -> int:
    """``path`` open for reading, if it is a regular file reached without a final link.

    Raises as :func:`read_bytes_nofollow` does.
    """
    if not _NOFOLLOW and os.path.islink(path):
        raise _link_refused(path)
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _link_refused(path) from None
        if exc.errno == errno.EISDIR:
            raise _not_regular(path) from None
        raise
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        os.close(fd)
        raise
    if not regular:
        os.close(fd)
        raise _not_regular(path)
    return fd


def _link_refused(path: Path) -> UnsafePath:
    return UnsafePath(
        f"{path} is a symbolic link; memdir does not read or write through links",
        path=path,
        hint="replace the link with the file itself, or remove it",
    )


def _not_regular(path: Path) -> InvalidMemory:
    return InvalidMemory(
        f"{path} is not a regular file (a directory, FIFO or device has this name)",
        path=path,
        hint="move it out of the memory folder, or choose another file name",
    )


def read_text_file(path: Path, *, nofollow: bool = True) -> str:
    """``path`` decoded as UTF-8; undecodable bytes are an error naming file and byte."""
    data = read_bytes_nofollow(path) if nofollow else path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidMemory(
            f"{path} is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "memdir reads memory files as UTF-8",
            path=path,
            hint=f"convert it, e.g. iconv -f latin1 -t utf-8 '{path}' > fixed.md, then "
            "move fixed.md over it",
        ) from None


def ensure_dir(path: Path, mode: int = DIR_MODE) -> Path:
    """Create ``path`` and its missing parents with ``mode``; existing ones are kept."""
    missing = []
    probe = path
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for folder in reversed(missing):
        # mkdir(parents=True) would give the intermediate folders the default mode.
        folder.mkdir(mode=mode, exist_ok=True)
    return path


def fsync_dir(directory: Path) -> None:
    """Make the renames and creations in ``directory`` durable (best effort)."""
    with contextlib.suppress(OSError):  # some file systems refuse directory fsync
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def remove_database(path: Path | str) -> None:
    """Delete an SQLite database file with its ``-wal`` and ``-shm`` companions.

    For derived state found damaged (it is rebuilt); a file already gone is fine.
    """
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def write_temp(
    path: Path, data: str | bytes, *, mode: int = FILE_MODE, durable: bool = True
) -> tuple[Path, float]:
    """Write ``data`` to a fresh temp file beside ``path``, fsynced; its path and mtime.

    The first half of :func:`atomic_write`, for callers that rename it into
    place later (under a lock they do not want to hold while fsyncing). The
    caller renames or unlinks it; a crash may leave it (:data:`TEMP_PATTERN`).
    ``durable=False`` skips the fsync (see :func:`atomic_write`).
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    ensure_dir(path.parent)
    fd, tmp = _make_temp(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
            mtime = os.fstat(handle.fileno()).st_mtime
        os.chmod(tmp, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return Path(tmp), mtime


def _make_temp(path: Path) -> tuple[int, str]:
    """A new file ``.<name>.<random>.tmp`` beside ``path``, created exclusively (0600).

    What ``tempfile.mkstemp`` does, without importing ``tempfile`` (it loads shutil,
    bz2, lzma and random): the hooks write small state files on every call.
    """
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(path.parent, f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(path.parent))


def atomic_write(
    path: Path,
    data: str | bytes,
    *,
    mode: int = FILE_MODE,
    sync_dir: bool = True,
    durable: bool = True,
) -> None:
    """Replace ``path`` with ``data`` atomically (temp file, fsync, rename, fsync dir).

    ``sync_dir=False`` leaves the directory fsync to the caller's next write
    in the same directory (one fsync makes both renames durable).
    ``durable=False`` makes no fsync at all, for derived state a crash may
    cost (what a session was shown: a resumed one is shown it again): readers
    still see the old text or the new, whole; after a power cut the file may be
    empty, which such a reader takes as no state.
    """
    tmp, _ = write_temp(path, data, mode=mode, durable=durable)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync_dir and durable:
        fsync_dir(path.parent)


ABSENT_STAMP = "absent"
"""The :func:`file_stamp` of a file that does not exist."""


def _stamp(st: os.stat_result) -> str:
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def file_stamp(path: Path) -> str | None:
    """What changes whenever ``path`` is written or replaced: its device, inode, size, times.

    :data:`ABSENT_STAMP` when it does not exist, ``None`` when it is not a
    regular file (a link, a folder). Two writes of the same size within one
    clock tick of the file system can share a stamp: callers use it to trust
    derived state, not to prove content.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return ABSENT_STAMP
    return _stamp(st) if stat.S_ISREG(st.st_mode) else None


def fd_stamp(fd: int) -> str:
    """The :func:`file_stamp` of the file open as ``fd``."""
    return _stamp(os.fstat(fd))


def read_stamped(path: Path) -> tuple[bytes, str]:
    """The bytes of the regular file ``path`` and the stamp of exactly what was read.

    Never through a final symlink; a missing file reads as ``b""``.
    """
    try:
        fd = _open_regular(path)
    except FileNotFoundError:
        return b"", ABSENT_STAMP
    with os.fdopen(fd, "rb") as handle:
        stamp = fd_stamp(handle.fileno())
        return handle.read(), stamp


def read_json_object(path: Path) -> dict[str, Any] | None:
    """A small JSON state file as a dict; ``None`` when missing, unreadable or not an object.

    State files only remember where work stopped: a damaged one means starting
    over, never an error.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


@contextlib.contextmanager
def file_lock(path: Path, *, timeout: float = 30.0) -> Iterator[None]:
    """Hold an inter-process lock on ``path`` (created 0600) for the block.

    ``flock`` on POSIX: a waiter sleeps in the kernel and wakes when the
    holder lets go, instead of polling (seven polling writers steal the CPU
    the holder needs on a small machine). Elsewhere ``filelock``.
    """
    try:
        import fcntl
    except ImportError:  # Windows
        with _portable_lock(path, timeout=timeout):
            yield
        return
    ensure_dir(path.parent)
    fd = _locked_fd(path, timeout, fcntl)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _locked_fd(path: Path, timeout: float, fcntl: Any) -> int:
    """An open descriptor of the lock file ``path``, locked; LockTimeout after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | _NOFOLLOW, FILE_MODE)
        try:
            if not _flock(fd, max(deadline - time.monotonic(), 0.0), fcntl):
                raise LockTimeout(
                    f"could not take the lock within {timeout:g} s",
                    path=path,
                    hint="another memdir process holds it; retry, or remove the lock file if "
                    "no memdir process is running",
                )
            # A lock file removed (and made again) while we waited locks nothing: retry.
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                return fd
        except FileNotFoundError:
            pass
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)


def _flock(fd: int, timeout: float, fcntl: Any) -> bool:
    """Lock ``fd`` exclusively, waiting at most ``timeout`` seconds; whether it was."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        if timeout <= 0:
            return False
    # The wait blocks in a helper thread (flock has no timeout of its own); a
    # waiter that gives up leaves it to release the lock as soon as it gets it.
    import threading

    waiter = os.dup(fd)
    got, mutex, gave_up = threading.Event(), threading.Lock(), [False]

    def wait() -> None:
        try:
            fcntl.flock(waiter, fcntl.LOCK_EX)
            with mutex:
                if gave_up[0]:
                    fcntl.flock(waiter, fcntl.LOCK_UN)
                else:
                    got.set()
        finally:
            os.close(waiter)

    threading.Thread(target=wait, name="memdir-lock-wait", daemon=True).start()
    if got.wait(timeout):
        return True
    with mutex:
        if got.is_set():
            return True
        gave_up[0] = True
    return False


@contextlib.contextmanager
def _portable_lock(path: Path, *, timeout: float) -> Iterator[None]:
    import filelock  # where there is no flock

    ensure_dir(path.parent)
    lock = filelock.FileLock(str(path), timeout=timeout, mode=FILE_MODE)
    try:
        lock.acquire(poll_interval=0.002)
    except filelock.Timeout:
        raise LockTimeout(
            f"could not take the lock within {timeout:g} s",
            path=path,
            hint="another memdir process holds it; retry, or remove the lock file if no "
            "memdir process is running",
        ) from None
    try:
        yield
    finally:
        lock.release()


def pid_alive(pid: int) -> bool:
    """Whether a process with ``pid`` exists (signal 0 checks without sending)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, under another user
    except OSError:
        return False
    return True
