"""The used-memory log: what each session was shown, recalled, read and wrote, and why."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx2
import pytest
from click.testing import CliRunner, Result

from memdir.api import Memdir
from memdir.cli import main
from memdir.enforcement.rule_firings import record_firings
from memdir.history.used import last_uses, memory_touches, session_use
from memdir.history.used_log import log_path, note_start, read_events
from memdir.hooks.payload import HookInput
from memdir.hooks.session_start import session_context
from memdir.model import Memory, MemoryType
from memdir.recall.expiry import expired

FIXTURE = Path(__file__).parent / "fixtures" / "transcripts" / "claude-code-memory-use.jsonl"
SESSION = "5f0c2d1e-8a47-4b3c-9e6d-0a1b2c3d4e5f"  # the fixture's
DAY = 86_400.0


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def _memories(mem: Memdir) -> None:
    mem.write(name="Deploy policy", description="Deploys go through the canary", type="feedback")
    mem.write(
        name="Release freeze", description="No merges after Thursday", type="project", scope="team"
    )


def _transcript(mem: Memdir, tmp_path: Path) -> Path:
    """The fixture, naming this test's memory folder and project."""
    text = FIXTURE.read_text(encoding="utf-8")
    text = text.replace("__MEMORY_DIR__", str(mem.layout.memory_dir))
    text = text.replace("__PROJECT__", str(mem.layout.project_root))
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def _stocked_transcript(mem: Memdir, tmp_path: Path) -> Path:
    """The memories of :func:`_memories` written, and the fixture transcript that reads them."""
    _memories(mem)
    return _transcript(mem, tmp_path)


# -- what the hooks deliver -------------------------------------------------------------------


def test_the_log_records_the_memories_a_recall_delivered(mem: Memdir, project: Path) -> None:
    _memories(mem)
    result = mem.recall("how do deploys go through the canary", session="s-r")
    assert [item.ref for item in result.items] == ["deploy_policy.md"]
    (event,) = read_events(log_path(mem.layout, "s-r"))
    assert event["event"] == "recall" and event["refs"] == ["deploy_policy.md"]
    assert event["query"] == "how do deploys go through the canary"
    shown = cli("used", "--session", "s-r", "--project", str(project))
    assert shown.exit_code == 0, shown.output
    assert 'recall   "how do deploys go through the canary": deploy_policy.md' in shown.output


def test_a_recall_that_delivers_nothing_or_has_no_session_logs_nothing(mem: Memdir) -> None:
    _memories(mem)
    mem.recall("quantum chromodynamics lattice", session="s-none")
    mem.recall("how do deploys go through the canary")
    assert list(mem.layout.sessions_dir.glob("*/used.jsonl")) == []


def test_the_session_start_logs_the_index_lines_it_delivered_and_the_transcript(
    mem: Memdir, project: Path, tmp_path: Path
) -> None:
    _memories(mem)
    payload = HookInput(
        cwd=str(project), session_id="s-1", source="startup", transcript_path=str(tmp_path / "t")
    )
    assert session_context(payload, env=os.environ)
    (event,) = read_events(log_path(mem.layout, "s-1"))
    assert event["event"] == "start" and event["source"] == "startup"
    assert sorted(event["refs"]) == ["deploy_policy.md", "team/release_freeze.md"]
    assert event["transcript"] == str(tmp_path / "t")
    # A resume with memory unchanged delivers nothing, and logs that it delivered nothing.
    resumed = HookInput(cwd=str(project), session_id="s-1", source="resume")
    assert session_context(resumed, env=os.environ) is None
    assert read_events(log_path(mem.layout, "s-1"))[-1]["refs"] == []


# -- what the agent did, from its transcript --------------------------------------------------


def test_reads_and_writes_of_memory_files_are_found_in_a_claude_code_transcript(
    mem: Memdir, tmp_path: Path
) -> None:
    transcript = _stocked_transcript(mem, tmp_path)
    touches, end = memory_touches(transcript, mem.layout)
    assert end == transcript.stat().st_size
    assert [(t["event"], t["ref"], t["tool"]) for t in touches] == [
        ("read", "deploy_policy.md", "Read"),
        ("read", "team/release_freeze.md", "Bash"),
        ("read", "MEMORY.md", "Bash"),
        ("write", "deploy_policy.md", "Edit"),
    ]  # the Read of src/deploy.py is no memory's
    assert touches[0]["t"] == dt.datetime(2025, 11, 4, 10, 0, 3, 100_000, dt.UTC).timestamp()


