"""Sidecar metadata for notes whose text must stay exactly as written.

A note written through Anthropic's memory tool (any text file: ``.txt``,
``.json``, a ``.md`` without frontmatter) must read back byte for byte with
the same line numbers, so memdir cannot put its frontmatter inside it. Its
fields (name, description, type, dates) live instead in a hidden sidecar next
to it: ``<folder>/.meta/<file name>.yaml``, the frontmatter lines alone.
Every walker already skips dot-folders, so the sidecar never shows up as a
file of its own; a file that has one is a memory whatever its extension.

Rules: the sidecar wins over any frontmatter in the file (the file is all
body); it moves and goes to the trash with its note (see
:class:`~memdir.storage.store.MemoryStore`); a sidecar whose note is gone is
ignored.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from memdir.storage.fs import atomic_write, ensure_dir

# Not typing.TYPE_CHECKING: the catalog's check asks whether a file has a sidecar on
# every prompt; the codec (and YAML) load only where a sidecar is read or written.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memdir.model import Memory

__all__ = [
    "SIDECAR_DIR",
    "exists",
    "load_memory",
    "move",
    "path_for",
    "read_fields",
    "remove",
    "write",
]

SIDECAR_DIR = ".meta"
_SUFFIX = ".yaml"


def path_for(note: str | Path) -> Path:
    """Where the sidecar of ``note`` lives (whether or not it exists)."""
    note = Path(note)
    return note.parent / SIDECAR_DIR / f"{note.name}{_SUFFIX}"


def exists(note: str | Path) -> bool:
    """Whether ``note`` has a sidecar (a regular file, never a symlink)."""
    folder, _, name = os.fspath(note).rpartition(os.sep)
    try:
        info = os.lstat(os.path.join(folder, SIDECAR_DIR, f"{name}{_SUFFIX}"))
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(info.st_mode)


def read_fields(note: str | Path) -> dict[str, Any] | None:
    """The sidecar's fields, or None when ``note`` has none.

    Raises :class:`~memdir.errors.ParseError` when the sidecar is not YAML.
    """
    if not exists(note):
        return None
    try:
        text = path_for(note).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None  # removed since it was checked
    from memdir.storage.codec import parse_frontmatter

    return parse_frontmatter(text, path=path_for(note))


def load_memory(text: str, *, path: str | Path) -> Memory:
    """The memory stored at ``path`` with ``text``: sidecar fields + whole text, else parsed."""
    from memdir.storage.codec import memory_from_fields, parse_memory

    fields = read_fields(path)
    if fields is None:
        return parse_memory(text, path=path)
    return memory_from_fields(fields, text, path=path)


def write(note: str | Path, memory: Memory) -> None:
    """Write ``memory``'s fields (not its body) as the sidecar of ``note``, atomically."""
    from dataclasses import replace

    from memdir.storage.codec import render_memory

    rendered = render_memory(replace(memory, body=""))
    lines = rendered.split("\n")
    block = "\n".join(lines[1 : lines.index("---", 1)]) + "\n"  # between the fences
    target = path_for(note)
    ensure_dir(target.parent)
    atomic_write(target, block, sync_dir=False)


def move(old: str | Path, new: str | Path) -> None:
    """Move ``old``'s sidecar (if any) to be ``new``'s; the note itself is moved by the caller."""
    source = path_for(old)
    if not source.is_file():
        return
    ensure_dir(path_for(new).parent)
    os.replace(source, path_for(new))
    _drop_empty(source.parent)


def remove(note: str | Path) -> None:
    """Delete ``note``'s sidecar (if any), and its folder when that is left empty."""
    with contextlib.suppress(FileNotFoundError):
        path_for(note).unlink()
    _drop_empty(path_for(note).parent)


def _drop_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not empty: other notes' sidecars stay
        folder.rmdir()
