"""The review inbox: agents' changes that wait for a person, with their diffs and provenance.

``GET /review`` lists every pending change (see :mod:`memdir.history.pending`)
with its diff against the file as it is now and where it came from (route,
client, session). Forms: approve or reject one (``/review/approve``,
``/review/reject`` with the version id) or all (``all=1``); edit one
(``GET /review/edit?id=N``, then ``POST /review/edit``): the person's text is
saved as their own change (route ``ui``) and the agent's proposal is marked
rejected, so the history keeps both.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from memdir.errors import InvalidMemory, MemoryNotFound
from memdir.history.provenance import provenance
from memdir.history.undo import require_history
from memdir.history.versions import PENDING, Version
from memdir.model import Memory, MemoryType
from memdir.storage import sidecar
from memdir.ui.state import UiState

__all__ = ["ROUTES"]


def _state(request: Request) -> UiState:
    state: UiState = request.app.state.ui
    return state


async def review(request: Request) -> Response:
    state = _state(request)
    pending = state.memdir.review() if state.memdir.history_db is not None else []
    done = {"approved": "Approved.", "rejected": "Rejected.", "saved": "Saved."}.get(
        request.query_params.get("done") or ""
    )
    return state.page(request, "review.html", pending=pending, done=done)


def _pending(state: UiState, raw: str) -> Version:
    history = require_history(state.memdir)
    found = history.version(int(raw)) if raw.isdigit() else None
    if found is None or found.status != PENDING:
        raise MemoryNotFound(f"no pending change v{raw}", hint="it may be decided already")
    return found


async def approve(request: Request) -> Response:
    state = _state(request)
    form = await state.form(request)
    if form.get("all"):
        state.memdir.approve(None)
    else:
        state.memdir.approve(f"v{_pending(state, str(form.get('id', ''))).id}")
    return state.redirect("/review?done=approved")


async def reject(request: Request) -> Response:
    state = _state(request)
    form = await state.form(request)
    if form.get("all"):
        for item in state.memdir.review():
            state.memdir.reject(f"v{item.version.id}")
    else:
        state.memdir.reject(f"v{_pending(state, str(form.get('id', ''))).id}")
    return state.redirect("/review?done=rejected")


def _proposed(state: UiState, v: Version) -> Memory | None:
    """The memory the pending version ``v`` proposes (None: a deletion)."""
    history = require_history(state.memdir)
    if v.after is None:
        return None
    text = history.blob(v.after)
    if text is None:
        raise InvalidMemory(f"the text of pending version {v.id} was redacted")
    path = state.memdir.store(v.scope).root / v.file
    return sidecar.load_memory(text.decode("utf-8", "replace"), path=path)


async def edit_form(request: Request) -> Response:
    state = _state(request)
    v = _pending(state, request.query_params.get("id") or "")
    proposed = _proposed(state, v)
    if proposed is None:
        raise InvalidMemory(f"v{v.id} proposes a deletion: approve or reject it")
    return state.page(
        request,
        "review_edit.html",
        v=v,
        proposed=proposed,
        types=[t.value for t in MemoryType],
    )


async def edit(request: Request) -> Response:
    state = _state(request)
    form = await state.form(request)
    v = _pending(state, str(form.get("id", "")))
    proposed = _proposed(state, v)
    if proposed is None:
        raise InvalidMemory(f"v{v.id} proposes a deletion: approve or reject it")
    kind = str(form.get("type", ""))
    try:
        memory_type = MemoryType(kind)
    except ValueError:
        raise InvalidMemory(f"unknown memory type {kind!r}") from None
    store = state.memdir.store(v.scope)
    current = store.find(v.file, thorough=False)
    with provenance(route="ui"):
        store.write(
            Memory(
                name=proposed.name,
                description=str(form.get("description", "")),
                type=memory_type,
                body=str(form.get("body", "")).replace("\r\n", "\n"),
                source=proposed.source,
                anchors=proposed.anchors,
            ),
            file=v.file,
            expected_version=current.version if current is not None else "",
        )
    state.memdir.reject(f"v{v.id}")  # the person's text replaced the proposal
    return state.redirect("/review?done=saved")


ROUTES = [
    Route("/review", review),
    Route("/review/approve", approve, methods=["POST"]),
    Route("/review/reject", reject, methods=["POST"]),
    Route("/review/edit", edit_form, methods=["GET"]),
    Route("/review/edit", edit, methods=["POST"]),
]
