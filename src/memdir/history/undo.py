"""The verbs over the history: list, restore, undo, redact, why.

They take a :class:`~memdir.history.project.ProjectMemory` (both stores and
the :class:`~memdir.history.versions.History` they record into) and are what
the facade's ``history``, ``restore``, ``undo``, ``redact`` and ``why`` call.

- **restore** writes an old version back through the store (so the index,
  the locks and the history follow, as for any write; action ``restore``):
  by default the text before the memory's last change, which for a deleted
  memory is what it held when it was deleted.
- **undo** reverses the newest change set that is not undone yet, all of
  it: under both scopes' locks it first checks that every file still holds
  what the change left (else it refuses, naming the file, and ``restore``
  is the way; it also refuses to revert what team sync brought in), then
  puts each file's bytes back, newest first, and applies each recorded
  index hunk backwards; a change set that snapshotted an index
  (consolidation) gets that snapshot back. The folder is then byte for byte
  what it was. The undo is itself recorded (action ``undo``), and a second
  undo reverses the change before.
- **redact** drops a version's text from the history; for team memory it
  says what it cannot touch: git.
- **why** answers "why do you believe this?": the memory's provenance, the
  transcript turns it came from (when the transcript is still there) and its
  history.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from memdir.errors import Conflict, MemdirError, MemoryNotFound
from memdir.history.project import ProjectMemory
from memdir.history.provenance import provenance
from memdir.history.versions import REDACTED, Change, History, Version, blob_hash
from memdir.model import MemoryRecord, Scope
from memdir.storage import sidecar
from memdir.storage.fs import atomic_write, read_bytes_nofollow, safe_join
from memdir.storage.index_hunks import apply_backwards
from memdir.storage.journal import JOURNAL_NAME, journal_or_warning
from memdir.storage.memory_index import INDEX_NAME
from memdir.storage.store import MemoryStore, WriteResult
from memdir.utils.records import record

__all__ = [
    "RedactReport",
    "SourceTurn",
    "UndoReport",
    "Why",
    "history_of",
    "redact",
    "render_why",
    "require_history",
    "restore",
    "undo",
    "undo_change",
    "version_line",
    "why",
]

_MAX_TURN_CHARS = 2000


@record
class UndoReport:
    """What an undo reversed (``change`` None: there was nothing to undo)."""

    change: int | None
    action: str | None = None
    route: str | None = None
    files: tuple[str, ...] = ()  # scope:file, as restored
    undo: int | None = None  # the change set that records the undo
    warnings: tuple[str, ...] = ()


@record
class RedactReport:
    """What a redact removed and what it could not."""

    version: int
    versions: tuple[int, ...]  # every version whose text was dropped (the same bytes)
    message: str


@record
class SourceTurn:
    """A transcript turn a memory rests on."""

    ref: str
    role: str
    text: str


@record
class Why:
    """A memory's provenance: where it came from, the turns behind it, its history."""

    ref: str
    memory: MemoryRecord | None
    origin: Version | None  # the oldest version kept (its creation, unless pruned)
    latest: Version | None  # the change that left it as it is
    turns: tuple[SourceTurn, ...]
    transcript_note: str | None
    history: tuple[Version, ...]


def require_history(memdir: ProjectMemory) -> History:
    """The project's history, or a clear error when it is off."""
    if memdir.history_db is None:
        raise MemdirError(
            "history is off for this project",
            hint="set history = true in config.toml to keep every version",
        )
    return memdir.history_db


def _find(memdir: ProjectMemory, ref: str, scope: Scope | str | None) -> MemoryRecord | None:
    if scope is not None:
        return memdir.store(scope).find(ref)
    return memdir.private.find(ref) or memdir.team.find(ref)


def history_of(
    memdir: ProjectMemory, ref: str, *, scope: Scope | str | None = None
) -> list[Version]:
    """Every version of the memory ``ref`` (file or name, deleted ones too), newest first."""
    history = require_history(memdir)
    if scope is None and ref.startswith("team/"):  # the way listings name team memories
        scope, ref = Scope.TEAM, ref.removeprefix("team/")
    found = _find(memdir, ref, scope)
    wanted = None if scope is None else Scope(scope)
    seen: dict[int, Version] = {}
    if found is not None:
        for v in history.versions(scope=found.scope, file=found.file):
            seen[v.id] = v
        for v in history.versions(scope=found.scope, name=found.memory.name):
            seen[v.id] = v
    else:
        files = (ref, f"{ref}.md") if not ref.endswith(".md") else (ref,)
        for file in files:
            for v in history.versions(scope=wanted, file=file):
                seen[v.id] = v
        for v in history.versions(scope=wanted, name=ref):
            seen[v.id] = v
    return sorted(seen.values(), key=lambda v: v.id, reverse=True)


