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
from hypothesis import given
from hypothesis import strategies as st

from memdir.api import Memdir
from memdir.cli import main
from memdir.enforcement.rule_firings import record_firings
from memdir.enforcement.shell_targets import changed_files
from memdir.enforcement.shell_words import split_commands
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


# -- what the agent's shell wrote into memory -------------------------------------------------


def _bash_transcript(tmp_path: Path, *commands: str) -> Path:
    """A Claude Code transcript whose assistant runs each of ``commands`` with Bash."""
    lines = []
    for number, command in enumerate(commands):
        arguments = {"command": command, "description": "memory"}
        content = [
            {"type": "tool_use", "id": f"toolu_sh{number}", "name": "Bash", "input": arguments}
        ]
        message = {"role": "assistant", "type": "message", "content": content}
        event = {"type": "assistant", "timestamp": f"2026-12-06T10:00:{number:02}.000Z"}
        lines.append(json.dumps({**event, "uuid": f"a{number}", "message": message}))
    path = tmp_path / "shell.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _shell_touches(mem: Memdir, tmp_path: Path, command: str) -> list[tuple[str, str]]:
    """(event, ref) of each memory file ``command`` (``{m}``: the memory folder) touches."""
    layout = mem.layout
    line = command.format(m=layout.memory_dir, project=layout.project_root)
    touches, _ = memory_touches(_bash_transcript(tmp_path, line), layout)
    assert all(t["tool"] == "Bash" and t["call"] == "toolu_sh0" for t in touches)
    return [(t["event"], t["ref"]) for t in touches]


@pytest.mark.parametrize(
    ("command", "written"),
    [
        ("cat > {m}/new_fact.md <<'EOF'\n---\nname: New fact\n---\nBody.\nEOF", ["new_fact.md"]),
        ('echo "- [New fact](new_fact.md) — hook" >> {m}/MEMORY.md', ["MEMORY.md"]),
        ("printf -- '- more\\n' | tee -a {m}/team/release_freeze.md", ["team/release_freeze.md"]),
        ("echo x &> {m}/x.md", ["x.md"]),
        ("echo x 1> {m}/x.md", ["x.md"]),
        ("echo x >| {m}/x.md", ["x.md"]),
        ("bash -c 'echo x > {m}/x.md'", ["x.md"]),
        ("cp /tmp/draft.md {m}/deploy_policy.md", ["deploy_policy.md"]),
        ("cp /tmp/draft.md {m}/", ["draft.md"]),
        ("cp /tmp/draft.md {m}/team", ["team/draft.md"]),
        ("cp -t {m} /tmp/a.md /tmp/b.md", ["a.md", "b.md"]),
        ("install -m 644 /tmp/draft.md {m}/draft.md", ["draft.md"]),
        ("ln /tmp/draft.md {m}/draft.md", ["draft.md"]),
        ("mv {m}/old_name.md {m}/new_name.md", ["new_name.md", "old_name.md"]),
        ("cd {m} && mv old_name.md team/old_name.md", ["team/old_name.md", "old_name.md"]),
        ("mv {m}/stale.md /tmp/", ["stale.md"]),  # gone from memory
        ("sed -i 's/Thursday/Friday/' {m}/team/release_freeze.md", ["team/release_freeze.md"]),
        ("perl -pi -e 's/canary/staging/' {m}/deploy_policy.md", ["deploy_policy.md"]),
        ("rm -f {m}/deploy_policy.md", ["deploy_policy.md"]),
        ("truncate -s 0 {m}/deploy_policy.md", ["deploy_policy.md"]),
        ("touch {m}/deploy_policy.md", ["deploy_policy.md"]),
        ("unlink {m}/deploy_policy.md", ["deploy_policy.md"]),
        ("shred -u -n 1 {m}/deploy_policy.md", ["deploy_policy.md"]),
        ("dd if=/tmp/draft.md of={m}/draft.md", ["draft.md"]),
        ("curl -sSo {m}/draft.md https://example.invalid/draft", ["draft.md"]),
        ("wget -O {m}/draft.md https://example.invalid/draft", ["draft.md"]),
        ("cd {m} && ln -s /tmp/draft.md", ["draft.md"]),
        ("sudo tee {m}/x.md < /tmp/x.txt", ["x.md"]),
        ('cd {m} && echo "- [X](x.md) — x" >> MEMORY.md', ["MEMORY.md"]),
        ("cd {m}/team; rm stale.md", ["team/stale.md"]),
        ("cd {project} && cd {m} && echo x > x.md && echo y >> x.md", ["x.md"]),
    ],
)
def test_a_shell_command_that_changes_a_memory_file_is_logged_as_its_write(
    mem: Memdir, tmp_path: Path, command: str, written: list[str]
) -> None:
    assert _shell_touches(mem, tmp_path, command) == [("write", ref) for ref in written]


