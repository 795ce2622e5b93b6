"""Session notes: a running summary of one conversation, kept by a background run.

The trigger (:func:`should_update`) is the original design's
``shouldExtractMemory``: nothing until the conversation reaches
``session_min_tokens_to_init`` tokens; then an update when the conversation
grew ``session_min_tokens_between_updates`` since the last update AND either
``session_tool_calls_between_updates`` tool calls happened since the last
trigger, or the last assistant turn made no tool calls.

An update (:meth:`SessionNotes.update`) creates the notes file from the
template if needed (``O_CREAT|O_EXCL``, 0600, folders 0700), hands the
sub-agent the notes and the messages since the last summarised one, and lets
it edit that one file and nothing else. A run that loses a header or an
italic line is rejected and the previous notes restored. Only a successful
run moves the cursor, and only to a turn after which no tool call is pending.
The trigger state and the cursor persist in ``state.json`` beside the notes.

Updates of one :class:`SessionNotes` never overlap: :meth:`SessionNotes.submit`
runs them in the background, a submission mid-run becoming one trailing run.
:func:`compact` builds what a compaction keeps: the recent messages and a
summary message made from the notes.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from memdir.agents.limits import SESSION_NOTES_LIMITS, JobLimits
from memdir.agents.runner import (
    AgentTool,
    RunReport,
    ToolPolicy,
    TurnJob,
    format_conversation,
    run_agent,
)
from memdir.agents.session.template import (
    DEFAULT_TEMPLATE,
    DEFAULT_UPDATE_PROMPT,
    condense_instruction,
    load_text,
    missing_structure,
    parse_sections,
    render_update_prompt,
)
from memdir.config import Settings
from memdir.llm.base import Provider, ToolSpec
from memdir.storage.fs import atomic_write, ensure_dir, read_json_object
from memdir.storage.paths import Layout
from memdir.transcripts.turns import (
    Turn,
    count_tool_calls_since,
    estimate_tokens,
    last_assistant_has_tool_calls,
)

__all__ = [
    "EDIT_TOOL",
    "READ_TOOL",
    "Compaction",
    "NotesUpdate",
    "SessionNotes",
    "SessionState",
    "TriggerConfig",
    "compact",
    "conversation_tokens",
    "cursor_of",
    "ensure_notes_file",
    "notes_file_policy",
    "should_update",
    "turns_since",
]

TokenCounter = Callable[[str], int]
Cursor = str | int

EDIT_TOOL = "edit_file"
READ_TOOL = "read_file"
STATE_NAME = "state.json"
SYSTEM_PROMPT = (
    "You maintain the notes of a conversation between a user and an assistant. You are a "
    "background job: you do not talk to the user. You read the conversation you are given "
    "and edit the notes file with the tools you have, then stop."
)


@dataclass(frozen=True, kw_only=True)
class TriggerConfig:
    """The three thresholds of the trigger (defaults 4,000 / 2,000 / 5)."""

    min_tokens_to_init: int = 4000
    min_tokens_between_updates: int = 2000
    tool_calls_between_updates: int = 5

    @classmethod
    def from_settings(cls, settings: Settings) -> TriggerConfig:
        """The thresholds configured in ``settings``."""
        return cls(
            min_tokens_to_init=settings.session_min_tokens_to_init,
            min_tokens_between_updates=settings.session_min_tokens_between_updates,
            tool_calls_between_updates=settings.session_tool_calls_between_updates,
        )


@dataclass(frozen=True, kw_only=True)
class SessionState:
    """What persists between triggers: init flag, cursors, size at the last update."""

    initialized: bool = False
    tokens_at_last_update: int = 0
    trigger_cursor: Cursor | None = None  # the last turn when the trigger last fired
    summarized_cursor: Cursor | None = None  # the last turn the notes cover
    updates: int = 0

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SessionState:
        """Read a state saved by :meth:`to_json`; unknown or ill-typed keys are dropped."""
        state = cls()
        for key, kinds in (
            ("initialized", (bool,)),
            ("tokens_at_last_update", (int,)),
            ("trigger_cursor", (str, int)),
            ("summarized_cursor", (str, int)),
            ("updates", (int,)),
        ):
            if isinstance(data.get(key), kinds):
                state = replace(state, **{key: data[key]})
        return state

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def conversation_tokens(turns: Sequence[Turn], count: TokenCounter = estimate_tokens) -> int:
    """The conversation's estimated size in tokens (its turns' text)."""
    return sum(count(turn.text) for turn in turns if not turn.is_sidechain)


def cursor_of(turn: Turn) -> Cursor:
    """Where ``turn`` is, for a cursor: its uuid, or its index when it has none."""
    return turn.uuid if turn.uuid else turn.index


def should_update(
    turns: Sequence[Turn],
    state: SessionState,
    config: TriggerConfig,
    count: TokenCounter = estimate_tokens,
) -> tuple[bool, SessionState]:
    """Whether to update the notes now, and the state to keep (the seed's trigger)."""
    tokens = conversation_tokens(turns, count)
    if not state.initialized:
        if tokens < config.min_tokens_to_init:
            return False, state
        state = replace(state, initialized=True)
    token_threshold = tokens - state.tokens_at_last_update >= config.min_tokens_between_updates
    tool_threshold = (
        count_tool_calls_since(turns, state.trigger_cursor) >= config.tool_calls_between_updates
    )
    no_tools_last = not last_assistant_has_tool_calls(turns)
    if (token_threshold and tool_threshold) or (token_threshold and no_tools_last):
        if turns:
            state = replace(state, trigger_cursor=cursor_of(turns[-1]))
        return True, state
    return False, state


def turns_since(turns: Sequence[Turn], cursor: Cursor | None) -> list[Turn]:
    """The turns after ``cursor``; all of them when it is ``None`` or no longer found."""
    start = _position_after(turns, cursor)
    return list(turns[start:]) if start is not None else list(turns)


def _position_after(turns: Sequence[Turn], cursor: Cursor | None) -> int | None:
    if cursor is None:
        return None
    for position, turn in enumerate(turns):
        if isinstance(cursor, str) and (cursor == turn.uuid or cursor in turn.uuids):
            return position + 1
        if isinstance(cursor, int) and not turn.uuid and turn.index == cursor:
            return position + 1
    return None


def ensure_notes_file(path: Path, template: str) -> tuple[str, bool]:
    """The notes text, creating the file from ``template`` first if it does not exist.

    Creation is ``O_CREAT|O_EXCL`` (0600), so two writers never both fill it.
    Returns the text and whether this call created the file.
    """
    ensure_dir(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text(encoding="utf-8"), False
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(template)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        # A half-written file would lack the template's headers, and every later
        # run would be rejected for losing them: leave no file rather than that.
        path.unlink(missing_ok=True)
        raise
    return template, True


def notes_file_policy(path: Path) -> ToolPolicy:
    """The session-notes job's tools: edit and read ``path``, nothing else."""
    target = str(path)

    def check(args: Mapping[str, Any]) -> str | None:
        given = args.get("file_path")
        return None if given == target else f"file_path {given!r} is not the notes file"

    def read(args: Mapping[str, Any]) -> str:
        return path.read_text(encoding="utf-8")

    def edit(args: Mapping[str, Any]) -> str:
        return _str_replace(path, args)

    path_prop = {"type": "string", "description": f"must be {target}"}
    edit_spec = ToolSpec(
        name=EDIT_TOOL,
        description="Replace one exact, unique occurrence of old_string in the notes file.",
        input_schema={
            "type": "object",
            "properties": {
                "file_path": path_prop,
                "old_string": {"type": "string"},
                "new_string": {"type": "string"},
            },
            "required": ["file_path", "old_string", "new_string"],
        },
    )
    read_spec = ToolSpec(
        name=READ_TOOL,
        description="Read the notes file as it is now.",
        input_schema={
            "type": "object",
            "properties": {"file_path": path_prop},
            "required": ["file_path"],
        },
    )
    return ToolPolicy(
        tools=(
            AgentTool(spec=edit_spec, run=edit, check=check),
            AgentTool(spec=read_spec, run=read, check=check),
        ),
        allowed=f"only {EDIT_TOOL} and {READ_TOOL} on {target} are allowed",
    )


def _str_replace(path: Path, args: Mapping[str, Any]) -> str:
    old, new = args.get("old_string"), args.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str):
        raise ValueError("old_string and new_string must both be strings")
    if not old:
        raise ValueError("old_string is empty: copy the exact text to replace from the file")
    text = path.read_text(encoding="utf-8")
    found = text.count(old)
    if found != 1:
        problem = "was not found" if found == 0 else f"occurs {found} times"
        raise ValueError(f"old_string {problem}; copy a longer exact excerpt of the file")
    atomic_write(path, text.replace(old, new, 1))
    return f"edited {path.name}"


@dataclass(frozen=True, kw_only=True)
class NotesUpdate:
    """What one notes update did: the run, whether the notes were kept, the cursor."""

    path: Path
    run: RunReport | None
    accepted: bool
    created: bool = False
    missing: tuple[str, ...] = ()
    cursor: Cursor | None = None
    messages: int = 0
    condensing: bool = False


class SessionNotes(TurnJob[NotesUpdate]):
    """The notes of one session: trigger state, updates, and a background owner.

    Each update is held to ``limits`` (by default
    :data:`~memdir.agents.limits.SESSION_NOTES_LIMITS`).
    """

    def __init__(
        self,
        *,
        path: Path,
        provider: Provider,
        settings: Settings,
        template_path: Path | None = None,
        prompt_path: Path | None = None,
        count_tokens: TokenCounter = estimate_tokens,
        limits: JobLimits = SESSION_NOTES_LIMITS,
    ) -> None:
        super().__init__(self.update, name=f"memdir-session-notes-{path.parent.parent.name}")
        self.path = path
        self.state_path = path.parent / STATE_NAME
        self.provider = provider
        self.settings = settings
        self.config = TriggerConfig.from_settings(settings)
        self.template = load_text(template_path, DEFAULT_TEMPLATE, what="template")
        self.prompt = load_text(prompt_path, DEFAULT_UPDATE_PROMPT, what="prompt")
        self.count_tokens = count_tokens
        self.limits = limits
        self._state_lock = threading.Lock()

    @classmethod
    def for_session(
        cls,
        *,
        layout: Layout,
        settings: Settings,
        provider: Provider,
        session_id: str,
        **options: Any,
    ) -> SessionNotes:
        """The notes of ``session_id`` at ``layout.session_notes_path(session_id)``.

        Override files are picked up from ``<home>/session-memory/config/``
        (``template.md``, ``prompt.md``) when they exist.
        """
        config = layout.home / "session-memory" / "config"
        for key, name in (("template_path", "template.md"), ("prompt_path", "prompt.md")):
            if key not in options and (config / name).is_file():
                options[key] = config / name
        return cls(
            path=layout.session_notes_path(session_id),
            provider=provider,
            settings=settings,
            **options,
        )

    # -- state -------------------------------------------------------------

    def state(self) -> SessionState:
        """The persisted trigger state (a fresh one when none is saved or it is unreadable)."""
        data = read_json_object(self.state_path)
        return SessionState.from_json(data) if data is not None else SessionState()

    def _save(self, state: SessionState) -> None:
        atomic_write(self.state_path, json.dumps(state.to_json(), indent=2) + "\n")

    def should_update(self, turns: Sequence[Turn]) -> bool:
        """Apply the trigger to ``turns``, keeping its state; True when an update is due."""
        with self._state_lock:
            before = self.state()
            due, after = should_update(turns, before, self.config, self.count_tokens)
            if after != before:
                self._save(after)
            return due

    def read(self) -> str | None:
        """The notes as they are now, or ``None`` before the first update."""
        try:
            return self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    # -- updating ----------------------------------------------------------

    def maybe_update(self, turns: Sequence[Turn]) -> NotesUpdate | None:
        """Update now if the trigger says so; ``None`` when it does not."""
        return self.update(turns) if self.should_update(turns) else None

    def update(self, turns: Sequence[Turn]) -> NotesUpdate:
        """Run one update over the turns since the cursor (updates never overlap)."""
        return self._kept(lambda: self._update(list(turns)))

    def _update(self, turns: list[Turn]) -> NotesUpdate:
        notes, created = ensure_notes_file(self.path, self.template)
        fresh = turns_since(turns, self.state().summarized_cursor)
        if not fresh:
            return NotesUpdate(path=self.path, run=None, accepted=True, created=created)
        condense = condense_instruction(
            notes,
            self.count_tokens,
            max_section=self.settings.session_max_section_tokens,
            max_total=self.settings.session_max_total_tokens,
        )
        report = run_agent(
            self.provider,
            job="session_notes",
            system=SYSTEM_PROMPT,
            prompt=self._prompt(fresh, notes) + condense,
            policy=notes_file_policy(self.path),
            limits=self.limits,
        )
        return self._finish(
            turns, notes, report, created=created, fresh=len(fresh), condensing=bool(condense)
        )

    def _prompt(self, fresh: Sequence[Turn], notes: str) -> str:
        instructions = render_update_prompt(
            self.prompt,
            notes=notes,
            notes_path=self.path,
            max_section=self.settings.session_max_section_tokens,
            max_total=self.settings.session_max_total_tokens,
        )
        conversation = format_conversation(fresh)
        return f"<conversation>\n{conversation}\n</conversation>\n\n{instructions}"

    def _finish(
        self,
        turns: list[Turn],
        previous: str,
        report: RunReport,
        *,
        created: bool,
        fresh: int,
        condensing: bool,
    ) -> NotesUpdate:
        after = self.read() or ""
        missing = tuple(missing_structure(self.template, after))
        if missing:
            # A run that drops a header or an instruction line broke the notes'
            # shape: put the previous text back rather than keep half a file.
            atomic_write(self.path, previous)
        accepted = report.ok and not missing
        cursor = self._advance(turns) if accepted else None
        return NotesUpdate(
            path=self.path,
            run=report,
            accepted=accepted,
            created=created,
            missing=missing,
            cursor=cursor,
            messages=fresh,
            condensing=condensing,
        )

    def _advance(self, turns: list[Turn]) -> Cursor | None:
        with self._state_lock:
            state = self.state()
            state = replace(
                state,
                tokens_at_last_update=conversation_tokens(turns, self.count_tokens),
                updates=state.updates + 1,
            )
            # The cursor may only rest where no tool call waits for its result.
            if turns and not last_assistant_has_tool_calls(turns):
                state = replace(state, summarized_cursor=cursor_of(turns[-1]))
            self._save(state)
            return state.summarized_cursor


# --- compaction -------------------------------------------------------------------

COMPACT_MIN_TOKENS = 10_000
COMPACT_MIN_TEXT_MESSAGES = 5
COMPACT_MAX_TOKENS = 40_000


@dataclass(frozen=True, kw_only=True)
class Compaction:
    """What a compaction keeps: the summary message, then the turns from ``start`` on."""

    summary: str
    start: int
    kept: tuple[Turn, ...]
    kept_tokens: int


def compact(
    turns: Sequence[Turn],
    notes: str,
    cursor: Cursor | None,
    *,
    notes_path: Path | None = None,
    count: TokenCounter = estimate_tokens,
    min_tokens: int = COMPACT_MIN_TOKENS,
    min_text_messages: int = COMPACT_MIN_TEXT_MESSAGES,
    max_tokens: int = COMPACT_MAX_TOKENS,
    max_section_tokens: int = 2000,
) -> Compaction:
    """Choose the turns to keep after a compaction and build the summary message.

    Kept: the turns after ``cursor`` (none when it is unknown), extended back
    until they hold ``min_tokens`` and ``min_text_messages`` text messages,
    without passing ``max_tokens``, and never starting between a tool call
    and its result.
    """
    after = _position_after(turns, cursor)
    start = after if after is not None else len(turns)
    kept_tokens = sum(count(t.text) for t in turns[start:])
    texts = sum(1 for t in turns[start:] if _is_text_message(t))
    while start > 0 and (kept_tokens < min_tokens or texts < min_text_messages):
        cost = count(turns[start - 1].text)
        if kept_tokens + cost > max_tokens:
            break
        start -= 1
        kept_tokens += cost
        texts += _is_text_message(turns[start])
    start = _keep_tool_pairs(turns, start)
    kept = tuple(turns[start:])
    return Compaction(
        summary=summary_message(
            notes, notes_path=notes_path, count=count, max_section_tokens=max_section_tokens
        ),
        start=start,
        kept=kept,
        kept_tokens=sum(count(t.text) for t in kept),
    )


def _is_text_message(turn: Turn) -> bool:
    if turn.role == "tool" or turn.is_compact_boundary:
        return False
    lines = (line for line in turn.text.splitlines() if line.strip())
    return any(not line.startswith("[tool_use ") for line in lines)


def _keep_tool_pairs(turns: Sequence[Turn], start: int) -> int:
    """Move ``start`` back so that no kept tool result lacks the call it answers."""
    while start > 0:
        calls = {c.id for t in turns[start:] for c in t.tool_calls}
        orphans = {r for t in turns[start:] for r in t.tool_results if r not in calls}
        if not orphans:
            return start
        holder = next(
            (i for i in range(start - 1, -1, -1) if orphans & {c.id for c in turns[i].tool_calls}),
            None,
        )
        if holder is None:
            return start  # the call is not in this transcript at all
        start = holder
    return start


def summary_message(
    notes: str,
    *,
    notes_path: Path | None = None,
    count: TokenCounter = estimate_tokens,
    max_section_tokens: int = 2000,
) -> str:
    """The user message that replaces the compacted turns, built from the notes."""
    body = "\n\n".join(
        _clipped(s.title, s.content, count, max_section_tokens)
        for s in parse_sections(notes)
        if s.content
    )
    where = f" The full notes are in {notes_path}." if notes_path is not None else ""
    return (
        "This session continues an earlier conversation that ran out of context. The notes "
        f"below summarise the earlier part.{where}\n\n{body or notes.strip()}\n\n"
        "Continue from where the conversation left off, without asking the user to repeat "
        "anything."
    )


def _clipped(title: str, content: str, count: TokenCounter, cap: int) -> str:
    if count(content) > cap:
        content = content[: cap * 4].rsplit("\n", 1)[0] + "\n[… section shortened]"
    return f"# {title}\n{content}"
