"""Pending changes: what agents proposed under ``manual`` review, and a person's verdict.

A pending change is a version the history holds with status ``pending`` (see
:mod:`memdir.history.review`): the text it proposes, the text it was made
against, and the agent's provenance. :func:`pending_changes` lists them with a
unified diff against what the file holds now; :func:`approve` applies one (or
all, oldest first) through the store as an ordinary write that carries the
agent's provenance and the approver (so ``memdir why`` still names the agent's
route and session), refusing one whose file changed since it was proposed;
:func:`reject` marks one rejected. Approved and rejected versions stay in the
history until the retention drops them.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from memdir.errors import Conflict, MemdirError, MemoryNotFound
from memdir.history.project import ProjectMemory
from memdir.history.provenance import local_identity, provenance
from memdir.history.undo import require_history
from memdir.history.versions import APPROVED, REJECTED, Version, blob_hash
from memdir.model import Scope
from memdir.storage import sidecar
from memdir.storage.fs import atomic_write, read_bytes_nofollow, safe_join
from memdir.storage.store import content_version
from memdir.utils.records import record

__all__ = ["Pending", "approve", "pending_changes", "pending_count", "reject"]


@record
class Pending:
    """One change awaiting review, with its diff against the file as it is now."""

    version: Version
    diff: str

    def json_fields(self) -> dict[str, object]:
        return {**self.version.json_fields(), "diff": self.diff}


def pending_changes(memdir: ProjectMemory) -> list[Pending]:
    """Every change awaiting review, oldest first."""
    history = require_history(memdir)
    out = []
    for v in history.pending():
        store = memdir.store(v.scope)
        now = _read(store.root, v.old_file or v.file)
        proposed = history.blob(v.after) if v.after is not None else None
        old_name = f"{v.scope.value}/{v.old_file or v.file}"
        new_name = f"{v.scope.value}/{v.file}" if v.after is not None else "/dev/null"
        diff = "".join(
            difflib.unified_diff(_lines(now), _lines(proposed), fromfile=old_name, tofile=new_name)
        )
        out.append(Pending(version=v, diff=diff))
    return out


def _lines(data: bytes | None) -> list[str]:
    return [] if data is None else data.decode("utf-8", "replace").splitlines(keepends=True)


def _read(root: Path, rel: str) -> bytes | None:
    try:
        return read_bytes_nofollow(safe_join(root, rel))
    except FileNotFoundError:
        return None


def _select(memdir: ProjectMemory, ref: str | None) -> list[Version]:
    """The pending versions of ``ref`` (file or name), or all of them for None."""
    pending = require_history(memdir).pending()
    if ref is None:
        return pending
    key = " ".join(ref.split()).casefold()
    chosen = [
        v
        for v in pending
        if ref in (v.file, f"{v.file}".removesuffix(".md"), v.old_file)
        or (v.name is not None and v.name.casefold() == key)
        or ref in (f"team/{v.file}",)
        or (ref.startswith("v") and ref[1:].isdigit() and int(ref[1:]) == v.id)
    ]
    if not chosen:
        raise MemoryNotFound(
            f"nothing named {ref!r} awaits review",
            hint="run `memdir review` to see what is pending",
        )
    return chosen


def approve(memdir: ProjectMemory, ref: str | None = None) -> list[Version]:
    """Apply the pending changes of ``ref`` (all with None), oldest first; returns them."""
    history = require_history(memdir)
    done = []
    user, host = local_identity()
    for v in _select(memdir, ref):
        with provenance(
            route=v.route,
            client=v.client,
            session=v.session,
            turns=v.turns,
            transcript=v.transcript,
            action="approve",
            approved=f"{user or '?'}@{host or '?'}",
        ):
            _apply(memdir, v)
        history.set_status(v.id, APPROVED)
        done.append(v)
    return done


def reject(memdir: ProjectMemory, ref: str) -> list[Version]:
    """Drop the pending changes of ``ref``: they are never applied; returns them."""
    history = require_history(memdir)
    chosen = _select(memdir, ref)
    for v in chosen:
        history.set_status(v.id, REJECTED)
    return chosen


def _apply(memdir: ProjectMemory, v: Version) -> None:
    """Make the proposed change through the store, if the file is still what it was."""
    history = require_history(memdir)
    store = memdir.store(v.scope)
    source = v.old_file or v.file
    now = _read(store.root, source)
    if (None if now is None else blob_hash(now)) != v.before:
        raise Conflict(
            f"{v.scope.value}:{source} changed since the agent proposed version {v.id}",
            path=store.root / source,
            hint=f"reject it (`memdir review reject v{v.id}`) and save the change by hand",
            expected=v.before or "",
            actual="" if now is None else blob_hash(now),
        )
    current = "" if now is None else content_version(now)
    if v.after is None:
        store.delete(source, expected_version=current)
        return
    if v.old_file is not None:
        store.rename(v.old_file, v.file)
        return
    text = history.blob(v.after)
    if text is None:
        raise MemdirError(f"the text of pending version {v.id} was redacted")
    meta = history.blob(v.meta_after)
    if meta is None:
        store.write_text(v.file, text.decode("utf-8"), expected_version=current)
        return
    path = safe_join(store.root, v.file)
    side = sidecar.path_for(path)
    side.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(side, meta)
    memory = sidecar.load_memory(text.decode("utf-8"), path=path)
    store.write_note(v.file, text.decode("utf-8"), memory, expected_version=current)


def pending_count(memdir: ProjectMemory, scope: Scope | None = None) -> int:
    """How many changes await review (in ``scope``)."""
    if memdir.history_db is None:
        return 0
    return sum(1 for v in memdir.history_db.pending() if scope is None or v.scope is scope)
