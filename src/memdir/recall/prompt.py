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

import os
import time

from memdir.config import memory_enabled
from memdir.errors import ConfigError
from memdir.recall.context_budget import fit_lines, split_budget, text_length
from memdir.recall.index_fit import (
    HOOK_STEP,
    LEFT_OUT_COMMAND,
    MIN_ENTRY_CHARS,
    PRIVATE_HEADING,
    TEAM_HEADING,
    IndexShape,
    fit_index_block,
    index_block,
    index_shape,
    read_index,
    shorten_hooks,
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
    "READ_ONLY",
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
    "A memory is a point-in-time record: verify what it names before you rely on it; if "
    "it disagrees with what you see now, trust the present, and fix or remove the memory."
)

MEMORY_AND_OTHER_PERSISTENCE = """\
- Plans and task lists: they serve this conversation, not future ones."""

WHAT_NOT_TO_SAVE = f"""\
## What not to save

- Code patterns, architecture, paths, Git history, fix recipes: the project holds them.
- What CLAUDE.md or AGENTS.md say. Ephemeral task state.
{MEMORY_AND_OTHER_PERSISTENCE}

This holds even when the user explicitly asks: save what was surprising or non-obvious."""

BEFORE_RECOMMENDING = """\
## Before recommending from memory

A file, function or flag a memory names may be gone: check that the file exists or grep \
for it when the user is about to act; for current state prefer `git log` or the code."""

_SCOPES = {
    "user": "always private.",
    "feedback": "private by default; team when it is a convention for everyone on the project.",
    "project": "team, unless it concerns only this user's own work.",
    "reference": "usually team.",
}


_ENFORCE = """
- Enforce: a mechanical rule is checked on every tool call from an `enforce:` \
frontmatter list: `[{tool: Bash, match: '\\bnpm run\\b', action: ask}]`."""


def _types_section(*, mode: PromptMode, today: str) -> str:
    combined = mode == "combined"
    daily = mode == "daily-log"

    def scope(kind: str) -> str:
        return f"\n- Scope: {_SCOPES[kind]}" if combined else ""

    dates = (
        "relative dates made absolute"
        if daily
        else f"relative dates made absolute (today is {today})"
    )
    lead = (
        "Log what fits one of these four types; consolidation files each entry under its type."
        if daily
        else "Four types:"
    )
    structure = (
        ""
        if daily
        else "\n\nFeedback and project bodies: the rule or fact first, then **Why:** and "
        "**How to apply:** lines."
    )
    # Daily-log entries have no frontmatter: rules are added when consolidation files them.
    enforce = "" if daily else _ENFORCE
    return f"""\
## Types of memory

{lead}

### user
Who the user is: role, expertise, preferences.{scope("user")}
- Save: what should change how you work with them. Use: to fit answers to it.
- Example: "Go for years, new to React" → explain frontend via backend analogies.

### feedback
How the user wants you to work: corrections, and choices they confirmed.{scope("feedback")}
- Save: when they correct you or approve a non-obvious choice. Use: so they never repeat it.
- Example: "don't mock the database" → tests hit a real database.{enforce}

### project
Work, decisions, deadlines, incidents the code and git history do not show.{scope("project")}
- Save: who does what, why, by when; {dates}. Use: to see why a request is made.
- Example: "freeze after Thursday" → merge freeze from 2026-03-05.

### reference
Where things live outside the project: trackers, dashboards, channels.{scope("reference")}
- Save: where to look, and what for. Use: when that system comes up.
- Example: "pipeline bugs are in Linear project INGEST".{structure}"""


def _code(path: str | Path) -> str:
    return f"`{path}`"


