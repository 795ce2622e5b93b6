"""Reversing a change set: planned whole, run step by step, recorded once complete.

:func:`reverse` is what ``memdir undo`` and a consolidation's rollback run,
under the locks of every scope the change set touched:

1. **plan**: each version of the change set, newest first, is checked against
   what its file holds now, or will hold once the newer versions are
   reversed. A file that moved on refuses the undo, naming it, before anything
   is touched; so does a version whose text was redacted (its text cannot be
   put back, and what the file holds cannot be checked against it). The plan
   is one :class:`Step` per file (a memory, a note's sidecar, a scope's
   ``MEMORY.md``): the hash it holds now and the hash it must hold. The
   index's target is its recorded hunks applied backwards (or the change set's
   snapshot), computed again from the same bytes when it is written;
2. **intent**: the plan is written with the undo's change row
   (:meth:`~memdir.history.versions.History.begin_undo`); the change being
   undone is not marked yet;
3. **steps**: written files first, removals next, the index last; a step
   whose file already holds its target is done (a second run), one whose file
   holds neither its source nor its target changed meanwhile and stops the run
   (an index that did is left for ``memdir doctor --fix``, as a warning);
4. **record**: one version per file put back, the change marked undone and the
   intent deleted, in one transaction
   (:meth:`~memdir.history.versions.History.finish_undo`).

A kill or a full disk between the steps leaves the intent: the next ``memdir
undo`` (or rollback of that change set) finishes that undo before any other,
or says which files are back and which are left. Nothing is ever marked
undone that is not.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from memdir.errors import Conflict, MemdirError
from memdir.history.intents import UNDO, Intent
from memdir.history.project import ProjectMemory
from memdir.history.provenance import provenance
from memdir.history.versions import REDACTED, Change, History, Reversal, Version, blob_hash
from memdir.model import Scope
from memdir.storage import sidecar
from memdir.storage.failures import storage_error
from memdir.storage.fs import atomic_write, ensure_dir, read_bytes_nofollow, safe_join
from memdir.storage.index_hunks import apply_backwards
from memdir.storage.journal import JOURNAL_NAME, journal_or_warning
from memdir.storage.memory_index import INDEX_NAME
from memdir.storage.store import MemoryStore
from memdir.utils.records import record

__all__ = ["Outcome", "Step", "apply_step", "index_after", "plan_of", "resume", "reverse"]

# A file the plan follows: (scope, file relative to its folder, its note sidecar or itself).
_Key = tuple[Scope, str, bool]


@record
class Step:
    """One file an undo puts back: from the hash it held when planned to the one it must hold."""

    scope: Scope
    rel: str  # relative to the scope's folder; INDEX_NAME for the scope's index
    sidecar: bool  # the note sidecar of ``rel``, not ``rel`` itself
    source: str | None  # blob hash when planned (None: absent)
    target: str | None  # blob hash it must hold (None: absent)

    @property
    def label(self) -> str:
        side = " (its sidecar)" if self.sidecar else ""
        return f"{self.scope.value}:{self.rel}{side}"


@record
class Outcome:
    """What a finished undo did: the files put back, the undo's change id, warnings."""

    change: Change
    undo: int
    files: tuple[str, ...]
    warnings: tuple[str, ...]
    resumed: bool


# -- planning ---------------------------------------------------------------------------


