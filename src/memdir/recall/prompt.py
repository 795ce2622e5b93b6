"""The memory section of an agent's system prompt, in all its modes.

:func:`build_prompt` is pure: it takes the index texts as arguments and reads
nothing, so every variant can be pinned by an exact expected text. The prompt
is assembled from section builders; a variant (mode, tool style, index-less)
changes the words inside a section, never the order of sections:

    intro, [daily log], types, what not to save, [how to save], when to access,
    before recommending, searching, other persistence, extra guidelines, index

Extra guidelines come before the index so that every instruction precedes the
data. :func:`load_prompt` is the thin convenience that reads the indexes from
disk; :func:`memory_enabled` and :func:`resolve_mode` are the enable chain and
the mode priority of SPEC §4, kept apart so that only composition roots read
the environment. The index part (reading, cutting and fitting ``MEMORY.md``)
is :mod:`memdir.recall.index_fit`.

The session-start hook builds this prompt on every session start: the module
imports neither ``typing``, ``pathlib`` nor ``shlex`` (which loads ``re``).
"""

from __future__ import annotations

import time

from memdir.config import memory_enabled
from memdir.errors import ConfigError
from memdir.recall.context_budget import fit_lines, split_budget, text_length
from memdir.recall.index_fit import (
    LEFT_OUT_COMMAND,
    PRIVATE_HEADING,
    TEAM_HEADING,
    IndexShape,
    fit_index_block,
    index_block,
    index_shape,
    read_index,
)
from memdir.screening.fences import fence_safe
from memdir.storage.memory_index import INDEX_NAME, MAX_INDEX_CHARS, MAX_INDEX_LINES

TYPE_CHECKING = False  # not typing's: the session-start hook loads this module
if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Literal

    # Types only (not in __all__): importers name them under TYPE_CHECKING too.
    from memdir.recall.prompt_tools import PromptMode as PromptMode
    from memdir.recall.prompt_tools import PromptTools as PromptTools

__all__ = [
    "BEFORE_RECOMMENDING",
    "DRIFT_CAVEAT",
    "LEFT_OUT_COMMAND",
    "MEMORY_AND_OTHER_PERSISTENCE",
    "WHAT_NOT_TO_SAVE",
    "IndexShape",
    "build_prompt",
    "fit_index_block",
    "index_shape",
    "load_prompt",
    "memory_enabled",
    "read_index",
    "resolve_mode",
]

# The values of PromptMode and PromptTools, checked at run time.
_MODES: tuple[PromptMode, ...] = ("individual", "combined", "daily-log")
_TOOLS: tuple[PromptTools, ...] = ("files", "memdir")


# The drift caveat stands alone so that recall can attach it to what it returns.
DRIFT_CAVEAT = (
    "A memory is a point-in-time record and can go stale. Before answering from it or "
    "building on it, verify it against the current state of the files or resources it "
    "names. If it conflicts with what you observe now, trust the present, and fix or "
    "remove the memory instead of acting on it."
)

WHAT_NOT_TO_SAVE = """\
## What not to save

- Code patterns, conventions, architecture, file paths or project structure: read them \
from the project.
- Git history, recent changes, who changed what: `git log` and `git blame` are \
authoritative.
- Debugging solutions and fix recipes: the fix is in the code, its context in the commit \
message.
- Anything the project's instruction files (CLAUDE.md, AGENTS.md) already say.
- Ephemeral task details: work in progress, temporary state, this conversation's context.

These exclusions hold even when the user explicitly asks you to save such things. If \
they ask you to remember a PR list or an activity summary, ask what in it was surprising \
or non-obvious: that part is worth saving."""

BEFORE_RECOMMENDING = """\
## Before recommending from memory

A memory that names a file, function or flag claims it existed when the memory was \
written; it may since have been renamed, removed, or never merged. Before recommending it:

- a file path: check that the file exists;
- a function or flag: grep for it;
- if the user is about to act on your answer (not just asking about history): verify \
first.

"Memory says X exists" is not "X exists now". A memory that summarises repository state \
(an activity log, an architecture snapshot) is frozen in time: for recent or current \
state, prefer `git log` or the code itself."""

MEMORY_AND_OTHER_PERSISTENCE = """\
## Memory and other persistence

Plans and task lists are for the current conversation: agreeing on an approach, tracking \
progress. Memory is for future conversations. Don't save a plan or a task list; when one \
settles something lasting (a decision, a surprising constraint), save that."""

