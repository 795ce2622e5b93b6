"""The verbs over the history: list, restore, undo, redact, why.

They take a :class:`~memdir.history.project.ProjectMemory` (both stores and
the :class:`~memdir.history.versions.History` they record into) and are what
the facade's ``history``, ``restore``, ``undo``, ``redact`` and ``why`` call.

- **history** lists a memory's versions a page at a time (``limit`` below
  version ``before``): a memory with 200,000 versions answers as fast as one
  with two (:meth:`~memdir.history.versions.History.page`).
- **restore** writes an old version back through the store (so the index,
  the locks and the history follow, as for any write; action ``restore``):
  by default the text before the memory's last change, which for a deleted
  memory is what it held when it was deleted.
- **undo** reverses the newest change set that is not undone yet, all of
  it, or first finishes an undo that a kill or a full disk cut short
  (:mod:`memdir.history.reverse`: planned and checked whole before any file
  is touched, run step by step, recorded only once every file is back). It
  refuses a file that moved on and a version whose text was redacted, naming
  the file, and what team sync brought in; the folder is then byte for byte
  what it was. A second undo reverses the change before.
- **redact** removes a version's text from every copy memdir keeps
  (:mod:`memdir.history.redaction`) and says where else it may be.
- **why** answers "why do you believe this?": the memory's provenance, the
  transcript turns it came from (when the transcript is still there) and its
  newest versions; and when a session last used it (recalled, read or changed it) and
  last showed its index line, from the sessions' use logs
  (:mod:`memdir.history.used`).
"""

from __future__ import annotations

from memdir.errors import MemdirError, MemoryNotFound
from memdir.history.intents import UNDO
from memdir.history.project import ProjectMemory
from memdir.history.provenance import provenance
from memdir.history.redaction import Forget, RedactReport, redact_version
from memdir.history.reverse import Outcome, resume, reverse
from memdir.history.used import LastUse, last_uses
from memdir.history.versions import APPROVING, REDACTED_FILE, History, Version
from memdir.kinds import memory_ref
from memdir.model import MemoryRecord, Scope
from memdir.storage import sidecar
from memdir.storage.fs import atomic_write, safe_join
from memdir.storage.memory_index import INDEX_NAME
from memdir.storage.store import MemoryStore, WriteResult
from memdir.utils.records import record

