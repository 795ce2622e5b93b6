"""A consolidation's changeset: what it changes, why, and the verbs that decide it.

A :class:`Proposal` lists one :class:`ProposedChange` per memory file a run
created, updated or deleted: the text before and after, the model's reason
and the sources it named (log dates, memory files, transcript hits). The
index is not a change of its own: applying memories through the store keeps
it in step, and the doctor pass after an apply repairs the rest, as after a
run in place.

Proposals are JSON files under the project's derived state
(``.memdir/proposals/<id>.json``), written atomically under one lock; an id
is checked against its pattern before it names a file, since ids come from
browsers and command lines. :func:`apply_changes` applies some or all of the
changes through the store as one change set in the history (route
``consolidation``, both indexes snapshotted), after checking that every
memory still holds the proposal's ``before`` text; :func:`rollback_changes`
undoes each change set it recorded, newest first, so the folder is byte for
byte what it was before the apply, and marks the proposal rolled back only
once every one is undone (and never when it reversed nothing).
:func:`drop_holding` deletes the proposals that keep a text a redaction
removes.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import difflib
import json
import re
import secrets
from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from memdir.agents.consolidate.tools import Changes
from memdir.errors import Conflict, InvalidMemory, MemdirError, MemoryNotFound
from memdir.history.intents import UNDO
from memdir.history.project import ProjectMemory
from memdir.history.provenance import local_identity, provenance
from memdir.history.review import review_mode
from memdir.history.undo import require_history, undo_change
from memdir.history.versions import History, blob_hash
from memdir.model import Scope
from memdir.recall.doctor import diagnose
from memdir.storage.codec import parse_memory
from memdir.storage.fs import atomic_write, ensure_dir, file_lock, read_bytes_nofollow, safe_join
from memdir.storage.memory_index import INDEX_NAME
from memdir.storage.store import content_version

__all__ = [
    "Proposal",
    "ProposedChange",
    "Status",
    "apply_changes",
    "changes_from_history",
    "changes_from_trees",
    "drop_holding",
    "load",
    "load_all",
    "new_id",
    "one_change",
    "proposals_dir",
    "rollback_changes",
    "save",
    "set_status",
]

Kind = Literal["create", "update", "delete"]
Status = Literal["pending", "applied", "partial", "rolled-back", "rejected"]
_ID = re.compile(r"\A[0-9]{8}-[0-9]{6}-[0-9a-f]{6}\Z")
_DIR = "proposals"
_VERSION = 1


@dataclass(frozen=True)
class ProposedChange:
    """One memory file a consolidation creates, updates or deletes."""

    index: int  # 1-based, as `memdir consolidate apply ID --only 1,3` names it
    kind: Literal["create", "update", "delete"]
    name: str  # the memory's name (after the change; before it for a delete)
    scope: str  # "private" or "team"
    reason: str  # the model's reason ("" when it gave none)
    sources: tuple[str, ...]  # what the model said it rests on
    before: str | None  # the file's text when proposed (None: it did not exist)
    after: str | None  # the text proposed (None: deleted)
    applied: bool

    @property
    def file(self) -> str:
        """The file, relative to its scope's folder."""
        return self._file

    def diff(self) -> str:
        """The unified diff from ``before`` to ``after``."""
        label = f"{self.scope}/{self._file}"
        lines = difflib.unified_diff(
            _lines(self.before),
            _lines(self.after),
            fromfile=f"a/{label}" if self.before is not None else "/dev/null",
            tofile=f"b/{label}" if self.after is not None else "/dev/null",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    # The file is carried beside the public fields (set by _change), not as one:
    # the public shape is fixed for the pages that render it.
    _file: str = ""


@dataclass(frozen=True)
class Proposal:
    """A consolidation's changeset and what became of it."""

    id: str
    created: dt.datetime
    status: Literal["pending", "applied", "partial", "rolled-back", "rejected"]
    summary: str
    changes: tuple[ProposedChange, ...]


def _lines(text: str | None) -> list[str]:
    return [] if text is None else text.splitlines(keepends=True)


def _change(
    index: int, scope: Scope, file: str, before: str | None, after: str | None, changes: Changes
) -> ProposedChange:
    kind: Kind = "create" if before is None else "delete" if after is None else "update"
    ref = f"team/{file}" if scope is Scope.TEAM else file
    return ProposedChange(
        index=index,
        kind=kind,
        name=_name_of(after if after is not None else before, file),
        scope=scope.value,
        reason=changes.reason(ref),
        sources=changes.sources(ref),
        before=before,
        after=after,
        applied=False,
        _file=file,
    )


def _name_of(text: str | None, file: str) -> str:
    try:
        return parse_memory(text or "").name or file
    except MemdirError:
        return file


def _split(ref: str) -> tuple[Scope, str]:
    if ref.startswith("team/"):
        return Scope.TEAM, ref.removeprefix("team/")
    return Scope.PRIVATE, ref


def _text(root: Path, file: str) -> str | None:
    try:
        return read_bytes_nofollow(safe_join(root, file)).decode("utf-8")
    except FileNotFoundError:
        return None


# --- building a changeset ------------------------------------------------------------


def changes_from_trees(
    before: ProjectMemory, after: ProjectMemory, changes: Changes
) -> tuple[ProposedChange, ...]:
    """The changes of a run on a scratch copy: ``before`` the real folder, ``after`` the copy."""
    out: list[ProposedChange] = []
    for ref in changes.refs():
        scope, file = _split(ref)
        old = _text(before.store(scope).root, file)
        new = _text(after.store(scope).root, file)
        if old != new:
            out.append(_change(len(out) + 1, scope, file, old, new, changes))
    return tuple(out)


def changes_from_history(
    history: History, change: int, changes: Changes
) -> tuple[ProposedChange, ...]:
    """The changes of a run made in place, read from its change set in the history."""
    first: dict[tuple[Scope, str], bytes | None] = {}
    last: dict[tuple[Scope, str], bytes | None] = {}
    for v in reversed(history.versions(change=change, applied=True)):  # oldest first
        if v.file == INDEX_NAME:
            continue
        key = (v.scope, v.file)
        first.setdefault(key, history.blob(v.before))
        last[key] = history.blob(v.after)
    out: list[ProposedChange] = []
    for (scope, file), old in first.items():
        new = last[(scope, file)]
        if old != new:
            decoded = [None if b is None else b.decode("utf-8", "replace") for b in (old, new)]
            change_ = _change(len(out) + 1, scope, file, decoded[0], decoded[1], changes)
            out.append(replace(change_, applied=True))
    return tuple(out)


# --- the store of proposals ------------------------------------------------------------


def proposals_dir(memdir: ProjectMemory) -> Path:
    """Where a project's proposals are kept (derived state)."""
    return memdir.layout.state_dir / _DIR


def new_id(now: dt.datetime) -> str:
    """A fresh id: the time to the second, and six random hex digits."""
    return f"{now.astimezone(dt.UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def _path(memdir: ProjectMemory, proposal_id: str) -> Path:
    if not isinstance(proposal_id, str) or not _ID.match(proposal_id):
        raise InvalidMemory(
            f"{proposal_id!r} is not a proposal id",
            hint="ids look like 20260305-120000-a1b2c3; `memdir consolidate proposals` lists them",
        )
    return proposals_dir(memdir) / f"{proposal_id}.json"


@contextlib.contextmanager
def _locked(memdir: ProjectMemory) -> Iterator[None]:
    folder = ensure_dir(proposals_dir(memdir))
    with file_lock(folder / ".lock"):
        yield


def save(memdir: ProjectMemory, proposal: Proposal, *, change_sets: tuple[int, ...] = ()) -> None:
    """Write ``proposal`` atomically; ``change_sets`` are the history changes it applied.

    Decided proposals older than the history's retention go: their rollback
    needs versions the history no longer keeps. Pending ones stay.
    """
    path = _path(memdir, proposal.id)
    with _locked(memdir):
        _write(path, proposal, change_sets)
        _prune(memdir, keep=proposal.id)


def _prune(memdir: ProjectMemory, *, keep: str) -> None:
    cutoff = dt.datetime.now(dt.UTC) - dt.timedelta(days=memdir.settings.history_retention_days)
    for path in proposals_dir(memdir).glob("*.json"):
        if path.stem == keep or not _ID.match(path.stem):
            continue
        with contextlib.suppress(MemdirError):
            proposal = load(memdir, path.stem)[0]
            if proposal.status not in ("pending", "partial") and proposal.created < cutoff:
                path.unlink(missing_ok=True)


def _write(path: Path, proposal: Proposal, change_sets: tuple[int, ...]) -> None:
    data = {
        "format": _VERSION,
        "id": proposal.id,
        "created": proposal.created.isoformat(),
        "status": proposal.status,
        "summary": proposal.summary,
        "change_sets": list(change_sets),
        "changes": [
            {
                "index": c.index,
                "kind": c.kind,
                "name": c.name,
                "scope": c.scope,
                "file": c.file,
                "reason": c.reason,
                "sources": list(c.sources),
                "before": c.before,
                "after": c.after,
                "applied": c.applied,
            }
            for c in proposal.changes
        ],
    }
    atomic_write(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def load(memdir: ProjectMemory, proposal_id: str) -> tuple[Proposal, tuple[int, ...]]:
    """A proposal and the history change sets it applied; a clear error when unknown."""
    path = _path(memdir, proposal_id)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MemoryNotFound(
            f"there is no consolidation proposal {proposal_id}",
            path=path,
            hint="`memdir consolidate proposals` lists them",
        ) from None
    except (OSError, ValueError) as exc:
        raise MemdirError(f"the proposal file cannot be read: {exc}", path=path) from None
    try:
        return _parse(data), tuple(int(c) for c in data.get("change_sets", ()))
    except (KeyError, TypeError, ValueError) as exc:
        raise MemdirError(
            f"the proposal file is damaged ({exc!r})",
            path=path,
            hint="delete it; nothing in memory depends on it",
        ) from None


def _parse(data: dict[str, Any]) -> Proposal:
    changes = tuple(
        ProposedChange(
            index=int(c["index"]),
            kind=c["kind"],
            name=str(c["name"]),
            scope=Scope(c["scope"]).value,
            reason=str(c["reason"]),
            sources=tuple(str(s) for s in c["sources"]),
            before=c["before"],
            after=c["after"],
            applied=bool(c["applied"]),
            _file=str(c["file"]),
        )
        for c in data["changes"]
    )
    created = dt.datetime.fromisoformat(str(data["created"]))
    created = created if created.tzinfo is not None else created.astimezone()  # local time
    status = data["status"]
    if status not in ("pending", "applied", "partial", "rolled-back", "rejected"):
        raise ValueError(f"unknown status {status!r}")
    return Proposal(
        id=str(data["id"]),
        created=created,
        status=status,
        summary=str(data["summary"]),
        changes=changes,
    )


def load_all(memdir: ProjectMemory) -> list[Proposal]:
    """Every readable proposal, newest first (a damaged file is skipped)."""
    folder = proposals_dir(memdir)
    if not folder.is_dir():
        return []
    out = []
    for path in folder.glob("*.json"):
        if _ID.match(path.stem):
            with contextlib.suppress(MemdirError):
                out.append(load(memdir, path.stem)[0])
    return sorted(out, key=lambda p: (p.created, p.id), reverse=True)


def drop_holding(memdir: ProjectMemory, texts: Collection[str]) -> list[str]:
    """Delete the proposals that hold any of ``texts`` (blob hashes of a file's bytes).

    A redaction asks: a proposal keeps each change's text before and after.
    Returns the ids dropped.
    """
    folder = proposals_dir(memdir)
    if not folder.is_dir() or not texts:
        return []
    wanted, dropped = set(texts), []
    with _locked(memdir):
        for path in sorted(folder.glob("*.json")):
            if _ID.match(path.stem) and _held(path) & wanted:
                path.unlink(missing_ok=True)
                dropped.append(path.stem)
    return dropped


def _held(path: Path) -> set[str]:
    """The blob hashes of the texts a proposal file keeps (none when unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        changes = data.get("changes", ()) if isinstance(data, dict) else ()
    except (OSError, ValueError):
        return set()
    return {
        blob_hash(text.encode("utf-8"))
        for change in changes
        if isinstance(change, dict)
        for text in (change.get("before"), change.get("after"))
        if isinstance(text, str)
    }


def set_status(memdir: ProjectMemory, proposal_id: str, status: Status) -> Proposal:
    """Mark a proposal (rejected, say) and return it."""
    with _locked(memdir):
        proposal, sets = load(memdir, proposal_id)
        proposal = replace(proposal, status=status)
        _write(_path(memdir, proposal_id), proposal, sets)
    return proposal


def status_of(changes: Collection[ProposedChange]) -> Status:
    """``applied`` when every change is, ``partial`` when some are, else ``pending``."""
    done = sum(1 for c in changes if c.applied)
    return "applied" if changes and done == len(changes) else "partial" if done else "pending"


# --- applying and rolling back ---------------------------------------------------------


@contextlib.contextmanager
def one_change(memdir: ProjectMemory, session: str | None = None) -> Iterator[int | None]:
    """The block is one change in the history (route ``consolidation``); yields its id.

    Both indexes are copied first: the doctor pass rewrites them wholesale.
    """
    with provenance(route="consolidation", session=session):
        history = memdir.history_db
        if history is None:
            yield None
            return
        indexes = {Scope.PRIVATE: memdir.private.index_path, Scope.TEAM: memdir.team.index_path}
        with history.change_set("consolidation", snapshots=indexes) as change:
            yield change


def apply_changes(
    memdir: ProjectMemory,
    proposal_id: str,
    *,
    only: Collection[int] | None = None,
    approved: bool = True,
) -> Proposal:
    """Apply the chosen changes (all not yet applied with None) as one undoable change.

    ``approved``: a person decided (the writes are not held for review);
    else only the changes in a scope under ``auto`` review are applied.
    Refuses, changing nothing, when a memory no longer holds the text it was
    proposed against.
    """
    history = require_history(memdir)
    with _locked(memdir):
        proposal, sets = load(memdir, proposal_id)
        chosen = _chosen(memdir, proposal, only, approved=approved)
        if not chosen:
            return proposal
        for change in chosen:
            _check_current(memdir, proposal.id, change)
        user, host = local_identity()
        who = f"{user or '?'}@{host or '?'}" if approved else None
        with provenance(approved=who), one_change(memdir) as made:
            for change in chosen:
                _apply_one(memdir, change)
            diagnose(memdir, fix=True)
        done = {c.index for c in chosen}
        changes = tuple(replace(c, applied=c.applied or c.index in done) for c in proposal.changes)
        proposal = replace(proposal, changes=changes, status=status_of(changes))
        recorded = sets + ((made,) if made is not None and _kept(history, made) else ())
        _write(_path(memdir, proposal.id), proposal, recorded)
    return proposal


def _kept(history: History, change: int) -> bool:
    return bool(history.versions(change=change, applied=True)) or bool(history.snapshots(change))


def _chosen(
    memdir: ProjectMemory, proposal: Proposal, only: Collection[int] | None, *, approved: bool
) -> list[ProposedChange]:
    if proposal.status in ("rolled-back", "rejected"):
        raise MemdirError(
            f"proposal {proposal.id} was {proposal.status}: it is not applied again",
            hint="run `memdir consolidate --propose` for a fresh proposal",
        )
    indexes = {c.index for c in proposal.changes}
    unknown = sorted(set(only or ()) - indexes)
    if unknown:
        raise InvalidMemory(
            f"proposal {proposal.id} has no change {', '.join(map(str, unknown))}",
            hint=f"its changes are numbered 1 to {len(indexes)} (`memdir consolidate show ID`)",
        )
    wanted = None if only is None else set(only)
    chosen = [
        c for c in proposal.changes if not c.applied and (wanted is None or c.index in wanted)
    ]
    if not approved:
        chosen = [c for c in chosen if review_mode(memdir.settings, Scope(c.scope)) == "auto"]
    return chosen


def _check_current(memdir: ProjectMemory, proposal_id: str, change: ProposedChange) -> None:
    root = memdir.store(change.scope).root
    now = _text(root, change.file)
    if now != change.before:
        raise Conflict(
            f"{change.scope}:{change.file} changed since proposal {proposal_id} was made "
            f"(change {change.index}); nothing was applied",
            path=root / change.file,
            hint="apply the other changes with --only, or make a fresh proposal "
            "(`memdir consolidate --propose`)",
            expected="" if change.before is None else content_version(change.before.encode()),
            actual="" if now is None else content_version(now.encode()),
        )


def _apply_one(memdir: ProjectMemory, change: ProposedChange) -> None:
    store = memdir.store(change.scope)
    expected = "" if change.before is None else content_version(change.before.encode())
    if change.after is None:
        store.delete(change.file, expected_version=expected)
    else:
        store.write_text(change.file, change.after, expected_version=expected)


def rollback_changes(memdir: ProjectMemory, proposal_id: str) -> Proposal:
    """Undo every change set the proposal applied, newest first; refuses if files moved on.

    The proposal is marked rolled back only once every change set is undone:
    an undo a kill or a full disk cut short is finished by running this again.
    A rollback that reverses nothing now (each change set was undone already,
    by ``memdir undo`` say) marks it and says so, as an error, rather than
    "rolled back"; one whose change sets the history no longer keeps refuses.
    """
    history = require_history(memdir)
    with _locked(memdir):
        proposal, sets = load(memdir, proposal_id)
        if not sets or not any(c.applied for c in proposal.changes):
            raise MemdirError(
                f"proposal {proposal.id} is {proposal.status}: nothing of it is applied",
                hint="`memdir consolidate show ID` says what it holds",
            )
        _check_kept(history, proposal.id, sets)
        reversed_now = 0
        for change in sorted(sets, reverse=True):
            if history.intent(UNDO, change) is not None or not history.is_undone(change):
                undo_change(memdir, change)
                reversed_now += 1
        changes = tuple(replace(c, applied=False) for c in proposal.changes)
        proposal = replace(proposal, changes=changes, status="rolled-back")
        _write(_path(memdir, proposal.id), proposal, sets)
    if not reversed_now:
        undone = ", ".join(
            f"change {c} by undo {getattr(history.change(c), 'undone_by', None)}" for c in sets
        )
        raise MemdirError(
            f"proposal {proposal.id} was reversed already ({undone}): this rollback changed "
            "nothing; the proposal is now marked rolled back",
            hint="`memdir history NAME` shows each memory's versions",
        )
    return proposal


def _check_kept(history: History, proposal_id: str, sets: Collection[int]) -> None:
    """Refuse, changing nothing, when the history no longer keeps a change set to reverse."""
    gone = sorted(c for c in sets if history.change(c) is None)
    if gone:
        raise MemdirError(
            f"proposal {proposal_id} applied change(s) {', '.join(map(str, gone))}, which the "
            "history no longer keeps (older than history_retention_days): it cannot be rolled "
            "back; nothing was changed",
            hint="bring back each memory with `memdir restore NAME --version V`",
        )
