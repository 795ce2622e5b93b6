"""File-system primitives every write in memdir goes through.

* :func:`safe_join` confines an untrusted relative path to a root: it refuses
  NUL and control characters, absolute paths, drive letters, backslashes,
  ``..`` (also percent-encoded or written with Unicode look-alikes), and any
  path whose existing components resolve (through symlinks) outside the root.
* :func:`atomic_write` writes a unique temp file in the target's directory,
  fsyncs it, renames it over the target and fsyncs the directory, so a reader
  or a crash sees the old file or the new one, never a mix.
* :func:`file_lock` serialises read-modify-write cycles across processes
  (``filelock``), turning a timeout into :class:`~memdir.errors.LockTimeout`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memdir.errors import LockTimeout, UnsafePath

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "atomic_write",
    "ensure_dir",
    "file_lock",
    "fsync_dir",
    "read_json_object",
    "safe_join",
]

DIR_MODE = 0o700
FILE_MODE = 0o600
_MAX_PATH_CHARS = 1024
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
    return candidate


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


def atomic_write(
    path: Path, data: str | bytes, *, mode: int = FILE_MODE, sync_dir: bool = True
) -> None:
    """Replace ``path`` with ``data`` atomically (temp file, fsync, rename, fsync dir).

    ``sync_dir=False`` leaves the directory fsync to the caller's next write
    in the same directory (one fsync makes both renames durable).
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    ensure_dir(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync_dir:
        fsync_dir(path.parent)


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
    """Hold an inter-process lock on ``path`` (created 0600) for the block."""
    import filelock  # loaded by the first lock: read-only commands start without it

    ensure_dir(path.parent)
    lock = filelock.FileLock(str(path), timeout=timeout, mode=FILE_MODE)
    try:
        lock.acquire(poll_interval=0.002)  # waiters retry often: writes hold it for ms
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
