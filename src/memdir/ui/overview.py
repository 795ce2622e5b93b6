"""The overview's facts: what memory holds, what it costs the prompt, what needs a person.

Each fact is read the cheap way: counts and stale memories from the search
catalog (SQL, no memory file opened), the index fill from the two
``MEMORY.md`` files, the session-start context by building the very text the
SessionStart hook hands the agent (with the hook's character budget, and once
without it to show what the budget cut), pending reviews from the history,
drifted memories from the drift checks recall, doctor and this page record
(:mod:`memdir.recall.freshness`),
team sync state from the team folder's git (no fetch: the page never waits on
the network), the background runs from their status files (through the
callable the command gives, as that bookkeeping belongs to the hooks), and what
background work spent today against its daily cap (:mod:`memdir.llm.spend`).

Doctor's findings (:func:`doctor_facts`) read every memory file, so a check is
reused for a few seconds while the indexes and the memory folders stay as
they were (:class:`DoctorCheck`); :func:`sync_summary` says in a few lines
what a sync the page ran did.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from memdir.errors import MemdirError
from memdir.history.pending import pending_count
from memdir.history.project import ProjectMemory
from memdir.history.reads import count_since
from memdir.model import MemoryType, Scope
from memdir.recall.context_budget import HOOK_CONTEXT_LIMIT, text_length
from memdir.recall.doctor import Finding, diagnose
from memdir.recall.freshness import Check, read_checks
from memdir.recall.prompt import load_prompt, resolve_mode
from memdir.recall.state_check import StateFinding
from memdir.search.catalog import Catalog
from memdir.storage.fs import read_bytes_nofollow
from memdir.ui.listing import count_by

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memdir.team.reports import SyncReport

__all__ = [
    "CHARS_PER_TOKEN",
    "STALE_DAYS",
    "BackgroundRun",
    "DoctorCheck",
    "DoctorFacts",
    "IndexFill",
    "Overview",
    "PromptCost",
    "TeamState",
    "doctor_facts",
    "gather",
    "sync_summary",
]

CHARS_PER_TOKEN = 4  # the usual rule of thumb for English text and code
STALE_DAYS = 90

BackgroundRun = tuple[str, str]
"""A background run as the page shows it: (status, one line saying what happened)."""


@dataclass(frozen=True, kw_only=True)
class IndexFill:
    """One scope's ``MEMORY.md`` against the limits of what a prompt loads of it."""

    scope: Scope
    lines: int
    chars: int
    max_lines: int
    max_chars: int

    @property
    def over(self) -> bool:
        return self.lines > self.max_lines or self.chars > self.max_chars


@dataclass(frozen=True, kw_only=True)
class TeamState:
    """Team memory against its remote, as last fetched."""

    initialized: bool
    remote: str | None
    ahead: int
    behind: int
    unsynced: int
    conflicts: tuple[str, ...]
    problem: str | None = None


