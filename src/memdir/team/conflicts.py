"""Conflict copies a person settles: kept out of team memory until then, never pushed.

When a sync finds a memory changed on both sides (or the remote's history
rewritten under unpushed work), the remote's version stays in the file and
this clone's version is kept as a **conflict copy** in the team folder's
``.conflicts/`` folder: ``.conflicts/<stem>.conflict-<host>.md``, holding
the local bytes as they were. That folder is excluded in this clone only
(``.git/info/exclude``) and, being a dot-folder, is no memory of the store:
a copy is never committed, pushed, indexed or shown to an agent as an
ordinary memory. ``.conflicts/conflicts.json`` says which file each copy
belongs to and why it was made.

``memdir team status`` and ``memdir doctor`` list the copies until they are
settled; ``memdir team resolve NAME --keep mine|theirs|both`` settles one
(:func:`resolve`; private sync's copies, in the private folder's own
``.conflicts/``, are settled the same way by ``memdir sync resolve``):

* ``mine``: the copy replaces the file (the replaced version goes to the
  trash and the history, as any write);
* ``theirs``: the copy goes to the trash;
* ``both``: the copy becomes a memory of its own, named "<name> (local copy)",
  with its index line; the next sync shares it.

The copy is removed from ``.conflicts/`` only after the write it leads to.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import posixpath
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from memdir.errors import InvalidMemory, MemdirError, MemoryNotFound
from memdir.kinds import Scope
from memdir.storage.codec import parse_memory, render_memory
from memdir.storage.fs import atomic_write, ensure_dir, safe_join

if TYPE_CHECKING:
    from memdir.history.project import ProjectMemory
    from memdir.storage.store import MemoryStore

__all__ = [
    "CONFLICTS_DIR",
    "Keep",
    "PendingConflict",
    "Resolution",
    "add_copy",
    "local_copy",
    "pending_conflicts",
    "resolve",
]

CONFLICTS_DIR = ".conflicts"
_REGISTRY = "conflicts.json"
_COPY_NAME = re.compile(r"^(?P<stem>.+)\.conflict-[a-z0-9-]+(?P<ext>\.[^./]+)$")
Keep = Literal["mine", "theirs", "both"]


@dataclass(frozen=True, kw_only=True)
class PendingConflict:
    """One unsettled conflict copy: ``copy`` relative to the team folder, ``file`` its memory."""

    copy: str
    file: str
    reason: str
    created: float | None = None


@dataclass(frozen=True, kw_only=True)
class Resolution:
    """What :func:`resolve` did: the choice, the memory file written (if any), the copy's fate."""

    keep: Keep
    file: str
    written: str | None
    trashed: Path | None


def _registry_path(root: Path) -> Path:
    return root / CONFLICTS_DIR / _REGISTRY


