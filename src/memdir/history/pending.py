"""Pending changes: what waits for a person, and a person's verdict.

A pending change is a version the history holds with status ``pending`` (see
:mod:`memdir.history.review`): an agent's change under ``manual`` review, or
one screening held in any mode, or a teammate's pulled file screening held
(:mod:`memdir.team.incoming`). It keeps the text it proposes, the text it was
made against, its provenance and why it is held. :func:`pending_changes` lists them with a
unified diff against what the file holds now; :func:`approve` applies one (or
all, oldest first) through the store as an ordinary write that carries the
agent's provenance and the approver (so ``memdir why`` still names the agent's
route and session), refusing one whose file changed since it was proposed;
:func:`reject` marks one rejected; :func:`edit_pending` saves a person's
edit of one as their own change (the proposal's every other field kept: its
``enforce:`` rules, anchors, unknown fields), compared with the file as the
person's page showed it, and marks the proposal rejected. Approved and
rejected versions stay in the history until the retention drops them.

An approval is begun as an intent (:mod:`memdir.history.intents`) and marked
approved once its write is made: one a kill cut short stays pending, is listed
as cut short (status ``approving`` in the listing), and approving it again
completes it, without writing twice: a version whose text the file already
holds, or that a recorded approval already applied, is only marked approved.
"""

from __future__ import annotations

import dataclasses
import difflib
from pathlib import Path

from memdir.errors import Conflict, InvalidMemory, MemdirError, MemoryNotFound
from memdir.history.intents import APPROVE
from memdir.history.project import ProjectMemory
from memdir.history.provenance import local_identity, provenance
from memdir.history.undo import require_history
from memdir.history.versions import (
    APPROVED,
    APPROVING,
    PENDING,
    REJECTED,
    History,
    Version,
    blob_hash,
)
from memdir.model import MemoryType, Scope
from memdir.storage import sidecar
from memdir.storage.fs import atomic_write, read_bytes_nofollow, safe_join
from memdir.storage.store import WriteResult, content_version
from memdir.utils.records import record, replace

__all__ = ["Pending", "approve", "edit_pending", "pending_changes", "pending_count", "reject"]


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
    cut_short = {i.target for i in history.intents(APPROVE)}
    out = []
    for v in history.pending():
        if v.id in cut_short:  # the listing says so; the row stays pending
            v = replace(v, status=APPROVING)
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
    """Apply the pending changes of ``ref`` (all with None), oldest first; returns them.

    Each is begun as an intent and marked approved once its write is made; one
    cut short before (a kill) is completed here.
    """
    history = require_history(memdir)
    done = []
    user, host = local_identity()
    for v in _select(memdir, ref):
        history.begin_approval(v.id)
        if not _applied(memdir, history, v):
            try:
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
            except MemdirError:  # refused (changed since, a full disk): nothing was written
                history.drop_approval(v.id)
                raise
        history.set_status(v.id, APPROVED)
        done.append(v)
    return done


def reject(memdir: ProjectMemory, ref: str) -> list[Version]:
    """Drop the pending changes of ``ref``: they are never applied; returns them.

    An approval cut short after its write was made is not rejected: approving
    it again completes it.
    """
    history = require_history(memdir)
    chosen = _select(memdir, ref)
    for v in chosen:
        if history.intent(APPROVE, v.id) is not None and _applied(memdir, history, v):
            raise Conflict(
                f"version {v.id} is applied already (its approval was cut short)",
                path=memdir.store(v.scope).root / v.file,
                hint=f"`memdir review approve v{v.id}` completes it; `memdir undo` reverses it",
            )
    for v in chosen:
        history.set_status(v.id, REJECTED)
    return chosen


def _applied(memdir: ProjectMemory, history: History, v: Version) -> bool:
    """Whether pending version ``v`` is in memory already: an approval recorded its write,
    or the files hold what it proposes (an approval cut short, or the same change made)."""
    if _approval_recorded(history, v):
        return True
    store = memdir.store(v.scope)
    now = _read(store.root, v.file)
    held = None if now is None else blob_hash(now)
    if v.old_file is not None and v.old_file != v.file:
        return held == v.after and _read(store.root, v.old_file) is None
    return held == v.after and held != v.before


def _approval_recorded(history: History, v: Version) -> bool:
    """Whether an applied version later than ``v`` records its approval (same file, text)."""
    row = (
        history._conn()
        .execute(
            "SELECT 1 FROM versions WHERE scope = ? AND file = ? AND id > ? AND status IS NULL "
            "AND action = 'approve' AND after IS ? AND route = ? AND session IS ? LIMIT 1",
            (v.scope.value, v.file, v.id, v.after, v.route, v.session),
        )
        .fetchone()
    )
    return row is not None


def edit_pending(
    memdir: ProjectMemory,
    version_id: int,
    *,
    description: str,
    type: MemoryType | str,
    body: str,
    expected_version: str | None = None,
) -> WriteResult:
    """Save a person's edit of pending change ``version_id``, then reject the proposal.

    The memory written is the one the proposal holds with the person's description,
    type and body: every other field of it stays (its ``enforce:`` rules, anchors,
    source, unknown fields). The write is compared with ``expected_version``, the
    file's version the person's page showed (``""``: absent); None compares with
    the file the proposal was made against. Either way a change made since is a
    :class:`~memdir.errors.Conflict`, never overwritten.
    """
    history = require_history(memdir)
    v = history.version(version_id)
    if v is None or v.status != PENDING:
        raise MemoryNotFound(f"no pending change v{version_id}", hint="it may be decided already")
    if v.after is None:
        raise InvalidMemory(f"v{v.id} proposes a deletion: approve or reject it")
    text = history.blob(v.after)
    if text is None:
        raise InvalidMemory(f"the text of pending version {v.id} was redacted")
    store = memdir.store(v.scope)
    proposed = sidecar.load_memory(text.decode("utf-8", "replace"), path=store.root / v.file)
    edited = dataclasses.replace(
        proposed, description=description, type=MemoryType(type), body=body
    )
    if expected_version is None:
        before = history.blob(v.before) if v.before is not None else None
        expected_version = "" if before is None else content_version(before)
    result = store.write(edited, file=v.file, expected_version=expected_version)
    history.set_status(v.id, REJECTED)  # the person's text replaced the proposal
    return result


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
