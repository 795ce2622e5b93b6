"""Durable memory extraction: after a finished turn, save what is worth keeping.

When the agent gives a final answer (an assistant turn without tool calls), a
background sub-agent reads the messages since the extraction cursor and the
manifest of existing memories, and writes or updates memories through
:class:`~memdir.storage.store.MemoryStore` (so confinement, locks, the index and the
team secret scan all apply). Its tools: list, read and search inside the memory
directory, and ``write_memory``; anything else (deleting included) is refused
back to the model. At most five model turns.

The run is skipped when the main agent already wrote memory since the cursor
(:func:`wrote_memory`: a file-writing tool call whose path is inside the memory
directory, or a memdir write tool).

A session that read external content (:func:`external_reads`: a web fetch or search,
an MCP tool of a server other than memdir's) may carry someone else's words into
memory, so its extraction runs only as the setting ``extract_tainted`` allows: "ask"
(the default) holds each of the run's writes for the person's review with the reason
"session read external content (<tools>)", "yes" extracts as usual, "no" skips it.

One run at a time; submissions mid-run coalesce into one trailing run; the cursor
(``extract.json`` in the session folder) moves only when the run succeeds. Errors are
logged and reported, never raised into the agent.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memdir.agents.limits import EXTRACTION_LIMITS, JobLimits
from memdir.agents.runner import (
    AgentStop,
    AgentTool,
    RunReport,
    ToolPolicy,
    TurnJob,
    format_conversation,
    run_agent,
)
from memdir.agents.session.notes import Cursor, cursor_of, turns_since
from memdir.enforcement.rules import FIELD as ENFORCE_FIELD
from memdir.errors import ConfigError, InvalidMemory, MemdirError
from memdir.history.project import ProjectMemory
from memdir.history.provenance import provenance
from memdir.history.review import AWAITING_REVIEW
from memdir.llm.base import Provider, ToolSpec
from memdir.model import MemoryType, Scope
from memdir.recall.manifest import build_manifest
from memdir.recall.prompt import WHAT_NOT_TO_SAVE
from memdir.search.query import grep
from memdir.storage.fs import atomic_write, read_json_object, safe_join
from memdir.storage.store import WriteResult
from memdir.transcripts.turns import Turn, last_assistant_has_tool_calls

__all__ = [
    "TAINT_MODES",
    "TAINT_REASON",
    "ExtractionReport",
    "MemoryExtractor",
    "external_reads",
    "extraction_policy",
    "memory_ref",
    "tool_target",
    "write_from_args",
    "write_notes",
    "wrote_memory",
]

log = logging.getLogger("memdir.agents.extract")

STATE_NAME = "extract.json"
_MAX_GREP_HITS = 50

# Tools of coding agents that write a file named by one of these arguments.
_FILE_WRITE_TOOLS = frozenset(
    {"Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "edit_file", "create_file"}
)
_PATH_KEYS = ("file_path", "path", "notebook_path")
# memdir's own write tools (MCP names carry a server prefix, e.g. mcp__memdir__write).
_MEMDIR_WRITE_VERBS = ("write", "edit", "create", "str_replace", "insert", "rename", "delete")
# The Anthropic memory tool: these commands change files.
_MEMORY_TOOL_WRITES = frozenset({"create", "str_replace", "insert", "delete", "rename"})
# Tools that bring the outside world's text into a session (Claude Code's, Codex's and
# Gemini CLI's names); an MCP tool of any server but memdir's does too.
_EXTERNAL_TOOLS = frozenset(
    {"WebFetch", "WebSearch", "web_fetch", "web_search", "google_web_search"}
)
TAINT_REASON = "session read external content"
TAINT_MODES = ("ask", "yes", "no")

SYSTEM_PROMPT = f"""\
You are memdir's memory extractor, a background job: you do not talk to the user. You \
read the latest part of a conversation between a user and an AI agent and save what \
future conversations should know, as memories, with the tools you have.

