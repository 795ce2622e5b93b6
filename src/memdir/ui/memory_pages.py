"""The memory pages: the list, one memory, a new one, and the person's changes to it.

``GET /memories`` lists a page of memories (filters and search, see
:mod:`memdir.ui.listing`); ``GET /memories/<scope>/<file>`` shows one: its
body rendered safely, its frontmatter as a table (a structured value, such as
an ``enforce:`` rule, as the YAML one would write in the file, to copy), why
memdir holds it, drift and age badges, and its history as a timeline with
diffs. ``GET /memories/new`` is the form for a new memory (``POST
/memory/new``: refused, the form kept, when a memory of that name exists).

The changes are forms that POST to ``/memory/edit``, ``/memory/restore`` and
``/memory/delete``, each naming the scope and file (confined to the scope's
folder) and the version of the memory the page showed: the store compares it
before writing, so a change made meanwhile (in another tab, by an agent) is a
conflict shown on the page, never a silent overwrite. After an edit's
conflict, the form holds the memory as it is now with the person's own changes
on top (a field they did not touch takes the other writer's value, so saving
again never reverts it; the edit form carries what it was loaded with for
that). Delete asks first: ``GET /memory/delete`` is the question, the POST
the deletion. Every change is recorded with route ``ui``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import difflib
import hashlib
import time
from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from memdir.errors import Conflict, InvalidMemory, MemdirError, MemoryNotFound
from memdir.history.provenance import provenance
from memdir.history.versions import Version
from memdir.model import Memory, MemoryRecord, MemoryType, Scope
from memdir.recall.age import age_of
from memdir.recall.drift import find_claims
from memdir.recall.freshness import record_checks
from memdir.storage.store import MemoryStore
from memdir.ui.listing import AGES, Filters, list_page
from memdir.ui.markdown import render_markdown
from memdir.ui.state import (
    Refused,
    UiState,
    done_note,
    form_view,
    memory_url,
    number,
    state_of,
    view,
)

__all__ = ["DONE", "ROUTES", "body_hash", "version_diff"]

DONE = {
    "saved": "Saved.",
    "created": "Created.",
    "restored": "Restored.",
    "deleted": "Moved to the trash: its history keeps every version.",
    "approved": "Approved: it is in memory now.",
    "rejected": "Rejected: it never applies.",
}
_TIMELINE = 50  # versions shown on a memory's page
_MAX_PAGE = 1_000_000  # past any store's last page: an empty page, not an overflow


def body_hash(body: str) -> str:
    """What an edit form carries of the body it showed: enough to tell whether it changed."""
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _filters(request: Request) -> Filters:
    q = request.query_params
    scope = q.get("scope") or ""
    kind = q.get("type") or ""
    return Filters(
        query=(q.get("q") or "")[:500],
        scope=Scope(scope) if scope in {s.value for s in Scope} else None,
        type=MemoryType(kind) if kind in {t.value for t in MemoryType} else None,
        age=str(q.get("age")) if q.get("age") in AGES else "",
        route=(q.get("route") or "")[:40],
        page=number(q.get("page"), default=1, low=1, high=_MAX_PAGE),
    )


def memories(request: Request) -> Response:
    state = state_of(request)
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


def _frontmatter(memory: Memory) -> list[tuple[str, Any, bool]]:
    """(key, value, as YAML) for each field set: a structured value (an ``enforce:``
    rule list) is shown as the YAML a person writes in the file, ready to copy."""
    fields = [(f.name, getattr(memory, f.name)) for f in dataclasses.fields(memory)]
    rows = [
        (key, value.value if hasattr(value, "value") else value)
        for key, value in fields
        if key not in ("body", "extra", "style") and value not in (None, (), "", False)
    ] + sorted(memory.extra.items())
    out: list[tuple[str, Any, bool]] = []
    for key, value in rows:
        structured = isinstance(value, dict) or (
            isinstance(value, list | tuple) and any(isinstance(v, dict | list) for v in value)
        )
        out.append((key, {key: value} if structured else value, structured))
    return out


def _memory_context(
    state: UiState, scope: Scope, file: str, record: MemoryRecord | None
) -> dict[str, Any]:
    mem = state.memdir
    versions: list[Version] = []
    why = None
    if mem.history_db is not None:
        # One page of versions, each query stopped by its LIMIT: a memory with
        # 200,000 versions shows as fast as one with two.
        if record is not None:
            versions = mem.history(file, scope=scope, limit=_TIMELINE)
            why = mem.why(file, scope=scope)
        else:  # gone: its versions by file (a lookup by name would read every memory)
            versions = mem.history_db.page(scopes=(scope,), files=(file,), limit=_TIMELINE)
    values: dict[str, Any] = {
        "scope": scope,
        "file": file,
        "record": record,
        "timeline": [(v, version_diff(state, v)) for v in versions],
        "why": why,
        "current": record.version if record is not None else "",
    }
    if record is not None:
        memory = record.memory
        values["body"] = render_markdown(memory.body)
        values["body_hash"] = body_hash(memory.body)
        values["age"] = age_of(memory, mtime=record.mtime, today=dt.date.today())
        drift = state.checker().check_memory(memory)
        if drift or find_claims(memory):  # recorded as recall and doctor record theirs
            ref = f"{scope.value}:{record.file}"
            problems = [f.message for f in drift]
            record_checks(mem.layout.state_dir, [(ref, memory.name, problems)], now=time.time())
        values["drift"] = drift
        values["frontmatter"] = _frontmatter(memory)
    return values


def memory(request: Request) -> Response:
    state = state_of(request)
    scope, file = state.locate(request.path_params["scope"], request.path_params["file"])
    record = state.memdir.store(scope).find(file, thorough=False)
    if record is not None and record.file != file:
        record = None  # the ref resolved to another memory by name: this file is gone
    done = done_note(request, DONE)
    values = _memory_context(state, scope, file, record)
    if record is None and not values["timeline"]:
        raise MemoryNotFound(f"no {scope.value} memory in {file!r}, and no history of one")
    return state.page(request, "memory.html", done=done, **values)


def _memory_type(kind: str) -> MemoryType:
    try:
        return MemoryType(kind)
    except ValueError:
        raise InvalidMemory(f"unknown memory type {kind!r}") from None


def edit(request: Request, form: FormData) -> Response:
    state = state_of(request)
    scope, file = state.locate(str(form.get("scope", "")), str(form.get("file", "")))
    store = state.memdir.store(scope)
    record = store.get(file)
    kind = str(form.get("type", ""))
    edited = dataclasses.replace(
        record.memory,
        description=str(form.get("description", "")),
        type=_memory_type(kind),
        body=str(form.get("body", "")).replace("\r\n", "\n"),
    )
    read = str(form.get("version", ""))
    try:
        with provenance(route="ui"):
            store.write(edited, file=record.file, expected_version=read)
    except Conflict:
        return _edit_conflict(request, state, store, scope, file, edited, form)
    return state.redirect(memory_url(scope, record.file) + "?done=saved")


def _edit_conflict(
    request: Request,
    state: UiState,
    store: MemoryStore,
    scope: Scope,
    file: str,
    edited: Memory,
    form: FormData,
) -> Response:
    """The memory as it is now, with the person's own changes on top, and what clashed."""
    now = store.get(file)
    current = now.memory
    # What the form was loaded with (a form without it: every field counts as changed).
    was = {key: form.get(f"was_{key}") for key in ("description", "type", "body")}
    mine = {
        "description": (edited.description, current.description, edited.description),
        "type": (
            edited.type.value if edited.type else "",
            current.type.value if current.type else "",
            edited.type.value if edited.type else "",
        ),
        "body": (body_hash(edited.body), body_hash(current.body), edited.body),
    }
    kept: dict[str, str] = {}
    changed, clashed = [], []
    for key, (given, theirs, value) in mine.items():
        if was[key] is not None and given == str(was[key]):  # untouched: theirs stands
            kept[key] = current.body if key == "body" else theirs
            continue
        changed.append(key)
        kept[key] = value
        if theirs not in (str(was[key]), given):
            clashed.append(key)
    values = _memory_context(state, scope, now.file, now)
    conflict = {**kept, "changed": changed, "clashed": clashed}
    return state.page(request, "memory.html", status=409, conflict=conflict, **values)