def _read(path: Path) -> bytes | None:
    try:
        return read_bytes_nofollow(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _digest(data: bytes | None) -> str | None:
    return None if data is None else blob_hash(data)


def _path(store: MemoryStore, rel: str, side: bool) -> Path:
    if rel == INDEX_NAME and not side:
        return store.index_path
    path = safe_join(store.root, rel)
    return sidecar.path_for(path) if side else path


class _Planner:
    """Follows what each file would hold as the versions are reversed, newest first."""

    def __init__(self, memdir: ProjectMemory) -> None:
        self.memdir = memdir
        self.start: dict[_Key, str | None] = {}
        self.now: dict[_Key, str | None] = {}

    def held(self, key: _Key) -> str | None:
        if key not in self.now:
            scope, rel, side = key
            digest = _digest(_read(_path(self.memdir.store(scope), rel, side)))
            self.start[key] = self.now[key] = digest
        return self.now[key]

    def put(self, key: _Key, digest: str | None) -> None:
        self.held(key)
        self.now[key] = digest

    def steps(self) -> list[Step]:
        return [
            Step(scope=k[0], rel=k[1], sidecar=k[2], source=self.start[k], target=self.now[k])
            for k in self.now
            if self.now[k] != self.start[k]
        ]


def _refuse_redacted(store: MemoryStore, v: Version) -> None:
    if REDACTED in (v.before, v.after, v.meta_before, v.meta_after):
        raise MemdirError(
            f"{v.scope.value}:{v.file}: the text of version {v.id} (change {v.change}) was "
            "redacted, so undo can neither put it back nor check that the file still holds "
            "what the change left; nothing was changed",
            path=_path(store, v.file, False),
            hint=f"bring back the version you want with `memdir restore {v.name or v.file} "
            "--version V` (see `memdir history`)",
        )


def _moved_on(store: MemoryStore, v: Version, actual: str | None) -> Conflict:
    return Conflict(
        f"{store.scope.value}:{v.file} changed after the change being undone "
        f"(version {v.id}, {v.action}); nothing was changed",
        path=_path(store, v.file, False),
        hint=f"bring back the version you want with `memdir restore {v.name or v.file}"
        " --version V` (see `memdir history`)",
        expected=v.after or "",
        actual=actual or "",
    )


def _follow(plan: _Planner, v: Version) -> None:
    """Check memory file version ``v`` against what its file holds by now; reverse it."""
    store = plan.memdir.store(v.scope)
    here: _Key = (v.scope, v.file, False)
    actual = plan.held(here)
    if actual != v.after:
        raise _moved_on(store, v, actual)
    target: _Key = (v.scope, v.old_file or v.file, False)
    if target != here:
        if plan.held(target) is not None:  # a file took the old name since
            raise _moved_on(store, v, plan.held(target))
        plan.put(here, None)
    plan.put(target, v.before)
    if v.meta_before is not None or v.meta_after is not None:
        if target != here or v.before is None:
            plan.put((v.scope, v.file, True), None)
        plan.put((v.scope, target[1], True), v.meta_before)


def index_after(
    store: MemoryStore,
    history: History,
    versions: Sequence[Version],
    snapshot: tuple[bytes | None] | None,
    start: bytes | None,
) -> tuple[bytes | None, list[str]]:
    """The store's index once ``versions`` (newest first) are reversed, from ``start``.

    A repair's whole index (a version of ``MEMORY.md``) must be what it left;
    each hunk is applied backwards (one that no longer applies is a warning:
    the index is derived, and ``memdir doctor --fix`` repairs it); a change
    set's ``snapshot`` (a 1-tuple) is what comes back in the end. Computed at
    planning and again when the step is written, from the same bytes: both
    give the same index.
    """
    data, warnings = start, []
    for v in versions:
        if v.scope is not store.scope:
            continue
        if v.file == INDEX_NAME:
            if _digest(data) != v.after:
                raise _moved_on(store, v, _digest(data))
            data = history.blob(v.before)
            continue
        hunk = history.hunk(v.id)
        if hunk is None:
            if v.redacted and history.hunk_redacted(v.id):  # doctor finds the line
                warnings.append(
                    f"{store.scope.value}:MEMORY.md: the line version {v.id} wrote was "
                    "redacted; run `memdir doctor --fix`"
                )
            continue
        previous = apply_backwards(data or b"", hunk)
        if previous is None:
            warnings.append(
                f"{store.scope.value}:MEMORY.md changed since; run `memdir doctor --fix`"
            )
            continue
        data = None if hunk.absent and not previous else previous
    return (snapshot[0] if snapshot is not None else data), warnings


def _snapshot(snapshots: dict[Scope, bytes | None], scope: Scope) -> tuple[bytes | None] | None:
    return (snapshots[scope],) if scope in snapshots else None


def _scopes(versions: Sequence[Version], snapshots: dict[Scope, bytes | None]) -> list[Scope]:
    used = {v.scope for v in versions} | set(snapshots)
    return [s for s in (Scope.PRIVATE, Scope.TEAM) if s in used]


def _snapshot_redacted(history: History, change: int) -> bool:
    row = (
        history._conn()
        .execute("SELECT 1 FROM snapshots WHERE change = ? AND hash = ?", (change, REDACTED))
        .fetchone()
    )
    return row is not None


def plan_of(
    memdir: ProjectMemory, history: History, change: Change
) -> tuple[list[Step], list[str]]:
    """The steps that reverse ``change``, and the warnings of hunks that no longer apply.

    Raises, with nothing touched, when a file moved on or a text was redacted.
    """
    versions = history.versions(change=change.id, applied=True)
    for v in versions:
        _refuse_redacted(memdir.store(v.scope), v)
    if _snapshot_redacted(history, change.id):
        raise MemdirError(
            f"the copy of MEMORY.md that change {change.id} kept was redacted, so undo cannot "
            "put the index back; nothing was changed",
            hint="bring back each memory with `memdir restore NAME --version V`",
        )
    snapshots = history.snapshots(change.id)
    plan = _Planner(memdir)
    for v in versions:
        if v.file != INDEX_NAME:
            _follow(plan, v)
    warnings: list[str] = []
    for scope in _scopes(versions, snapshots):
        store = memdir.store(scope)
        start = _read(store.index_path)
        data, said = index_after(store, history, versions, _snapshot(snapshots, scope), start)
        key: _Key = (scope, INDEX_NAME, False)
        plan.start[key], plan.now[key] = _digest(start), _digest(data)
        warnings += said
    return plan.steps(), warnings


# -- running ----------------------------------------------------------------------------


def apply_step(
    memdir: ProjectMemory,
    history: History,
    step: Step,
    versions: Sequence[Version],
    snapshots: dict[Scope, bytes | None],
) -> bool:
    """Make ``step``'s file hold its target; False when it holds neither source nor target.

    Idempotent: a file that already holds the target is left as it is. ``versions``
    (newest first) and ``snapshots`` are the change set's: an index's target is
    computed again from them.
    """
    store = memdir.store(step.scope)
    path = _path(store, step.rel, step.sidecar)
    now = _read(path)
    if _digest(now) == step.target:
        return True
    if _digest(now) != step.source:
        return False
    if step.rel == INDEX_NAME and not step.sidecar:
        data, _ = index_after(store, history, versions, _snapshot(snapshots, step.scope), now)
        if _digest(data) != step.target:
            return False
    else:
        data = history.blob(step.target)
        if step.target is not None and data is None:
            raise MemdirError(
                f"the text {step.label} must hold again was redacted since the undo began",
                path=path,
                hint=f"bring it back with `memdir restore {step.rel} --version V`",
            )
    _put(store, path, step, data)
    return True


def _put(store: MemoryStore, path: Path, step: Step, data: bytes | None) -> None:
    if data is None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        return
    if not path.parent.is_dir():
        ensure_dir(path.parent)
        path = _path(store, step.rel, step.sidecar)  # its folders exist now: check again
    atomic_write(path, data)


def _order(steps: Sequence[Step]) -> list[Step]:
    """Files written first, then removed (a kill in between leaves a copy, never none),
    the index last (its lines then name files that are there)."""
    return sorted(steps, key=lambda s: (s.rel == INDEX_NAME and not s.sidecar, s.target is None))


def _state(memdir: ProjectMemory, step: Step) -> str:
    """Where ``step`` is now: ``back``, ``left`` or ``changed``."""
    try:
        held = _digest(_read(_path(memdir.store(step.scope), step.rel, step.sidecar)))
    except (OSError, MemdirError):
        return "changed"
    return "back" if held == step.target else "left" if held == step.source else "changed"


def _stopped(
    memdir: ProjectMemory, change: int, steps: Sequence[Step], reason: MemdirError
) -> MemdirError:
    """``reason`` said as an undo that stopped half way, with exactly what is left."""
    states: dict[str, list[str]] = {"back": [], "left": [], "changed": []}
    for step in steps:
        states[_state(memdir, step)].append(step.label)
    said = "; ".join(f"{k}: {', '.join(v)}" for k, v in states.items() if v)
    message = f"{reason.message}. The undo of change {change} stopped half way ({said})"
    hint = (
        f"change {change} is not marked undone: once that is fixed, `memdir undo` finishes "
        "this undo before any other"
    )
    if isinstance(reason, Conflict):
        hint = (
            "put each changed file back as it was (`memdir restore NAME --version V`), then "
            f"`memdir undo` finishes it; change {change} is not marked undone"
        )
    return type(reason)(message, path=reason.path, hint=hint)


def _run(memdir: ProjectMemory, history: History, change: int, steps: Sequence[Step]) -> list[str]:
    """Every step, in order; raises, saying what is left, on the first that cannot be made."""
    versions = history.versions(change=change, applied=True)
    snapshots = history.snapshots(change)
    warnings: list[str] = []
    for step in _order(steps):
        path = _path(memdir.store(step.scope), step.rel, step.sidecar)
        try:
            done = apply_step(memdir, history, step, versions, snapshots)
        except MemdirError as exc:
            raise _stopped(memdir, change, steps, exc) from exc
        except OSError as exc:
            raise _stopped(memdir, change, steps, storage_error(exc, path)) from exc
        if done:
            continue
        if step.rel == INDEX_NAME and not step.sidecar:  # derived: doctor rebuilds it
            warnings.append(
                f"{step.scope.value}:MEMORY.md changed since; run `memdir doctor --fix`"
            )
            continue
        moved = Conflict(f"{step.label} changed while the undo ran", path=path)
        raise _stopped(memdir, change, steps, moved)
    return warnings


def _encode(steps: Sequence[Step], warnings: Sequence[str]) -> str:
    rows = [[s.scope.value, s.rel, s.sidecar, s.source, s.target] for s in steps]
    return json.dumps({"steps": rows, "warnings": list(warnings)})


def _decode(plan: str | None) -> tuple[list[Step], list[str]]:
    data = json.loads(plan or "{}")
    steps = [
        Step(scope=Scope(scope), rel=rel, sidecar=bool(side), source=source, target=target)
        for scope, rel, side, source, target in data.get("steps", ())
    ]
    return steps, [str(w) for w in data.get("warnings", ())]


@contextlib.contextmanager
def _locked(memdir: ProjectMemory, scopes: Sequence[Scope]) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        for scope in [s for s in (Scope.PRIVATE, Scope.TEAM) if s in scopes]:
            stack.enter_context(memdir.store(scope).lock())
        yield


def _touched_scopes(history: History, change: int, steps: Sequence[Step] = ()) -> list[Scope]:
    versions = history.versions(change=change, applied=True)
    return _scopes(versions, history.snapshots(change)) + [s.scope for s in steps]


def reverse(memdir: ProjectMemory, history: History, change: Change) -> Outcome:
    """Undo ``change`` whole (or finish its undo under way); see the module docstring."""
    with _locked(memdir, _touched_scopes(history, change.id)):
        under_way = history.intent(UNDO, change.id)
        if under_way is not None:
            return _finish(memdir, history, under_way, resumed=True)
        if history.is_undone(change.id):
            raise MemdirError(
                f"change {change.id} was undone meanwhile",
                hint="run `memdir history NAME` to see what is kept",
            )
        steps, warnings = plan_of(memdir, history, change)
        with provenance(action="undo"):
            intent = history.begin_undo(change.id, _encode(steps, warnings))
        return _finish(memdir, history, intent, resumed=False)


def resume(memdir: ProjectMemory, history: History, intent: Intent) -> Outcome:
    """Finish the undo ``intent`` records (one a kill or a full disk cut short)."""
    steps, _ = _decode(intent.plan)
    with _locked(memdir, _touched_scopes(history, intent.target, steps)):
        still = history.intent(UNDO, intent.target)
        if still is None:  # another process finished it meanwhile
            change = history.change(intent.target)
            assert change is not None
            made = intent.made or 0
            return Outcome(change=change, undo=made, files=(), warnings=(), resumed=True)
        return _finish(memdir, history, still, resumed=True)


def _finish(memdir: ProjectMemory, history: History, intent: Intent, *, resumed: bool) -> Outcome:
    change = history.change(intent.target)
    if change is None:
        raise MemdirError(
            f"change {intent.target}, which an undo under way reverses, is no longer kept",
            path=history.path,
        )
    steps, warnings = _decode(intent.plan)
    warnings += _run(memdir, history, change.id, steps)
    versions = history.versions(change=change.id, applied=True)
    reversals = [
        Reversal(
            scope=v.scope,
            file=v.old_file or v.file,
            old_file=v.file if v.old_file else None,
            name=v.name,
            before=v.after,
            after=v.before,
            meta_before=v.meta_after,
            meta_after=v.meta_before,
        )
        for v in versions
    ]
    history.finish_undo(intent, reversals)
    files = tuple(dict.fromkeys(f"{r.scope.value}:{r.file}" for r in reversals))
    changed = [
        memdir.store(r.scope).root / rel
        for r in reversals
        for rel in (r.file, r.old_file)
        if rel is not None and rel != INDEX_NAME
    ]
    warnings += journal_or_warning(memdir.layout.state_dir / JOURNAL_NAME, changed)
    return Outcome(
        change=change,
        undo=intent.made or 0,
        files=files,
        warnings=tuple(warnings),
        resumed=resumed,
    )