Each memory has one of four types:
- user: who the user is (role, expertise, preferences) — always private.
- feedback: how the user wants the agent to work; corrections and confirmed approaches.
- project: facts about the work not derivable from the code: goals, decisions, deadlines.
- reference: where information lives outside the project (dashboards, tickets, docs).
Feedback and project bodies: the rule or fact first, then a **Why:** line and a \
**How to apply:** line. Convert relative dates to absolute ones. When a feedback rule is \
mechanical (a command, a path, a file pattern), propose an enforce rule with it: the tool \
and an RE2 pattern that spots the forbidden call; it asks the user until they promote it.
Scope: "private" (this user only) or "team" (shared with the project's contributors): \
user memories are always private.

{WHAT_NOT_TO_SAVE}

Update an existing memory (pass its file) rather than writing a near-duplicate. Save \
nothing when nothing is worth saving. You have few turns: read what you need in one \
reply, write everything in the next, then answer with a one-line summary and no tool \
calls."""


def wrote_memory(turns: Sequence[Turn], memory_dir: Path) -> bool:
    """Whether any assistant turn in ``turns`` wrote into ``memory_dir`` itself."""
    root = os.path.realpath(memory_dir)
    for turn in turns:
        if turn.role != "assistant" or turn.is_sidechain:
            continue
        for call in turn.tool_calls:
            if _is_memory_write(call.name, call.input, root):
                return True
    return False


def external_reads(turns: Sequence[Turn]) -> tuple[str, ...]:
    """The tools by which ``turns`` read external content, in order of first use.

    Subagents' turns count too: what they read reaches the main conversation.
    """
    found: list[str] = []
    for turn in turns:
        for call in turn.tool_calls if turn.role == "assistant" else ():
            if _reads_outside(call.name) and call.name not in found:
                found.append(call.name)
    return tuple(found)


def _reads_outside(name: str) -> bool:
    if name in _EXTERNAL_TOOLS:
        return True
    parts = name.split("__")
    return len(parts) >= 3 and parts[0] == "mcp" and "memdir" not in parts[1]


def _taint_mode(memdir: ProjectMemory) -> str:
    mode = memdir.settings.extract_tainted
    if mode not in TAINT_MODES:
        raise ConfigError(
            f"extract_tainted = {mode!r} is not one of {', '.join(TAINT_MODES)}",
            hint='set extract_tainted to "ask" (hold for review), "yes" or "no"',
        )
    return mode


def _is_memory_write(name: str, args: Mapping[str, Any], root: str) -> bool:
    if name in _FILE_WRITE_TOOLS:
        return any(_inside(args.get(key), root) for key in _PATH_KEYS)
    parts = name.split("__")
    if len(parts) >= 3 and parts[0] == "mcp" and "memdir" in parts[1]:
        return any(verb in parts[-1] for verb in _MEMDIR_WRITE_VERBS)
    if name == "memory":
        return args.get("command") in _MEMORY_TOOL_WRITES
    return False


def _inside(value: Any, root: str) -> bool:
    if not isinstance(value, str) or not value:
        return False
    path = os.path.realpath(os.path.expanduser(value))
    return path == root or path.startswith(root + os.sep)


@dataclass(frozen=True, kw_only=True)
class ExtractionReport:
    """What one extraction did: the run, what it saved, or why it was skipped."""

    run: RunReport | None = None
    saved: tuple[str, ...] = ()  # refs from the memory directory, team ones as team/<file>
    team: int = 0
    skipped: str | None = None
    error: str | None = None
    cursor: Cursor | None = None
    held: str | None = None  # why every write of the run waits for review

    @property
    def message(self) -> str:
        """``Saved N memories (M team)``, or why nothing ran."""
        if self.skipped is not None:
            return f"Extraction skipped: {self.skipped}"
        if self.error is not None:
            return f"Extraction failed: {self.error}"
        noun = "memory" if len(self.saved) == 1 else "memories"
        if self.held is not None and self.saved:
            return f"Kept {len(self.saved)} {noun} for review ({self.team} team): {self.held}"
        return f"Saved {len(self.saved)} {noun} ({self.team} team)"


class _Writes:
    """The memories one run wrote, in order, without repeats."""

    def __init__(self) -> None:
        self.refs: list[str] = []
        self.team = 0

    def add(self, scope: Scope, file: str) -> None:
        ref = memory_ref(scope, file)
        if ref not in self.refs:
            self.refs.append(ref)
            self.team += scope is Scope.TEAM


def extraction_policy(memdir: ProjectMemory, writes: _Writes | None = None) -> ToolPolicy:
    """Tools of an extraction: list, read, search inside the memory directory; write_memory."""
    writes = writes if writes is not None else _Writes()
    root = memdir.layout.memory_dir
    tools = (
        AgentTool(spec=_LIST_SPEC, run=lambda args: build_manifest(memdir).text or "(none)"),
        AgentTool(spec=_READ_SPEC, run=lambda args: _read(memdir, args), check=_path_check(root)),
        AgentTool(spec=_SEARCH_SPEC, run=lambda args: _search(root, args)),
        AgentTool(
            spec=_WRITE_SPEC,
            run=lambda args: _write(memdir, args, writes),
            check=_write_check(memdir),
        ),
    )
    return ToolPolicy(
        tools=tools,
        allowed=(
            "only list_memories, read_memory, search_memories and write_memory, "
            f"inside {root}, are allowed (deleting is not)"
        ),
    )


def _path_check(root: Path) -> Callable[[Mapping[str, Any]], str | None]:
    def check(args: Mapping[str, Any]) -> str | None:
        file = args.get("file")
        if not isinstance(file, str):
            return "file must be a path relative to the memory directory"
        try:
            safe_join(root, file)
        except MemdirError as exc:
            return exc.message
        return None

    return check


def _write_check(memdir: ProjectMemory) -> Callable[[Mapping[str, Any]], str | None]:
    def check(args: Mapping[str, Any]) -> str | None:
        scope = args.get("scope") or Scope.PRIVATE.value
        if scope not in {s.value for s in Scope}:
            return f"scope {scope!r} is neither 'private' nor 'team'"
        file = args.get("file")
        if file is None or file == "":
            return None
        if not isinstance(file, str):
            return "file must be a file name such as 'topic.md'"
        try:
            safe_join(memdir.store(scope).root, file)
        except MemdirError as exc:
            return exc.message
        return None

    return check


def _read(memdir: ProjectMemory, args: Mapping[str, Any]) -> str:
    path = safe_join(memdir.layout.memory_dir, str(args["file"]))
    data = path.read_bytes()
    limit = memdir.settings.max_view_bytes
    text = data[:limit].decode("utf-8", errors="replace")
    return text if len(data) <= limit else text + f"\n[… {len(data) - limit} more bytes]"


def _search(root: Path, args: Mapping[str, Any]) -> str:
    query = args.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValueError("query must be a non-empty string")
    hits = grep(root, query, ignore_case=True)
    if not hits:
        return "no matches"
    lines = [f"{h.path.relative_to(root).as_posix()}:{h.line}: {h.text}" for h in hits]
    extra = len(lines) - _MAX_GREP_HITS
    return "\n".join(lines[:_MAX_GREP_HITS]) + (f"\n[{extra} more matches]" if extra > 0 else "")


def write_from_args(
    memdir: ProjectMemory, args: Mapping[str, Any], *, scope: Scope, file: str | None
) -> WriteResult:
    """Write the memory a model's ``write_memory`` call describes, through the store.

    A model that names a file rewrites what it read there (merging, retitling):
    the write replaces it, and the store keeps the old file in the trash.
    """
    try:
        kind = MemoryType(str(args.get("type")))
    except ValueError:
        raise InvalidMemory(
            f"unknown type {args.get('type')!r}", hint="one of user, feedback, project, reference"
        ) from None
    name = str(args.get("name") or "")
    extra = _enforce_extra(memdir, args, kind, scope=scope, ref=file or name)
    return memdir.write(
        name=name,
        description=str(args.get("description") or ""),
        type=kind,
        body=str(args.get("body") or ""),
        scope=scope,
        file=file,
        extra=extra,
        replace=file is not None,
    )


def _enforce_extra(
    memdir: ProjectMemory, args: Mapping[str, Any], kind: MemoryType, *, scope: Scope, ref: str
) -> dict[str, Any]:
    """The ``enforce:`` field of a model's write: the memory's own rules, kept, and its
    proposals added as ``ask`` (a model never decides that a call is denied)."""
    existing = memdir.store(scope).find(ref, thorough=False) if ref else None
    rules = list(existing.memory.extra.get(ENFORCE_FIELD) or []) if existing else []
    proposed = args.get("enforce") if kind is MemoryType.FEEDBACK else None
    seen = {(r.get("tool"), r.get("match")) for r in rules if isinstance(r, Mapping)}
    for item in proposed if isinstance(proposed, list) else ():
        if isinstance(item, Mapping) and (item.get("tool"), item.get("match")) not in seen:
            rule = {"tool": str(item.get("tool", "")), "match": str(item.get("match", ""))}
            rules.append({**rule, "action": "ask"})
            seen.add((rule["tool"], rule["match"]))
    return {ENFORCE_FIELD: rules} if rules else {}


def memory_ref(scope: Scope, file: str) -> str:
    """A memory as named from the memory directory: team files as ``team/<file>``."""
    return f"team/{file}" if scope is Scope.TEAM else file


def tool_target(
    memdir: ProjectMemory, args: Mapping[str, Any], *, team_prefix: bool = False
) -> tuple[Scope, str | None]:
    """The scope and scope-relative file of a model's call; team scope only when it is on.

    With ``team_prefix``, a file ``team/x.md`` names ``x.md`` of the team scope.
    """
    file = str(args["file"]) if args.get("file") else None
    scope = Scope(str(args.get("scope") or "private"))
    if team_prefix and file is not None and file.startswith("team/"):
        scope, file = Scope.TEAM, file.removeprefix("team/")
    if scope is Scope.TEAM and not memdir.team_enabled:
        raise InvalidMemory("team memory is off for this project", hint="use scope 'private'")
    return scope, file


def _write(memdir: ProjectMemory, args: Mapping[str, Any], writes: _Writes) -> str:
    scope, file = tool_target(memdir, args)
    result = write_from_args(memdir, args, scope=scope, file=file)
    writes.add(scope, result.record.file)
    verb = "created" if result.created else "updated"
    if result.pending is not None:
        verb = "proposed"
    return f"{verb} {scope.value}:{result.record.file}{write_notes(result)}"


def write_notes(result: WriteResult) -> str:
    """What a write tool adds to its answer: that the write awaits review, and its warnings."""
    held = f" {AWAITING_REVIEW}" if result.pending is not None else ""
    return held + "".join(f"\nwarning: {w}" for w in result.warnings)


_FILE_ARG = {"type": "string", "description": "path inside the memory directory, e.g. topic.md"}
_LIST_SPEC = ToolSpec(
    name="list_memories",
    description="List every memory: [type] file (date): description. Team files start team/.",
)
_READ_SPEC = ToolSpec(
    name="read_memory",
    description="Read one file of the memory directory (a memory, MEMORY.md, a daily log).",
    input_schema={"type": "object", "properties": {"file": _FILE_ARG}, "required": ["file"]},
)
_SEARCH_SPEC = ToolSpec(
    name="search_memories",
    description="Case-insensitive literal search over the memory files; returns file:line: text.",
    input_schema={
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
    },
)
_WRITE_SPEC = ToolSpec(
    name="write_memory",
    description=(
        "Create a memory, or update one: pass the file of an existing memory to replace it. "
        "The index (MEMORY.md) is kept up to date for you."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "a short title"},
            "description": {"type": "string", "description": "one specific line recall matches"},
            "type": {"type": "string", "enum": [t.value for t in MemoryType]},
            "body": {"type": "string"},
            "scope": {"type": "string", "enum": [s.value for s in Scope]},
            "file": {"type": "string", "description": "existing file to update (optional)"},
            "enforce": {
                "type": "array",
                "description": "feedback only: tool calls that break the rule (asks the user)",
                "items": {
                    "type": "object",
                    "properties": {
                        "tool": {"type": "string", "description": "e.g. Bash, Edit|Write, *"},
                        "match": {"type": "string", "description": "RE2 pattern on the input"},
                    },
                    "required": ["tool", "match"],
                },
            },
        },
        "required": ["name", "description", "type", "body"],
    },
)


_MAX_SOURCE_TURNS = 20


def source_turns(turns: Sequence[Turn]) -> str | None:
    """The ids of the conversation turns an extraction read (``#index`` without a uuid)."""
    refs = [
        t.uuid or f"#{t.index}"
        for t in turns
        if not t.is_sidechain and t.role in ("user", "assistant") and t.text.strip()
    ]
    return " ".join(refs[-_MAX_SOURCE_TURNS:]) or None


class MemoryExtractor(TurnJob[ExtractionReport]):
    """Extraction for one session of one project; owns its background runs.

    Each run is held to ``limits`` (by default
    :data:`~memdir.agents.limits.EXTRACTION_LIMITS`).
    """

    def __init__(
        self,
        memdir: ProjectMemory,
        provider: Provider,
        session_id: str,
        *,
        limits: JobLimits = EXTRACTION_LIMITS,
    ) -> None:
        super().__init__(self.extract, name=f"memdir-extract-{session_id}")
        self.memdir = memdir
        self.provider = provider
        self.session_id = session_id
        self.state_path = memdir.layout.session_dir(session_id) / STATE_NAME
        self.limits = limits

    def cursor(self) -> Cursor | None:
        """The last turn already considered, or ``None``."""
        value = (read_json_object(self.state_path) or {}).get("cursor")
        return value if isinstance(value, str | int) and not isinstance(value, bool) else None

    def _save_cursor(self, turns: Sequence[Turn]) -> Cursor | None:
        if not turns:
            return None
        cursor = cursor_of(turns[-1])
        atomic_write(self.state_path, json.dumps({"cursor": cursor}) + "\n")
        return cursor

    def should_run(self, turns: Sequence[Turn]) -> bool:
        """A finished turn (final answer, no tool calls) with something new since the cursor."""
        main = [t for t in turns if not t.is_sidechain]
        if not main or main[-1].role != "assistant" or last_assistant_has_tool_calls(main):
            return False
        return bool(turns_since(turns, self.cursor()))

    def extract(self, turns: Sequence[Turn]) -> ExtractionReport:
        """Run one extraction now; never raises for model, provider or memory errors."""
        report = self._kept(lambda: self._extract_or_error(list(turns)))
        log.info("%s", report.message)
        return report

    def _extract_or_error(self, turns: list[Turn]) -> ExtractionReport:
        try:
            return self._extract(turns)
        except (MemdirError, OSError) as exc:
            log.warning("memory extraction failed: %s", exc)
            return ExtractionReport(error=str(exc))

    def _extract(self, turns: list[Turn]) -> ExtractionReport:
        fresh = turns_since(turns, self.cursor())
        if not fresh:
            return ExtractionReport(skipped="nothing new since the last extraction")
        if wrote_memory(fresh, self.memdir.layout.memory_dir):
            # The agent saved memory itself: a second writer would duplicate it.
            cursor = self._save_cursor(turns)
            return ExtractionReport(skipped="the agent wrote memory itself", cursor=cursor)
        hold, skip = self._taint(turns)
        if skip is not None:
            return ExtractionReport(skipped=skip, cursor=self._save_cursor(turns))
        writes = _Writes()
        # What this run saves rests on these turns: the history records them (see `memdir why`).
        with provenance(
            route="extraction", session=self.session_id, turns=source_turns(fresh), hold=hold
        ):
            report = run_agent(
                self.provider,
                job="extract",
                system=SYSTEM_PROMPT,
                prompt=self._prompt(fresh),
                policy=extraction_policy(self.memdir, writes),
                limits=self.limits,
            )
        # Trigger: the turn limit ends a run that already wrote. Why: five turns is the
        # design's cap, and the writes stand. Outcome: count it as done.
        done = report.ok or (report.stop_reason is AgentStop.MAX_TURNS and bool(writes.refs))
        cursor = self._save_cursor(turns) if done else None
        return ExtractionReport(
            run=report,
            saved=tuple(writes.refs),
            team=writes.team,
            error=None if done else (report.error or f"run stopped: {report.stop_reason}"),
            cursor=cursor,
            held=hold,
        )

    def _taint(self, turns: Sequence[Turn]) -> tuple[str | None, str | None]:
        """(why the run's writes wait for review, why the run does not happen) for a
        session that read external content; (None, None) for one that did not."""
        read = external_reads(turns)
        if not read:
            return None, None
        reason = f"{TAINT_REASON} ({', '.join(read)})"
        mode = _taint_mode(self.memdir)
        if mode == "yes":
            return None, None
        if mode == "no":
            return None, f"the {reason}, and extract_tainted is no"
        if self.memdir.history_db is None:  # a write held for review lives in the history
            return None, f"the {reason}, and with history off nothing can wait for review"
        return reason, None

    def _prompt(self, fresh: Sequence[Turn]) -> str:
        manifest = build_manifest(self.memdir)
        listing = manifest.text.strip() or "(no memories yet)"
        team = "on" if self.memdir.team_enabled else "off (write private memories only)"
        return (
            f"<conversation>\n{format_conversation(fresh)}\n</conversation>\n\n"
            f"Existing memories:\n{listing}\n\nTeam memory is {team}.\n"
            "Save what this part of the conversation teaches that future conversations "
            "need, if anything."
        )
