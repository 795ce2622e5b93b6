"""memdir ui in a real browser: Debian's Chromium, driven by Selenium, against the real server.

The app runs under uvicorn on a free 127.0.0.1 port in a thread; Selenium drives
the system Chromium through the system chromedriver (``SE_OFFLINE=true``: its
driver manager looks nothing up). The test clicks what a person clicks and
checks each result on disk and in ``memdir prompt``. Every page is saved as a
screenshot under ``test-artifacts/ui/`` (``MEMDIR_TEST_ARTIFACTS`` moves it).
Without Chromium the test is skipped, unless ``CI=true``: then it fails.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
pytest.importorskip("uvicorn")
pytest.importorskip("selenium")

import uvicorn
from click.testing import CliRunner
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from memdir.agents.consolidate.proposal import propose_consolidation
from memdir.api import Memdir
from memdir.cli import main
from memdir.history.provenance import provenance
from memdir.hooks.entry import pre_tool_use
from memdir.storage.local_server import bind
from memdir.ui.app import create_app
from proposalutil import consolidation_run, write_ci_memories

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
TOKEN = "browser-test-token"
ROOT = Path(__file__).resolve().parent.parent


def artifacts() -> Path:
    folder = Path(os.environ.get("MEMDIR_TEST_ARTIFACTS") or ROOT / "test-artifacts") / "ui"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def require_chromium() -> None:
    if CHROMIUM.exists() and CHROMEDRIVER.exists():
        return
    message = f"needs {CHROMIUM} and {CHROMEDRIVER} (apt-get install chromium chromium-driver)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


class Served:
    """The real app under uvicorn on a free loopback port, in a thread."""

    def __init__(self, mem: Memdir) -> None:
        self.sock = bind("127.0.0.1", 0)
        self.port: int = self.sock.getsockname()[1]
        app = create_app(mem, token=TOKEN, port=self.port)
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> Served:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the ui server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.sock.close()

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[WebDriver]:
    require_chromium()
    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager: no lookups, no downloads
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1000",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-extensions",
        "--proxy-server=127.0.0.1:9",  # anything not for the page itself goes nowhere
        "--proxy-bypass-list=<-loopback>;127.0.0.1",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def shoot(driver: WebDriver, name: str) -> Path:
    """A screenshot of the whole page (the window grown to the page's height)."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, max(int(height) + 40, 600))
    path = artifacts() / f"{name}.png"
    assert driver.save_screenshot(str(path)), path
    driver.set_window_size(1280, 1000)
    return path


def prompt(project: Path) -> str:
    result = CliRunner().invoke(main, ["prompt", "--project", str(project)])
    assert result.exit_code == 0, result.output
    return result.output


def click(driver: WebDriver, text: str, *, then: str) -> None:
    """Press the button (or follow the link) labelled ``text``; wait for ``then`` to show.

    With the keyboard, as a person without a mouse would: the Enter key on it.
    """
    xpath = (
        f"//button[normalize-space()='{text}' or @aria-label='{text}']"
        f" | //a[normalize-space()='{text}' or @aria-label='{text}']"
    )
    for attempt in range(3):
        element = driver.find_element(By.XPATH, xpath)
        try:
            element.send_keys(Keys.ENTER)
            break
        except WebDriverException:  # the page was still settling (a resize): find it again
            if attempt == 2:
                raise
    WebDriverWait(driver, 30).until(lambda d: gone(element))  # the next page replaced it
    WebDriverWait(driver, 30).until(lambda d: then in d.page_source)


def gone(element: WebElement) -> bool:
    """Whether ``element`` left the document (Chromium may say so with either error)."""
    try:
        element.is_enabled()
    except WebDriverException:  # StaleElementReferenceException, or "does not belong"
        return True
    return False


def sample(mem: Memdir) -> None:
    """A realistic project memory: what a few weeks of agent sessions leave behind."""
    notes: list[dict[str, Any]] = [
        {
            "name": "Run tests with make check",
            "description": "make check runs lint, types and the fast tests; CI runs make test",
            "type": "project",
            "body": "Use `make check` before every commit.\n\n**Why:** CI is slow.\n",
        },
        {
            "name": "Prefer pnpm over npm",
            "description": "the repo's lockfile is pnpm's; npm install rewrites it",
            "type": "feedback",
            "body": "Use `pnpm install`.\n**Why:** npm rewrote the lockfile and broke CI.\n",
            "extra": {"enforce": [{"tool": "Bash", "match": r"\bnpm install\b", "action": "deny"}]},
        },
        {
            "name": "Maintainer prefers small commits",
            "description": "one concern per commit, message says why",
            "type": "user",
            "body": "Small commits, each with its reason.\n",
        },
        {
            "name": "Payments API runbook",
            "description": "where the payments service's runbook and dashboards live",
            "type": "reference",
            "body": "Runbook: docs/payments.md\n- dashboards: grafana `payments-prod`\n",
        },
        {
            "name": "Money is integer cents",
            "description": "amounts are stored as integer cents, never floats",
            "type": "project",
            "body": "All amounts are `int` cents. Rounding: half up.\n",
        },
    ]
    for fields in notes:
        mem.write(**fields)
    mem.write(
        name="Branch names carry the ticket",
        description="branches are named feature/PAY-123-short-title",
        type="project",
        body="`feature/<ticket>-<title>`; the CI links the ticket from it.\n",
        scope="team",
    )
    with provenance(route="mcp", client="claude-code", session="3f9c2a1e"):
        mem.write(
            name="Staging deploys on merge",
            description="every merge to main deploys to staging",
            type="project",
            body="Merges to main deploy to staging automatically.\n",
        )


def test_a_person_reviews_restores_edits_and_consolidates_in_the_browser(
    browser: WebDriver, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMDIR_REVIEW", "manual")
    mem = Memdir.open(project)
    sample(mem)  # the person's own writes (route api) are never held
    for hook, text in (
        ("release v1: tag, changelog", "Tag, then changelog.\n"),
        ("release v2: changelog, tag, announce", "Changelog, tag, announce.\n"),
    ):
        mem.write(name="Release checklist", description=hook, type="project", body=text)
    proposed: list[dict[str, Any]] = [
        {
            "name": "Use feature flags",
            "description": "ship behind a flag, remove within two weeks",
            "body": "Flags for every risky change.\n",
        },
        {
            "name": "Deploy on Fridays",
            "description": "deploys are fine on Fridays",
            "body": "Friday deploys are fine.\n",
        },
    ]
    with provenance(route="mcp", client="claude-code", session="a1b2c3"):
        for fields in proposed:
            mem.write(**fields, type="feedback")
    assert len(mem.review()) == 3  # the two above and the sample's staging note
    write_ci_memories(mem)
    proposal = propose_consolidation(mem, consolidation_run())
    call = {"cwd": str(project), "tool_name": "Bash", "tool_input": {"command": "npm install"}}
    for _ in range(3):
        assert "deny" in pre_tool_use(call, os.environ)  # logged for the rules page

    with Served(Memdir.open(project)) as served:
        driver = browser
        driver.get(served.url(f"/?token={TOKEN}"))
        assert "token" not in driver.current_url  # the cookie holds it now
        assert "What your agents learned" in driver.page_source
        shoot(driver, "overview")

        # -- review: approve one, reject another
        click(driver, "Review", then="Awaiting your review")
        assert "3 changes agents proposed" in driver.find_element(By.TAG_NAME, "main").text
        shoot(driver, "review")
        click(driver, "Approve Use feature flags", then="Approved.")
        click(driver, "Reject Deploy on Fridays", then="Rejected.")
        assert (mem.layout.memory_dir / "use_feature_flags.md").exists()
        assert not (mem.layout.memory_dir / "deploy_on_fridays.md").exists()
        text = prompt(project)
        assert "Use feature flags" in text and "Deploy on Fridays" not in text

        # -- restore the first version of a memory
        driver.get(served.url("/memories"))
        shoot(driver, "memories")
        box = driver.find_element(By.ID, "q")
        box.send_keys("release checklist")
        box.send_keys(Keys.ENTER)  # the search box submits with Enter
        WebDriverWait(driver, 30).until(lambda d: "best match first" in d.page_source)
        shoot(driver, "search")
        click(driver, "Release checklist", then="History")
        oldest = mem.history("Release checklist")[-1]
        click(driver, f"Restore this version (v{oldest.id})", then="Restored.")
        assert mem.get("Release checklist").memory.description == "release v1: tag, changelog"
        assert "release v1: tag, changelog" in prompt(project)
        shoot(driver, "memory")

        # -- edit with a version someone else changed meanwhile: a conflict, shown
        body = driver.find_element(By.ID, "e-body")
        mem.write(
            name="Release checklist",
            description="release v3: changed in another window",
            type="project",
            body="Changed elsewhere.\n",
        )
        body.clear()
        body.send_keys("My edit from the page.")
        click(driver, "Save changes", then="Conflict: this memory changed since you opened it")
        assert mem.get("Release checklist").memory.body == "Changed elsewhere.\n"
        assert "release v3: changed in another window" in prompt(project)
        kept = driver.find_element(By.ID, "e-body").get_attribute("value") or ""
        assert kept.rstrip("\n") == "My edit from the page."  # the person's text is kept
        shoot(driver, "conflict")
        click(driver, "Save changes", then="Saved.")  # against the version the page shows
        assert mem.get("Release checklist").memory.body == "My edit from the page.\n"
        # Only the body was edited here: the other window's description stands.
        kept = mem.get("Release checklist").memory.description
        assert kept == "release v3: changed in another window"

        # -- a consolidation proposal: preview, apply, roll back
        index = mem.private.index_path.read_bytes()
        driver.get(served.url("/consolidation"))
        shoot(driver, "consolidation")
        click(driver, proposal.created.strftime("%Y-%m-%d %H:%M"), then="Apply all")
        assert "the log says CI moved" in driver.page_source
        shoot(driver, "proposal")
        click(driver, "Apply all", then="Applied:")
        assert not (mem.layout.memory_dir / "ci_host.md").exists()
        assert mem.get("CI runs on Buildkite").memory.body == "CI moved to Buildkite.\n"
        assert "[CI host]" not in prompt(project) and "[CI runs on Buildkite]" in prompt(project)
        click(driver, "Roll back what was applied", then="Rolled back:")
        assert mem.private.index_path.read_bytes() == index
        assert "[CI host]" in prompt(project) and "[CI runs on Buildkite]" not in prompt(project)

        for name, path, text in (
            ("changes", "/changes?since=2000-01-01", "Release checklist"),
            ("rules", "/rules", "3 firings logged"),
        ):
            driver.get(served.url(path))
            assert text in driver.find_element(By.TAG_NAME, "main").text
            shoot(driver, name)


PHONE = (390, 844)  # a phone's window, in CSS pixels


def fits(driver: WebDriver) -> bool:
    """Whether the page is no wider than the window: nothing to scroll sideways."""
    width = driver.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]"
    )
    return bool(width[0] <= width[1])


