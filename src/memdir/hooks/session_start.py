"""The SessionStart hook: one memory section, within Claude Code's limits, sent once.

What the model gets at session start depends on who already loads the index:

- **memdir's own folder** (any profile but ``claude``): memdir's memory prompt,
  within the hook's limit by construction (:data:`HOOK_CONTEXT_LIMIT`, 10,000
  UTF-16 code units: Claude Code replaces a longer context with a preview): the
  indexes give up whole lines, pinned memories' lines kept first and then the
  most recently changed, with one line saying how many are left out and how to
  list them (``memdir prompt --left-out``, :func:`left_out`);
- **the claude profile with Claude Code's auto memory on**: Claude Code loads
  ``MEMORY.md`` and its own memory instructions itself, so memdir adds only what
  it does not (:func:`memdir.recall.session_context.build_session_addendum`):
  the team folder and index, and a status line. With Claude Code's auto memory
  off, memdir's full prompt again.

A resumed conversation (``source: resume``) already holds what its start
delivered: it gets nothing when memory is unchanged, or only the lines that
changed. What was delivered is kept per session (``session-start.json`` in the
session's folder), and which memories' index lines went out is logged for
``memdir used`` (:mod:`memdir.history.used_log`, with the session's transcript
when the client names it). Like every hook, this never gets in the agent's way.

:func:`project_prompt` is ``Memdir.open(...).prompt()`` without the facade's
stores (it loads neither the YAML codec nor the rules), which keeps this hook
and ``memdir prompt`` fast.
"""

from __future__ import annotations

import os

from memdir.hooks.payload import StartInput, read_hook_object
from memdir.storage.fs import atomic_write, ensure_dir, read_json_object
from memdir.utils.json_text import dumps

# Not typing.TYPE_CHECKING: importing typing costs a session start more than its answer.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Literal, TypeAlias

    from memdir.config import Settings
    from memdir.hooks.payload import HookInput
    from memdir.recall.prompt import PromptMode, PromptTools
    from memdir.recall.start_index import StartView
    from memdir.storage.paths import Layout

    Payload: TypeAlias = "HookInput | StartInput"

__all__ = [
    "DELIVERED_NAME",
    "left_out",
    "output_for_text",
    "project_prompt",
    "session_context",
    "session_start_output",
]

DELIVERED_NAME = "session-start.json"


def output_for_text(text: str, *, env: Mapping[str, str]) -> str:
    """:func:`session_start_output` for the hook's raw stdin text."""
    return session_start_output(StartInput(read_hook_object(text)), env=env)


_TWO_SYSTEMS = (
    "memdir: Claude Code's own auto memory is on as well, so the model is told of two "
    "memory folders. Run `memdir hook install claude` again (it turns Claude Code's off), "
    "or use memdir's claude profile (`memdir --profile claude hook install claude`)."
)
# The same, for memdir's Claude Code plugin (its hooks get CLAUDE_PLUGIN_ROOT), which
# cannot turn Claude Code's auto memory off itself and refuses the installer beside it.
_TWO_SYSTEMS_PLUGIN = (
    "memdir: Claude Code's own auto memory is on as well, so the model is told of two "
    'memory folders. Turn it off ("autoMemoryEnabled": false in ~/.claude/settings.json), '
    "or set the memdir plugin's profile option to claude (/plugin configure memdir@memdir)."
)


def session_start_output(payload: Payload, *, env: Mapping[str, str]) -> str:
    """The JSON to print for a SessionStart hook, or ``""`` when there is nothing to add.

    ``additionalContext`` is for the model; ``systemMessage`` (one line for the user,
    which Claude Code shows and does not send to the model) says what needs their hand.
    """
    start = _session_start(payload, env=env)
    if start is None:
        return ""
    context, notices = start
    output: dict[str, object] = {}
    if notices:
        output["systemMessage"] = " ".join(notices)
    if context:
        output["hookSpecificOutput"] = {
            "hookEventName": "SessionStart",
            "additionalContext": context,
        }
    return dumps(output, ensure_ascii=False) if output else ""