@dataclass(frozen=True, kw_only=True)
class Overview:
    """Everything the overview page shows."""

    counts: dict[tuple[str, str], int]
    total: int
    indexes: list[IndexFill]
    start_chars: int  # what the SessionStart hook hands the agent
    full_chars: int  # the same text without the hook's budget
    hook_limit: int
    pending: int
    stale: int
    team: TeamState | None
    week: tuple[int, int] = (0, 0)  # changes in the last 7 days, and those by agents
    drifted: Sequence[Check] = field(default_factory=tuple)  # failed drift checks, newest first
    checks: int = 0  # memories whose claims were ever checked
    recheck: int = 0  # of those, checked longer ago than recheck_days
    recheck_days: float = 30.0
    runs: Sequence[BackgroundRun] = field(default_factory=tuple)
    spend: str | None = None  # today's background model use against the daily cap

    @property
    def start_tokens(self) -> int:
        return (self.start_chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN

    def count(self, scope: str, kind: str) -> int:
        return self.counts.get((scope, kind), 0)

    @property
    def types(self) -> list[str]:
        known = [t.value for t in MemoryType]
        extra = sorted({k for _, k in self.counts if k not in known})
        return known + extra


def _index_fill(memdir: ProjectMemory, scope: Scope) -> IndexFill:
    store = memdir.store(scope)
    try:
        text = read_bytes_nofollow(store.index_path).decode("utf-8", "replace")
    except FileNotFoundError:
        text = ""
    return IndexFill(
        scope=scope,
        lines=len(text.splitlines()),
        chars=text_length(text),
        max_lines=memdir.settings.max_index_lines,
        max_chars=memdir.settings.max_index_chars,
    )


def _session_start_text(
    memdir: ProjectMemory, max_chars: int | None, target_chars: int | None = None
) -> str:
    settings, layout = memdir.settings, memdir.layout
    mode = resolve_mode(
        "auto", team_enabled=memdir.team_enabled, daily_log_active=settings.daily_log
    )
    return load_prompt(
        mode=mode,
        memory_dir=layout.memory_dir,
        team_dir=layout.team_dir if mode == "combined" else None,
        extra_guidelines=settings.extra_guidelines,
        tools="files",
        max_index_lines=settings.max_index_lines,
        max_index_chars=settings.max_index_chars,
        max_chars=max_chars,
        target_chars=target_chars,
    )


def team_state(memdir: ProjectMemory, catalog: Catalog) -> TeamState | None:
    """Where team memory stands (None: this project has no team memory)."""
    if not memdir.team_enabled:
        return None
    rows = catalog.index.conn.execute(
        "SELECT id FROM docs WHERE kind = 'memory' AND id LIKE 'team/%' AND id LIKE '%.conflict-%'"
    )
    conflicts = tuple(ref.removeprefix("team/") for (ref,) in rows)
    if not (memdir.team.root / ".git").exists():  # never synced: nothing to compare
        return TeamState(
            initialized=False, remote=None, ahead=0, behind=0, unsynced=0, conflicts=conflicts
        )
    try:
        from memdir.team.status import team_status

        status = team_status(memdir, fetch=False)
    except MemdirError as exc:
        return TeamState(
            initialized=True,
            remote=None,
            ahead=0,
            behind=0,
            unsynced=0,
            conflicts=conflicts,
            problem=exc.message,
        )
    return TeamState(
        initialized=status.initialized,
        remote=status.remote,
        ahead=status.ahead,
        behind=status.behind,
        unsynced=len(status.unsynced_files),
        conflicts=conflicts,
    )


class PromptCost:
    """What a session start costs, measured again only when an index changed.

    Building the session-start text reads both ``MEMORY.md`` files and checks
    each entry's file (at 10,000 entries that is most of the overview's time),
    so the two lengths are kept with the indexes' sizes and mtimes and the day
    they were measured on, and reused until one of those changes.
    """

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._value = (0, 0)

    def measure(self, memdir: ProjectMemory, limit: int) -> tuple[int, int]:
        """(the hook's text length, the length without the hook's budget), in UTF-16 units."""
        if not memdir.enabled:
            return 0, 0
        key = (
            limit,
            memdir.team_enabled,
            dt.date.today(),
            *(_stamp(memdir.store(scope).index_path) for scope in Scope),
        )
        if key != self._key:
            full = text_length(_session_start_text(memdir, None))
            # Within the aim the hook's text is the whole text: no second build.
            aim = min(memdir.settings.start_context_chars or limit, limit)
            start = (
                full
                if full <= aim
                else text_length(_session_start_text(memdir, limit, aim or None))
            )
            self._key, self._value = key, (start, full)
        return self._value


def _stamp(path: object) -> tuple[int, int] | None:
    try:
        info = os.stat(str(path))
    except FileNotFoundError:
        return None
    return info.st_mtime_ns, info.st_size


def stale_count(catalog: Catalog, today: dt.date) -> int:
    """Memories whose date (verified, else updated) is older than :data:`STALE_DAYS`."""
    cutoff = (today - dt.timedelta(days=STALE_DAYS)).isoformat()
    row = catalog.index.conn.execute(
        "SELECT count(*) FROM docs WHERE kind = 'memory' AND substr(date, 1, 10) < ?", (cutoff,)
    ).fetchone()
    return int(row[0])


def gather(
    memdir: ProjectMemory,
    catalog: Catalog,
    *,
    runs: Callable[[], Sequence[BackgroundRun]] | None = None,
    cost: PromptCost | None = None,
    today: dt.date | None = None,
) -> Overview:
    """The overview of ``memdir``'s memory now (``cost``: a cache of the prompt's cost)."""
    today = today or dt.date.today()
    counts = count_by(catalog)
    scopes = [Scope.PRIVATE, Scope.TEAM] if memdir.team_enabled else [Scope.PRIVATE]
    limit = memdir.settings.hook_context_chars or HOOK_CONTEXT_LIMIT
    start, full = (cost or PromptCost()).measure(memdir, limit)
    checks = read_checks(memdir.layout.state_dir)
    now = time.time()
    max_age = memdir.settings.freshness_days
    return Overview(
        counts=counts,
        total=sum(counts.values()),
        indexes=[_index_fill(memdir, scope) for scope in scopes],
        start_chars=start,
        full_chars=full,
        hook_limit=limit,
        pending=pending_count(memdir),
        stale=stale_count(catalog, today),
        team=team_state(memdir, catalog),
        week=count_since(memdir.history_db, time.time() - 7 * 86_400)
        if memdir.history_db is not None
        else (0, 0),
        runs=tuple(runs()) if runs is not None else (),
        spend=_spend(memdir),
        drifted=sorted((c for c in checks.values() if c.failed), key=lambda c: -c.checked),
        checks=len(checks),
        recheck_days=max_age,
        recheck=sum(1 for c in checks.values() if max_age > 0 and c.age_days(now) > max_age),
    )


def _spend(memdir: ProjectMemory) -> str | None:
    from memdir.llm.spend import today_summary

    settings = memdir.settings
    named = (settings.provider or "none").lower() != "none"
    return today_summary(memdir.env, cap=settings.daily_token_cap, configured=named)


@dataclass(frozen=True, kw_only=True)
class DoctorFacts:
    """What ``memdir doctor`` finds now: problems with their fixes, and derived state."""

    findings: tuple[Finding, ...]  # neither fixed nor information only
    state: tuple[StateFinding, ...]
    info: int = 0  # findings that are information only (a link to a memory not written)

    @property
    def fixable(self) -> int:
        """How many ``memdir doctor --fix`` (the page's Repair button) settles."""
        return sum(1 for f in self.findings if f.fixable) + len(self.state)

    @property
    def ok(self) -> bool:
        return not self.findings and not self.state


_DOCTOR_SECONDS = 10.0  # how long one check is reused while nothing visible changed


class DoctorCheck:
    """Doctor's findings, checked again when an index or memory folder changed, or after
    a few seconds (an edit in place moves no folder's mtime)."""

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._at = 0.0
        self._value: DoctorFacts | None = None

    def facts(self, memdir: ProjectMemory, *, fix: bool = False) -> DoctorFacts:
        key = tuple(
            _stamp(path)
            for scope in Scope
            for path in (memdir.store(scope).index_path, memdir.store(scope).root)
        )
        fresh = time.monotonic() - self._at < _DOCTOR_SECONDS
        if fix or self._value is None or key != self._key or not fresh:
            self._value = doctor_facts(memdir, fix=fix)
            self._key, self._at = key, time.monotonic()
        return self._value


def doctor_facts(memdir: ProjectMemory, *, fix: bool = False) -> DoctorFacts:
    """What doctor finds (with ``fix``: what is left after its repairs)."""
    report = diagnose(memdir, fix=fix)
    return DoctorFacts(
        findings=tuple(f for f in report.findings if not f.fixed and not f.info),
        state=tuple(s for s in report.state if not s.fixed and not s.info),
        info=sum(1 for f in report.findings if f.info),
    )


def sync_summary(report: SyncReport) -> list[str]:
    """A sync's outcome in a few lines, conflicts last (each with what settles it)."""
    lines = [f"{len(report.committed)} committed, {len(report.pulled)} pulled, "
             f"{len(report.deleted)} deleted by teammates"]  # fmt: skip
    if report.pushed:
        lines.append(f"pushed to {report.remote} ({report.branch})")
    elif not report.rewritten:
        lines.append(f"up to date with {report.remote} ({report.branch})")
    else:
        lines.append(f"the history of {report.remote} was rewritten: nothing was pushed")
    lines += [f"quarantined: {item.file} ({', '.join(item.labels)})" for item in report.quarantined]
    lines += [
        f"conflict: team/{c.file}: {c.reason} (`memdir team conflicts {c.file}` shows both; "
        f"`memdir team resolve {c.file} --keep mine|theirs|both` settles it)"
        for c in report.conflicts
    ]
    return lines
