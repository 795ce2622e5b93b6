"""memdir ui and team memory: "Sync now", and what the sync did, with its conflicts."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx2
import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")

from memdir.api import Memdir
from memdir.team.sync import sync_team
from memdir.ui.app import create_app
from memdir.ui.guard import csrf_token
from teamutil import Clone, remember, remote_files, shared_memory

# Git under a throwaway HOME for every test here (teamutil's fixtures, via conftest.py).
pytestmark = pytest.mark.usefixtures("git_home")

PORT = 8766
TOKEN = "t0ken-for-tests"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
CSRF = csrf_token(TOKEN)


def browse(mem: Memdir, *steps: tuple[str, str]) -> list[httpx2.Response]:
    """GET or POST each (method, path) in turn against one app (its state lasts)."""

    async def go() -> list[httpx2.Response]:
        app = create_app(mem, token=TOKEN, port=PORT)
        transport = httpx2.ASGITransport(app=app)
        out = []
        async with httpx2.AsyncClient(
            transport=transport, base_url=f"http://127.0.0.1:{PORT}", headers=AUTH
        ) as c:
            for method, path in steps:
                if method == "POST":
                    out.append(await c.post(path, data={"csrf": CSRF}))
                else:
                    out.append(await c.get(path))
        return out

    return anyio.run(go)


def test_sync_now_shares_the_team_memory_and_says_what_it_did(clone: Clone, remote: Path) -> None:
    alice = clone("alice")
    file = remember(alice, "Build tool", "We build with make.\n")
    steps = ("GET", "/"), ("POST", "/team/sync"), ("GET", "/?done=synced")
    before, synced, after = browse(alice, *steps)
    assert 'action="/team/sync"' in before.text and "Sync now" in before.text
    assert synced.status_code == 303
    assert file in remote_files(remote)
    assert "Team memory synced" in after.text and "2 committed" in after.text  # and its index
    assert "pushed to" in after.text


def test_sync_now_names_a_conflict_and_how_to_settle_it(clone: Clone) -> None:
    alice, bob = shared_memory(clone, "Build tool", "We build with make.\n")
    file = remember(alice, "Build tool", "We build with bazel.\n")
    remember(bob, "Build tool", "We build with just.\n")
    sync_team(alice)
    _, after = browse(bob, ("POST", "/team/sync"), ("GET", "/"))
    assert f"conflict: team/{file}" in after.text
    assert f"memdir team conflicts {file}" in after.text