_SCOPES = {
    "user": "always private.",
    "feedback": "private by default; team when it is a convention for everyone on the project.",
    "project": "team, unless it concerns only this user's own work.",
    "reference": "usually team.",
}


_ENFORCE = """
- Enforce: when the rule is mechanical (a command, a path, a file pattern), add an \
`enforce:` list to the memory's frontmatter and memdir checks every tool call against it, \
e.g. `enforce: [{tool: Bash, match: '\\bnpm (install|i|run)\\b', action: ask}]`. `tool` \
is a tool name, `Edit|Write` or `*`; `match` is an RE2 pattern searched in the command, or \
in the file path and new content; `action` is deny, ask or warn. Propose `ask`: the user \
promotes a rule to `deny` once they agree with it."""


def _types_section(*, mode: PromptMode, today: str) -> str:
    combined = mode == "combined"
    daily = mode == "daily-log"

    def scope(kind: str) -> str:
        return f"\n- Scope: {_SCOPES[kind]}" if combined else ""

    def label(kind: str, where: str) -> str:
        return f"{where} {kind} memory" if combined else f"{kind} memory"

    dates = (
        "Convert relative dates to absolute ones, so the entry still reads correctly later."
        if daily
        else f"Convert relative dates to absolute ones (today is {today}), so the "
        "memory still reads correctly later."
    )
    lead = (
        "Log what fits one of these four types; consolidation files each entry under its type."
        if daily
        else "Each memory has one of four types."
    )
    structure = (
        ""
        if daily
        else "\n\nFeedback and project bodies: the rule or fact first, then a **Why:** line (the "
        "reason: often a past incident, a constraint or a strong preference) and a "
        "**How to apply:** line (when and where it applies)."
    )
    # Daily-log entries have no frontmatter: rules are added when consolidation files them.
    enforce = "" if daily else _ENFORCE
    return f"""\
## Types of memory

{lead}

### user
Who the user is: role, goals, responsibilities, expertise, preferences.{scope("user")}
- Save: when you learn something about the user that should change how you work with them.
- Use: to fit explanations and suggestions to their background and knowledge.
- Example: "I've written Go for ten years, but this is my first time in the React side of \
this repo" → {label("user", "private")}: deep Go expertise, new to React and this \
frontend; explain frontend ideas through backend analogies.

### feedback
How the user wants you to work: what to avoid and what to keep doing. Record corrections, \
and also approaches the user confirmed: those are easy to miss.{scope("feedback")}
- Save: when the user corrects you or approves a non-obvious choice. Keep the reason, so \
you can judge edge cases instead of following the rule blindly.
- Use: so the user never has to give the same guidance twice.
- Example: "Don't mock the database in these tests: mocked tests passed last quarter while \
the production migration failed" → {label("feedback", "team")}:
  Integration tests must hit a real database, never mocks.
  **Why:** mocked tests hid a broken production migration.
  **How to apply:** every test that touches the database.{enforce}

### project
Ongoing work, goals, decisions, deadlines, incidents: the context that neither the code \
nor git history shows.{scope("project")}
- Save: when you learn who is doing what, why, or by when. {dates}
- Use: to understand the motivation behind requests and fit suggestions to the \
constraints. Project facts age fast; the reason tells a later reader whether one still \
matters.
- Example: "We freeze non-critical merges after Thursday; mobile is cutting a release \
branch" → {label("project", "team")}: merge freeze from 2026-03-05 for the mobile \
release cut; flag non-critical PR work scheduled after that date.

### reference
Where information lives outside the project: trackers, dashboards, channels, \
documents.{scope("reference")}
- Save: when you learn where to look for something, and what it is for.
- Use: when the user mentions that system, or you need the current information it holds.
- Example: "Pipeline bugs are tracked in the Linear project INGEST" → \
{label("reference", "team")}: pipeline bugs live in Linear project INGEST.{structure}"""


def _code(path: str | Path) -> str:
    return f"`{path}`"


