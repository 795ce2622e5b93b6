"""Review modes: which changes wait for a person before they reach memory.

Each scope has a mode (settings ``review_private`` and ``review_team``;
``MEMDIR_REVIEW`` sets both):

- ``auto``: every change applies at once (the private default);
- ``manual``: a change an agent makes (routes ``mcp``, ``memory-tool``,
  ``extraction``, ``consolidation``, ``hook``) is kept as a *pending version*:
  recorded in the history with the text it proposes, the memory folder
  untouched, so it is in no prompt, recall or search and is never pushed to
  the team remote, until a person approves it (``memdir review approve``),
  which applies it as an ordinary write (the team default);
- ``read-only``: an agent's change is refused.

A person's own changes (``cli``, ``api``), team sync and hand edits are never
held. A pending version needs the history; with history off, ``manual`` refuses
agents' changes as ``read-only`` does, saying why.
"""

from __future__ import annotations

from memdir.config import Settings
from memdir.errors import ConfigError, MemdirError
from memdir.history.provenance import Provenance
from memdir.model import Scope

__all__ = ["AGENT_ROUTES", "AWAITING_REVIEW", "MODES", "held", "review_mode"]

MODES = ("auto", "manual", "read-only")
AGENT_ROUTES = frozenset({"mcp", "memory-tool", "extraction", "consolidation", "hook"})
AWAITING_REVIEW = "(kept for the user's review: not in memory until they approve it)"
"""What an agent's tool reply says of a change kept for review."""


def review_mode(settings: Settings, scope: Scope) -> str:
    """The review mode of ``scope``."""
    value = settings.review_team if scope is Scope.TEAM else settings.review_private
    if value not in MODES:
        raise ConfigError(
            f"review mode {value!r} for the {scope.value} scope is not one of {', '.join(MODES)}",
            hint="set review_private / review_team (or MEMDIR_REVIEW) to auto, manual or read-only",
        )
    return value


def held(settings: Settings, scope: Scope, origin: Provenance, *, history: bool) -> bool:
    """Whether a change by ``origin`` to ``scope`` waits for review; refuses a read-only one."""
    if origin.route not in AGENT_ROUTES or origin.approved is not None:
        return False
    mode = review_mode(settings, scope)
    if mode == "auto":
        return False
    if mode == "read-only" or not history:
        why = (
            "is read-only for agents" if mode == "read-only" else "needs review, and history is off"
        )
        raise MemdirError(
            f"the {scope.value} memory {why}: this change was not made",
            hint="tell the user what you wanted to save; they can save it with `memdir add`",
        )
    return True
