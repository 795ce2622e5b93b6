"""The page of memory use: what each session was shown of memory and what it did with it.

``GET /used`` lists the sessions with a use log, the latest first, with how
many memories each was shown (index lines at its start), recalled, read and
wrote; ``GET /used?session=ID`` (the latest session without one) lists that
session's events, oldest first: its start, each recall with its query, each
read and write of a memory file found in its transcript (read now, as
``memdir used`` does), and the rules that fired within its span. A memory
named there links to its page when it still exists. The record is
:mod:`memdir.history.used`'s.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from memdir.errors import MemoryNotFound
from memdir.history.used import recent_sessions, session_use
from memdir.history.used_log import log_path
from memdir.kinds import memory_ref
from memdir.model import Scope
from memdir.ui.state import memory_url, state_of, view

__all__ = ["ROUTES"]

_SESSIONS = 50


def _ref_url(ref: str) -> str:
    """The page of the memory ``ref`` (``file.md`` or ``team/file.md``)."""
    if ref.startswith("team/"):
        return memory_url(Scope.TEAM, ref.removeprefix("team/"))
    return memory_url(Scope.PRIVATE, ref)


def used(request: Request) -> Response:
    state = state_of(request)
    mem = state.memdir
    sessions = recent_sessions(mem.layout, limit=_SESSIONS)
    wanted = request.query_params.get("session") or (sessions[0].session if sessions else "")
    chosen = None
    if wanted:
        # The id is confined to the sessions folder (UnsafePath otherwise: a 400).
        if not log_path(mem.layout, wanted).is_file():
            raise MemoryNotFound(
                f"no session {wanted!r} has a use log", hint="pick one of the sessions listed"
            )
        chosen = session_use(mem.layout, wanted, env=mem.env)
    existing = {memory_ref(r.scope, r.file) for r in mem.list()}
    return state.page(
        request,
        "used.html",
        sessions=sessions,
        chosen=chosen,
        existing=existing,
        ref_url=_ref_url,
    )


ROUTES = [Route("/used", view(used))]