def _require_versions(memdir: ProjectMemory, ref: str, scope: Scope | str | None) -> list[Version]:
    versions = [v for v in history_of(memdir, ref, scope=scope) if v.file != INDEX_NAME]
    if not versions:
        raise MemoryNotFound(
            f"no version of {ref!r} is kept",
            hint="run `memdir list` for the memories; history starts with the first change",
        )
    return versions


def _pick(versions: list[Version], version: int, ref: str) -> Version:
    """The version of ``ref`` whose id is ``version``, or :class:`MemoryNotFound`."""
    for candidate in versions:
        if candidate.id == version:
            return candidate
    raise MemoryNotFound(
        f"version {version} is not a version of {ref!r}",
        hint="run `memdir history NAME` to see its versions and their ids",
    )


def restore(
    memdir: ProjectMemory,
    ref: str,
    *,
    version: int | None = None,
    scope: Scope | str | None = None,
) -> WriteResult:
    """Bring back version ``version`` of ``ref``, or the text before its last change."""
    history = require_history(memdir)
    versions = _require_versions(memdir, ref, scope)
    if version is None:
        chosen, digest = versions[0], versions[0].before
        if digest is None:
            raise MemdirError(
                f"{ref!r} has no earlier version: version {chosen.id} created it",
                hint="run `memdir history NAME` to see its versions",
            )
        meta = chosen.meta_before
    else:
        chosen = _pick(versions, version, ref)
        digest = chosen.after if chosen.after is not None else chosen.before
        meta = chosen.meta_after if chosen.after is not None else chosen.meta_before
    data = history.blob(digest)
    if data is None:
        raise MemdirError(
            f"the text of version {chosen.id} of {ref!r} was redacted",
            hint="choose another version (`memdir history NAME`)",
        )
    store = memdir.store(chosen.scope)
    found = store.find(ref)
    file = found.file if found is not None else chosen.file
    with provenance(action="restore"):
        return _write_back(store, file, data, history.blob(meta), found)


def _write_back(
    store: MemoryStore, file: str, data: bytes, meta: bytes | None, found: MemoryRecord | None
) -> WriteResult:
    text = data.decode("utf-8")
    path = safe_join(store.root, file)
    current = found.version if found is not None and found.file == file else ""
    if meta is None:
        return store.write_text(file, text, expected_version=current)
    target = sidecar.path_for(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, meta)
    memory = sidecar.load_memory(text, path=path)
    return store.write_note(file, text, memory, expected_version=current)


# -- undo ------------------------------------------------------------------------------


def undo(memdir: ProjectMemory) -> UndoReport:
    """Reverse the newest change set that is not undone yet; refuses if files moved on."""
    change = require_history(memdir).last_change()
    if change is None:
        return UndoReport(change=None)
    return _undo(memdir, change)


def undo_change(memdir: ProjectMemory, change_id: int) -> UndoReport:
    """Reverse change set ``change_id`` (a consolidation's rollback); refuses if files moved on.

    Only the files that change set touched are checked and put back, so a
    later change to other memories stays.
    """
    change = require_history(memdir).change(change_id)
    if change is None or change.undone_by is not None or change.undoes is not None:
        raise MemdirError(
            f"change {change_id} is not in the history, is undone, or is itself an undo",
            hint="run `memdir history NAME` to see what is kept",
        )
    return _undo(memdir, change)


