"""Expiry and re-validation: memories that a person should look at again.

A memory expires when its ``review_after`` date has passed (and it was not
verified since), or when it is older than its type's ``expire_<type>_days``
(0, the default, never): :func:`expired` lists them for ``memdir review``
("expired: re-validate or delete") and ``memdir doctor``; nothing is ever
deleted for it. With ``unused_review_days`` (0, the default, never) a memory
no session recalled, read or changed (:mod:`memdir.history.used`), and no
rule of which fired, in that many days is listed alongside, with the reason
"unused for N days"; N never counts days before the memory's last change, nor
before the use log began (a log younger than the setting offers none).

:func:`verify` is the re-validation: it checks the memory against the code
(recording the check, :mod:`memdir.recall.freshness`) and, when every path
and symbol it names still exists, stamps ``verified`` today, which ends an
expiry by age or by ``review_after``.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import replace

from memdir.config import Settings
from memdir.enforcement.rule_firings import read_firings
from memdir.errors import MemoryNotFound
from memdir.history.project import ProjectMemory
from memdir.history.used import last_uses, log_began
from memdir.kinds import memory_ref
from memdir.model import MemoryRecord, MemoryType, Scope
from memdir.recall.age import age_of
from memdir.recall.drift import DriftChecker
from memdir.recall.freshness import record_checks
from memdir.utils.records import record

__all__ = ["Expired", "Verified", "expired", "expiry_days", "verify"]


@record
class Expired:
    """A memory past its ``review_after`` date or its type's expiry."""

    scope: Scope
    file: str
    name: str
    reason: str

    @property
    def ref(self) -> str:
        return memory_ref(self.scope, self.file)


def expiry_days(settings: Settings, kind: MemoryType | None) -> float:
    """The expiry of memories of ``kind`` in days (0: they do not expire)."""
    if kind is None:
        return 0.0
    return float(getattr(settings, f"expire_{kind.value}_days", 0.0))


def expired(
    memdir: ProjectMemory, *, today: dt.date | None = None, now: float | None = None
) -> list[Expired]:
    """Memories past their ``review_after`` date or their type's expiry, and (with
    ``unused_review_days``) those no session used in that many days, both scopes."""
    today = today or dt.date.today()
    unused = _Unused.of(memdir, time.time() if now is None else now)
    out = []
    for found in memdir.list():
        reason = _expiry(memdir.settings, found, today)
        if reason is None and unused is not None:
            reason = unused.reason(found, today)
        if reason is not None:
            out.append(
                Expired(scope=found.scope, file=found.file, name=found.memory.name, reason=reason)
            )
    return out


class _Unused:
    """When each memory was last used (recalled, read, changed, its rule fired), for the
    review of those left unused; never further back than the use log goes."""

    def __init__(self, days: float, now: float, began: float, last: dict[str, float]) -> None:
        self.days = days
        self.now = now
        self.began = began
        self.last = last

    @classmethod
    def of(cls, memdir: ProjectMemory, now: float) -> _Unused | None:
        days = memdir.settings.unused_review_days
        began = log_began(memdir.layout) if days > 0 else None
        if began is None:
            return None  # off, or nothing recorded yet: no memory can be said unused
        last: dict[str, float] = {}
        for ref, use in last_uses(memdir.layout, env=memdir.env).items():
            if use.used is not None:
                last[ref] = use.used.t
        for firing in read_firings(str(memdir.layout.state_dir)):
            ref = str(firing.get("ref"))
            last[ref] = max(last.get(ref, 0.0), float(firing["t"]))
        return cls(days, now, began, last)

    def reason(self, found: MemoryRecord, today: dt.date) -> str | None:
        """``unused for N days ...`` when ``found`` went unused past the setting."""
        changed = age_of(found.memory, mtime=found.mtime, today=today).days
        since = max(self.last.get(memory_ref(found.scope, found.file), 0.0), self.began)
        idle = int(min(changed, (self.now - since) / 86_400))
        if idle <= self.days:
            return None
        return (
            f"unused for {idle} days: no session recalled, read or changed it, and no rule "
            f"of it fired (memories unused for {self.days:g} days are offered for review)"
        )


def _expiry(settings: Settings, found: MemoryRecord, today: dt.date) -> str | None:
    memory = found.memory
    due = memory.review_after
    if due is not None and due <= today and (memory.verified is None or memory.verified < due):
        return f"review_after {due.isoformat()} has passed"
    days = expiry_days(settings, memory.type)
    if days <= 0:
        return None
    age = age_of(memory, mtime=found.mtime, today=today)
    if age.days > days:
        kind = memory.type.value if memory.type is not None else "untyped"
        return f"{age.days} days since {age.source} ({kind} memories expire after {days:g})"
    return None


@record
class Verified:
    """What ``memdir verify`` found: the memory, and what no longer holds (then not stamped)."""

    record: MemoryRecord
    problems: tuple[str, ...]
    stamped: bool


def verify(
    memdir: ProjectMemory,
    ref: str,
    *,
    scope: Scope | str | None = None,
    today: dt.date | None = None,
) -> Verified:
    """A person re-validates a memory: check it against the code, then stamp ``verified``.

    The check is recorded either way; ``verified`` is stamped (today) only when
    every path and symbol the memory names still exists, which also clears an
    expiry. A failing check changes nothing in the memory.
    """
    if scope is None and ref.startswith("team/"):
        scope, ref = Scope.TEAM, ref.removeprefix("team/")
    stores = [memdir.store(scope)] if scope is not None else [memdir.private, memdir.team]
    found = next((r for r in (s.find(ref) for s in stores) if r is not None), None)
    if found is None:
        raise MemoryNotFound(f"no memory named {ref!r}", hint="run `memdir list` to see them")
    problems = tuple(
        f.message for f in DriftChecker(memdir.layout.project_root).check_memory(found.memory)
    )
    key = f"{found.scope.value}:{found.file}"
    record_checks(memdir.layout.state_dir, [(key, found.name, problems)], now=time.time())
    if problems:
        return Verified(record=found, problems=problems, stamped=False)
    stamped = replace(found.memory, verified=today or dt.date.today())
    result = memdir.store(found.scope).write(
        stamped, file=found.file, expected_version=found.version, stamp=False
    )
    return Verified(record=result.record, problems=(), stamped=True)
