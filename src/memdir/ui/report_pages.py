"""The pages that report: the overview, what changed, and the enforced rules.

``GET /`` is the overview (:mod:`memdir.ui.overview`), with ``POST /drift``
to check every memory's claims against the code now (a scan of the project,
so a button rather than on each load); the checks are recorded where recall,
``memdir doctor --drift`` and ``memdir verify`` record theirs
(:mod:`memdir.recall.freshness`), and the overview lists the failed ones.
``GET /changes?since=DATE`` lists the history's versions since a day, across
both scopes, filtered by route, session or scope, and charts the memories
kept now by the day each was first written, per type. ``GET /rules`` lists
the enforced rules (deny / ask / warn) with the memory each comes from and
how often and when last it fired (from the hook's log,
:mod:`memdir.enforcement.rule_firings`).
"""

from __future__ import annotations

import datetime as dt
import time
from collections import Counter
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from memdir.enforcement.enforced import load_rules
from memdir.enforcement.rule_firings import read_firings
from memdir.history.reads import (
    changes_since,
    first_written,
    index_line_changes,
    routes_and_sessions,
)
from memdir.history.versions import Version
from memdir.model import MemoryType, Scope
from memdir.recall.drift import DriftChecker, find_claims
from memdir.recall.freshness import record_checks
from memdir.ui.charts import bar_chart, line_chart
from memdir.ui.memory_pages import version_diff
from memdir.ui.overview import gather
from memdir.ui.state import UiState

__all__ = ["ROUTES"]

_CHANGES_PAGE = 100
_CHART_DAYS = 30
_FIRING_DAYS = 14


def _state(request: Request) -> UiState:
    state: UiState = request.app.state.ui
    return state


async def overview(request: Request) -> Response:
    state = _state(request)
    facts = gather(state.memdir, state.catalog, runs=state.runs, cost=state.cost)
    return state.page(request, "overview.html", o=facts)


async def drift(request: Request) -> Response:
    state = _state(request)
    await state.form(request)
    checker = DriftChecker(state.memdir.layout.project_root)
    checked = []
    for record in state.memdir.list():
        found = checker.check_memory(record.memory)
        if found or find_claims(record.memory):  # only memories that cite code are checked
            ref = f"{record.scope.value}:{record.file}"
            checked.append((ref, record.name, [f.message for f in found]))
    record_checks(state.memdir.layout.state_dir, checked, now=time.time())
    return state.redirect("/#drift")


def _since(raw: str | None, today: dt.date) -> dt.date:
    try:
        return dt.date.fromisoformat(raw) if raw else today - dt.timedelta(days=7)
    except ValueError:
        return today - dt.timedelta(days=7)


def _growth(
    state: UiState, start: dt.date, today: dt.date
) -> tuple[list[dt.date], dict[str, list[float]]]:
    """Per type, how many of the memories kept now existed on each day from ``start``."""
    history = state.memdir.history_db
    born = first_written(history) if history is not None else {}
    days = [start + dt.timedelta(days=i) for i in range((today - start).days + 1)]
    state.catalog.refresh_if_due()
    rows = state.catalog.index.conn.execute(
        "SELECT id, scope, coalesce(type, 'untyped') FROM docs WHERE kind = 'memory'"
    )
    firsts: dict[str, list[dt.date]] = {t.value: [] for t in MemoryType}
    for ref, scope, kind in rows:
        team = scope == Scope.TEAM.value
        key = (Scope.TEAM if team else Scope.PRIVATE, ref.removeprefix("team/") if team else ref)
        when = born.get(key)
        firsts.setdefault(kind, []).append(
            dt.date.fromtimestamp(when) if when is not None else dt.date.min
        )
    series: dict[str, list[float]] = {}
    for kind, dates in firsts.items():
        if not dates:
            continue
        dates.sort()
        counts, i = [], 0
        for day in days:
            while i < len(dates) and dates[i] <= day:
                i += 1
            counts.append(float(i))
        series[kind] = counts
    return days, series


