"""Freshness: when a memory's claims about the code were last checked, and how that went.

A memory that cites code (anchors, backticked paths and symbols: see
:mod:`memdir.recall.drift`) is checked whenever memdir runs its drift check
on it: recall (for what it shows), ``memdir doctor --drift``, consolidation
and ``memdir verify``. Each check is recorded in one small JSON file of the
project's derived state (``.memdir/freshness.json``: per ``scope:file``, the
time, the memory's name and what failed), not in the memory's frontmatter.

Trigger: the check time is derived state, not a frontmatter field. Why: a
recall checks on every prompt; writing that into the memory would rewrite
team files (a commit and a push for every teammate) and pay a store write
per prompt. Outcome: one atomic write of a small file; a person's
re-validation (``memdir verify``) is what stamps ``verified`` in the memory.

:func:`needs_recheck` lists the memories whose last check failed or is older
than ``freshness_days``; the session-start prompt names a few of them
(:func:`recheck_note`, within a fixed size), and ``memdir doctor`` counts
them. Expiry (``review_after``, ``expire_<type>_days``) and ``memdir
verify`` are in :mod:`memdir.recall.expiry`. This module imports no model
values: the session-start hook loads it.
"""

from __future__ import annotations

from memdir.kinds import memory_ref
from memdir.storage.fs import atomic_write, ensure_dir, file_lock, read_json_object
from memdir.utils.json_text import dumps
from memdir.utils.records import record

# Not typing.TYPE_CHECKING: the hooks read and write the checks in fresh processes.
TYPE_CHECKING = False
if TYPE_CHECKING:  # the session-start hook reads the checks without the model values
    from collections.abc import Iterable, Sequence
    from pathlib import Path
    from typing import Protocol

    from memdir.model import Scope
    from memdir.recall.drift import DriftFinding

    class _Recalled(Protocol):
        @property
        def scope(self) -> Scope: ...
        @property
        def file(self) -> str: ...
        @property
        def name(self) -> str: ...
        @property
        def drift(self) -> tuple[DriftFinding, ...]: ...
        @property
        def cites(self) -> bool: ...


__all__ = [
    "FRESHNESS_NAME",
    "Check",
    "describe",
    "forget_missing",
    "needs_recheck",
    "read_checks",
    "recheck_note",
    "record_checks",
    "record_recall",
]

FRESHNESS_NAME = "freshness.json"
_DAY = 86_400.0
_NOTE_LINES = 5
_NOTE_LINE_CHARS = 160
_MAX_PROBLEMS = 3
_REWRITE_AFTER = 3600.0


@record
class Check:
    """The last drift check of one memory: when, and what no longer held."""

    ref: str  # scope:file
    name: str
    checked: float  # a timestamp
    problems: tuple[str, ...]

    @property
    def failed(self) -> bool:
        return bool(self.problems)

    def age_days(self, now: float) -> float:
        return max(now - self.checked, 0.0) / _DAY


def _path(state_dir: Path) -> Path:
    return state_dir / FRESHNESS_NAME


def read_checks(state_dir: Path) -> dict[str, Check]:
    """Every recorded check, by ``scope:file`` (a damaged file reads as none)."""
    data = read_json_object(_path(state_dir)) or {}
    checks = {}
    for ref, raw in data.get("checks", {}).items():
        try:
            checks[ref] = Check(
                ref=ref,
                name=str(raw["name"]),
                checked=float(raw["checked"]),
                problems=tuple(str(p) for p in raw.get("problems", ())),
            )
        except (KeyError, TypeError, ValueError):
            continue
    return checks


def record_checks(
    state_dir: Path, results: Iterable[tuple[str, str, Iterable[str]]], *, now: float
) -> None:
    """Record checks made now: ``(scope:file, name, problems)`` each; one atomic write.

    A check that found what the last one found, less than an hour ago, is not
    written again: recall checks on every prompt, and this is one write at most.
    """
    fresh = [(ref, name, list(problems)[:_MAX_PROBLEMS]) for ref, name, problems in results]
    if not fresh:
        return
    known = read_checks(state_dir)
    fresh = [
        (ref, name, problems)
        for ref, name, problems in fresh
        if ref not in known
        or list(known[ref].problems) != problems
        or known[ref].name != name
        or abs(now - known[ref].checked) >= _REWRITE_AFTER
    ]
    if not fresh:
        return
    ensure_dir(state_dir)
    path = _path(state_dir)
    with file_lock(state_dir / f".{FRESHNESS_NAME}.lock"):
        data = read_json_object(path) or {}
        checks = data.get("checks")
        checks = checks if isinstance(checks, dict) else {}
        for ref, name, problems in fresh:
            checks[ref] = {"name": name, "checked": now, "problems": problems}
        # Derived state: a lost write means one check to redo, so no directory fsync.
        text = dumps({"checks": checks}, ensure_ascii=False, sort_keys=True)
        atomic_write(path, text, sync_dir=False)


def record_recall(state_dir: Path, items: Sequence[_Recalled], *, now: float) -> None:
    """Record the checks a recall made of the memories it shows that cite code."""
    record_checks(
        state_dir,
        (
            (f"{i.scope.value}:{i.file}", i.name, [f.message for f in i.drift])
            for i in items
            if i.cites or i.drift
        ),
        now=now,
    )


def forget_missing(state_dir: Path, existing: set[str]) -> None:
    """Drop the checks of memories that are gone (``existing``: every ``scope:file``)."""
    path = _path(state_dir)
    if not path.exists():
        return
    with file_lock(state_dir / f".{FRESHNESS_NAME}.lock"):
        data = read_json_object(path) or {}
        checks = data.get("checks")
        if not isinstance(checks, dict):
            return
        kept = {ref: value for ref, value in checks.items() if ref in existing}
        if len(kept) != len(checks):
            atomic_write(path, dumps({"checks": kept}, ensure_ascii=False, sort_keys=True))


def needs_recheck(checks: dict[str, Check], *, now: float, max_age_days: float) -> list[Check]:
    """Failed checks, then those older than ``max_age_days`` (0: none is), oldest first."""
    failed = [c for c in checks.values() if c.failed]
    stale = [
        c
        for c in checks.values()
        if not c.failed and max_age_days > 0 and c.age_days(now) > max_age_days
    ]
    return sorted(failed, key=lambda c: c.checked) + sorted(stale, key=lambda c: c.checked)


def describe(check: Check, now: float) -> str:
    """``check failed: ...`` or ``last checked N days ago``."""
    if check.failed:
        return "check failed: " + "; ".join(check.problems)
    return f"last checked {int(check.age_days(now))} days ago"


def recheck_note(state_dir: Path, *, now: float, max_age_days: float) -> str | None:
    """The prompt's short list of memories to re-check before relying on them, or None.

    At most five lines of at most 160 characters each, whatever the store's size.
    """
    due = needs_recheck(read_checks(state_dir), now=now, max_age_days=max_age_days)
    if not due:
        return None
    lines = []
    for check in due[:_NOTE_LINES]:
        file = check.ref.split(":", 1)[-1]
        where = memory_ref(check.ref.split(":", 1)[0], file)
        line = f"- {check.name} ({where}): {describe(check, now)}"
        lines.append(line if len(line) <= _NOTE_LINE_CHARS else line[: _NOTE_LINE_CHARS - 1] + "…")
    more = (
        f"\n- and {len(due) - _NOTE_LINES} more (`memdir doctor`)" if len(due) > _NOTE_LINES else ""
    )
    return (
        "## Memories to re-check\n\nThese memories cite code whose last check failed or is "
        "old: check the code before relying on them.\n" + "\n".join(lines) + more
    )
