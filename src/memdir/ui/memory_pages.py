"""The memory pages: the list, one memory, and the person's changes to it.

``GET /memories`` lists a page of memories (filters and search, see
:mod:`memdir.ui.listing`); ``GET /memories/<scope>/<file>`` shows one: its
body rendered safely, its frontmatter as a table, why memdir holds it, drift
and age badges, and its history as a timeline with diffs. The changes are
forms that POST to ``/memory/edit``, ``/memory/restore`` and
``/memory/delete``, each naming the scope and file (confined to the scope's
folder) and, for edit and delete, the version the person read: the store
compares it before writing, so a change made meanwhile is a conflict shown on
the page, never a silent overwrite. Every change is recorded with route ``ui``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import difflib
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from memdir.errors import Conflict, InvalidMemory, MemoryNotFound
from memdir.history.provenance import provenance
from memdir.history.versions import Version
from memdir.model import MemoryRecord, MemoryType, Scope
from memdir.recall.age import age_of
from memdir.recall.drift import find_claims
from memdir.recall.freshness import record_checks
from memdir.ui.listing import AGES, Filters, list_page
from memdir.ui.markdown import render_markdown
from memdir.ui.state import UiState, memory_url

__all__ = ["DONE", "ROUTES", "version_diff"]

DONE = {
    "saved": "Saved.",
    "restored": "Restored.",
    "deleted": "Moved to the trash: its history keeps every version.",
    "approved": "Approved: it is in memory now.",
    "rejected": "Rejected: it never applies.",
}
_TIMELINE = 50  # versions shown on a memory's page


def _state(request: Request) -> UiState:
    state: UiState = request.app.state.ui
    return state


def _filters(request: Request) -> Filters:
    q = request.query_params
    scope = q.get("scope") or ""
    kind = q.get("type") or ""
    try:
        page = max(int(q.get("page") or 1), 1)
    except ValueError:
        page = 1
    return Filters(
        query=(q.get("q") or "")[:500],
        scope=Scope(scope) if scope in {s.value for s in Scope} else None,
        type=MemoryType(kind) if kind in {t.value for t in MemoryType} else None,
        age=str(q.get("age")) if q.get("age") in AGES else "",
        route=(q.get("route") or "")[:40],
        page=page,
    )


async def memories(request: Request) -> Response:
    state = _state(request)
    filters = _filters(request)
    page = list_page(state.catalog, filters, history=state.memdir.history_db)
    keep = {
        k: v
        for k, v in (
            ("q", filters.query),
            ("scope", filters.scope.value if filters.scope else ""),
            ("type", filters.type.value if filters.type else ""),
            ("age", filters.age),
            ("route", filters.route),
        )
        if v
    }
    from memdir.history.provenance import ROUTES

    return state.page(
        request,
        "memories.html",
        page=page,
        filters=filters,
        keep=keep,
        ages=AGES,
        routes=ROUTES,
        types=[t.value for t in MemoryType],
    )


def version_diff(state: UiState, v: Version) -> str:
    """What version ``v`` changed, as a unified diff of the file's text."""
    history = state.memdir.history_db
    if history is None:
        return ""
    before = history.blob(v.before) if v.before else None
    after = history.blob(v.after) if v.after else None
    if v.redacted:
        return "(the text of this version was redacted)"
    a = [] if before is None else before.decode("utf-8", "replace").splitlines(keepends=True)
    b = [] if after is None else after.decode("utf-8", "replace").splitlines(keepends=True)
    name = f"{v.scope.value}/{v.file}"
    return "".join(difflib.unified_diff(a, b, fromfile=name, tofile=name, n=2))


