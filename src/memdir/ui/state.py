"""What every page of ``memdir ui`` shares: the project's memory, the templates, the checks.

One :class:`UiState` per app: the opened :class:`~memdir.api.Memdir`, the
search catalog the lists read (opened once, caught up at most every second),
the Jinja environment (autoescaping on: every value a template prints is
escaped unless this package marked it safe), the CSRF token, and the helpers
pages use to read a form (:meth:`UiState.form`, which refuses a missing or
wrong CSRF token), to name a memory from the browser (:meth:`UiState.locate`,
which confines the path to its scope's folder) and to answer with a page.
"""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import jinja2
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse

from memdir.api import Memdir
from memdir.errors import MemdirError, UnsafePath
from memdir.model import Scope
from memdir.recall.drift import DriftChecker
from memdir.search.catalog import Catalog
from memdir.storage.fs import confined, refuse_hidden
from memdir.ui.guard import csrf_matches, csrf_token
from memdir.ui.markdown import render_inline
from memdir.ui.overview import BackgroundRun, PromptCost

__all__ = ["Refused", "UiState", "memory_url"]

_DRIFT_SCAN_SECONDS = 60.0  # how long one scan of the project's files is reused


class Refused(MemdirError):
    """A request the page will not act on (a form without its CSRF token, a bad path)."""


def memory_url(scope: Scope | str, file: str) -> str:
    """The page of the memory ``file`` in ``scope``."""
    value = scope.value if isinstance(scope, Scope) else scope
    return f"/memories/{value}/{urllib.parse.quote(file)}"


@dataclass(kw_only=True)
class UiState:
    """The app's shared state (see the module docstring)."""

    memdir: Memdir
    token: str
    runs: Callable[[], Sequence[BackgroundRun]] | None = None
    templates: jinja2.Environment = field(init=False)
    cost: PromptCost = field(default_factory=PromptCost)
    _catalog: Catalog | None = None
    _checker: tuple[float, DriftChecker] | None = None

    def __post_init__(self) -> None:
        env = jinja2.Environment(
            loader=jinja2.PackageLoader("memdir.ui", "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.globals.update(csrf=csrf_token(self.token), memory_url=memory_url)
        env.filters["when"] = _when
        env.filters["inline"] = render_inline
        env.filters["number"] = lambda n: f"{n:,}"
        self.templates = env

    @property
    def catalog(self) -> Catalog:
        """The search catalog (opened on first use; a search catches up at most every second)."""
        if self._catalog is None:
            self._catalog = Catalog.open(self.memdir.layout, refresh_every=1.0)
        return self._catalog

    def checker(self) -> DriftChecker:
        """A drift checker whose scan of the project is at most a minute old."""
        now = time.monotonic()
        if self._checker is None or now - self._checker[0] > _DRIFT_SCAN_SECONDS:
            self._checker = (now, DriftChecker(self.memdir.layout.project_root))
        return self._checker[1]

    def close(self) -> None:
        if self._catalog is not None:
            self._catalog.close()
            self._catalog = None
        self.memdir.close()

    def page(
        self, request: Request, template: str, *, status: int = 200, **values: Any
    ) -> HTMLResponse:
        """The page ``template`` filled with ``values``."""
        values = {"done": None, "conflict": None, **values}
        html = self.templates.get_template(template).render(
            path=request.url.path, project=self.memdir.layout.project_root, **values
        )
        return HTMLResponse(html, status_code=status)

    async def form(self, request: Request) -> FormData:
        """The request's form, when it carries this page's CSRF token."""
        data = await request.form()
        if not csrf_matches(self.token, data.get("csrf")):
            raise Refused(
                "the form did not carry this page's token",
                hint="reload the page and try again",
            )
        return data

    def locate(self, scope: str, file: str) -> tuple[Scope, str]:
        """A memory named by the browser, as (scope, file) confined to the scope's folder."""
        try:
            chosen = Scope(scope)
        except ValueError:
            raise Refused(f"no scope named {scope!r}", hint="private or team") from None
        if not file.endswith(".md"):
            raise UnsafePath(f"{file!r} is not a memory file (*.md)")
        refuse_hidden(file)
        store = self.memdir.store(chosen)
        _, rel = confined(store.root, file)
        if rel.split("/", 1)[0] in store.excluded:  # team/ under the private folder
            raise UnsafePath(f"{file!r} is not in the {chosen.value} scope")
        return chosen, rel

    @staticmethod
    def redirect(url: str) -> RedirectResponse:
        """After a change: to ``url``, by GET (so a reload does not repeat the change)."""
        return RedirectResponse(url, status_code=303)


def _when(value: float | None) -> str:
    if value is None:
        return ""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(value))
