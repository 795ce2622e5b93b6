"""The review inbox: agents' changes that wait for a person, with their diffs and provenance.

``GET /review`` lists every pending change (see :mod:`memdir.history.pending`)
with its diff against the file as it is now, where it came from (route,
client, session; a teammate for a pulled file) and why it is held (the review
mode, or what screening found: :mod:`memdir.history.review`). Forms: approve or
reject one (``/review/approve``, ``/review/reject`` with the version id) or all
(``all=1``; rejecting all asks first, ``GET /review/reject``, since the
proposals then never apply); edit one (``GET /review/edit?id=N``, then
``POST /review/edit``): the person's description, type and body are saved over
the proposal's memory, every other field of it kept (its ``enforce:`` rules
among them), as their own change (route ``ui``), and the agent's proposal is
marked rejected, so the history keeps both. The edit form carries the version
of the file it was shown with: a change made since (another tab, an agent) is
a conflict, never overwritten (:func:`~memdir.history.pending.edit_pending`).
"""

from __future__ import annotations

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from memdir.errors import Conflict, InvalidMemory, MemoryNotFound
from memdir.history.pending import edit_pending
from memdir.history.provenance import provenance
from memdir.history.undo import require_history
from memdir.history.versions import PENDING, Version
from memdir.model import Memory, MemoryType
from memdir.storage import sidecar
from memdir.ui.state import UiState, done_note, form_view, number, state_of, view

__all__ = ["ROUTES"]

_DONE = {"approved": "Approved.", "rejected": "Rejected.", "saved": "Saved."}


def review(request: Request) -> Response:
    state = state_of(request)
    pending = state.memdir.review() if state.memdir.history_db is not None else []
    done = done_note(request, _DONE)
    return state.page(request, "review.html", pending=pending, done=done)


def _pending(state: UiState, raw: object) -> Version:
    history = require_history(state.memdir)
    wanted = number(raw, low=1)
    found = history.version(wanted)
    if found is None or found.status != PENDING:
        raise MemoryNotFound(f"no pending change v{wanted}", hint="it may be decided already")
    return found


def approve(request: Request, form: FormData) -> Response:
    state = state_of(request)
    if form.get("all"):
        state.memdir.approve(None)
    else:
        state.memdir.approve(f"v{_pending(state, form.get('id')).id}")
    return state.redirect("/review?done=approved")


def reject_question(request: Request) -> Response:
    """Ask before every pending change is rejected (none of them would ever apply)."""
    state = state_of(request)
    return state.page(request, "reject_all.html", pending=state.memdir.review())


def reject(request: Request, form: FormData) -> Response:
    state = state_of(request)
    if form.get("all"):
        for item in state.memdir.review():
            state.memdir.reject(f"v{item.version.id}")
    else:
        state.memdir.reject(f"v{_pending(state, form.get('id')).id}")
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


def _edit_page(
    request: Request,
    state: UiState,
    v: Version,
    *,
    given: dict[str, str] | None = None,
    conflict: bool = False,
) -> Response:
    """The edit form of ``v``: the proposal's text, or the person's (``given``) after a
    conflict, with the file's version as it is now."""
    proposed = _proposed(state, v)
    if proposed is None:
        raise InvalidMemory(f"v{v.id} proposes a deletion: approve or reject it")
    now = state.memdir.store(v.scope).find(v.file, thorough=False)
    current = now.version if now is not None and now.file == v.file else ""
    shown = given or {
        "description": proposed.description,
        "type": proposed.type.value if proposed.type else "",
        "body": proposed.body,
    }
    return state.page(
        request,
        "review_edit.html",
        status=409 if conflict else 200,
        v=v,
        proposed=proposed,
        current=current,
        now=now,
        given=shown,
        conflict=conflict,
    )


def edit_form(request: Request) -> Response:
    state = state_of(request)
    return _edit_page(request, state, _pending(state, request.query_params.get("id")))


def edit(request: Request, form: FormData) -> Response:
    state = state_of(request)
    v = _pending(state, form.get("id"))
    given = {key: str(form.get(key, "")).replace("\r\n", "\n") for key in ("description", "body")}
    given["type"] = str(form.get("type", ""))
    if given["type"] not in {t.value for t in MemoryType}:
        raise InvalidMemory(f"unknown memory type {given['type']!r}")
    shown = form.get("current")  # the file's version when the form was shown
    try:
        with provenance(route="ui"):
            edit_pending(
                state.memdir,
                v.id,
                description=given["description"],
                type=given["type"],
                body=given["body"],
                expected_version=None if shown is None else str(shown),
            )
    except Conflict:
        return _edit_page(request, state, v, given=given, conflict=True)
    return state.redirect("/review?done=saved")


ROUTES = [
    Route("/review", view(review)),
    Route("/review/approve", form_view(approve), methods=["POST"]),
    Route("/review/reject", view(reject_question), methods=["GET"]),
    Route("/review/reject", form_view(reject), methods=["POST"]),
    Route("/review/edit", view(edit_form), methods=["GET"]),
    Route("/review/edit", form_view(edit), methods=["POST"]),
]
