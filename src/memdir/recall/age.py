"""How old a memory is, in words an agent can weigh.

A memory's date is the most recent of its ``verified`` and ``updated``
fields; the file's mtime is only the fallback, because copies, checkouts and
team syncs touch mtimes without anyone looking at the memory. Memories are
aged in whole local calendar days against a ``today`` that every function
takes, so callers (and tests) decide what "now" is.

Trigger: a memory can carry both ``verified`` and ``updated``. Why: the store
stamps ``updated`` on every rewrite but never touches ``verified``, so an
older ``verified`` would make a memory rewritten yesterday look months old.
Outcome: the later of the two dates wins; ``verified`` wins ties and is the
only date when it is newer.
"""

from __future__ import annotations

import datetime as dt

from memdir.utils.records import record

# Not typing.TYPE_CHECKING: recall dates memories before every prompt, in a fresh process.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

    from memdir.model import Memory

__all__ = ["Age", "AgeSource", "age_label", "age_of", "memory_age", "memory_date", "staleness_note"]

if TYPE_CHECKING:
    AgeSource: TypeAlias = Literal["verified", "updated", "mtime"]
else:
    AgeSource = "Literal['verified', 'updated', 'mtime']"  # for annotations only


@record
class Age:
    """A memory's age: its reference date, where that came from, and whole days."""

    date: dt.date
    source: AgeSource
    days: int

    @property
    def label(self) -> str:
        """``today``, ``yesterday`` or ``N days ago``."""
        return age_label(self.days)

    @property
    def note(self) -> str | None:
        """The staleness note for memories over a day old, else ``None``."""
        return staleness_note(self.days)


def memory_date(
    *, verified: dt.date | None, updated: dt.date | None, mtime: float
) -> tuple[dt.date, AgeSource]:
    """The date a memory speaks for and its source (see the module docstring)."""
    if verified is not None and (updated is None or verified >= updated):
        return verified, "verified"
    if updated is not None:
        return updated, "updated"
    return dt.date.fromtimestamp(mtime), "mtime"


def memory_age(
    *,
    today: dt.date,
    mtime: float,
    verified: dt.date | None = None,
    updated: dt.date | None = None,
) -> Age:
    """The :class:`Age` of a memory on ``today``; dates in the future count as today."""
    date, source = memory_date(verified=verified, updated=updated, mtime=mtime)
    return Age(date=date, source=source, days=max((today - date).days, 0))


def age_of(memory: Memory, *, mtime: float, today: dt.date) -> Age:
    """:func:`memory_age` for a parsed :class:`Memory`."""
    updated = memory.last_updated  # ``updated``, or Claude Code's ``modified``
    return memory_age(today=today, mtime=mtime, verified=memory.verified, updated=updated)


def age_label(days: int) -> str:
    """``today`` (0 days), ``yesterday`` (1) or ``N days ago``."""
    if days <= 0:
        return "today"
    if days == 1:
        return "yesterday"
    return f"{days} days ago"


def staleness_note(days: int) -> str | None:
    """What an agent must keep in mind about a memory ``days`` old (over one day)."""
    if days <= 1:
        return None
    return (
        f"This memory is {days} days old. It is a point-in-time observation, not live "
        "state: verify claims about code (files, functions, flags) before stating them "
        "as fact."
    )