def _intro(*, mode: PromptMode, memory_dir: Path, team_dir: Path | None, skip_index: bool) -> str:
    purpose = (
        "Build up your memory over time, so that future conversations know who the user is, "
        "how they like to work with you, what to avoid and what to repeat, and the context "
        "behind the work."
    )
    recall = (
        "\n\nMemories relevant to a request may be shown to you along with it; search for "
        "others when you need them."
        if skip_index
        else ""
    )
    if mode != "combined" or team_dir is None:
        exists = (
            "The directory already exists."
            if mode == "daily-log"
            else "The directory already exists: write to it directly, without checking for "
            "it or creating it."
        )
        return (
            f"# Memory\n\nYou have a persistent, file-based memory at {_code(memory_dir)}. "
            f"{exists}\n\n{purpose}{recall}"
        )
    nested = (
        " The team directory sits inside the private one; whatever is written under it is shared."
        if team_dir.is_relative_to(memory_dir)
        else ""
    )
    return f"""\
# Memory

You have two persistent, file-based memory directories:

- private: {_code(memory_dir)}, for you and this user only;
- team: {_code(team_dir)}, shared with everyone on the project.

Both already exist: write to them directly, without checking for them or creating \
them.{nested} Never put secrets (API keys, tokens, passwords, credentials) in team memory: \
everyone on the project reads it.

{purpose}{recall}"""


_FRONTMATTER = """\
```markdown
---
name: <short title>
description: <one specific line: future conversations decide relevance from it>
type: <user | feedback | project | reference>
---
<the memory; for feedback and project, structured as above>
```"""

_UPKEEP = (
    "Before saving, look for an existing memory on the topic and update it instead of adding "
    "a duplicate."
)


def _save_with_files(*, mode: PromptMode, memory_dir: Path, skip_index: bool) -> str:
    where = (
        "in the private or the team directory, as its type's scope says"
        if mode == "combined"
        else f"in {_code(memory_dir)}"
    )
    write = (
        f"own file {where}, named for its topic (e.g. `feedback_testing.md`), with this "
        f"frontmatter:\n\n{_FRONTMATTER}"
    )
    if skip_index:
        return (
            f"## How to save\n\nWrite each memory to its {write}\n\n{_UPKEEP} Fix or delete "
            "a memory that turns out wrong."
        )
    index = "that directory's `MEMORY.md`" if mode == "combined" else "`MEMORY.md`"
    return f"""\
## How to save

Saving takes two steps:

1. Write the memory to its {write}

2. Add a pointer to it in {index}, one line: `- [Title](file.md) — one-line hook`. \
MEMORY.md is an index, loaded into every conversation and cut off when long: keep each \
entry under ~150 characters, with no frontmatter and no memory content.

{_UPKEEP} Fix or delete a memory that turns out wrong, together with its pointer."""


def _daily_log(*, memory_dir: Path | None, tools: PromptTools, today: str, skip_index: bool) -> str:
    distilled = "topic files" if skip_index else "topic files and the index"
    # No folder: the log tool takes no path, the pattern only shows how days are filed.
    days = "logs/YYYY/MM/YYYY-MM-DD.md"
    pattern = days if memory_dir is None else memory_dir / days
    how = (
        "Append through memdir's log tool: it stamps the time and creates the day's file."
        if tools == "memdir"
        else "Write each entry as one timestamped bullet, `- HH:MM:SS text`, with the reason "
        "where there is one. Create the file (and its folders) on first write. Never rewrite "
        "or reorganise a log."
    )
    return f"""\
## How to save: the daily log

This session is long-lived. Record anything worth remembering by appending to the day's \
log file:

{_code(pattern)}

Fill in the current local date. This session started on {today}; when the date \
changes, start appending to the new day's file. {how} A separate consolidation later \
distils the logs into {distilled}."""


def _when_to_access(*, skip_index: bool) -> str:
    empty = "the memory directory were empty" if skip_index else "MEMORY.md were empty"
    return f"""\
## When to access memory

- When a memory looks relevant, or the user refers to work from an earlier conversation.
- You MUST access memory when the user asks you to check, recall or remember something.
- If the user says to ignore or not use memory, proceed as if {empty}.
- {DRIFT_CAVEAT}"""


def _searching(
    *, mode: PromptMode, memory_dir: Path, team_dir: Path | None, command: str | None
) -> str:
    roots = [memory_dir]
    if mode == "combined" and team_dir is not None and not team_dir.is_relative_to(memory_dir):
        roots.append(team_dir)
    grep = f'grep -rn "<term>" {" ".join(_quote(str(r)) for r in roots)} --include="*.md"'
    if command:
        search = f'```\n{command} "<term>"\n```\n\nor, for exact text: `{grep}`'
    else:
        search = f"```\n{grep}\n```"
    return f"""\
## Searching past context

Search the memory files first, with narrow terms (an error message, a file path, a \
function name) rather than broad keywords:

{search}

Past conversation transcripts come last: they are large and slow to search."""