def test_memdir_used_shows_a_read_from_the_transcript_the_session_start_named(
    mem: Memdir, project: Path, tmp_path: Path
) -> None:
    transcript = _stocked_transcript(mem, tmp_path)
    start = HookInput(
        cwd=str(project), session_id=SESSION, source="startup", transcript_path=str(transcript)
    )
    session_context(start, env=os.environ)
    shown = cli("used", "--project", str(project))  # the latest session
    assert shown.exit_code == 0, shown.output
    assert f"session {SESSION}, transcript {transcript}" in shown.output
    assert "read     Read deploy_policy.md" in shown.output
    assert "read     Bash team/release_freeze.md" in shown.output
    assert "write    Edit deploy_policy.md" in shown.output
    data = json.loads(cli("used", "--project", str(project), "--json").output)
    assert data["read"] == ["deploy_policy.md", "team/release_freeze.md", "MEMORY.md"]
    assert data["written"] == ["deploy_policy.md"]
    # Looked at again, each call is logged once.
    cli("used", "--project", str(project))
    events = read_events(log_path(mem.layout, SESSION))
    assert sum(1 for e in events if e["event"] in ("read", "write")) == 4


def test_a_growing_transcript_is_read_on_from_where_the_last_look_stopped(
    mem: Memdir, tmp_path: Path
) -> None:
    whole = _stocked_transcript(mem, tmp_path).read_bytes()
    live = tmp_path / "live.jsonl"
    cut = whole.index(b"toolu_04EditMem") - 40  # mid-line: the Edit is still being written
    live.write_bytes(whole[:cut])
    first = session_use(mem.layout, "s-live", env=os.environ, transcript=live)
    assert first.read == ("deploy_policy.md", "team/release_freeze.md", "MEMORY.md")
    assert first.written == ()
    live.write_bytes(whole)
    again = session_use(mem.layout, "s-live", env=os.environ, transcript=live)
    assert again.written == ("deploy_policy.md",)
    events = read_events(log_path(mem.layout, "s-live"))
    assert sum(1 for e in events if e["event"] in ("read", "write")) == 4
    assert events[-1]["event"] == "synced" and events[-1]["offset"] == len(whole)


def test_a_transcript_given_on_the_command_line_is_read(
    mem: Memdir, project: Path, tmp_path: Path
) -> None:
    transcript = _stocked_transcript(mem, tmp_path)
    shown = cli(
        "used", "--session", SESSION, "--transcript", str(transcript), "--project", str(project)
    )
    assert shown.exit_code == 0, shown.output
    assert "read     Read deploy_policy.md" in shown.output


def test_why_says_when_a_memory_was_last_used_and_by_which_session(
    mem: Memdir, project: Path, tmp_path: Path
) -> None:
    mem.used(SESSION, transcript=_stocked_transcript(mem, tmp_path))
    answer = mem.why("Deploy policy")
    assert answer.use is not None and answer.use.used is not None
    assert answer.use.used.kind == "write" and answer.use.used.session == SESSION
    text = cli("why", "Release freeze", "--project", str(project)).output
    assert "last used: 2025-11-04" in text and f"read with Bash in session {SESSION}" in text


def test_a_rule_that_fired_within_the_session_is_joined_to_it(mem: Memdir, tmp_path: Path) -> None:
    _memories(mem)
    transcript = tmp_path / "live.jsonl"
    transcript.write_text("")  # the session's transcript, written to until now
    now = time.time()
    note_start(mem.layout, "s-rule", ["deploy_policy.md"], transcript=str(transcript), now=now - 60)
    state = str(mem.layout.state_dir)
    rule = [("deploy_policy.md", "kubectl apply", "ask")]
    record_firings(state, "Bash", rule, now=now - 30)
    record_firings(state, "Bash", rule, now=now - 3 * DAY)  # another session's, days before
    use = session_use(mem.layout, "s-rule", env=os.environ)
    (fired,) = use.fired
    assert fired.refs == ("deploy_policy.md",) and fired.detail == "ask Bash: kubectl apply"


