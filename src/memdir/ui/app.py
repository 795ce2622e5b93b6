"""The ``memdir ui`` web app: its routes, its errors, its stylesheet, behind the guard.

:func:`create_app` composes the pages (:mod:`memdir.ui.report_pages`,
:mod:`memdir.ui.rule_pages`, :mod:`memdir.ui.memory_pages`,
:mod:`memdir.ui.review_pages`, :mod:`memdir.ui.consolidation_pages`,
:mod:`memdir.ui.used_pages`) into one Starlette app wrapped in
:class:`~memdir.ui.guard.Guard`; each page runs off the event loop
(:func:`memdir.ui.state.view`). A memdir error a page raises (a memory not
found, a path refused, a conflict, a malformed id) is answered as a page that
says what happened and what to do, with the status it deserves (400, 403,
404, 409): a value the browser sends is checked before it reaches a database,
so none of them is a 500. The stylesheet ships in the package and is served
from here: the page loads nothing from anywhere else.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from importlib import resources

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp

from memdir.api import Memdir
from memdir.errors import (
    Conflict,
    InvalidMemory,
    LimitExceeded,
    MemdirError,
    MemoryExists,
    MemoryNotFound,
    SecretDetected,
    UnsafePath,
)
from memdir.ui import (
    consolidation_pages,
    memory_pages,
    report_pages,
    review_pages,
    rule_pages,
    used_pages,
)
from memdir.ui.guard import Guard
from memdir.ui.overview import BackgroundRun
from memdir.ui.state import Malformed, Refused, UiState

__all__ = ["create_app"]

_STATUS: tuple[tuple[type[MemdirError], int], ...] = (
    (MemoryNotFound, 404),
    (Conflict, 409),
    (MemoryExists, 409),
    (UnsafePath, 400),
    (InvalidMemory, 400),
    (SecretDetected, 400),
    (LimitExceeded, 400),
    (Refused, 403),
    (Malformed, 400),
)


def _stylesheet() -> bytes:
    return resources.files("memdir.ui").joinpath("static/ui.css").read_bytes()


def create_app(
    memdir: Memdir,
    *,
    token: str,
    port: int,
    runs: Callable[[], Sequence[BackgroundRun]] | None = None,
) -> ASGIApp:
    """The page for ``memdir``'s project on ``127.0.0.1:port``, open to ``token``'s holder.

    ``runs`` lists the last background runs (the command passes the hooks' reader).
    """
    state = UiState(memdir=memdir, token=token, runs=runs)
    css = _stylesheet()

    async def stylesheet(request: Request) -> Response:
        return Response(css, media_type="text/css")

    async def failed(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, MemdirError)
        status = next((code for kind, code in _STATUS if isinstance(exc, kind)), 500)
        return state.page(request, "error.html", status=status, error=exc)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        state.close()

    routes: list[BaseRoute] = [
        *report_pages.ROUTES,
        *rule_pages.ROUTES,
        *memory_pages.ROUTES,
        *review_pages.ROUTES,
        *consolidation_pages.ROUTES,
        *used_pages.ROUTES,
        Route("/static/ui.css", stylesheet),
    ]
    app = Starlette(routes=routes, exception_handlers={MemdirError: failed}, lifespan=lifespan)
    app.state.ui = state
    return Guard(app, token=token, port=port)