def _intro(*, mode: PromptMode, memory_dir: Path, team_dir: Path | None, skip_index: bool) -> str:
    purpose = (
        "Build it up so that future conversations know who the user is, how they want you "
        "to work, and the context behind the work."
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
            else "It exists: write to it directly."
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

Both exist: write to them directly.{nested} Never put secrets (API keys, tokens, \
passwords, credentials) in team memory: everyone on the project reads it.

{purpose}{recall}"""


_FRONTMATTER = """\
```markdown
---
name: <short title>
description: <one specific line: relevance is decided from it>
type: <user | feedback | project | reference>
---
```"""

_UPKEEP = "If a memory on the topic exists, update it instead of adding a duplicate."


def _save_with_files(*, mode: PromptMode, memory_dir: Path, skip_index: bool) -> str:
    where = (
        "in the private or the team directory, as its type's scope says"
        if mode == "combined"
        else "in the memory directory"
    )
    write = f"own file {where}, named for its topic, with this frontmatter:\n\n{_FRONTMATTER}"
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

2. Add one line to {index}: `- [Title](file.md) — one-line hook`, under ~150 \
characters (the index loads into every conversation and is cut when long).

{_UPKEEP} Fix or delete a memory that turns out wrong, with its line."""


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
    search = f'`{command} "<term>"`, or for exact text `{grep}`' if command else f"`{grep}`"
    return f"""\
## Searching past context

With narrow terms (an error, a path, a name): {search}. Past conversation transcripts \
come last: they are large and slow."""


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
    read_only: bool = False,
    target_chars: int | None = None,
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

    ``target_chars`` is the size the text aims at, below ``max_chars``: past it, index
    lines show shorter hooks (down to :data:`MIN_ENTRY_CHARS` characters a line), and
    when even those do not fit, the lines are as long as ``max_chars`` lets every entry
    be before any is left out.

    ``recheck`` is the short list of memories whose check against the code failed or
    is old (:func:`memdir.recall.freshness.recheck_note`); it is bounded in size and
    counted before the indexes share what is left of ``max_chars``. ``read_only``: the
    memory folder cannot be written here, so the text says not to save to it.
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
        None
        if mode == "daily-log"
        else READ_ONLY
        if read_only and tools == "files"
        else _save_section(mode, memory_dir, tools, skip_index),
        _when_to_access(skip_index=skip_index),
        BEFORE_RECOMMENDING,
        SEARCHING_THROUGH_TOOLS
        if tools_only
        else _searching(
            mode=mode, memory_dir=memory_dir, team_dir=team_dir, command=search_command
        ),
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
    if target_chars is not None:
        indexes = _shorter_hooks(text, indexes, target_chars, max_chars, limits)
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


_Index = tuple[str, str | None, IndexShape | None]  # a heading, its raw index, its shape


def _shorter_hooks(
    text: str,
    indexes: list[_Index],
    target: int,
    max_chars: int | None,
    limits: dict[str, int],
) -> list[_Index]:
    """``indexes`` with their entries' hooks cut to the longest line length (in steps of
    :data:`HOOK_STEP`) at which the whole prompt fits ``target``; failing that, ``max_chars``;
    failing both, the shortest. As they are when they fit ``target`` whole."""

    made: dict[int, list[_Index]] = {}  # each cap's indexes, shortened once

    def shortened(cap: int) -> list[_Index]:
        if cap not in made:
            made[cap] = [
                (heading, shorten_hooks(raw, cap) if raw else raw, shape)
                for heading, raw, shape in indexes
            ]
        return made[cap]

    def size(cap: int | None) -> int:
        chosen = indexes if cap is None else shortened(cap)
        blocks = (index_block(heading, raw, **limits) for heading, raw, _ in chosen)
        return text_length(text) + sum(text_length(block) + 2 for block in blocks) + 1

    if max_chars is not None:
        target = min(target, max_chars)  # an aim past the limit is the limit
    if not any(raw for _, raw, _ in indexes) or size(None) <= target:
        return indexes  # no entry to shorten (long guidance alone), or all fit whole
    floor = size(MIN_ENTRY_CHARS)
    goal = target if floor <= target else max_chars
    chosen = MIN_ENTRY_CHARS
    if goal is not None and floor <= goal:
        # The size grows with the cap: the longest cap that fits, by bisection.
        longest = max(len(line) for _, raw, _ in indexes if raw for line in raw.split("\n"))
        low, high = 0, max(longest - MIN_ENTRY_CHARS, 0) // HOOK_STEP + 1  # in steps
        while high - low > 1:
            middle = (low + high) // 2
            if size(MIN_ENTRY_CHARS + middle * HOOK_STEP) <= goal:
                low = middle
            else:
                high = middle
        chosen = MIN_ENTRY_CHARS + low * HOOK_STEP
    return shortened(chosen)


def _within(text: str, max_chars: int | None) -> str:
    """``text`` cut to ``max_chars`` at a line boundary, saying so (only guidance so long
    that no index fits gets here: very long extra guidelines)."""
    if max_chars is None or text_length(text) <= max_chars:
        return text
    note = "\n[memdir: the rest of the memory guidance is cut to fit this context's limit]\n"
    fit = fit_lines(text.split("\n"), max(max_chars - text_length(note), 0))
    return fit.text() + note


READ_ONLY = """\
## How to save

The memory folder is read-only here: do not write to it. Tell the user what you would \
save, and why; they can save it themselves."""


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
    target_chars: int | None = None,
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
        read_only=memory_dir.is_dir() and not os.access(memory_dir, os.W_OK),
        target_chars=target_chars,
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