def test_sessions_appending_at_once_lose_no_line(mem: Memdir) -> None:
    code = (
        "import sys\n"
        "from memdir.api import Memdir\n"
        "from memdir.history.used_log import note_start\n"
        "mem = Memdir.open(sys.argv[1])\n"
        "for i in range(40):\n"
        "    note_start(mem.layout, 's-busy', [f'w{sys.argv[2]}-{i}.md'])\n"
    )
    root = str(mem.layout.project_root)
    workers = [subprocess.Popen([sys.executable, "-c", code, root, str(n)]) for n in range(4)]
    assert [worker.wait(timeout=120) for worker in workers] == [0, 0, 0, 0]
    refs = [e["refs"][0] for e in read_events(log_path(mem.layout, "s-busy"))]
    assert sorted(refs) == sorted(f"w{n}-{i}.md" for n in range(4) for i in range(40))


# -- unused memories go to review -------------------------------------------------------------


def _old_memory(mem: Memdir, name: str, days: int) -> None:
    """A memory last changed ``days`` ago."""
    then = dt.date.today() - dt.timedelta(days=days)
    memory = Memory(
        name=name,
        description=f"{name} (desc)",
        type=MemoryType.PROJECT,
        created=then,
        updated=then,
    )
    record = mem.private.write(memory, stamp=False).record
    stamp = time.time() - days * DAY
    os.utime(mem.layout.memory_dir / record.file, (stamp, stamp))


def test_a_memory_unused_past_the_setting_is_offered_for_review(
    project: Path, memdir_home: Path
) -> None:
    memdir_home.mkdir(parents=True, exist_ok=True)
    (memdir_home / "config.toml").write_text("unused_review_days = 30\n")
    mem = Memdir.open(project)
    _old_memory(mem, "Idle fact", 90)
    _old_memory(mem, "Busy fact", 90)
    _old_memory(mem, "Young fact", 10)
    now = time.time()
    note_start(mem.layout, "s-old", [], now=now - 60 * DAY)  # the log began 60 days ago
    result = mem.recall("busy fact desc", session="s-new")
    assert [item.name for item in result.items] == ["Busy fact"]
    offered = {e.name: e.reason for e in expired(mem)}
    assert list(offered) == ["Idle fact"]
    assert offered["Idle fact"].startswith("unused for 60 days")
    text = cli("review", "--project", str(project)).output
    assert "Idle fact" in text and "unused for 60 days" in text


def test_with_the_setting_off_or_a_young_log_no_memory_is_called_unused(project: Path) -> None:
    mem = Memdir.open(project)
    _old_memory(mem, "Idle fact", 90)
    note_start(mem.layout, "s-old", [], now=time.time() - 60 * DAY)
    assert expired(mem) == []
    young = Memdir.open(project, unused_review_days=30)
    (log_path(young.layout, "s-old")).unlink()
    note_start(young.layout, "s-new", [], now=time.time() - 5 * DAY)
    assert expired(young) == []  # five days of record cannot say thirty days unused


def test_last_uses_name_the_latest_session_of_each_kind(mem: Memdir) -> None:
    _memories(mem)
    note_start(mem.layout, "s-a", ["deploy_policy.md"], now=time.time() - 2 * DAY)
    mem.recall("how do deploys go through the canary", session="s-b")
    last = last_uses(mem.layout, env=os.environ)["deploy_policy.md"]
    assert last.shown is not None and last.shown.session == "s-a"
    assert last.used is not None and last.used.session == "s-b" and last.used.kind == "recall"


# -- the page ---------------------------------------------------------------------------------


def test_the_page_shows_a_session_s_memory_use_and_the_overview_links_to_it(
    mem: Memdir, tmp_path: Path
) -> None:
    pytest.importorskip("starlette")
    from memdir.ui.app import create_app

    mem.used(SESSION, transcript=_stocked_transcript(mem, tmp_path))
    mem.recall("how do deploys go through the canary", session="s-r")
    headers = {"Authorization": "Bearer t0ken"}

    async def get(path: str) -> httpx2.Response:
        app = create_app(mem, token="t0ken", port=8766)
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(
            transport=transport, base_url="http://127.0.0.1:8766", headers=headers
        ) as client:
            response: httpx2.Response = await client.get(path)
            return response

    overview = anyio.run(get, "/")
    assert 'href="/used"' in overview.text
    page = anyio.run(get, f"/used?session={SESSION}")
    assert page.status_code == 200
    assert '<a href="/memories/private/deploy_policy.md">deploy_policy.md</a>' in page.text
    assert '<a href="/memories/team/release_freeze.md">team/release_freeze.md</a>' in page.text
    assert "wrote" in page.text and "s-r" in page.text
    assert anyio.run(get, "/used?session=nobody").status_code == 404
    assert anyio.run(get, "/used?session=..%2F..").status_code in (400, 404)