def _undo(memdir: ProjectMemory, change: Change) -> UndoReport:
    history = require_history(memdir)
    if change.route == "sync":
        # Reverting what teammates pushed would push the revert to all of them.
        raise MemdirError(
            f"the last change ({change.id}) is what team sync brought in; undo does not revert "
            "teammates' changes, which the next sync would push back to everyone",
            hint="bring back one memory with `memdir restore NAME --scope team` if you mean to",
        )
    versions = history.versions(change=change.id, applied=True)  # newest first: to reverse
    snapshots = history.snapshots(change.id)
    scopes = [s for s in (Scope.PRIVATE, Scope.TEAM) if s in {v.scope for v in versions}]
    scopes += [s for s in snapshots if s not in scopes]
    with contextlib.ExitStack() as stack:
        for scope in scopes:
            stack.enter_context(memdir.store(scope).lock())
        for v in versions:
            _check_unchanged(memdir.store(v.scope), v)
        warnings: list[str] = []
        files: list[str] = []
        with provenance(action="undo"), history.change_set("undo", undoes=change.id) as made:
            for v in versions:
                files.append(_reverse(memdir.store(v.scope), history, v, warnings))
            for scope, data in snapshots.items():
                _put(memdir.store(scope).index_path, data)
    journal = memdir.layout.state_dir / JOURNAL_NAME
    changed = [memdir.store(Scope(s)).root / rel for s, rel in (f.split(":", 1) for f in files)]
    warnings += journal_or_warning(journal, changed)  # the catalog reads these again
    return UndoReport(
        change=change.id,
        action=change.action,
        route=change.route,
        files=tuple(dict.fromkeys(files)),
        undo=made,
        warnings=tuple(warnings),
    )


def _read(path: Path) -> bytes | None:
    try:
        return read_bytes_nofollow(path)
    except FileNotFoundError:
        return None


def _check_unchanged(store: MemoryStore, v: Version) -> None:
    """Refuse to undo over a file that changed after the change being undone."""
    path = safe_join(store.root, v.file) if v.file != INDEX_NAME else store.index_path
    data = _read(path)
    actual = None if data is None else blob_hash(data)
    if actual != v.after and not (v.after == REDACTED and data is not None):
        raise Conflict(
            f"{store.scope.value}:{v.file} changed after the change being undone "
            f"(version {v.id}, {v.action})",
            path=path,
            hint=f"bring back the version you want with `memdir restore {v.name or v.file}"
            " --version V` (see `memdir history`)",
            expected=v.after or "",
            actual=actual or "",
        )


def _reverse(store: MemoryStore, history: History, v: Version, warnings: list[str]) -> str:
    """Put one file (and its index hunk) back as it was before version ``v``."""
    is_index = v.file == INDEX_NAME
    here = store.index_path if is_index else safe_join(store.root, v.file)
    target_rel = v.old_file or v.file
    target = store.index_path if is_index else safe_join(store.root, target_rel)
    now = _read(here)
    before = history.blob(v.before)
    if v.before is not None and before is None:  # redacted: the text is gone
        warnings.append(f"{store.scope.value}:{target_rel}: its earlier text was redacted")
        return f"{store.scope.value}:{target_rel}"
    if v.after is not None or now is not None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(here)
        if not is_index:
            sidecar.remove(here)
    if before is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, before)
        meta = history.blob(v.meta_before)
        if meta is not None:
            side = sidecar.path_for(target)
            side.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(side, meta)
    hunk = history.hunk(v.id)
    if hunk is not None:
        current = _read(store.index_path) or b""
        previous = apply_backwards(current, hunk)
        if previous is None:
            warnings.append(
                f"{store.scope.value}:MEMORY.md changed since; run `memdir doctor --fix`"
            )
        else:
            _put(store.index_path, None if hunk.absent and not previous else previous)
    history.record(
        scope=store.scope,
        file=target_rel,
        action="undo",
        name=v.name,
        before=now,
        after=before,
        old_file=v.file if v.old_file else None,
    )
    return f"{store.scope.value}:{target_rel}"


def _put(path: Path, data: bytes | None) -> None:
    if data is None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        return
    atomic_write(path, data)


# -- redact and why ---------------------------------------------------------------------