def _read_registry(root: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(_registry_path(root).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def _write_registry(root: Path, entries: dict[str, dict[str, object]]) -> None:
    ensure_dir(root / CONFLICTS_DIR)
    atomic_write(_registry_path(root), json.dumps(entries, indent=1, sort_keys=True) + "\n")


def add_copy(root: Path, rel: str, data: bytes, reason: str, tag: str) -> str:
    """Keep ``data`` (this clone's version of ``rel``) as a conflict copy; its path.

    An unsettled copy of ``rel`` with the same bytes is reused: a sync that
    was interrupted and ran again makes no second copy. Call it under the
    team store's lock.
    """
    entries = _read_registry(root)
    for copy, entry in entries.items():
        path = root / copy
        if entry.get("file") == rel and path.is_file() and path.read_bytes() == data:
            return copy
    stem, ext = posixpath.splitext(rel)
    copy, n = f"{CONFLICTS_DIR}/{stem}.conflict-{tag}{ext}", 2
    while copy in entries or os.path.lexists(root / copy):
        copy, n = f"{CONFLICTS_DIR}/{stem}.conflict-{tag}-{n}{ext}", n + 1
    target = safe_join(root, copy)
    ensure_dir(target.parent)
    atomic_write(target, data)
    entries[copy] = {"file": rel, "reason": reason, "created": time.time()}
    _write_registry(root, entries)
    return copy


def pending_conflicts(root: Path) -> list[PendingConflict]:
    """Every unsettled copy (a copy file whose entry was lost is listed too)."""
    entries = _read_registry(root)
    out = []
    for copy, entry in sorted(entries.items()):
        if not (root / copy).is_file():
            continue
        created = entry.get("created")
        out.append(
            PendingConflict(
                copy=copy,
                file=str(entry.get("file", "")),
                reason=str(entry.get("reason", "")),
                created=float(created) if isinstance(created, int | float) else None,
            )
        )
    folder = root / CONFLICTS_DIR
    if folder.is_dir():
        for path in sorted(folder.rglob("*")):
            copy = path.relative_to(root).as_posix()
            if copy in entries or not path.is_file() or path.name == _REGISTRY:
                continue
            if path.name.startswith("."):
                continue  # a temp file of an atomic write
            out.append(PendingConflict(copy=copy, file=_original(copy), reason="kept both sides"))
    return out


def _original(copy: str) -> str:
    rel = copy.removeprefix(f"{CONFLICTS_DIR}/")
    folder, name = posixpath.split(rel)
    found = _COPY_NAME.match(name)
    base = f"{found['stem']}{found['ext']}" if found else name
    return posixpath.join(folder, base) if folder else base


def _select(store: MemoryStore, name: str, command: str) -> PendingConflict:
    root = store.root
    pending = pending_conflicts(root)
    wanted = name.strip().removeprefix(f"{Scope.TEAM}/" if store.scope is Scope.TEAM else "")
    matches = [
        p
        for p in pending
        if wanted
        in (p.copy, p.copy.removeprefix(f"{CONFLICTS_DIR}/"), posixpath.basename(p.copy), p.file)
        or wanted == posixpath.splitext(p.file)[0]
    ]
    if not matches:
        try:
            record = store.find(wanted, thorough=False)
        except MemdirError:
            record = None
        if record is not None:
            matches = [p for p in pending if p.file == record.file]
    if not matches:
        listed = ", ".join(p.copy for p in pending) or "none"
        raise MemoryNotFound(
            f"no conflict copy matches {name!r} (unsettled: {listed})",
            hint=f"`memdir {command} status` lists the conflict copies",
        )
    if len(matches) > 1:
        raise InvalidMemory(
            f"{name!r} has {len(matches)} conflict copies: " + ", ".join(p.copy for p in matches),
            hint=f"name one copy: `memdir {command} resolve .conflicts/<copy> --keep ...`",
        )
    return matches[0]


def resolve(
    memdir: ProjectMemory, name: str, keep: Keep, *, scope: Scope = Scope.TEAM
) -> Resolution:
    """Settle the conflict copy ``name`` (the copy, or its memory's file or name).

    ``scope``: whose copies, the team folder's (team sync) or the private
    folder's (private sync).
    """
    store = memdir.store(scope)
    root = store.root
    command = "team" if scope is Scope.TEAM else "sync"
    with store.lock():
        chosen = _select(store, name, command)
    data = (root / chosen.copy).read_bytes()
    written: str | None = None
    if keep == "mine":
        written = chosen.file
        store.write_text(chosen.file, _text(chosen.copy, data), replace=True)
    elif keep == "both":
        written = _keep_both(store, chosen, data)
    with store.lock():
        trashed = _retire(memdir, store, chosen) if keep == "theirs" else None
        (root / chosen.copy).unlink(missing_ok=True)
        entries = _read_registry(root)
        entries.pop(chosen.copy, None)
        _write_registry(root, entries)
    return Resolution(keep=keep, file=chosen.file, written=written, trashed=trashed)


def _text(copy: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidMemory(
            f"the conflict copy {copy} is not UTF-8 text",
            hint="open it, keep what you need by hand, then `--keep theirs`",
        ) from None


def local_copy(data: bytes) -> bytes:
    """A memory file's bytes with " (local copy)" appended to its name.

    Rendered in the file's own frontmatter style (a Claude Code file's name
    is a slug, so it gets ``-local-copy``); unreadable bytes come back as they are.
    """
    try:
        memory = parse_memory(data.decode("utf-8"))
    except (MemdirError, UnicodeDecodeError):
        return data
    if not memory.name:
        return data
    return render_memory(replace(memory, name=f"{memory.name} (local copy)")).encode("utf-8")


def _keep_both(store: MemoryStore, chosen: PendingConflict, data: bytes) -> str:
    """The copy as a memory of its own, "<name> (local copy)", in a free file."""
    text = _text(chosen.copy, local_copy(data))
    stem, ext = posixpath.splitext(chosen.file)
    target, n = f"{stem}_local_copy{ext}", 2
    while os.path.lexists(store.root / target):
        target, n = f"{stem}_local_copy_{n}{ext}", n + 1
    result = store.write_text(target, text)
    return result.record.file


def _retire(memdir: ProjectMemory, store: MemoryStore, chosen: PendingConflict) -> Path:
    """Move the copy to the trash (``.trash/<date>/<scope>-conflicts/...``)."""
    day = memdir.layout.trash_dir / dt.date.today().isoformat() / f"{store.scope}-conflicts"
    rel = chosen.copy.removeprefix(f"{CONFLICTS_DIR}/")
    target, n = safe_join(day, rel), 2
    while target.exists():
        target, n = safe_join(day, f"{rel}.{n}"), n + 1
    ensure_dir(target.parent)
    os.replace(store.root / chosen.copy, target)
    return target
