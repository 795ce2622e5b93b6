"""What every page of ``memdir ui`` shares: the project's memory, the templates, the checks.

One :class:`UiState` per app: the opened :class:`~memdir.api.Memdir`, the
search catalog the lists read (one per worker thread, caught up at most every
second), the Jinja environment (autoescaping on: every value a template prints
is escaped unless this package marked it safe), the CSRF token, and the helpers
pages use to read a form (:meth:`UiState.form`, which refuses a missing or
wrong CSRF token), to name a memory from the browser (:meth:`UiState.locate`,
which confines the path to its scope's folder), to read a number from the
browser (:func:`number`: a huge or malformed one is a 400, never a crash) and
to answer with a page; :func:`state_of` finds it from a request, and
:func:`done_note` the note a page shows after an action redirected to it.

Pages do file and database work, so none runs on the event loop: :func:`view`
and :func:`form_view` make a page's function an endpoint that runs it in a
worker thread (at most :data:`WORKERS` at once), the form read first on the
loop. A slow page (a memory with 200,000 versions) then holds one worker, and
every other page, the stylesheet and the guard's answers go on. SQLite
connections stay in the thread that opened them: the history and the stores
keep one per thread, and so does the catalog here.
"""

from __future__ import annotations

import threading
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import jinja2
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from memdir.api import Memdir
from memdir.errors import MemdirError, UnsafePath
from memdir.model import MemoryType, Scope
from memdir.recall.drift import DriftChecker
from memdir.search.catalog import Catalog
from memdir.storage.fs import confined, refuse_hidden
from memdir.ui.guard import csrf_matches, csrf_token
from memdir.ui.markdown import render_inline
from memdir.ui.overview import BackgroundRun, DoctorCheck, PromptCost

__all__ = [
    "MAX_ID",
    "WORKERS",
    "Malformed",
    "Refused",
    "UiState",
    "done_note",
    "form_view",
    "memory_url",
    "number",
    "state_of",
    "view",
]

_DRIFT_SCAN_SECONDS = 60.0  # how long one scan of the project's files is reused
WORKERS = 8  # pages served at once (each in a worker thread)
MAX_ID = 2**63 - 1  # SQLite's largest integer: no id or page number is larger


class Refused(MemdirError):
    """A request the page will not act on (a form without its CSRF token, a bad path)."""


class Malformed(MemdirError):
    """A value from the browser that is no value this page takes (a huge or negative id)."""


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
    doctor: DoctorCheck = field(default_factory=DoctorCheck)
    last_sync: list[str] | None = None  # what the last sync the page ran did
    limiter: anyio.CapacityLimiter = field(init=False)
    _local: threading.local = field(default_factory=threading.local)
    _checker: tuple[float, DriftChecker] | None = None

    def __post_init__(self) -> None:
        env = jinja2.Environment(
            loader=jinja2.PackageLoader("memdir.ui", "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        # ``types``: the kinds a form or filter offers, for every page alike.
        types = [t.value for t in MemoryType]
        env.globals.update(csrf=csrf_token(self.token), memory_url=memory_url, types=types)
        env.filters["when"] = _when
        env.filters["inline"] = render_inline
        env.filters["number"] = lambda n: f"{n:,}"
        env.filters["yaml"] = _yaml_text
        self.templates = env
        self.limiter = anyio.CapacityLimiter(WORKERS)

    @property
    def catalog(self) -> Catalog:
        """This thread's search catalog (opened on first use; a search catches up at most
        every second). A worker thread that ends takes its connection with it."""
        catalog: Catalog | None = getattr(self._local, "catalog", None)
        if catalog is None:
            catalog = Catalog.open(self.memdir.layout, refresh_every=1.0)
            self._local.catalog = catalog
        return catalog

    def checker(self) -> DriftChecker:
        """A drift checker whose scan of the project is at most a minute old."""
        now = time.monotonic()
        if self._checker is None or now - self._checker[0] > _DRIFT_SCAN_SECONDS:
            self._checker = (now, DriftChecker(self.memdir.layout.project_root))
        return self._checker[1]

    def close(self) -> None:
        catalog: Catalog | None = getattr(self._local, "catalog", None)
        if catalog is not None:
            catalog.close()
            self._local.catalog = None
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


def number(raw: object, *, default: int | None = None, low: int = 0, high: int = MAX_ID) -> int:
    """A whole number the browser sent (a version id, a page), ``v12`` as ``12``.

    Missing: ``default`` (none: refused). Malformed or outside ``low..high``: a
    :class:`Malformed` (400), never an overflow deep in SQLite.
    """
    text = str(raw if raw is not None else "").strip().removeprefix("v")
    if not text and default is not None:
        return default
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(high)):
        raise Malformed(f"{str(raw)[:40]!r} is not a number this page takes", hint="go back")
    value = int(text)
    if not low <= value <= high:
        raise Malformed(f"{value} is out of range ({low} to {high})", hint="go back")
    return value


def state_of(request: Request) -> UiState:
    """The app's :class:`UiState`, which every page of it shares."""
    state: UiState = request.app.state.ui
    return state


def done_note(request: Request, notes: Mapping[str, str]) -> str | None:
    """What the page says of the action that redirected to it (``?done=KEY``, one of
    ``notes``), or None."""
    return notes.get(request.query_params.get("done") or "")


def view(page: Callable[[Request], Response]) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint that runs ``page`` in a worker thread (see the module docstring)."""

    async def endpoint(request: Request) -> Response:
        state = state_of(request)
        return await anyio.to_thread.run_sync(page, request, limiter=state.limiter)

    return endpoint


def form_view(
    act: Callable[[Request, FormData], Response],
) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint that reads the form (CSRF checked) on the loop, then runs ``act`` with
    it in a worker thread."""

    async def endpoint(request: Request) -> Response:
        state = state_of(request)
        form = await state.form(request)
        return await anyio.to_thread.run_sync(act, request, form, limiter=state.limiter)

    return endpoint


def _yaml_text(value: Any) -> str:
    """A frontmatter value as the YAML a person would write in the file (copyable)."""
    import yaml

    text: str = yaml.safe_dump(
        value, allow_unicode=True, default_flow_style=False, sort_keys=False, width=100
    )
    return text.removesuffix("...\n").rstrip("\n")


def _when(value: float | None) -> str:
    if value is None:
        return ""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(value))