def overlapping(driver: WebDriver, selector: str) -> list[tuple[str, str]]:
    """Pairs of elements matching ``selector`` whose boxes overlap on the screen."""
    boxes = driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map(e => {"
        " const r = e.getBoundingClientRect();"
        " return [e.textContent, r.left, r.top, r.right, r.bottom]; })",
        selector,
    )
    out = []
    for i, (a, al, at, ar, ab) in enumerate(boxes):
        for b, bl, bt, br, bb in boxes[i + 1 :]:
            if al < br and bl < ar and at < bb and bt < ab:
                out.append((a, b))
    return out


def background(driver: WebDriver) -> tuple[int, ...]:
    colour = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    return tuple(int(n) for n in colour[colour.index("(") + 1 : colour.index(")")].split(",")[:3])


def test_the_page_fits_a_phone_follows_dark_mode_and_offers_what_a_person_expects(
    browser: WebDriver, project: Path
) -> None:
    mem = Memdir.open(project)
    sample(mem)
    for n in range(3):  # more series than the old legend had room for, with long names
        mem.write(
            name=f"Reference number {n}",
            description=f"a long description of reference {n} " * 3,
            type="reference",
            body="`docs/" + "very-long-path-segment/" * 8 + "runbook.md`\n",
        )
    (mem.layout.memory_dir / "half_written.md").write_text("---\nname: [broken\n---\n")
    call = {"cwd": str(project), "tool_name": "Bash", "tool_input": {"command": "npm install"}}
    assert "deny" in pre_tool_use(call, os.environ)
    pnpm = mem.get("Prefer pnpm over npm").file
    with Served(Memdir.open(project)) as served:
        driver = browser
        driver.get(served.url(f"/?token={TOKEN}"))

        # -- a phone: every page fits its width
        driver.set_window_size(*PHONE)
        assert driver.execute_script("return window.innerWidth") <= PHONE[0]
        for path in (
            "/",
            "/memories",
            f"/memories/private/{pnpm}",
            "/memories/new",
            "/review",
            "/changes?since=2000-01-01",
            "/rules",
            "/consolidation",
            "/used",
        ):
            driver.get(served.url(path))
            assert fits(driver), path
        driver.get(served.url("/changes?since=2000-01-01"))
        assert driver.find_elements(By.CSS_SELECTOR, "ul.legend li")
        assert overlapping(driver, "ul.legend li") == []
        shoot_phone = artifacts() / "phone-changes.png"
        assert driver.save_screenshot(str(shoot_phone))
        driver.set_window_size(1280, 1000)
        assert overlapping(driver, "ul.legend li") == []

        # -- dark mode, as the system says
        driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-color-scheme", "value": "dark"}]},
        )
        driver.get(served.url("/"))
        assert max(background(driver)) < 64, background(driver)
        shoot(driver, "overview-dark")
        driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-color-scheme", "value": "light"}]},
        )
        driver.get(served.url("/"))
        assert min(background(driver)) > 200

        # -- the overview names doctor's findings, with the fix
        main = driver.find_element(By.TAG_NAME, "main").text
        assert "half_written.md" in main and "memdir edit half_written.md" in main

        # -- search from the header, on any page
        box = driver.find_element(By.ID, "top-q")
        box.send_keys("pnpm lockfile")
        box.send_keys(Keys.ENTER)
        WebDriverWait(driver, 30).until(lambda d: "best match first" in d.page_source)
        assert "Prefer pnpm over npm" in driver.find_element(By.TAG_NAME, "main").text

        # -- a new memory from the page
        click(driver, "New memory", then="Save the memory")
        driver.find_element(By.ID, "n-name").send_keys("Feature flags expire")
        driver.find_element(By.ID, "n-desc").send_keys("remove a flag within two weeks")
        driver.find_element(By.ID, "n-body").send_keys("Delete flags after two weeks.")
        click(driver, "Save the memory", then="Created.")
        assert mem.get("Feature flags expire").memory.body == "Delete flags after two weeks.\n"
        assert "Feature flags expire" in prompt(project)

        # -- turn a rule off, and on again
        driver.get(served.url("/rules"))
        click(driver, "Turn off Bash matching `\\bnpm install\\b` from Prefer pnpm over npm",
              then="Rule turned off")  # fmt: skip
        assert "deny" not in pre_tool_use(call, os.environ)
        click(driver, "Turn on rule 1 of Prefer pnpm over npm", then="Rule turned on again")
        assert "deny" in pre_tool_use(call, os.environ)

        # -- delete asks first
        driver.get(served.url(f"/memories/private/{pnpm}"))
        click(driver, "Delete this memory…", then="Yes, move it to the trash")
        assert mem.private.find(pnpm) is not None
        shoot(driver, "delete-question")
        click(driver, "Yes, move it to the trash", then="Moved to the trash")
        assert mem.private.find(pnpm) is None