# What shlex.quote leaves unquoted (its pattern: \w in ASCII, and @%+=:,./-).
_SHELL_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")


def _quote(word: str) -> str:
    """``shlex.quote(word)``, without the regular expressions shlex loads."""
    if not word:
        return "''"
    if _SHELL_SAFE.issuperset(word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def _today() -> str:
    """Today's local date as ``date.today().isoformat()`` gives it, without ``datetime``."""
    return time.strftime("%Y-%m-%d")


def _extra(guidelines: Sequence[str]) -> str | None:
    kept = [g.strip() for g in guidelines if g.strip()]
    if not kept:
        return None
    return "## Additional guidelines\n\n" + "\n\n".join(kept)


def _check_choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(
            f"unknown prompt {name} {value!r}", hint=f"use one of {', '.join(allowed)}"
        )


def build_prompt(
    *,
    mode: PromptMode,
    memory_dir: Path,
    team_dir: Path | None,
    private_index: str | None,
    team_index: str | None,
    skip_index: bool = False,
    extra_guidelines: Sequence[str] = (),
    tools: PromptTools = "files",
    search_command: str | None = None,
    today: dt.date | str,
    max_index_lines: int = MAX_INDEX_LINES,
    max_index_chars: int = MAX_INDEX_CHARS,
    host_paths: bool = True,
    max_chars: int | None = None,
    private_shape: IndexShape | None = None,
    team_shape: IndexShape | None = None,
    recheck: str | None = None,
) -> str:
    """The memory section of a system prompt; pure: the index texts are passed in.

    ``private_index``/``team_index`` are the raw MEMORY.md texts (``None`` when
    missing); ``skip_index`` drops the index and every mention of it. ``today`` (a
    date, or one in ISO form) only dates the guidance (daily-log mode names the path
    pattern, not the day's file). Raises :class:`ConfigError` for an unknown mode or tools style,
    or combined mode without a team directory. ``host_paths=False`` (with
    ``tools='memdir'``) names no path of this machine: the text refers to the
    tools, for a client that is not on this machine (MCP over HTTP).

    ``max_chars`` bounds the whole text (in UTF-16 code units, as a hook's context is
    measured): the indexes then give up whole lines, pinned memories' lines kept first,
    then the most recently changed memories (by ``private_shape``/``team_shape``, which
    :func:`load_prompt` fills in), with a line saying how many entries are left out, how
    to list them and where the full index is. Without it, only the load limits cut an
    index (the first lines, and the pinned ones wherever they are), saying so alike.

    ``recheck`` is the short list of memories whose check against the code failed or
    is old (:func:`memdir.recall.freshness.recheck_note`); it is bounded in size and
    counted before the indexes share what is left of ``max_chars``.
    """
    _check_choice("mode", mode, _MODES)
    _check_choice("tools", tools, _TOOLS)
    if mode == "combined" and team_dir is None:
        raise ConfigError(
            "combined memory prompt needs a team directory",
            hint="pass team_dir, or use mode 'individual'",
        )
    tools_only = not host_paths and tools == "memdir"
    day = today if isinstance(today, str) else today.isoformat()
    if not host_paths and not tools_only:
        raise ConfigError(
            "a prompt without host paths needs tools='memdir'",
            hint="pass tools='memdir', or keep host_paths",
        )
    if tools_only:  # a client on another machine: only then are these texts loaded
        from memdir.recall.prompt_tools import SEARCHING as SEARCHING_THROUGH_TOOLS
        from memdir.recall.prompt_tools import intro as tools_intro
    sections: list[str | None] = [
        tools_intro(mode=mode, skip_index=skip_index)
        if tools_only
        else _intro(mode=mode, memory_dir=memory_dir, team_dir=team_dir, skip_index=skip_index),
        _daily_log(
            memory_dir=None if tools_only else memory_dir,
            tools=tools,
            today=day,
            skip_index=skip_index,
        )
        if mode == "daily-log"
        else None,
        _types_section(mode=mode, today=day),
        WHAT_NOT_TO_SAVE,
        None if mode == "daily-log" else _save_section(mode, memory_dir, tools, skip_index),
        _when_to_access(skip_index=skip_index),
        BEFORE_RECOMMENDING,
        SEARCHING_THROUGH_TOOLS
        if tools_only
        else _searching(
            mode=mode, memory_dir=memory_dir, team_dir=team_dir, command=search_command
        ),
        MEMORY_AND_OTHER_PERSISTENCE,
        _extra(extra_guidelines),
        None if skip_index else recheck,
    ]
    text = "\n\n".join(s for s in sections if s)
    if skip_index:
        return _within(text + "\n", max_chars)
    limits = {"max_lines": max_index_lines, "max_chars": max_index_chars}
    # A name or description can spell memdir's fence tag: quoted here, it forges none.
    private_index = fence_safe(private_index) if private_index else private_index
    if mode == "combined":
        indexes = [
            (PRIVATE_HEADING, private_index, private_shape),
            (TEAM_HEADING, team_index, team_shape),
        ]
    else:
        indexes = [(INDEX_NAME, private_index, private_shape)]
    shares: list[int | None] = [None] * len(indexes)
    if max_chars is not None:
        needs = [text_length(index_block(heading, raw, **limits)) for heading, raw, _ in indexes]
        room = max_chars - text_length(text) - 1 - 2 * len(indexes)
        shares = [*split_budget(needs, max(room, 0))]
    blocks = [
        fit_index_block(heading, raw, shape=shape, budget=share, limit=max_chars, **limits)
        for (heading, raw, shape), share in zip(indexes, shares, strict=True)
    ]
    return _within("\n\n".join([text, *blocks]) + "\n", max_chars)


def _within(text: str, max_chars: int | None) -> str:
    """``text`` cut to ``max_chars`` at a line boundary, saying so (only guidance so long
    that no index fits gets here: very long extra guidelines)."""
    if max_chars is None or text_length(text) <= max_chars:
        return text
    note = "\n[memdir: the rest of the memory guidance is cut to fit this context's limit]\n"
    fit = fit_lines(text.split("\n"), max(max_chars - text_length(note), 0))
    return fit.text() + note


def _save_section(mode: PromptMode, memory_dir: Path, tools: PromptTools, skip_index: bool) -> str:
    if tools == "memdir":
        from memdir.recall.prompt_tools import save_section

        return save_section(mode=mode, skip_index=skip_index, upkeep=_UPKEEP)
    return _save_with_files(mode=mode, memory_dir=memory_dir, skip_index=skip_index)


def load_prompt(
    *,
    mode: PromptMode,
    memory_dir: Path,
    team_dir: Path | None = None,
    skip_index: bool = False,
    extra_guidelines: Sequence[str] = (),
    tools: PromptTools = "files",
    search_command: str | None = None,
    today: dt.date | None = None,
    max_index_lines: int = MAX_INDEX_LINES,
    max_index_chars: int = MAX_INDEX_CHARS,
    host_paths: bool = True,
    max_chars: int | None = None,
    recheck: str | None = None,
) -> str:
    """:func:`build_prompt` with the MEMORY.md files read from disk (missing: empty)."""
    read = not skip_index
    return build_prompt(
        mode=mode,
        memory_dir=memory_dir,
        team_dir=team_dir,
        private_index=read_index(memory_dir) if read else None,
        team_index=_team_index(team_dir) if read and team_dir is not None else None,
        skip_index=skip_index,
        extra_guidelines=extra_guidelines,
        tools=tools,
        search_command=search_command,
        today=today or _today(),
        max_index_lines=max_index_lines,
        max_index_chars=max_index_chars,
        host_paths=host_paths,
        max_chars=max_chars,
        private_shape=index_shape(memory_dir),
        team_shape=index_shape(team_dir) if team_dir is not None else None,
        recheck=recheck,
    )


def _team_index(team_dir: Path) -> str | None:
    # A teammate's MEMORY.md: only well-formed entries reach the prompt.
    from memdir.recall.team_index import entries_only  # a team folder only

    return entries_only(read_index(team_dir))


def resolve_mode(
    requested: PromptMode | Literal["auto"], *, team_enabled: bool, daily_log_active: bool
) -> PromptMode:
    """The prompt mode: an explicit request wins; 'auto' takes the first that applies.

    Priority for 'auto': daily-log (a long-lived session is logging), then
    combined (team memory is on), then individual.
    """
    if requested == "auto":
        if daily_log_active:
            return "daily-log"
        return "combined" if team_enabled else "individual"
    _check_choice("mode", requested, (*_MODES, "auto"))
    return requested