def redact(
    memdir: ProjectMemory, ref: str, version: int, *, scope: Scope | str | None = None
) -> RedactReport:
    """Remove the text version ``version`` of ``ref`` held from the history."""
    history = require_history(memdir)
    chosen = _pick(_require_versions(memdir, ref, scope), version, ref)
    store = memdir.store(chosen.scope)
    found = store.find(ref)
    if found is not None and chosen.after not in (None, REDACTED):
        data = _read(store.root / found.file)
        if data is not None and blob_hash(data) == chosen.after:
            raise MemdirError(
                f"version {version} is what {chosen.scope.value}:{found.file} holds now",
                path=store.root / found.file,
                hint="change the memory (`memdir edit`) or remove it (`memdir rm`) first, "
                "then redact this version",
            )
    touched = history.redact(version)
    message = f"removed the text of version {version} from memdir's history"
    if len(touched) > 1:
        others = ", ".join(str(t) for t in touched if t != version)
        message += f" (and from versions {others}, which held the same text)"
    if chosen.scope is Scope.TEAM:
        message += (
            ". Team memory is also a git repository, which redact does not rewrite: if the "
            "text was committed but not pushed, run `memdir team rewrite-unpushed`; if it was "
            "pushed, it stays in the remote's history (memdir never rewrites what was "
            "published): purge it there and rotate the secret"
        )
    return RedactReport(version=version, versions=tuple(touched), message=message)


def why(memdir: ProjectMemory, ref: str, *, scope: Scope | str | None = None) -> Why:
    """Where the memory ``ref`` came from, the turns behind it, and its history."""
    found = _find(memdir, ref, scope)
    versions = [v for v in history_of(memdir, ref, scope=scope) if v.file != INDEX_NAME]
    if found is None and not versions:
        raise MemoryNotFound(
            f"no memory named {ref!r} and no version of it is kept",
            hint="run `memdir list` to see the memories and their files",
        )
    latest = versions[0] if versions else None
    origin = versions[-1] if versions else None
    source = next((v for v in versions if v.turns and v.transcript), None)
    turns, note = _source_turns(source)
    return Why(
        ref=ref,
        memory=found,
        origin=origin,
        latest=latest,
        turns=turns,
        transcript_note=note,
        history=tuple(versions),
    )


def _source_turns(v: Version | None) -> tuple[tuple[SourceTurn, ...], str | None]:
    """The turns ``v`` names, read from its transcript; a note when it is gone."""
    if v is None or not v.turns or not v.transcript:
        return (), None
    from memdir.errors import TranscriptError
    from memdir.transcripts.reader import read_transcript

    wanted = v.turns.split()
    try:
        transcript = read_transcript(v.transcript)
    except (TranscriptError, OSError):
        return (), f"the transcript {v.transcript} is no longer there"
    found = []
    for turn in transcript.turns:
        keys = {f"#{turn.index}", *(u for u in (turn.uuid,) if u)}
        if keys & set(wanted) and turn.text.strip():
            text = turn.text.strip()
            if len(text) > _MAX_TURN_CHARS:
                text = text[:_MAX_TURN_CHARS] + " […]"
            found.append(SourceTurn(ref=turn.uuid or f"#{turn.index}", role=turn.role, text=text))
    return tuple(found), None if found else "the transcript no longer holds those turns"


def version_line(v: Version) -> str:
    """One version on one line: id, time, action, route (client), session, file."""
    route = f"{v.route}({v.client})" if v.client else v.route
    file = f"{v.old_file} -> {v.file}" if v.old_file else v.file
    redacted = " [redacted]" if v.redacted else ""
    return (
        f"v{v.id}  {v.when}  {v.action:<9} {route:<14} session={v.session or '-'}  "
        f"{v.scope.value}:{file}{redacted}"
    )


def render_why(answer: Why) -> str:
    """The answer of :func:`why` as text, for a person or an agent."""
    lines = []
    if answer.memory is not None:
        m = answer.memory
        lines.append(f"{m.scope.value}:{m.file}  {m.memory.name} — {m.memory.description}")
    else:
        lines.append(f"{answer.ref}: deleted (its versions are kept)")
    for label, v in (("created", answer.origin), ("last changed", answer.latest)):
        if v is None:
            continue
        who = f" by {v.user}@{v.host}" if v.user or v.host else ""
        lines.append(f"{label}: {version_line(v)}{who}")
        if v.turns:
            lines.append(f"  from turns {v.turns} of {v.transcript or 'an unknown transcript'}")
    if answer.turns:
        lines.append("source turns:")
        lines += [f"  [{turn.role} {turn.ref}] {turn.text}" for turn in answer.turns]
    elif answer.transcript_note:
        lines.append(f"source turns: {answer.transcript_note}")
    if answer.origin is None:
        lines.append("no version is kept: it was written before history was on, or by hand")
    lines.append("history:")
    lines += [f"  {version_line(v)}" for v in answer.history]
    return "\n".join(lines)
