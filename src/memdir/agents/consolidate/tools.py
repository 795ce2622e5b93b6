"""The tools of a consolidation run, and the record of what they changed.

:func:`consolidation_policy` offers the model extraction's readers
(``list_memories``, ``read_memory``, ``search_memories``) and its
``write_memory``, plus ``delete_memory``, ``list_logs``, ``read_log`` and
``search_transcripts``. Memories are named as the manifest lists them
(``team/x.md`` for the team scope); writes and deletes go through the store,
so confinement, locks, index upkeep and secret scanning apply, and a delete
moves the file to the dated trash. :class:`Changes` records, per file, whether
the run created, updated or deleted it, and the reason and sources the model
gave for it (the ``reason`` and ``sources`` arguments of both tools), which a
consolidation proposal shows beside each change.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memdir.agents.extract import (
    extraction_policy,
    memory_ref,
    tool_target,
    write_from_args,
    write_notes,
)
from memdir.agents.runner import AgentTool, ToolPolicy
from memdir.errors import MemdirError
from memdir.history.project import ProjectMemory
from memdir.history.review import AWAITING_REVIEW
from memdir.llm.base import ToolSpec
from memdir.search.query import grep
from memdir.storage.dailylog import LogEntry, iter_logs, log_path, read_log
from memdir.storage.fs import safe_join
from memdir.storage.paths import Layout

__all__ = ["Changes", "consolidation_policy", "format_log_entry"]

_MAX_TRANSCRIPT_HITS = 30
_MAX_HIT_CHARS = 300
_MIN_QUERY_CHARS = 3
_MAX_LISTED_LOGS = 90
_MAX_REASON_CHARS = 300
_MAX_SOURCES = 20


class Changes:
    """What one run did to each file, in the order first touched, and why."""

    def __init__(self) -> None:
        self._kind: dict[str, str] = {}
        self._reasons: dict[str, list[str]] = {}
        self._sources: dict[str, list[str]] = {}

    def wrote(
        self, ref: str, *, created: bool, reason: str = "", sources: tuple[str, ...] = ()
    ) -> None:
        """Record a write of ``ref``; ``created`` when the file did not exist."""
        before = self._kind.get(ref)
        if before is None:
            self._kind[ref] = "created" if created else "updated"
        elif before == "deleted":
            self._kind[ref] = "updated"  # deleted, then written again: it was there before
        self._explain(ref, reason, sources)

    def deleted(self, ref: str, *, reason: str = "", sources: tuple[str, ...] = ()) -> None:
        """Record a delete of ``ref``."""
        self._kind[ref] = "deleted"
        self._explain(ref, reason, sources)

    def _explain(self, ref: str, reason: str, sources: tuple[str, ...]) -> None:
        reasons = self._reasons.setdefault(ref, [])
        if reason and reason not in reasons:
            reasons.append(reason)
        known = self._sources.setdefault(ref, [])
        known += [s for s in sources if s not in known]

    def reason(self, ref: str) -> str:
        """The reasons the model gave for its calls on ``ref``, joined ("" if none)."""
        return "; ".join(self._reasons.get(ref, ()))

    def sources(self, ref: str) -> tuple[str, ...]:
        """What the model said its calls on ``ref`` rest on (logs, memories, transcripts)."""
        return tuple(self._sources.get(ref, ()))

    def refs(self) -> tuple[str, ...]:
        """Every file the run changed, in the order first touched."""
        return tuple(self._kind)

    def files(self, kind: str) -> tuple[str, ...]:
        """The files whose last change was ``kind``: created, updated or deleted."""
        return tuple(ref for ref, k in self._kind.items() if k == kind)


def format_log_entry(entry: LogEntry) -> str:
    """An entry with its full date, so relative dates in it can be resolved."""
    stamp = f"{entry.at:%Y-%m-%d %H:%M:%S}" if entry.at is not None else entry.day.isoformat()
    first, *rest = entry.text.split("\n")
    return "\n".join([f"- {stamp} {first}", *(f"  {line}" for line in rest)])


def consolidation_policy(
    memdir: ProjectMemory, changes: Changes | None = None, *, sources: Layout | None = None
) -> ToolPolicy:
    """Tools of a consolidation: extraction's readers, write and delete, logs, transcripts.

    Writes and deletes go through the store; ``sources`` is where transcripts
    and session notes are searched (the real project, also in a dry run).
    """
    changes = changes if changes is not None else Changes()
    sources = sources if sources is not None else memdir.layout
    base = {tool.spec.name: tool for tool in extraction_policy(memdir).tools}
    write = base["write_memory"]
    tools = (
        base["list_memories"],
        base["read_memory"],
        base["search_memories"],
        AgentTool(
            spec=_explained(write.spec), run=lambda a: _write(memdir, a, changes), check=write.check
        ),
        AgentTool(spec=_DELETE_SPEC, run=lambda a: _delete(memdir, a, changes), check=_file_check),
        AgentTool(spec=_LIST_LOGS_SPEC, run=lambda a: _list_logs(memdir.layout.logs_dir)),
        AgentTool(spec=_READ_LOG_SPEC, run=lambda a: _read_log(memdir.layout.logs_dir, a)),
        AgentTool(spec=_TRANSCRIPTS_SPEC, run=lambda a: _search_transcripts(sources, a)),
    )
    names = ", ".join(tool.spec.name for tool in tools)
    return ToolPolicy(
        tools=tools,
        allowed=f"only {names} are allowed, on files inside {memdir.layout.memory_dir}",
    )


def _write(memdir: ProjectMemory, args: Mapping[str, Any], changes: Changes) -> str:
    scope, file = tool_target(memdir, args, team_prefix=True)
    result = write_from_args(memdir, args, scope=scope, file=file)
    ref = memory_ref(scope, result.record.file)
    if result.pending is None:  # a proposal under review changed nothing yet
        changes.wrote(ref, created=result.created, **_why(args))
    return f"{'created' if result.created else 'updated'} {ref}{write_notes(result)}"


def _delete(memdir: ProjectMemory, args: Mapping[str, Any], changes: Changes) -> str:
    scope, file = tool_target(memdir, args, team_prefix=True)
    if file is None:
        raise ValueError("file is required")
    store = memdir.store(scope)
    record = store.get(file)
    held = store.review_held()
    store.delete(record.file)
    ref = memory_ref(scope, record.file)
    if held:
        return f"proposed deleting {ref} {AWAITING_REVIEW}"
    changes.deleted(ref, **_why(args))
    return f"moved {ref} to the trash; its index line is gone"


def _why(args: Mapping[str, Any]) -> dict[str, Any]:
    """The ``reason`` and ``sources`` of a call, as :class:`Changes` keeps them."""
    reason = " ".join(str(args.get("reason") or "").split())[:_MAX_REASON_CHARS]
    raw = args.get("sources")
    items = raw if isinstance(raw, list) else [raw] if isinstance(raw, str) else []
    sources = tuple(str(s).strip()[:_MAX_REASON_CHARS] for s in items if str(s).strip())
    return {"reason": reason, "sources": sources[:_MAX_SOURCES]}


def _file_check(args: Mapping[str, Any]) -> str | None:
    file = args.get("file")
    if not isinstance(file, str) or not file:
        return "file must be a memory file as listed, e.g. 'topic.md' or 'team/topic.md'"
    try:
        safe_join(Path("/memory"), file)  # the text rules; the store checks the real root
    except MemdirError as exc:
        return exc.message
    return None


def _list_logs(logs_dir: Path) -> str:
    days = list(iter_logs(logs_dir))[-_MAX_LISTED_LOGS:]
    if not days:
        return "no daily logs"
    return "\n".join(
        f"{day.isoformat()}: {path.relative_to(logs_dir.parent).as_posix()}" for day, path in days
    )


def _read_log(logs_dir: Path, args: Mapping[str, Any]) -> str:
    raw = str(args.get("date") or "")
    try:
        day = dt.date.fromisoformat(raw)
    except ValueError:
        raise ValueError(f"date must be YYYY-MM-DD, got {raw!r}") from None
    entries = read_log(log_path(logs_dir, day))
    if not entries:
        return f"no log entries for {day.isoformat()}"
    return "\n".join(map(format_log_entry, entries))


def _search_transcripts(sources: Layout, args: Mapping[str, Any]) -> str:
    query = str(args.get("query") or "").strip()
    if len(query) < _MIN_QUERY_CHARS:
        raise ValueError(f"query must be a narrow term of at least {_MIN_QUERY_CHARS} characters")
    hits = grep(
        sources.sessions_dir, query, ignore_case=True, include_transcripts_dir=sources.project_dir
    )
    if not hits:
        return "no matches"
    lines = [
        f"{_relative(h.path, sources.project_dir)}:{h.line}: {h.text.strip()[:_MAX_HIT_CHARS]}"
        for h in hits[:_MAX_TRANSCRIPT_HITS]
    ]
    extra = len(hits) - _MAX_TRANSCRIPT_HITS
    return "\n".join(lines) + (f"\n[{extra} more matches: narrow the term]" if extra > 0 else "")


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name


_FILE_ARG = {"type": "string", "description": "a memory file as listed, e.g. topic.md"}
_WHY_ARGS = {
    "reason": {
        "type": "string",
        "description": "one line for the user: what this merges, corrects or drops, and why",
    },
    "sources": {
        "type": "array",
        "items": {"type": "string"},
        "description": (
            "what it rests on: daily-log dates (2026-03-04), memory files (topic.md), "
            "transcript hits (file:turn)"
        ),
    },
}


def _explained(spec: ToolSpec) -> ToolSpec:
    """``spec`` with the ``reason`` and ``sources`` arguments a proposal shows."""
    schema = dict(spec.input_schema)
    schema["properties"] = {**dict(schema.get("properties") or {}), **_WHY_ARGS}
    return ToolSpec(name=spec.name, description=spec.description, input_schema=schema)


_DELETE_SPEC = ToolSpec(
    name="delete_memory",
    description=(
        "Delete a memory that was merged into another, contradicted, or is useless. The file "
        "moves to a trash folder (recoverable) and its index line is removed."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "file": _FILE_ARG,
            "scope": {"type": "string", "enum": ["private", "team"]},
            **_WHY_ARGS,
        },
        "required": ["file"],
    },
)
_LIST_LOGS_SPEC = ToolSpec(
    name="list_logs", description="List the daily logs, oldest first: date and file."
)
_READ_LOG_SPEC = ToolSpec(
    name="read_log",
    description="Read one day's log: each entry with its date and time.",
    input_schema={
        "type": "object",
        "properties": {"date": {"type": "string", "description": "YYYY-MM-DD"}},
        "required": ["date"],
    },
)
_TRANSCRIPTS_SPEC = ToolSpec(
    name="search_transcripts",
    description=(
        "Case-insensitive literal search of past conversation transcripts and session notes; "
        "returns file:turn: text. Use narrow terms (an error message, a file name)."
    ),
    input_schema={
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
    },
)
