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

A person's own changes (``cli``, ``api``, ``ui``), team sync and hand edits are
never held. A pending version needs the history; with history off, ``manual``
refuses agents' changes as ``read-only`` does, saying why.

Whatever the mode, an agent's write is screened first (:mod:`memdir.screening`):
a memory whose text reads as an instruction to the agent (override the user,
exfiltrate, hide, change its permissions or identity), hides characters, or
forges a frame is held for review even under ``auto``, the findings kept with the
pending version as its reason (one line that names the fields and the rules,
never the text). With history off it is refused with that reason. A teammate's
file that team sync brings is screened the same way (:mod:`memdir.team.incoming`).

An agent's write that says again what a person forgot (``memdir forget``: a
tombstone, :mod:`memdir.history.tombstones`) is held the same way, whatever the
mode, with the reason "re-learns a forgotten memory (forgotten on DATE: NAME)":
the caller hands in ``forgotten``, which sees the memory and names the tombstone
it matches, so the same fact is not learned again from an old transcript or
daily log without a person's say. A person's own write is never held for it.

:func:`hold_reason` is the store's review gate (see
:class:`~memdir.storage.store.MemoryStore`): it sees the memory a change would
write and answers why it waits, or ``None``.
"""

from __future__ import annotations

from collections.abc import Callable

from memdir.config import Settings
from memdir.errors import ConfigError, MemdirError
from memdir.history.provenance import Provenance
from memdir.model import Memory, Scope

__all__ = [
    "AGENT_ROUTES",
    "AWAITING_REVIEW",
    "MODES",
    "check_log_entry",
    "hold_reason",
    "manual_reason",
    "review_mode",
    "screened",
]

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


def manual_reason(scope: Scope) -> str:
    """Why a change waits under ``manual`` review."""
    return f"{scope.value} memory is in manual review mode"


def screened(memory: Memory | None) -> str | None:
    """What screening finds in ``memory``, as one line (None: nothing, or no memory)."""
    if memory is None:
        return None
    from memdir.screening.findings import reason_line  # the rules load with a first write
    from memdir.screening.screen import screen_memory

    findings = screen_memory(memory)
    return reason_line(findings) if findings else None


def check_log_entry(settings: Settings, origin: Provenance, text: str) -> None:
    """Refuse an agent's daily-log entry that screening flags, or any in a private scope
    that is read-only for agents. A log line cannot wait as a version, and a log is
    what consolidation distils and search returns: it is screened as a memory is."""
    if origin.route not in AGENT_ROUTES or origin.approved is not None:
        return
    if review_mode(settings, Scope.PRIVATE) == "read-only":
        raise MemdirError(
            "the private memory is read-only for agents: this entry was not logged",
            hint="tell the user what you wanted to note",
        )
    from memdir.screening.findings import reason_line
    from memdir.screening.screen import screen_text

    findings = screen_text(text)
    if findings:
        raise MemdirError(
            f"this entry was not logged: {reason_line(findings)}",
            hint="note what happened in plain words; tell the user what you wanted to keep",
        )


def hold_reason(
    settings: Settings,
    scope: Scope,
    origin: Provenance,
    memory: Memory | None,
    *,
    history: bool,
    forgotten: Callable[[Memory], str | None] | None = None,
) -> str | None:
    """Why a change by ``origin`` that writes ``memory`` to ``scope`` waits for review.

    None: it applies now. Refuses an agent's change to a read-only scope, a
    screened one or one that re-learns a forgotten memory with history off, and
    one that needs review with history off. ``forgotten`` answers why a memory
    says again what a person forgot (None: it does not).
    """
    if origin.route not in AGENT_ROUTES or origin.approved is not None:
        return None
    mode = review_mode(settings, scope)
    if mode == "read-only":
        raise MemdirError(
            f"the {scope.value} memory is read-only for agents: this change was not made",
            hint="tell the user what you wanted to save; they can save it with `memdir add`",
        )
    found = screened(memory)
    if found is None and forgotten is not None and memory is not None:
        found = forgotten(memory)
    if found is not None:
        if not history:
            raise MemdirError(
                f"this change was not made: {found}",
                hint="save what the user asked for in plain words; a person can save this "
                "text with `memdir add` if it is meant",
            )
        return found
    if origin.hold is not None:  # the work that makes it asks for review (a tainted session)
        if not history:
            raise MemdirError(
                f"this change was not made: {origin.hold}, and history is off",
                hint="tell the user what you wanted to save; they can save it with `memdir add`",
            )
        return origin.hold
    if mode == "auto":
        return None
    if not history:
        raise MemdirError(
            f"the {scope.value} memory needs review, and history is off: this change was not made",
            hint="tell the user what you wanted to save; they can save it with `memdir add`",
        )
    return manual_reason(scope)
