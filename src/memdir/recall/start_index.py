"""What a session start shows of the indexes, and which of their entries it leaves out.

:func:`start_text` is the text the SessionStart hook hands the model (before
a resumed session's changes are worked out): memdir's memory prompt within
the hook's limit, or, where the client loads the private ``MEMORY.md``
itself (Claude Code's auto memory under the ``claude`` profile), only what
the client does not load (:mod:`memdir.recall.session_context`).
:func:`settings_prompt` is the prompt as the settings shape it, which the
hook, ``memdir prompt`` and this module share.

:func:`start_view` reads that text back (:func:`~memdir.recall.index_fit.shown_entries`)
and lists, per index, the entries it leaves out (for a client that loads the
private index itself, what that client's load limits leave): what ``memdir
prompt --left-out`` prints, what ``memdir doctor`` counts, and where a pin
that does not fit shows. Nothing here reads a store: the session-start hook
loads it.
"""

from __future__ import annotations

import time

from memdir.kinds import memory_ref
from memdir.recall.index_fit import index_shape, read_index, shown_entries
from memdir.storage.memory_index import entry_files, truncate_index
from memdir.utils.records import record

TYPE_CHECKING = False  # not typing's: the session-start hook loads this module
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Literal

    from memdir.config import Settings
    from memdir.recall.prompt import PromptMode, PromptTools
    from memdir.storage.paths import Layout

__all__ = [
    "LeftOut",
    "StartView",
    "client_loads_index",
    "settings_prompt",
    "start_text",
    "start_view",
]


@record
class LeftOut:
    """An index entry a session start does not show: its scope, file and line."""

    scope: str  # "private" or "team"
    file: str
    line: str  # the index line as written
    pinned: bool = False

    @property
    def ref(self) -> str:
        return memory_ref(self.scope, self.file)


@record
class StartView:
    """What a session start shows: its text, the memories whose index lines it holds
    (refs), and the entries it leaves out, in index order (private first)."""

    text: str
    shown: tuple[str, ...]
    left_out: tuple[LeftOut, ...]
    limit: int  # the hook's limit, in UTF-16 code units
    client_loads: bool  # the client loads the private index itself, and memdir leaves it be

    @property
    def pinned_left_out(self) -> tuple[LeftOut, ...]:
        return tuple(entry for entry in self.left_out if entry.pinned)


def client_loads_index(layout: Layout, env: Mapping[str, str]) -> bool:
    """Whether the client puts the private ``MEMORY.md`` in front of the model itself
    (Claude Code with its auto memory on, in the project)."""
    from memdir.storage.claude import auto_memory_enabled

    return auto_memory_enabled(layout.project_root, env=env)


def settings_prompt(
    settings: Settings,
    layout: Layout,
    *,
    team_enabled: bool,
    mode: PromptMode | Literal["auto"] = "auto",
    skip_index: bool = False,
    tools: PromptTools = "files",
    max_chars: int | None = None,
    target_chars: int | None = None,
) -> str:
    """The memory prompt for ``layout`` as ``settings`` shape it (mode, limits, guidelines,
    the memories to re-check), within ``max_chars`` when given, aiming at ``target_chars``
    (see :func:`memdir.recall.prompt.build_prompt`)."""
    from memdir.recall.freshness import recheck_note
    from memdir.recall.prompt import load_prompt, resolve_mode

    resolved = resolve_mode(mode, team_enabled=team_enabled, daily_log_active=settings.daily_log)
    return load_prompt(
        mode=resolved,
        memory_dir=layout.memory_dir,
        team_dir=layout.team_dir if resolved == "combined" else None,
        skip_index=skip_index,
        extra_guidelines=settings.extra_guidelines,
        tools=tools,
        max_index_lines=settings.max_index_lines,
        max_index_chars=settings.max_index_chars,
        max_chars=max_chars,
        target_chars=target_chars,
        recheck=recheck_note(
            layout.state_dir, now=time.time(), max_age_days=settings.freshness_days
        ),
    )


def start_text(
    settings: Settings, layout: Layout, *, team_enabled: bool, client_loads: bool
) -> str:
    """What a session start hands the model, before a resumed session's changes."""
    if settings.profile == "claude" and client_loads:
        return _addendum(settings, layout, team_enabled=team_enabled)
    return settings_prompt(
        settings,
        layout,
        team_enabled=team_enabled,
        tools="files",
        max_chars=settings.hook_context_chars,
        target_chars=settings.start_context_chars or None,
    )


def _addendum(settings: Settings, layout: Layout, *, team_enabled: bool) -> str:
    from memdir.recall.session_context import build_session_addendum
    from memdir.recall.team_index import entries_only

    return build_session_addendum(
        team_dir=layout.team_dir if team_enabled else None,
        team_index=entries_only(read_index(layout.team_dir)) if team_enabled else None,
        private_index=read_index(layout.memory_dir),
        team_shape=index_shape(layout.team_dir) if team_enabled else None,
        max_lines=settings.max_index_lines,
        max_chars=settings.max_index_chars,
        limit=settings.hook_context_chars,
    )


def start_view(
    settings: Settings, layout: Layout, env: Mapping[str, str], *, team_enabled: bool
) -> StartView:
    """What a session start in ``layout`` shows now, and the index entries it leaves out."""
    loads = client_loads_index(layout, env)
    text = start_text(settings, layout, team_enabled=team_enabled, client_loads=loads)
    shown = list(dict.fromkeys(ref for ref, _ in shown_entries(text)))
    private_raw = read_index(layout.memory_dir)
    client_loads = settings.profile == "claude" and loads  # memdir then leaves it to the client
    if client_loads:
        shown = [*_loaded_by_client(private_raw, settings), *shown]
    visible = set(shown)
    left: list[LeftOut] = []
    scopes = [("private", layout.memory_dir, private_raw)]
    if team_enabled:
        scopes.append(("team", layout.team_dir, read_index(layout.team_dir)))
    for scope, folder, raw in scopes:
        left += _left_out(scope, folder, raw, visible)
    return StartView(
        text=text,
        shown=tuple(shown),
        left_out=tuple(left),
        limit=settings.hook_context_chars,
        client_loads=client_loads,
    )


def _loaded_by_client(raw: str | None, settings: Settings) -> list[str]:
    """The private entries a client that loads ``MEMORY.md`` itself keeps: its first
    lines within the load limits."""
    if raw is None or not raw.strip():
        return []
    cut = truncate_index(
        raw, max_lines=settings.max_index_lines, max_chars=settings.max_index_chars
    )
    kept = cut.content.rsplit("\n\n", 1)[0] if cut.truncated else cut.content
    return list(entry_files(kept).values())


def _left_out(scope: str, folder: Path, raw: str | None, visible: set[str]) -> list[LeftOut]:
    """The entries of one index whose memory's line ``visible`` (refs) does not hold."""
    if raw is None or not raw.strip():
        return []
    lines = raw.strip().split("\n")
    entries = entry_files("\n".join(lines))
    hidden = {
        position: file
        for position, file in entries.items()
        if memory_ref(scope, file) not in visible
    }
    if not hidden:
        return []
    shape = index_shape(folder)
    pinned = shape.pinned
    return [
        LeftOut(
            scope=scope,
            file=file,
            line=lines[position],
            pinned=pinned is not None and pinned(file),
        )
        for position, file in hidden.items()
    ]
