"""The rules page: the enforced rules, how often they fired, and turning one off or on.

``GET /rules`` lists the enforced rules (deny / ask / warn) with the memory
each comes from, the rule as the YAML one writes in a memory's ``enforce:``
list (to copy), and how often and when last it fired (from the hook's log,
:mod:`memdir.enforcement.rule_firings`).

A rule is turned off without losing it: ``POST /rules/disable`` moves it from
the memory's ``enforce:`` list to its ``enforce_disabled:`` list, a field the
hook never reads (unknown fields are kept on every rewrite), and ``POST
/rules/enable`` moves it back, checked again as any rule written is. Both are
ordinary writes of the memory (route ``ui``, in its history), compared with
the version the page showed. The page lists the disabled rules of feedback
memories (the catalog names them, so only those files are read).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections import Counter
from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from memdir.enforcement.enforced import load_rules
from memdir.enforcement.rule_firings import read_firings
from memdir.enforcement.rules import FIELD, parse_rule
from memdir.errors import InvalidMemory, MemdirError
from memdir.history.provenance import provenance
from memdir.model import MemoryRecord, Scope
from memdir.ui.charts import bar_chart
from memdir.ui.state import UiState, done_note, form_view, number, state_of, view

__all__ = ["DISABLED", "ROUTES"]

DISABLED = "enforce_disabled"
_FIRING_DAYS = 14
_DONE = {
    "disabled": "Rule turned off: it stays in the memory, under enforce_disabled.",
    "enabled": "Rule turned on again.",
}


def _items(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def _disabled(state: UiState) -> list[dict[str, Any]]:
    """Every rule of a feedback memory that was turned off here, with where it lives."""
    state.catalog.refresh_if_due()
    rows = state.catalog.index.conn.execute(
        "SELECT id, scope FROM docs WHERE kind = 'memory' AND type = 'feedback'"
    ).fetchall()
    out: list[dict[str, Any]] = []
    for ref, scope in rows:
        team = scope == Scope.TEAM.value
        if team and not state.memdir.team_enabled:
            continue
        store = state.memdir.store(Scope.TEAM if team else Scope.PRIVATE)
        file = ref.removeprefix("team/") if team else ref
        try:
            if DISABLED not in (store.root / file).read_text("utf-8", errors="replace"):
                continue  # the common case: no YAML parsed
            record = store.get(file)
        except (MemdirError, OSError):
            continue
        for index, item in enumerate(_items(record.memory.extra.get(DISABLED))):
            out.append({"record": record, "index": index, "yaml": {FIELD: [item]}})
    return out


def rules(request: Request) -> Response:
    state = state_of(request)
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
    versions: dict[str, str] = {}  # what a Turn off form compares with, per memory
    for enforced in found.rules:
        key = (enforced.ref, enforced.rule.summary)
        if enforced.ref not in versions:
            now = state.memdir.store(enforced.scope).find(enforced.file, thorough=False)
            versions[enforced.ref] = now.version if now is not None else ""
        rows.append(
            {
                "rule": enforced.rule,
                "version": versions[enforced.ref],
                "yaml": {FIELD: [enforced.rule.as_dict()]},
                "json": json.dumps(enforced.rule.as_dict(), sort_keys=True),
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
        disabled=_disabled(state),
        problems=found.problems,
        chart=chart if firings else None,
        total=len(firings),
        done=done_note(request, _DONE),
    )


def _memory(state: UiState, form: FormData) -> MemoryRecord:
    scope, file = state.locate(str(form.get("scope", "")), str(form.get("file", "")))
    return state.memdir.store(scope).get(file)


def _write(state: UiState, record: MemoryRecord, extra: dict[str, Any], read: str) -> None:
    for key in (FIELD, DISABLED):
        if not extra.get(key):
            extra.pop(key, None)
    memory = dataclasses.replace(record.memory, extra=extra)
    with provenance(route="ui"):  # compared with the version the page showed
        state.memdir.store(record.scope).write(memory, file=record.file, expected_version=read)


def disable(request: Request, form: FormData) -> Response:
    """Move one rule from ``enforce:`` to ``enforce_disabled:`` (the hook stops applying it)."""
    state = state_of(request)
    record = _memory(state, form)
    try:
        wanted = json.loads(str(form.get("rule", "")))
    except ValueError:
        raise InvalidMemory("the form named no rule", hint="reload the page") from None
    extra = dict(record.memory.extra)
    active = _items(extra.get(FIELD))
    for index, item in enumerate(active):
        try:
            if parse_rule(index, item).as_dict() == wanted:
                break
        except MemdirError:
            continue
    else:
        raise InvalidMemory(
            f"{record.file} holds no such rule now", hint="reload the page: it may have changed"
        )
    extra[DISABLED] = [*_items(extra.get(DISABLED)), active.pop(index)]
    extra[FIELD] = active
    _write(state, record, extra, str(form.get("version", "")))
    return state.redirect("/rules?done=disabled")


def enable(request: Request, form: FormData) -> Response:
    """Move a disabled rule back to ``enforce:`` (checked again as it is written)."""
    state = state_of(request)
    record = _memory(state, form)
    extra = dict(record.memory.extra)
    off = _items(extra.get(DISABLED))
    index = number(form.get("index"), high=max(len(off) - 1, 0))
    if not off:
        raise InvalidMemory(f"{record.file} holds no disabled rule now", hint="reload the page")
    extra[FIELD] = [*_items(extra.get(FIELD)), off.pop(index)]
    extra[DISABLED] = off
    _write(state, record, extra, str(form.get("version", "")))
    return state.redirect("/rules?done=enabled")


ROUTES = [
    Route("/rules", view(rules)),
    Route("/rules/disable", form_view(disable), methods=["POST"]),
    Route("/rules/enable", form_view(enable), methods=["POST"]),
]
