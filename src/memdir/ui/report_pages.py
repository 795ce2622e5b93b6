"""The pages that report: the overview, what changed; and the overview's actions.

``GET /`` is the overview (:mod:`memdir.ui.overview`), with doctor's findings
(each with the step that settles it; ``POST /doctor/fix`` makes the repairs
``memdir doctor --fix`` makes), ``POST /drift`` to check every memory's claims
against the code now (a scan of the project, so a button rather than on each
load; the checks are recorded where recall, ``memdir doctor --drift`` and
``memdir verify`` record theirs, :mod:`memdir.recall.freshness`, and the
overview lists the failed ones), and ``POST /team/sync`` to sync team memory
now (what it did is shown on the overview). ``GET /changes?since=DATE`` lists
the history's versions since a day, across both scopes, filtered by route,
session or scope, and charts the memories kept now by the day each was first
written, per type. The enforced rules have a page of their own
(:mod:`memdir.ui.rule_pages`).
"""

from __future__ import annotations

import datetime as dt
import time

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from memdir.history.provenance import provenance
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
from memdir.ui.charts import line_chart
from memdir.ui.memory_pages import version_diff
from memdir.ui.overview import gather, sync_summary
from memdir.ui.state import UiState, done_note, form_view, number, state_of, view

__all__ = ["ROUTES"]

_CHANGES_PAGE = 100
_CHART_DAYS = 30
_DONE = {
    "fixed": "Repaired what doctor --fix repairs (the index, leftover temp files).",
    "synced": "Team memory synced: see Team sync below.",
}


def overview(request: Request) -> Response:
    state = state_of(request)
    facts = gather(state.memdir, state.catalog, runs=state.runs, cost=state.cost)
    done = done_note(request, _DONE)
    return state.page(
        request,
        "overview.html",
        o=facts,
        doctor=state.doctor.facts(state.memdir),
        synced=state.last_sync,
        done=done,
    )


def doctor_fix(request: Request, form: FormData) -> Response:
    """What ``memdir doctor --fix`` repairs: the indexes, derived state, leftover temp files."""
    state = state_of(request)
    state.doctor.facts(state.memdir, fix=True)
    return state.redirect("/?done=fixed#doctor")


def team_sync(request: Request, form: FormData) -> Response:
    """Sync team memory now; the overview shows what the sync did."""
    from memdir.team.sync import sync_team

    state = state_of(request)
    with provenance(route="ui"):  # what the sync commits of this clone's changes
        report = sync_team(state.memdir)
    state.last_sync = sync_summary(report)
    return state.redirect("/?done=synced#h-team")


def drift(request: Request, form: FormData) -> Response:
    state = state_of(request)
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


def changes(request: Request) -> Response:
    state = state_of(request)
    q = request.query_params
    today = dt.date.today()
    since = _since(q.get("since"), today)
    history = state.memdir.history_db
    scope = q.get("scope") if q.get("scope") in {s.value for s in Scope} else None
    before = number(q.get("before"), default=0)
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
            before=before or None,
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


ROUTES = [
    Route("/", view(overview)),
    Route("/drift", form_view(drift), methods=["POST"]),
    Route("/doctor/fix", form_view(doctor_fix), methods=["POST"]),
    Route("/team/sync", form_view(team_sync), methods=["POST"]),
    Route("/changes", view(changes)),
]
