"""What a prompt's recall needs in a hook's own process, without the facade.

:func:`memdir.hooks.entry.user_prompt_submit` recalls for a prompt with the
project as :class:`HookProject` (the layout and settings, not the stores),
team memory on or off as :func:`team_on` works it out, and, with ``--model``,
the selector of the provider memdir's settings name (:func:`model_selector`).
Loaded by that hook alone: pre-tool-use never imports it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing's: a hook process starts with as little as it can
if TYPE_CHECKING:
    from collections.abc import Mapping

    from memdir.config import Settings
    from memdir.recall.relevant import Selector
    from memdir.storage.paths import Layout

__all__ = ["HookProject", "model_selector", "team_on"]


class HookProject:
    """What recall needs of a project (``MemdirLike``), without loading the stores.

    A plain class: a dataclass would compile its methods on every prompt.
    """

    __slots__ = ("layout", "settings", "team_enabled")

    def __init__(self, *, layout: Layout, settings: Settings, team_enabled: bool) -> None:
        self.layout = layout
        self.settings = settings
        self.team_enabled = team_enabled


def team_on(settings: Settings, layout: Layout) -> bool:
    """Team memory is on when set, else when the team folder holds an index or a memory."""
    if settings.team is not None:
        return bool(settings.team)
    team = str(layout.team_dir)
    if os.path.exists(os.path.join(team, "MEMORY.md")):
        return True
    for _, dirs, files in os.walk(team):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        if any(f.endswith(".md") and not f.startswith(".") for f in files):
            return True
    return False


def model_selector(settings: Settings, env: Mapping[str, str]) -> Selector | None:
    """The configured provider's selector (it falls back to lexical on any failure).

    A hook runs by itself: only a provider named in memdir's settings or
    ``MEMDIR_PROVIDER`` is used, never one guessed from a key in the environment
    (Claude Code exports its own). None named: the lexical selector.
    """
    if not settings.provider:
        return None  # and the model layer is not even loaded
    from memdir.llm.factory import provider_from_settings
    from memdir.recall.selector import ModelSelector

    provider = provider_from_settings(settings, env, unattended=True)
    if provider is None:
        return None
    # A prompt waits for its hook: past the deadline the choice by words and meaning goes.
    return ModelSelector(provider, deadline=settings.recall_model_deadline)