def restore(request: Request, form: FormData) -> Response:
    state = state_of(request)
    scope, file = state.locate(str(form.get("scope", "")), str(form.get("file", "")))
    version = number(form.get("version"), low=1)
    store = state.memdir.store(scope)
    found = store.find(file, thorough=False)
    now = found.version if found is not None and found.file == file else ""
    shown = form.get("current")
    if shown is not None and str(shown) != now:
        # The page (a tab left open) showed another text than the file holds now: restoring
        # over it would throw away a change its reader never saw.
        values = _memory_context(state, scope, file, found if now else None)
        return state.page(
            request, "memory.html", status=409, conflict={"restore": version}, **values
        )
    with provenance(route="ui"):
        result = state.memdir.restore(file, version=version, scope=scope)
    return state.redirect(memory_url(scope, result.record.file) + "?done=restored")


def delete_question(request: Request) -> Response:
    """Ask before a memory disappears: what goes where, with the version the page showed."""
    state = state_of(request)
    q = request.query_params
    scope, file = state.locate(q.get("scope") or "", q.get("file") or "")
    record = state.memdir.store(scope).get(file)
    version = q.get("version") or record.version
    return state.page(request, "delete.html", record=record, scope=scope, version=version)


def delete(request: Request, form: FormData) -> Response:
    state = state_of(request)
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