def _memory_context(
    state: UiState, scope: Scope, file: str, record: MemoryRecord | None
) -> dict[str, Any]:
    mem = state.memdir
    versions: list[Version] = []
    why = None
    if mem.history_db is not None:
        if record is not None:
            versions = mem.history(file, scope=scope)[:_TIMELINE]
            why = mem.why(file, scope=scope)
        else:  # gone: its versions by file (a lookup by name would read every memory)
            versions = mem.history_db.versions(scope=scope, file=file)[:_TIMELINE]
    values: dict[str, Any] = {
        "scope": scope,
        "file": file,
        "record": record,
        "timeline": [(v, version_diff(state, v)) for v in versions],
        "why": why,
    }
    if record is not None:
        memory = record.memory
        values["body"] = render_markdown(memory.body)
        values["age"] = age_of(memory, mtime=record.mtime, today=dt.date.today())
        drift = state.checker().check_memory(memory)
        if drift or find_claims(memory):  # recorded as recall and doctor record theirs
            ref = f"{scope.value}:{record.file}"
            problems = [f.message for f in drift]
            record_checks(mem.layout.state_dir, [(ref, memory.name, problems)], now=time.time())
        values["drift"] = drift
        fields = [(f.name, getattr(memory, f.name)) for f in dataclasses.fields(memory)]
        values["frontmatter"] = [
            (key, value.value if hasattr(value, "value") else value)
            for key, value in fields
            if key not in ("body", "extra", "style") and value not in (None, (), "")
        ] + sorted(memory.extra.items())
        values["types"] = [t.value for t in MemoryType]
    return values


async def memory(request: Request) -> Response:
    state = _state(request)
    scope, file = state.locate(request.path_params["scope"], request.path_params["file"])
    record = state.memdir.store(scope).find(file, thorough=False)
    if record is not None and record.file != file:
        record = None  # the ref resolved to another memory by name: this file is gone
    done = DONE.get(request.query_params.get("done") or "")
    values = _memory_context(state, scope, file, record)
    if record is None and not values["timeline"]:
        raise MemoryNotFound(f"no {scope.value} memory in {file!r}, and no history of one")
    return state.page(request, "memory.html", done=done, **values)


async def edit(request: Request) -> Response:
    state = _state(request)
    form = await state.form(request)
    scope, file = state.locate(str(form.get("scope", "")), str(form.get("file", "")))
    store = state.memdir.store(scope)
    record = store.get(file)
    kind = str(form.get("type", ""))
    try:
        memory_type = MemoryType(kind)
    except ValueError:
        raise InvalidMemory(f"unknown memory type {kind!r}") from None
    edited = dataclasses.replace(
        record.memory,
        description=str(form.get("description", "")),
        type=memory_type,
        body=str(form.get("body", "")).replace("\r\n", "\n"),
    )
    read = str(form.get("version", ""))
    try:
        with provenance(route="ui"):
            store.write(edited, file=record.file, expected_version=read)
    except Conflict:
        values = _memory_context(state, scope, record.file, store.get(file))
        return state.page(
            request,
            "memory.html",
            status=409,
            done=None,
            conflict={"body": edited.body, "description": edited.description, "type": kind},
            **values,
        )
    return state.redirect(memory_url(scope, record.file) + "?done=saved")


async def restore(request: Request) -> Response:
    state = _state(request)
    form = await state.form(request)
    scope, file = state.locate(str(form.get("scope", "")), str(form.get("file", "")))
    raw = str(form.get("version", ""))
    version = int(raw.removeprefix("v")) if raw.removeprefix("v").isdigit() else None
    with provenance(route="ui"):
        result = state.memdir.restore(file, version=version, scope=scope)
    return state.redirect(memory_url(scope, result.record.file) + "?done=restored")


async def delete(request: Request) -> Response:
    state = _state(request)
    form = await state.form(request)
    scope, file = state.locate(str(form.get("scope", "")), str(form.get("file", "")))
    read = str(form.get("version", ""))
    store = state.memdir.store(scope)
    try:
        with provenance(route="ui"):
            store.delete(file, expected_version=read)
    except Conflict:
        values = _memory_context(state, scope, file, store.get(file))
        return state.page(
            request, "memory.html", status=409, done=None, conflict={"delete": True}, **values
        )
    return state.redirect(memory_url(scope, file) + "?done=deleted")


ROUTES = [
    Route("/memories", memories),
    Route("/memories/{scope}/{file:path}", memory),
    Route("/memory/edit", edit, methods=["POST"]),
    Route("/memory/restore", restore, methods=["POST"]),
    Route("/memory/delete", delete, methods=["POST"]),
]