@pytest.mark.parametrize(
    "command",
    [
        "echo x > /tmp/notes.md",
        "echo x > notes.md",  # the project's folder, not memory's
        "cd /tmp && echo x > x.md",
        "cp /tmp/a.md /tmp/b.md",
        "rm /tmp/x.md README.md",
        "sed -i 's/a/b/' docs/guide.md",
        "mv {m}.md /tmp/x.md",  # a name that only starts like the memory folder
        "printf -- '- did x\\n' | tee -a {m}/logs/2026/12/2026-12-06.md",  # a daily log
        "echo x > {m}/.staging/x.md",  # the store's own hidden folder
        "rm {m}/*.md",  # a glob names no one file
        "sed 's/a/b/' {m}/deploy_policy.md",  # not in place: prints
        'echo "see {m}/deploy_policy.md"',
        "cp /tmp/notes.txt {m}/",  # no memory file arrives
    ],
)
def test_a_shell_command_that_changes_no_memory_file_logs_nothing(
    mem: Memdir, tmp_path: Path, command: str
) -> None:
    assert _shell_touches(mem, tmp_path, command) == []


@pytest.mark.parametrize(
    ("command", "touched"),
    [
        ("cat {m}/deploy_policy.md", [("read", "deploy_policy.md")]),
        ("head -n 5 {m}/MEMORY.md 2>&1 > /dev/null", [("read", "MEMORY.md")]),
        ("cat {m}/deploy_policy.md > /tmp/copy.md", [("read", "deploy_policy.md")]),
        ("cp {m}/deploy_policy.md /tmp/", []),  # a copy out of memory changes none
        ("cd {m}/team && tail stale.md", [("read", "team/stale.md")]),
        (
            "cat {m}/a.md >> {m}/b.md",
            [("read", "a.md"), ("write", "b.md")],
        ),
    ],
)
def test_a_shell_read_of_memory_stays_a_read(
    mem: Memdir, tmp_path: Path, command: str, touched: list[tuple[str, str]]
) -> None:
    assert _shell_touches(mem, tmp_path, command) == touched


_SHELL_TOKENS = (
    "cp", "mv", "ln", "install", "rm", "unlink", "tee", "touch", "truncate", "sed", "perl", "dd",
    "curl", "wget", "sudo", "cd", "-i", "-a", "-t", "-T", "-s", "-e", "-pi", "-o", "-O", "--",
    "&&", "|", ";", ">", ">>", "2>", "&>", ">&2", "a.md", "d/", "d/b.md", "of=c.md", "s/x/y/",
    "'q r.md'",
)  # fmt: skip


@given(st.lists(st.sampled_from(_SHELL_TOKENS), max_size=10))
def test_every_file_a_shell_command_changes_is_one_its_words_name(tokens: list[str]) -> None:
    # Named whole (an operand, a redirection's or ``of=``'s target), or a source's name
    # inside the folder a copy lands in.
    for words in split_commands(" ".join(tokens))[0]:
        targets = {w.lstrip("0123456789").lstrip("&>|") for w in words}
        whole = targets | {w.removeprefix("of=") for w in words}
        for path in changed_files(words, lambda word: not word.endswith(".md")):
            folder, _, name = path.rpartition("/")
            into = folder in whole or folder + "/" in whole or folder == "."
            assert path in whole or (
                into and any(w.rstrip("/").rpartition("/")[2] == name for w in words)
            )


@pytest.mark.parametrize(
    "command",
    ["echo x > ~/memory/x.md", "echo x > $HOME/memory/x.md", "cd && rm memory/x.md"],
)
def test_a_shell_write_under_the_home_folder_is_found_as_the_shell_finds_it(
    mem: Memdir, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.setenv("HOME", str(mem.layout.memory_dir.parent))
    assert _shell_touches(mem, tmp_path, command) == [("write", "x.md")]


def test_memdir_used_shows_a_memory_the_agent_s_shell_wrote_under_written(
    mem: Memdir, project: Path, tmp_path: Path
) -> None:
    _memories(mem)
    folder = mem.layout.memory_dir
    commands = [
        f"cd {folder} && cat > staging_first.md <<'EOF'\n---\nname: Staging first\n"
        "description: Deploy to staging before the canary\ntype: feedback\n---\n"
        "Staging first.\nEOF",
        f'echo "- [Staging first](staging_first.md) — staging before canary" >> {folder}/MEMORY.md',
        f"sed -i 's/Thursday/Friday/' {folder}/team/release_freeze.md",
    ]
    for command in commands:  # what the agent's shell did, done by a real shell
        subprocess.run(["bash", "-c", command], check=True, timeout=30)
    assert "Staging first" in (folder / "staging_first.md").read_text(encoding="utf-8")
    assert "Friday" in (folder / "team" / "release_freeze.md").read_text(encoding="utf-8")
    transcript = _bash_transcript(tmp_path, *commands)
    args = ["used", "--session", "s-sh", "--transcript", str(transcript)]
    shown = cli(*args, "--project", str(project), "--json")
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.output)
    assert data["written"] == ["staging_first.md", "MEMORY.md", "team/release_freeze.md"]
    assert data["read"] == []
    text = cli(*args, "--project", str(project)).output
    assert "write    Bash staging_first.md" in text


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