def _new_values(**given: str) -> dict[str, Any]:
    fields = {"name": "", "description": "", "type": "feedback", "scope": "private", "body": ""}
    return {"given": {**fields, **given}}


def new_form(request: Request) -> Response:
    state = state_of(request)
    return state.page(request, "new.html", problem=None, **_new_values())


def create(request: Request, form: FormData) -> Response:
    """Write a new memory; one of that name already there is a conflict, not an update."""
    state = state_of(request)
    given = {
        key: str(form.get(key, "")).replace("\r\n", "\n")
        for key in ("name", "description", "type", "scope", "body")
    }
    if given["scope"] not in {s.value for s in Scope}:
        raise Refused(f"no scope named {given['scope']!r}", hint="private or team")
    store = state.memdir.store(given["scope"])
    try:
        existing = store.find(given["name"], thorough=False) if given["name"].strip() else None
        if existing is not None:
            raise Conflict(
                f"a {given['scope']} memory named {existing.memory.name!r} exists "
                f"({existing.file})",
                hint="choose another name, or open that memory and edit it",
            )
        with provenance(route="ui"):
            result = state.memdir.write(
                name=given["name"],
                description=given["description"],
                type=given["type"],
                body=given["body"],
                scope=given["scope"],
            )
    except MemdirError as exc:  # the person's text stays in the form, with what to change
        status = 409 if isinstance(exc, Conflict) else 400
        return state.page(request, "new.html", status=status, problem=exc, **_new_values(**given))
    return state.redirect(memory_url(result.record.scope, result.record.file) + "?done=created")


ROUTES = [
    Route("/memories", view(memories)),
    Route("/memories/new", view(new_form)),
    Route("/memories/{scope}/{file:path}", view(memory)),
    Route("/memory/new", form_view(create), methods=["POST"]),
    Route("/memory/edit", form_view(edit), methods=["POST"]),
    Route("/memory/restore", form_view(restore), methods=["POST"]),
    Route("/memory/delete", view(delete_question), methods=["GET"]),
    Route("/memory/delete", form_view(delete), methods=["POST"]),
]
