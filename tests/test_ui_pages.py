"""memdir ui, a page to live in: its new actions, its conflicts, its limits, over HTTP."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from typing import Any

import anyio
import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")

from memdir.api import Memdir
from memdir.history.provenance import provenance
from memdir.hooks.entry import pre_tool_use
from memdir.ui.guard import cookie_name, cookie_value
from uiutil import AUTH, CSRF, PORT, TOKEN, client, get, post

RULE = {"tool": "Bash", "match": r"\bnpm install\b", "action": "deny"}


def hidden(page: str, name: str) -> str:
    """The value of the first hidden input ``name`` on ``page``."""
    found = re.search(rf'name="{name}" value="([^"]*)"', page)
    assert found, name
    return found.group(1).replace("&amp;", "&").replace("&#39;", "'").replace("&#34;", '"')


def pnpm(mem: Memdir, **extra: Any) -> str:
    return mem.write(
        name="Prefer pnpm",
        description="the lockfile is pnpm's",
        type="feedback",
        body="Use pnpm.\n**Why:** npm rewrote the lockfile.\n",
        extra={"enforce": [RULE], **extra},
    ).record.file


def denied(mem: Memdir) -> bool:
    call = {"cwd": str(mem.layout.project_root), "tool_name": "Bash"}
    answer = pre_tool_use({**call, "tool_input": {"command": "npm install x"}}, os.environ)
    return '"deny"' in answer


# -- the cookie --------------------------------------------------------------------------


def test_the_cookie_is_bound_to_the_pages_port_and_is_not_the_token(mem: Memdir) -> None:
    first = get(mem, f"/?token={TOKEN}")
    cookie = first.headers["set-cookie"]
    name = cookie_name(PORT)
    assert name == f"memdir_ui_{PORT}" and cookie.startswith(f"{name}=")
    assert TOKEN not in cookie
    assert all(part in cookie for part in ("HttpOnly", "SameSite=Strict", "Path=/"))
    mine = f"{name}={cookie_value(TOKEN, PORT)}"
    assert get(mem, "/", Cookie=mine).status_code == 200
    # The page on another port sets another cookie; it opens nothing here.
    other = f"{cookie_name(PORT + 1)}={cookie_value(TOKEN, PORT + 1)}"
    assert get(mem, "/", Cookie=other).status_code == 401
    assert get(mem, "/", Cookie=f"{name}={cookie_value(TOKEN, PORT + 1)}").status_code == 401
    assert get(mem, "/", Cookie=f"{name}={TOKEN}").status_code == 401  # the raw token: no


# -- what the browser sends is checked before it reaches a database -------------------------

HUGE = "9" * 40


@pytest.mark.parametrize(
    "path",
    [
        f"/memories?page={HUGE}",
        "/memories?page=-3",
        "/memories?page=1e9",
        "/memories?page=%F0%9F%92%A5",
        f"/review/edit?id={HUGE}",
        "/review/edit?id=abc",
        "/review/edit?id=",
        f"/changes?before={HUGE}",
        "/changes?before=-1",
        "/memories?page=0",
        f"/consolidation/{HUGE}",
        f"/used?session={'x' * 5000}",
        f"/memories/private/{'a' * 5000}.md",
        f"/memory/delete?scope=private&file={'b' * 300}.md",
    ],
)
def test_huge_or_malformed_ids_and_pages_are_400_or_404_never_500(mem: Memdir, path: str) -> None:
    mem.write(name="One", description="d", type="project")
    response = get(mem, path, **AUTH)
    assert response.status_code in (400, 404), (path, response.status_code)
    assert "Traceback" not in response.text


@pytest.mark.parametrize(
    "path",
    [
        "/changes?since=0001-01-01",
        "/changes?since=9999-12-31",
        "/changes?since=not-a-date",
        "/memories?page=999999",
        "/memories?q=" + "x" * 5000,
    ],
)
def test_odd_but_valid_values_are_answered(mem: Memdir, path: str) -> None:
    mem.write(name="One", description="d", type="project")
    assert get(mem, path, **AUTH).status_code == 200, path


@pytest.mark.parametrize(
    ("path", "form"),
    [
        ("/memory/restore", {"scope": "private", "file": "one.md", "version": HUGE}),
        ("/memory/restore", {"scope": "private", "file": "one.md", "version": "v-1"}),
        ("/review/approve", {"id": HUGE}),
        ("/review/reject", {"id": "1; drop"}),
        ("/rules/enable", {"scope": "private", "file": "one.md", "version": "", "index": HUGE}),
    ],
)
def test_huge_or_malformed_ids_in_forms_are_400_or_404_never_500(
    mem: Memdir, path: str, form: dict[str, str]
) -> None:
    mem.write(name="One", description="d", type="project")
    response = post(mem, path, {"csrf": CSRF, **form}, **AUTH)
    assert response.status_code in (400, 404, 409), (path, response.status_code)
    assert "Traceback" not in response.text


# -- one slow page does not hold the others -----------------------------------------------


def test_a_slow_page_does_not_block_the_other_pages(mem: Memdir) -> None:
    """The overview waits inside its reader of background runs (what the command passes
    in); meanwhile another page must answer."""
    entered, release = threading.Event(), threading.Event()

    def slow_runs() -> Sequence[tuple[str, str]]:
        entered.set()
        release.wait(timeout=30)  # a guard: the test sets it as soon as it may
        return []

    async def go() -> list[tuple[str, int]]:
        order: list[tuple[str, int]] = []
        async with client(mem, AUTH, runs=slow_runs) as c:

            async def overview() -> None:
                order.append(("overview", (await c.get("/")).status_code))

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(overview)
                await anyio.to_thread.run_sync(entered.wait, 30)
                order.append(("memories", (await c.get("/memories")).status_code))
                order.append(("stylesheet", (await c.get("/static/ui.css")).status_code))
                release.set()
        return order

    assert anyio.run(go) == [("memories", 200), ("stylesheet", 200), ("overview", 200)]


# -- the memory page ----------------------------------------------------------------------


def test_an_enforce_rule_is_shown_as_yaml_to_copy_not_a_python_dict(mem: Memdir) -> None:
    file = pnpm(mem)
    page = get(mem, f"/memories/private/{file}", **AUTH).text
    block = re.search(r'<pre class="yaml"[^>]*>(.*?)</pre>', page, flags=re.S)
    assert block, page
    text = block.group(1).replace("&#39;", "'")
    assert text.splitlines() == [
        "enforce:",
        "- tool: Bash",
        "  match: \\bnpm install\\b",
        "  action: deny",
    ]
    assert "{&#39;tool&#39;" not in page and "\\\\b" not in page
    rules = get(mem, "/rules", **AUTH).text
    assert "  match: \\bnpm install\\b" in rules


def test_a_stale_form_save_keeps_the_other_writers_description(mem: Memdir) -> None:
    file = pnpm(mem)
    page = get(mem, f"/memories/private/{file}", **AUTH).text
    form = {
        key: hidden(page, key)
        for key in ("scope", "file", "version", "was_description", "was_type", "was_body")
    }
    mem.write(name="Prefer pnpm", description="written in another tab", type="feedback",
              body="Use pnpm.\n**Why:** npm rewrote the lockfile.\n",
              extra={"enforce": [RULE]})  # fmt: skip
    mine = {**form, "csrf": CSRF, "description": "the lockfile is pnpm's", "type": "feedback",
            "body": "Use pnpm, always.\n"}  # fmt: skip
    conflict = post(mem, "/memory/edit", mine, **AUTH)
    assert conflict.status_code == 409 and "Conflict" in conflict.text
    assert mem.get(file).memory.description == "written in another tab"  # not overwritten
    assert 'value="written in another tab"' in conflict.text  # theirs, in the form
    assert "Use pnpm, always." in conflict.text  # mine, in the form
    assert "your change to the body" in conflict.text
    again = {key: hidden(conflict.text, key) for key in form}
    again.update(csrf=CSRF, description="written in another tab", type="feedback",
                 body="Use pnpm, always.\n")  # fmt: skip
    assert post(mem, "/memory/edit", again, **AUTH).status_code == 303
    saved = mem.get(file).memory
    assert saved.description == "written in another tab" and saved.body == "Use pnpm, always.\n"
    assert saved.extra["enforce"] == [RULE]


def test_delete_asks_first_and_only_the_confirmation_deletes(mem: Memdir) -> None:
    file = pnpm(mem)
    page = get(mem, f"/memories/private/{file}", **AUTH).text
    assert 'action="/memory/delete"' in page and 'method="get" action="/memory/delete"' in page
    version = mem.get(file).version
    question = get(mem, f"/memory/delete?scope=private&file={file}&version={version}", **AUTH)
    assert question.status_code == 200 and "Delete “Prefer pnpm”?" in question.text
    assert "Yes, move it to the trash" in question.text
    assert mem.private.find(file) is not None  # asking deletes nothing
    form = {
        "csrf": CSRF,
        "scope": "private",
        "file": file,
        "version": hidden(question.text, "version"),
    }
    assert post(mem, "/memory/delete", form, **AUTH).status_code == 303
    assert mem.private.find(file) is None


def test_a_stale_tabs_restore_over_newer_text_is_a_conflict(mem: Memdir) -> None:
    file = mem.write(name="Plan", description="d", type="project", body="One.").record.file
    mem.write(name="Plan", description="d", type="project", body="Two.")
    page = get(mem, f"/memories/private/{file}", **AUTH).text  # the tab opens on "Two."
    oldest = mem.history("Plan")[-1].id
    mem.write(name="Plan", description="d", type="project", body="Three, from elsewhere.")
    form = {"csrf": CSRF, "scope": "private", "file": file, "version": str(oldest),
            "current": hidden(page, "current")}  # fmt: skip
    response = post(mem, "/memory/restore", form, **AUTH)
    assert response.status_code == 409 and "Nothing was restored" in response.text
    assert mem.get(file).memory.body == "Three, from elsewhere.\n"
    fresh = get(mem, f"/memories/private/{file}", **AUTH).text
    assert post(mem, "/memory/restore", {**form, "current": hidden(fresh, "current")},
                **AUTH).status_code == 303  # fmt: skip
    assert mem.get(file).memory.body == "One.\n"


def test_a_new_memory_is_written_from_its_form_and_a_taken_name_keeps_the_text(
    mem: Memdir,
) -> None:
    assert 'action="/memory/new"' in get(mem, "/memories/new", **AUTH).text
    form = {"csrf": CSRF, "name": "Deploy on Fridays", "description": "never on Fridays",
            "type": "feedback", "scope": "private", "body": "No deploys on Friday."}  # fmt: skip
    made = post(mem, "/memory/new", form, **AUTH)
    assert made.status_code == 303 and made.headers["location"].endswith("?done=created")
    assert mem.get("Deploy on Fridays").memory.body == "No deploys on Friday.\n"
    assert mem.history("Deploy on Fridays")[0].route == "ui"
    again = post(mem, "/memory/new", {**form, "body": "My other text."}, **AUTH)
    assert again.status_code == 409 and "exists" in again.text and "My other text." in again.text
    assert mem.get("Deploy on Fridays").memory.body == "No deploys on Friday.\n"


def test_every_page_has_a_search_box_that_searches_memories(mem: Memdir) -> None:
    for path in ("/", "/review", "/changes", "/rules", "/memories/new"):
        page = get(mem, path, **AUTH).text
        assert re.search(r'<form method="get" action="/memories" class="find" role="search">',
                         page), path  # fmt: skip
        assert 'name="q"' in page


# -- the overview ---------------------------------------------------------------------------


def test_the_overview_shows_doctors_findings_with_their_fixes_and_repairs_them(
    mem: Memdir,
) -> None:
    mem.write(name="Kept", description="d", type="project")
    root = mem.layout.memory_dir
    (root / "orphan.md").write_text("---\nname: Orphan\ndescription: d\ntype: project\n---\n")
    (root / "broken.md").write_text("---\nname: [x\n---\n")
    page = get(mem, "/", **AUTH).text
    assert "orphan" in page and "memdir doctor --fix adds its index line" in page
    assert "unparseable" in page and "memdir edit broken.md" in page
    assert "Repair 1 of them" in page
    assert post(mem, "/doctor/fix", {"csrf": CSRF}, **AUTH).status_code == 303
    assert "orphan.md" in mem.private.read_index() and "broken.md" not in mem.private.read_index()
    after = get(mem, "/?done=fixed", **AUTH).text
    assert "Repair 1 of them" not in after and "memdir edit broken.md" in after


# -- rules ----------------------------------------------------------------------------------


def test_a_rule_is_turned_off_and_on_again_from_the_rules_page(mem: Memdir) -> None:
    file = pnpm(mem)
    assert denied(mem)
    page = get(mem, "/rules", **AUTH).text
    form = {key: hidden(page, key) for key in ("scope", "file", "version", "rule")}
    assert post(mem, "/rules/disable", {"csrf": CSRF, **form}, **AUTH).status_code == 303
    extra = mem.get(file).memory.extra
    assert "enforce" not in extra and extra["enforce_disabled"] == [RULE]
    assert not denied(mem)
    assert mem.history(file)[0].route == "ui"
    page = get(mem, "/rules", **AUTH).text
    assert "Turned off" in page and "No memory carries an enforced rule." in page
    form = {key: hidden(page, key) for key in ("scope", "file", "version", "index")}
    assert post(mem, "/rules/enable", {"csrf": CSRF, **form}, **AUTH).status_code == 303
    assert mem.get(file).memory.extra["enforce"] == [RULE] and denied(mem)
    stale = post(mem, "/rules/enable", {"csrf": CSRF, **form}, **AUTH)  # the page is old now
    assert stale.status_code in (400, 409)


# -- review ---------------------------------------------------------------------------------


@pytest.fixture
def manual(mem: Memdir, monkeypatch: pytest.MonkeyPatch) -> Memdir:
    monkeypatch.setenv("MEMDIR_REVIEW", "manual")
    return Memdir.open(mem.layout.project_root)


def test_editing_a_pending_change_keeps_its_rules_and_every_other_field(manual: Memdir) -> None:
    with provenance(route="mcp", session="s-1"):
        manual.write(name="Prefer pnpm", description="agent's words", type="feedback",
                     body="Use pnpm.\n", anchors=("package.json",),
                     extra={"enforce": [RULE], "ticket": "OPS-7"})  # fmt: skip
    [item] = manual.review()
    page = get(manual, f"/review/edit?id={item.version.id}", **AUTH).text
    form = {"csrf": CSRF, "id": str(item.version.id), "current": hidden(page, "current"),
            "description": "my words", "type": "feedback",
            "body": "Use pnpm, always.\n"}  # fmt: skip
    assert post(manual, "/review/edit", form, **AUTH).status_code == 303
    saved = manual.get("Prefer pnpm").memory
    assert saved.description == "my words" and saved.body == "Use pnpm, always.\n"
    assert saved.extra == {"enforce": [RULE], "ticket": "OPS-7"}
    assert saved.anchors == ("package.json",)
    assert manual.review() == [] and denied(manual)


def test_a_stale_review_edit_over_newer_text_is_a_conflict(manual: Memdir) -> None:
    manual.write(name="Plan", description="mine", type="project", body="Mine.")  # by hand
    with provenance(route="mcp", session="s-2"):
        manual.write(name="Plan", description="agent", type="project", body="Agent's.")
    [item] = manual.review()
    page = get(manual, f"/review/edit?id={item.version.id}", **AUTH).text
    manual.write(name="Plan", description="newer", type="project", body="Newer, by hand.")
    form = {"csrf": CSRF, "id": str(item.version.id), "current": hidden(page, "current"),
            "description": "edited", "type": "project", "body": "Edited."}  # fmt: skip
    response = post(manual, "/review/edit", form, **AUTH)
    assert response.status_code == 409 and "Nothing was saved" in response.text
    assert "Edited." in response.text  # the person's text is kept in the form
    assert manual.get("Plan").memory.body == "Newer, by hand.\n"
    assert [p.version.id for p in manual.review()] == [item.version.id]  # still pending


def test_reject_all_asks_first(manual: Memdir) -> None:
    with provenance(route="mcp"):
        manual.write(name="A", description="a", type="project")
        manual.write(name="B", description="b", type="project")
    review = get(manual, "/review", **AUTH).text
    assert 'href="/review/reject"' in review
    question = get(manual, "/review/reject", **AUTH)
    assert question.status_code == 200 and "Yes, reject all 2" in question.text
    assert len(manual.review()) == 2
    assert post(manual, "/review/reject", {"csrf": CSRF, "all": "1"}, **AUTH).status_code == 303
    assert manual.review() == []