__all__ = [
    "WHY_VERSIONS",
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
_NOT_INDEX = f"file != '{INDEX_NAME}'"
_SOURCE = "turns IS NOT NULL AND turns != '' AND transcript IS NOT NULL AND transcript != ''"
WHY_VERSIONS = 20
"""How many of a memory's newest versions ``why`` lists (the rest: ``memdir history``)."""


@record
class UndoReport:
    """What an undo reversed (``change`` None: there was nothing to undo).

    ``resumed``: it finished an undo that was cut short (a kill, a full disk).
    """

    change: int | None
    action: str | None = None
    route: str | None = None
    files: tuple[str, ...] = ()  # scope:file, as restored
    undo: int | None = None  # the change set that records the undo
    warnings: tuple[str, ...] = ()
    resumed: bool = False


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
    history: tuple[Version, ...]  # the newest versions, newest first
    use: LastUse | None = None  # when a session last showed or used it (memdir used)
    older: int | None = None  # versions older than ``history`` are kept: list them from here


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


@record
class _Refs:
    """What a memory's versions are found by: its scopes, its files and its name."""

    scopes: tuple[Scope, ...]
    files: tuple[str, ...]
    name: str | None

    def page(
        self,
        history: History,
        *,
        limit: int | None = None,
        before: int | None = None,
        oldest: bool = False,
        where: str = "",
    ) -> list[Version]:
        return history.page(
            scopes=self.scopes,
            files=self.files,
            name=self.name,
            limit=limit,
            before=before,
            oldest=oldest,
            where=where,
        )


def _refs(memdir: ProjectMemory, ref: str, scope: Scope | str | None) -> _Refs:
    if scope is None and ref.startswith("team/"):  # the way listings name team memories
        scope, ref = Scope.TEAM, ref.removeprefix("team/")
    found = _find(memdir, ref, scope)
    if found is not None:
        return _Refs(scopes=(found.scope,), files=(found.file,), name=found.memory.name)
    scopes = (Scope.PRIVATE, Scope.TEAM) if scope is None else (Scope(scope),)
    files = (ref,) if ref.endswith(".md") else (ref, f"{ref}.md")
    return _Refs(scopes=scopes, files=files, name=ref)


def history_of(
    memdir: ProjectMemory,
    ref: str,
    *,
    scope: Scope | str | None = None,
    limit: int | None = None,
    before: int | None = None,
) -> list[Version]:
    """The versions of memory ``ref`` (file or name, deleted ones too), newest first.

    ``limit`` of them (None: all) with ids below ``before``: the next page
    starts below the last id of this one.
    """
    history = require_history(memdir)
    return _refs(memdir, ref, scope).page(history, limit=limit, before=before)


def _newest(memdir: ProjectMemory, ref: str, scope: Scope | str | None) -> Version:
    history = require_history(memdir)
    found = _refs(memdir, ref, scope).page(history, limit=1, where=_NOT_INDEX)
    if not found:
        raise MemoryNotFound(
            f"no version of {ref!r} is kept",
            hint="run `memdir list` for the memories; history starts with the first change",
        )
    return found[0]


def _pick(memdir: ProjectMemory, ref: str, version: int, scope: Scope | str | None) -> Version:
    """The version of ``ref`` whose id is ``version``, or :class:`MemoryNotFound`.

    A version whose file a redaction found in the secret is named by its id alone.
    """
    history = require_history(memdir)
    page = _refs(memdir, ref, scope).page(history, limit=1, before=version + 1, where=_NOT_INDEX)
    if page and page[0].id == version:
        return page[0]
    chosen = history.version(version)
    if chosen is not None and chosen.file == REDACTED_FILE:
        return chosen
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
    if version is None:
        chosen = _newest(memdir, ref, scope)
        digest = chosen.before
        if digest is None:
            raise MemdirError(
                f"{ref!r} has no earlier version: version {chosen.id} created it",
                hint="run `memdir history NAME` to see its versions",
            )
        meta = chosen.meta_before
    else:
        chosen = _pick(memdir, ref, version, scope)
        digest = chosen.after if chosen.after is not None else chosen.before
        meta = chosen.meta_after if chosen.after is not None else chosen.meta_before
    data = history.blob(digest)
    if data is None or chosen.file == REDACTED_FILE:
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
    """Reverse the newest change set not undone yet; refuses if files moved on.

    An undo under way (cut short by a kill or a full disk) is finished first,
    whatever changed since: never an older change while it is half done.
    """
    history = require_history(memdir)
    under_way = history.intents(UNDO)
    if under_way:
        return _report(resume(memdir, history, under_way[0]))
    change = history.last_change()
    if change is None:
        return UndoReport(change=None)
    return _undo(memdir, change.id)


def undo_change(memdir: ProjectMemory, change_id: int) -> UndoReport:
    """Reverse change set ``change_id`` (a consolidation's rollback); refuses if files moved on.

    Only the files that change set touched are checked and put back, so a
    later change to other memories stays. An undo of it under way is finished.
    """
    history = require_history(memdir)
    under_way = history.intent(UNDO, change_id)
    if under_way is not None:
        return _report(resume(memdir, history, under_way))
    change = history.change(change_id)
    if change is None or change.undone_by is not None or change.undoes is not None:
        raise MemdirError(
            f"change {change_id} is not in the history, is undone, or is itself an undo",
            hint="run `memdir history NAME` to see what is kept",
        )
    return _undo(memdir, change_id)


def _undo(memdir: ProjectMemory, change_id: int) -> UndoReport:
    history = require_history(memdir)
    change = history.change(change_id)
    assert change is not None
    if change.route == "sync":
        # Reverting what teammates pushed would push the revert to all of them.
        raise MemdirError(
            f"the last change ({change.id}) is what team sync brought in; undo does not revert "
            "teammates' changes, which the next sync would push back to everyone",
            hint="bring back one memory with `memdir restore NAME --scope team` if you mean to",
        )
    return _report(reverse(memdir, history, change))


def _report(outcome: Outcome) -> UndoReport:
    return UndoReport(
        change=outcome.change.id,
        action=outcome.change.action,
        route=outcome.change.route,
        files=outcome.files,
        undo=outcome.undo,
        warnings=outcome.warnings,
        resumed=outcome.resumed,
    )


# -- redact and why ---------------------------------------------------------------------


def redact(
    memdir: ProjectMemory,
    ref: str,
    version: int,
    *,
    scope: Scope | str | None = None,
    also: Forget | None = None,
) -> RedactReport:
    """Remove the text version ``version`` of ``ref`` held from every copy memdir keeps.

    See :mod:`memdir.history.redaction`; ``also`` drops the copies kept above
    this room (the facade's: proposals), and the search catalog is the
    facade's to forget.
    """
    return redact_version(memdir, _pick(memdir, ref, version, scope), also=also)


def why(
    memdir: ProjectMemory,
    ref: str,
    *,
    scope: Scope | str | None = None,
    limit: int = WHY_VERSIONS,
) -> Why:
    """Where the memory ``ref`` came from, the turns behind it, and its newest versions.

    Three queries that each stop at a row or a page (the newest ``limit``
    versions, the oldest one, the newest that names transcript turns), never
    every version.
    """
    history = require_history(memdir)
    found = _find(memdir, ref, scope)
    refs = _refs(memdir, ref, scope)
    page = refs.page(history, limit=limit + 1, where=_NOT_INDEX)
    if found is None and not page:
        raise MemoryNotFound(
            f"no memory named {ref!r} and no version of it is kept",
            hint="run `memdir list` to see the memories and their files",
        )
    versions, more = page[:limit], len(page) > limit
    latest = versions[0] if versions else None
    origin = next(iter(refs.page(history, limit=1, oldest=True, where=_NOT_INDEX)), None)
    source = next(iter(refs.page(history, limit=1, where=f"{_NOT_INDEX} AND {_SOURCE}")), None)
    turns, note = _source_turns(source)
    return Why(
        ref=ref,
        memory=found,
        origin=origin,
        latest=latest,
        turns=turns,
        transcript_note=note,
        history=tuple(versions),
        use=_last_use(memdir, found, latest),
        older=versions[-1].id if more else None,
    )


def _last_use(
    memdir: ProjectMemory, found: MemoryRecord | None, latest: Version | None
) -> LastUse | None:
    """When a session last showed the memory's index line, and last recalled, read or
    changed it (its sessions' transcripts read first)."""
    if found is not None:
        ref = memory_ref(found.scope, found.file)
    elif latest is not None:
        ref = memory_ref(latest.scope, latest.file)
    else:
        return None
    try:
        return last_uses(memdir.layout, env=memdir.env).get(ref)
    except (MemdirError, OSError):
        return None  # the use log is derived state: the rest of the answer stands


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
    if v.status == APPROVING:
        redacted += f" [approval cut short: `memdir review approve v{v.id}` completes it]"
    return (
        f"v{v.id}  {v.when}  {v.action:<9} {route:<14} session={v.session or '-'}  "
        f"{v.scope.value}:{file}{redacted}"
    )


def _use_lines(use: LastUse | None) -> list[str]:
    """When sessions last used the memory, and showed its index line (memdir used)."""
    if use is None or (use.used is None and use.shown is None):
        return ["last used: never, as far as the use log goes (`memdir used`)"]
    lines = []
    if use.used is not None:
        how = {"recall": "recalled", "read": "read", "write": "changed"}.get(
            use.used.kind, use.used.kind
        )
        by = f" with {use.used.detail}" if use.used.kind in ("read", "write") else ""
        lines.append(f"last used: {use.used.when}, {how}{by} in session {use.used.session}")
    else:
        lines.append("last used: never recalled, read or changed (`memdir used`)")
    if use.shown is not None:
        lines.append(
            f"index line last shown: {use.shown.when}, at the start of session {use.shown.session}"
        )
    return lines


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
    lines += _use_lines(answer.use)
    lines.append("history:")
    lines += [f"  {version_line(v)}" for v in answer.history]
    if answer.older is not None:
        lines.append(f"  (older versions: `memdir history {answer.ref} --before {answer.older}`)")
    return "\n".join(lines)
