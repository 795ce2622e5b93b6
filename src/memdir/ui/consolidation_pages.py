"""The consolidation page: what a run proposes, applied whole or in part, and rolled back.

A consolidation run kept as a proposal (see
:mod:`memdir.agents.consolidate.proposal`) lists each memory it would create,
update or delete, with the model's reason, its sources and the diff.
``GET /consolidation`` lists the proposals; ``GET /consolidation/<id>``
previews one, with a checkbox per change. Forms: apply the chosen changes or
all of them (one undoable change in the history), roll back what was
applied (the folder back byte for byte), or reject what is not applied.
The proposal ids are checked by the proposal store itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from memdir.agents.consolidate.proposal import (
    apply_proposal,
    list_proposals,
    load_proposal,
    reject_proposal,
    rollback_proposal,
)
from memdir.errors import InvalidMemory
from memdir.history.project import ProjectMemory
from memdir.ui.state import done_note, form_view, state_of, view

__all__ = ["ROUTES"]

_DONE = {
    "applied": "Applied: one change in the history (Roll back takes it all back).",
    "rolled-back": "Rolled back: memory is as it was before the proposal applied.",
    "rejected": "Rejected: what was not applied never will be.",
}


def proposals(request: Request) -> Response:
    state = state_of(request)
    found = sorted(list_proposals(state.memdir), key=lambda p: p.created, reverse=True)
    return state.page(request, "consolidation.html", proposals=found)


def proposal(request: Request) -> Response:
    state = state_of(request)
    shown = load_proposal(state.memdir, request.path_params["id"])
    done = done_note(request, _DONE)
    return state.page(request, "proposal.html", p=shown, done=done)


def apply(request: Request, form: FormData) -> Response:
    state = state_of(request)
    proposal_id = str(form.get("id", ""))
    only: list[int] | None = None
    if not form.get("all"):
        picked = [str(v) for v in form.getlist("only")]
        if not picked or not all(v.isdigit() for v in picked):
            raise InvalidMemory(
                "choose the changes to apply", hint="tick one or more, or press Apply all"
            )
        only = sorted({int(v) for v in picked})
    apply_proposal(state.memdir, proposal_id, only=only)
    return state.redirect(f"/consolidation/{proposal_id}?done=applied")


def _settles(
    act: Callable[[ProjectMemory, str], object], done: str
) -> Callable[[Request], Awaitable[Response]]:
    """A page that settles the posted proposal with ``act`` and shows it ``done``."""

    def settle(request: Request, form: FormData) -> Response:
        state = state_of(request)
        proposal_id = str(form.get("id", ""))
        act(state.memdir, proposal_id)
        return state.redirect(f"/consolidation/{proposal_id}?done={done}")

    return form_view(settle)


rollback = _settles(rollback_proposal, "rolled-back")
reject = _settles(reject_proposal, "rejected")


ROUTES = [
    Route("/consolidation", view(proposals)),
    Route("/consolidation/apply", form_view(apply), methods=["POST"]),
    Route("/consolidation/rollback", rollback, methods=["POST"]),
    Route("/consolidation/reject", reject, methods=["POST"]),
    Route("/consolidation/{id}", view(proposal)),
]