def session_context(payload: Payload, *, env: Mapping[str, str]) -> str | None:
    """The text a session start adds for the model (None: memory is off or nothing new)."""
    start = _session_start(payload, env=env)
    return None if start is None else start[0]


def _session_start(
    payload: Payload, *, env: Mapping[str, str]
) -> tuple[str | None, list[str]] | None:
    """(the model's text or None, the user's notices); None when memory is off."""
    from memdir.config import load_settings, memory_enabled
    from memdir.hooks.dialects import dialect_for
    from memdir.recall.start_index import client_loads_index, start_text
    from memdir.storage.paths import make_layout

    settings = load_settings(env)
    layout = make_layout(settings.home, payload.cwd or ".", profile=settings.profile, env=env)
    _prepare(layout)
    if not memory_enabled(env, settings.enabled):
        return None
    notices: list[str] = []
    # Only Claude Code loads its own MEMORY.md; Codex and the like get memdir's whole prompt.
    client_loads = dialect_for(env).loads_claude_memory and client_loads_index(layout, env)
    team_on = _team_enabled(settings, layout, env)
    text = start_text(settings, layout, team_enabled=team_on, client_loads=client_loads)
    if client_loads and settings.profile != "claude" and payload.hook_event_name:
        notices.append(_TWO_SYSTEMS_PLUGIN if env.get("CLAUDE_PLUGIN_ROOT") else _TWO_SYSTEMS)
    notice = _background_notice(layout)
    if notice is not None:
        notices.insert(0, notice)  # what needs fixing first
    delivered = _once(layout, payload, text)
    _note_delivery(layout, payload, text, delivered)
    return delivered, notices


def _note_delivery(layout: Layout, payload: Payload, text: str, delivered: str | None) -> None:
    """Log which memories' index lines this start delivered (a resume: only those whose
    lines it sent again), and the session's transcript (:mod:`memdir.history.used_log`)."""
    from memdir.history.used_log import note_start
    from memdir.recall.index_fit import shown_entries

    sent = set(delivered.split("\n")) if delivered is not None else set()
    refs = [ref for ref, line in shown_entries(text) if line in sent]
    note_start(
        layout,
        payload.session_id,
        list(dict.fromkeys(refs)),
        source=payload.source,
        transcript=payload.transcript_path,
    )


def _background_notice(layout: Layout) -> str | None:
    """One line about the last background job when it failed or skipped, once per job."""
    from memdir.errors import MemdirError
    from memdir.hooks.job_status import notice_for

    try:
        return notice_for(layout)
    except (MemdirError, OSError):
        return None  # the memory section matters more than the note about a job


# -- sent once -----------------------------------------------------------------------------


def _delivered_path(layout: Layout, session_id: str | None) -> Path | None:
    from memdir.errors import MemdirError

    if not session_id:
        return None
    try:
        return layout.session_dir(session_id) / DELIVERED_NAME
    except MemdirError:
        return None  # an id that is not a folder name: nothing to remember it by


def _once(layout: Layout, payload: Payload, text: str) -> str | None:
    """``text``, or on a resumed session only what changed since it was delivered."""
    path = _delivered_path(layout, payload.session_id)
    if path is None:
        return text
    before = read_json_object(path) if payload.source == "resume" else None
    delivered = before.get("text") if before else None
    if isinstance(delivered, str):
        if delivered == text:
            return None  # the conversation already holds exactly this
        result: str | None = _changes(delivered, text)
    else:
        result = text
    try:
        ensure_dir(path.parent)
        # The text itself is compared on a resume: no digest (hashlib loads OpenSSL).
        # Derived state: a lost write means a resume gets everything again (no fsync).
        atomic_write(path, dumps({"text": text}) + "\n", durable=False)
    except OSError:
        pass  # a full disk: the prompt still goes out; a resume then gets all of it again
    return result


