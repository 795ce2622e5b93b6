"""The consolidation page: what a consolidation run proposes, and the way to apply it.

Consolidation proposals (a changeset to preview, apply whole or in part, and
roll back) are not part of this version of memdir yet: the page says so and
names the command that previews a run today.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from memdir.ui.state import UiState

__all__ = ["ROUTES"]


async def consolidation(request: Request) -> Response:
    state: UiState = request.app.state.ui
    return state.page(request, "consolidation.html", proposals=None)


ROUTES = [Route("/consolidation", consolidation)]