def _index_fill(state: UiState, days: list[dt.date]) -> dict[str, list[float]]:
    """Per scope, the lines its ``MEMORY.md`` held at the end of each day, walked back from now."""
    history = state.memdir.history_db
    if history is None or not days:
        return {}
    start = time.mktime(days[0].timetuple())
    edits = index_line_changes(history, start)
    scopes = [Scope.PRIVATE, Scope.TEAM] if state.memdir.team_enabled else [Scope.PRIVATE]
    series: dict[str, list[float]] = {}
    for scope in scopes:
        try:
            lines = state.memdir.store(scope).index_path.read_bytes().count(b"\n")
        except FileNotFoundError:
            lines = 0
        mine = [(dt.date.fromtimestamp(t), n) for t, s, n in edits if s is scope]
        values = []
        for day in reversed(days):  # the end of ``day``: undo the edits made after it
            while mine and mine[-1][0] > day:
                lines -= mine.pop()[1]
            values.append(float(max(lines, 0)))
        series[f"{scope.value} index lines"] = values[::-1]
    return series


async def changes(request: Request) -> Response:
    state = _state(request)
    q = request.query_params
    today = dt.date.today()
    since = _since(q.get("since"), today)
    history = state.memdir.history_db
    scope = q.get("scope") if q.get("scope") in {s.value for s in Scope} else None
    before = q.get("before") or ""
    start = time.mktime(since.timetuple())
    versions: list[Version] = []
    routes: list[str] = []
    sessions: list[str] = []
    if history is not None:
        versions = changes_since(
            history,
            start,
            route=q.get("route") or None,
            session=q.get("session") or None,
            scope=Scope(scope) if scope else None,
            limit=_CHANGES_PAGE + 1,
            before=int(before) if before.isdigit() else None,
        )
        routes, sessions = routes_and_sessions(history, start)
    more = len(versions) > _CHANGES_PAGE
    versions = versions[:_CHANGES_PAGE]
    # At least the last month, at most the last year, however far back the list goes.
    chart_start = max(
        min(since, today - dt.timedelta(days=_CHART_DAYS)), today - dt.timedelta(days=365)
    )
    days, series = _growth(state, chart_start, today)
    fill = _index_fill(state, days)
    keep = {k: q.get(k) for k in ("route", "session", "scope") if q.get(k)}
    return state.page(
        request,
        "changes.html",
        since=since,
        versions=[(v, version_diff(state, v)) for v in versions],
        more=versions[-1].id if more and versions else None,
        routes=routes,
        sessions=sessions,
        keep=keep,
        chosen={k: q.get(k) or "" for k in ("route", "session", "scope")},
        chart=line_chart("Memories kept now, by the day each was first written", days, series)
        if series
        else None,
        series=series,
        days=days,
        fill=line_chart(
            f"Index lines per day (the prompt loads {state.memdir.settings.max_index_lines})",
            days,
            fill,
        )
        if fill
        else None,
        fill_now={k: int(v[-1]) for k, v in fill.items()},
    )


async def rules(request: Request) -> Response:
    state = _state(request)
    layout = state.memdir.layout
    found = load_rules(layout, include_team=state.memdir.team_enabled)
    firings = read_firings(str(layout.state_dir))
    count: Counter[tuple[str, str]] = Counter()
    last: dict[tuple[str, str], float] = {}
    for item in firings:
        key = (str(item.get("ref")), str(item.get("rule")))
        count[key] += 1
        last[key] = max(last.get(key, 0.0), float(item["t"]))
    rows: list[dict[str, Any]] = []
    for enforced in found.rules:
        key = (enforced.ref, enforced.rule.summary)
        rows.append(
            {
                "rule": enforced.rule,
                "scope": enforced.scope,
                "file": enforced.file,
                "name": enforced.name,
                "why": enforced.why,
                "fired": count.get(key, 0),
                "last": last.get(key),
            }
        )
    today = dt.date.today()
    days = [today - dt.timedelta(days=i) for i in range(_FIRING_DAYS - 1, -1, -1)]
    per_day = Counter(dt.date.fromtimestamp(float(item["t"])) for item in firings)
    chart = bar_chart("Rule firings per day", days, [per_day.get(d, 0) for d in days])
    return state.page(
        request,
        "rules.html",
        rows=rows,
        problems=found.problems,
        chart=chart if firings else None,
        total=len(firings),
    )


ROUTES = [
    Route("/", overview),
    Route("/drift", drift, methods=["POST"]),
    Route("/changes", changes),
    Route("/rules", rules),
]
