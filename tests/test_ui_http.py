"""memdir ui over HTTP: the guard (token, Host, cross-site), escaping, confinement, actions."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx2
import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")

from click.testing import CliRunner

from memdir.agents.consolidate.proposal import load_proposal, propose_consolidation
from memdir.api import Memdir
from memdir.cli import main
from memdir.enforcement.rule_firings import read_firings
from memdir.history.provenance import provenance
from memdir.hooks.entry import pre_tool_use
from memdir.recall.freshness import read_checks
from memdir.storage.local_server import bind, resolve_token
from memdir.ui.guard import cookie_name, cookie_value
from memutil import NPM_INSTALL, save_rule
from proposalutil import consolidation_run, write_ci_memories
from uiutil import AUTH, BASE, CSRF, PORT, TOKEN, client, get, post

COOKIE = cookie_name(PORT)


def note(mem: Memdir, name: str = "Tabs not spaces", body: str = "Indent with tabs.") -> str:
    return mem.write(
        name=name, description=f"{name} (desc)", type="feedback", body=body
    ).record.file


# -- the guard -------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/memories", "/review", "/changes", "/rules"])
def test_every_page_answers_401_without_the_token(mem: Memdir, path: str) -> None:
    assert get(mem, path).status_code == 401
    assert get(mem, path, Authorization="Bearer wrong").status_code == 401
    assert get(mem, path, Cookie=f"{COOKIE}=wrong").status_code == 401
    assert get(mem, path, **AUTH).status_code == 200


def test_the_token_in_the_address_sets_a_strict_cookie_and_leaves_the_address(mem: Memdir) -> None:
    async def go() -> None:
        async with client(mem) as c:
            first = await c.get(f"/memories?token={TOKEN}&type=feedback")
            assert first.status_code == 303
            assert first.headers["location"] == "/memories?type=feedback"
            cookie = first.headers["set-cookie"]
            assert cookie.startswith(f"{COOKIE}={cookie_value(TOKEN, PORT)};")
            assert TOKEN not in cookie  # the cookie is bound to the port, and is no token
            assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
            again = await c.get("/memories?type=feedback")  # the client keeps the cookie
            assert again.status_code == 200 and "Memories" in again.text

    anyio.run(go)
    assert get(mem, "/?token=wrong").status_code == 401


@pytest.mark.parametrize("host", ["evil.example", f"evil.example:{PORT}", "127.0.0.1:9999"])
def test_a_request_for_another_host_is_refused(mem: Memdir, host: str) -> None:
    response = get(mem, "/", Host=host, **AUTH)
    assert response.status_code == 403
    assert "127.0.0.1" in response.text


def test_a_cross_site_post_is_refused_and_changes_nothing(mem: Memdir) -> None:
    file = note(mem)
    version = mem.get(file).version
    form = {"csrf": CSRF, "scope": "private", "file": file, "version": version}
    for headers in (
        {"Origin": "http://evil.example"},
        {"Origin": f"http://localhost:{PORT + 1}"},
        {"Sec-Fetch-Site": "cross-site"},
    ):
        response = post(mem, "/memory/delete", form, **headers, **AUTH)
        assert response.status_code == 403, headers
    without_csrf = post(mem, "/memory/delete", {**form, "csrf": "nope"}, **AUTH)
    assert without_csrf.status_code == 403
    assert "token" in without_csrf.text
    assert mem.get(file).version == version  # still there, unchanged
    same_site = post(mem, "/memory/delete", form, Origin=BASE, **AUTH)
    assert same_site.status_code == 303
    assert mem.private.find(file) is None


def test_every_answer_forbids_scripts_and_other_hosts(mem: Memdir) -> None:
    policy = get(mem, "/", **AUTH).headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src" not in policy
    assert "frame-ancestors 'none'" in policy
    page = get(mem, "/", **AUTH).text
    assert "<script" not in page and "http://" not in page.split("</head>")[0]


def test_the_stored_token_is_kept_0600_and_reused(memdir_home: Path) -> None:
    first = resolve_token(memdir_home, file="ui-token")
    mode = os.stat(memdir_home / "ui-token").st_mode & 0o777
    assert mode == 0o600
    assert resolve_token(memdir_home, file="ui-token") == first
    assert resolve_token(memdir_home, "given", file="ui-token") == "given"
    assert resolve_token(memdir_home) != first  # the MCP server's token is another file


def test_a_busy_port_is_one_clear_line(mem: Memdir, project: Path) -> None:
    with bind("127.0.0.1", 0) as taken:
        port = taken.getsockname()[1]
        result = CliRunner().invoke(
            main, ["ui", "--port", str(port), "--no-browser", "--project", str(project)]
        )
    assert result.exit_code != 0
    assert f"127.0.0.1:{port}" in result.output and "in use" in result.output
    assert "Traceback" not in result.output


# -- what the pages show --------------------------------------------------------------


def test_a_memory_holding_html_or_script_is_shown_as_text(mem: Memdir) -> None:
    file = note(
        mem,
        name="Use <script>alert(1)</script> tabs",
        body="<script>alert(2)</script>\n<img src=x onerror=alert(3)>\n**bold** and `<b>code</b>`",
    )
    listing = get(mem, "/memories", **AUTH).text
    assert "<script>alert(1)" not in listing and "&lt;script&gt;alert(1)" in listing
    page = get(mem, f"/memories/private/{file}", **AUTH).text
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(3)&gt;" in page
    assert "<strong>bold</strong>" in page and "<code>&lt;b&gt;code&lt;/b&gt;</code>" in page


@pytest.mark.parametrize(
    "path",
    [
        "/memories/private/..%2F..%2Fetc%2Fpasswd.md",
        "/memories/private/../../x.md",
        "/memories/private/.hidden.md",
        "/memories/private/team/x.md",
        "/memories/elsewhere/x.md",
        "/memories/private/notes.txt",
    ],
)
def test_paths_from_the_browser_are_confined(mem: Memdir, path: str) -> None:
    response = get(mem, path, **AUTH)
    assert response.status_code in (400, 403, 404), response.status_code
    assert "passwd" not in response.text or "root:" not in response.text


def test_a_dotdot_file_in_a_form_is_refused(mem: Memdir, tmp_path: Path) -> None:
    outside = mem.layout.memory_dir.parent / "outside.md"
    outside.write_text("---\nname: x\ndescription: y\ntype: user\n---\nkeep me\n")
    form = {"csrf": CSRF, "scope": "private", "file": "../outside.md", "version": ""}
    response = post(mem, "/memory/delete", form, **AUTH)
    assert response.status_code == 400
    assert outside.read_text().endswith("keep me\n")


def test_the_overview_counts_and_the_costs(mem: Memdir) -> None:
    note(mem, "First rule")
    note(mem, "Second rule")
    mem.write(name="Deploy", description="How we deploy", type="project", body="make ship")
    page = get(mem, "/", **AUTH).text
    assert re.search(r'class="big">3<', page)
    assert "of the hook's 10,000 characters" in page
    assert "of 200 lines" in page and "of 25,000 characters" in page
    assert "tokens" in page


def test_the_list_pages_filters_and_searches(mem: Memdir) -> None:
    for i in range(60):
        mem.write(name=f"Fact {i:02d}", description=f"fact number {i}", type="project")
    mem.write(name="Kubernetes ingress", description="how ingress is set up", type="reference")
    first = get(mem, "/memories", **AUTH).text
    assert "61 memories" in first and "page 1 of 2" in first
    assert first.count('<tr>\n      <td><a href="/memories/private/') == 50
    second = get(mem, "/memories?page=2", **AUTH).text
    assert second.count('<td><a href="/memories/private/') == 11
    only = get(mem, "/memories?type=reference", **AUTH).text
    assert "1 memory" in only and "Kubernetes ingress" in only
    found = get(mem, "/memories?q=ingress", **AUTH).text
    assert "Kubernetes ingress" in found and "best match first" in found
    assert "Fact 01" not in found
    by_route = get(mem, "/memories?route=mcp", **AUTH).text
    assert "0 memories" in by_route


def test_editing_with_a_stale_version_is_a_conflict_not_an_overwrite(mem: Memdir) -> None:
    file = note(mem, body="Version one.")
    read = mem.get(file).version
    mem.write(name="Tabs not spaces", description="changed meanwhile", type="feedback", body="Two.")
    form = {
        "csrf": CSRF,
        "scope": "private",
        "file": file,
        "version": read,
        "description": "mine",
        "type": "feedback",
        "body": "My text.",
    }
    response = post(mem, "/memory/edit", form, **AUTH)
    assert response.status_code == 409
    assert "Conflict" in response.text and "My text." in response.text
    assert mem.get(file).memory.body == "Two.\n"
    fresh = {**form, "version": mem.get(file).version}
    assert post(mem, "/memory/edit", fresh, **AUTH).status_code == 303
    assert mem.get(file).memory.body == "My text.\n"
    assert mem.history(file)[0].route == "ui"


def test_restore_brings_back_an_old_version(mem: Memdir) -> None:
    file = note(mem, body="Version one.")
    note(mem, body="Version two.")
    first = mem.history(file)[-1]
    form = {"csrf": CSRF, "scope": "private", "file": file, "version": str(first.id)}
    response = post(mem, "/memory/restore", form, **AUTH)
    assert response.status_code == 303
    assert mem.get(file).memory.body == "Version one.\n"
    page = get(mem, f"/memories/private/{file}", **AUTH).text
    assert "restore" in page and "Version one." in page


def test_review_approve_reject_and_edit(mem: Memdir, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMDIR_REVIEW", "manual")
    manual = Memdir.open(mem.layout.project_root)
    with provenance(route="mcp", client="test-agent", session="s-42"):
        manual.write(name="Keep", description="approve me", type="project", body="Kept.")
        manual.write(name="Drop", description="reject me", type="project", body="Dropped.")
        manual.write(name="Fix", description="edit me", type="project", body="Wrong.")
    page = get(manual, "/review", **AUTH).text
    assert "3 changes" in page and "s-42" in page and "+Kept." in page
    ids = {v.version.name: v.version.id for v in manual.review()}
    assert (
        post(manual, "/review/approve", {"csrf": CSRF, "id": str(ids["Keep"])}, **AUTH).status_code
        == 303
    )
    assert (
        post(manual, "/review/reject", {"csrf": CSRF, "id": str(ids["Drop"])}, **AUTH).status_code
        == 303
    )
    edit = get(manual, f"/review/edit?id={ids['Fix']}", **AUTH).text
    assert "Wrong." in edit
    form = {
        "csrf": CSRF,
        "id": str(ids["Fix"]),
        "description": "edited",
        "type": "project",
        "body": "Right.",
    }
    assert post(manual, "/review/edit", form, **AUTH).status_code == 303
    assert manual.get("Keep").memory.body == "Kept.\n"
    assert manual.private.find("Drop") is None
    assert manual.get("Fix").memory.body == "Right.\n"
    assert manual.review() == []
    assert post(manual, "/review/approve", {"csrf": CSRF, "id": "99999"}, **AUTH).status_code == 404


def test_changes_since_a_date_by_route_and_session(mem: Memdir) -> None:
    note(mem, "By hand")
    with provenance(route="mcp", session="sess-7"):
        note(mem, "By agent")
    page = get(mem, "/changes", **AUTH).text
    assert "By hand" in page and "By agent" in page and "<svg" in page
    assert "Index lines per day" in page and "private index lines 2." in page
    only = get(mem, "/changes?session=sess-7", **AUTH).text
    assert "by_agent.md" in only and "by_hand.md" not in only
    later = get(mem, "/changes?since=2999-01-01", **AUTH).text
    assert "No change since 2999-01-01" in later


def test_rules_show_where_they_come_from_and_how_often_they_fired(mem: Memdir) -> None:
    body = "Use pnpm.\n**Why:** npm rewrote the lockfile.\n"
    save_rule(mem, "No npm", NPM_INSTALL, description="use pnpm", body=body)
    call = {"cwd": str(mem.layout.project_root), "tool_name": "Bash"}
    quiet = pre_tool_use({**call, "tool_input": {"command": "ls"}}, os.environ)
    assert quiet == "" and read_firings(str(mem.layout.state_dir)) == []
    for _ in range(2):
        pre_tool_use({**call, "tool_input": {"command": "npm install left-pad"}}, os.environ)
    assert len(read_firings(str(mem.layout.state_dir))) == 2
    page = get(mem, "/rules", **AUTH).text
    assert "No npm" in page and "npm rewrote the lockfile" in page
    assert re.search(r'class="num">2<', page) and "<svg" in page


def test_a_proposal_is_previewed_applied_in_part_and_rolled_back(mem: Memdir) -> None:
    write_ci_memories(mem)
    before = mem.private.index_path.read_bytes()
    proposal = propose_consolidation(mem, consolidation_run())
    listing = get(mem, "/consolidation", **AUTH).text
    assert proposal.id in listing and "Merged the CI memories." in listing
    page = get(mem, f"/consolidation/{proposal.id}", **AUTH).text
    assert "the log says CI moved" in page and "+CI moved to Buildkite." in page
    assert (mem.layout.memory_dir / "ci_host.md").exists()  # a preview changes nothing

    form = {"csrf": CSRF, "id": proposal.id, "only": "2"}
    assert post(mem, "/consolidation/apply", form, **AUTH).status_code == 303
    assert not (mem.layout.memory_dir / "ci_host.md").exists()
    assert mem.get("CI runs on GitHub").memory.body == "GHA\n"  # change 1 not applied
    assert load_proposal(mem, proposal.id).status == "partial"

    rollback = {"csrf": CSRF, "id": proposal.id}
    assert post(mem, "/consolidation/rollback", rollback, **AUTH).status_code == 303
    assert (mem.layout.memory_dir / "ci_host.md").exists()
    assert mem.private.index_path.read_bytes() == before
    bad = get(mem, "/consolidation/..%2F..%2Fetc", **AUTH)
    assert bad.status_code in (400, 404)


def test_drift_found_by_the_page_is_recorded_and_listed_on_the_overview(mem: Memdir) -> None:
    (mem.layout.project_root / "src").mkdir()
    (mem.layout.project_root / "src" / "billing.py").write_text("def total(): ...\n")
    mem.write(
        name="Billing lives in billing.py",
        description="where invoices are totalled",
        type="project",
        body="Totals are computed in `src/billing.py` and `src/invoices.py`.",
    )
    assert "drifted</span>" not in get(mem, "/", **AUTH).text
    assert post(mem, "/drift", {"csrf": CSRF}, **AUTH).status_code == 303
    page = get(mem, "/", **AUTH).text
    assert "Billing lives in billing.py" in page and "src/invoices.py" in page
    assert "drifted</span>" in page
    checks = read_checks(mem.layout.state_dir)
    assert checks["private:billing_lives_in_billing_py.md"].failed


def test_the_command_serves_the_page_at_the_address_it_prints(mem: Memdir, project: Path) -> None:
    with bind("127.0.0.1", 0) as probe:
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "memdir", "ui", "--port", str(port), "--no-browser"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [*command, "--project", str(project)],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert child.stderr is not None
        line = child.stderr.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", line)
        assert url, line
        token = resolve_token(mem.settings.home, file="ui-token")
        assert url.group(0) == f"http://127.0.0.1:{port}/?token={token}"
        with httpx2.Client(follow_redirects=True, timeout=30) as http:
            for _ in range(100):  # the socket is bound before the line; uvicorn starts after
                try:
                    page = http.get(url.group(0))
                    break
                except httpx2.ConnectError:
                    time.sleep(0.1)
            assert page.status_code == 200 and "What your agents learned" in page.text
            assert "token=" not in str(page.url)
            assert http.get(f"http://127.0.0.1:{port}/memories").status_code == 200  # cookie
        with httpx2.Client(timeout=30) as stranger:
            assert stranger.get(f"http://127.0.0.1:{port}/").status_code == 401
    finally:
        child.terminate()
        child.wait(timeout=30)
        if child.stderr is not None:
            child.stderr.close()
