"""The ``memdir ui`` app in process, for the HTTP tests of its pages (``from uiutil import ...``).

Requests go through httpx's ASGI transport to :func:`memdir.ui.app.create_app`: no socket,
no server. The app believes it serves on ``PORT`` with the token ``TOKEN``; ``AUTH`` is the
header that carries it and ``CSRF`` the form token the pages expect with it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import anyio
import httpx2

from memdir.api import Memdir
from memdir.ui.app import create_app
from memdir.ui.guard import csrf_token

__all__ = ["AUTH", "BASE", "CSRF", "PORT", "TOKEN", "Runs", "client", "get", "post"]

PORT = 8766
BASE = f"http://127.0.0.1:{PORT}"
TOKEN = "t0ken-for-tests"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
CSRF = csrf_token(TOKEN)

# What the page lists as running jobs: (kind, what) pairs.
Runs = Callable[[], Sequence[tuple[str, str]]]


def client(
    mem: Memdir, headers: Mapping[str, str] | None = None, runs: Runs | None = None
) -> httpx2.AsyncClient:
    """A client of ``mem``'s app that sends ``headers`` with every request."""
    app = create_app(mem, token=TOKEN, port=PORT, runs=runs)
    return httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url=BASE, headers=dict(headers or {})
    )


def get(mem: Memdir, path: str, **headers: str) -> httpx2.Response:
    """``GET path`` from a fresh client of ``mem``'s app."""

    async def go() -> httpx2.Response:
        async with client(mem, headers) as c:
            response: httpx2.Response = await c.get(path)
            return response

    return anyio.run(go)


def post(mem: Memdir, path: str, data: dict[str, str], **headers: str) -> httpx2.Response:
    """``POST path`` with the form ``data`` from a fresh client of ``mem``'s app."""

    async def go() -> httpx2.Response:
        async with client(mem, headers) as c:
            response: httpx2.Response = await c.post(path, data=data)
            return response

    return anyio.run(go)