def _changes(before: str, after: str) -> str | None:
    """The lines of ``after`` that ``before`` lacked, and those it dropped."""
    old, new = before.split("\n"), after.split("\n")
    old_set, new_set = set(old), set(new)
    added = [line for line in new if line.strip() and line not in old_set]
    removed = [line for line in old if line.strip() and line not in new_set]
    if not added and not removed:
        return None
    parts = ["Memory changed since this conversation loaded it (the rest is as before):"]
    if added:
        parts += ["", "New or changed lines:", *added]
    if removed:
        parts += ["", "Lines no longer there:", *removed]
    from memdir.recall.context_budget import HOOK_CONTEXT_LIMIT, fit_lines

    return fit_lines(parts, HOOK_CONTEXT_LIMIT).text() + "\n"


# -- the prompt without the stores ---------------------------------------------------------


def _prepare(layout: Layout) -> None:
    # As the facade's open does: the claim on the project folder, and both memory
    # folders, which agents write to straight away.
    layout.claim()
    ensure_dir(layout.memory_dir)
    ensure_dir(layout.team_dir)


def project_prompt(
    project: str | Path,
    *,
    env: Mapping[str, str],
    profile: str | None = None,
    mode: PromptMode | Literal["auto"] = "auto",
    skip_index: bool = False,
    tools: PromptTools = "files",
    max_chars: int | None = None,
) -> str | None:
    """``Memdir.open(project, profile=profile, env=env).prompt(...)`` without the stores.

    It does what opening the facade does that the prompt depends on (the settings, the
    layout, the claim on the project folder, both memory folders created) and then
    builds the same text, but loads neither the facade nor its stores (with the YAML
    codec and the rules they import). ``None`` when memory is disabled. ``max_chars``
    bounds the text (see :func:`memdir.recall.prompt.build_prompt`).
    """
    from memdir.config import load_settings, memory_enabled
    from memdir.recall.start_index import settings_prompt
    from memdir.storage.paths import make_layout

    settings = load_settings(env, profile=profile)
    layout = make_layout(settings.home, project, profile=settings.profile, env=env)
    _prepare(layout)
    if not memory_enabled(env, settings.enabled):
        return None
    return settings_prompt(
        settings,
        layout,
        team_enabled=_team_enabled(settings, layout, env),
        mode=mode,
        skip_index=skip_index,
        tools=tools,
        max_chars=max_chars,
    )


def left_out(
    project: str | Path, *, env: Mapping[str, str], profile: str | None = None
) -> StartView | None:
    """What a session start in ``project`` shows now, and the index entries it leaves out
    (``memdir prompt --left-out``); None when memory is disabled."""
    from memdir.config import load_settings, memory_enabled
    from memdir.recall.start_index import start_view
    from memdir.storage.paths import make_layout

    settings = load_settings(env, profile=profile)
    layout = make_layout(settings.home, project, profile=settings.profile, env=env)
    _prepare(layout)
    if not memory_enabled(env, settings.enabled):
        return None
    return start_view(settings, layout, env, team_enabled=_team_enabled(settings, layout, env))


def _team_enabled(settings: Settings, layout: Layout, env: Mapping[str, str]) -> bool:
    """``ProjectMemory.team_enabled``, answered without the stores in the usual cases."""
    if settings.team is not None:
        return settings.team
    from memdir.storage.memory_index import INDEX_NAME

    if (layout.team_dir / INDEX_NAME).exists():
        return True
    try:
        with os.scandir(layout.team_dir) as entries:
            # The store skips hidden names (.git of team sync, .meta): none else, no memory.
            if all(entry.name.startswith(".") for entry in entries):
                return False
    except (FileNotFoundError, NotADirectoryError):
        return False
    # Files but no index: only the store knows which of them are memories (sidecars).
    from memdir.history.project import ProjectMemory

    return ProjectMemory(layout=layout, settings=settings, env=env).team_enabled
