"""Coding-agent hooks fed recorded hook JSON, and the settings installer."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import filelock
import pytest
from click.testing import CliRunner, Result

from background.helpers import (
    FIXTURES,
    SESSION,
    notes_adding,
    notes_router,
    session_job,
    session_transcript,
)
from memdir.api import Memdir
from memdir.cli import main
from memdir.cli._reporting import MemdirGroup
from memdir.cli.hook import hook
from memdir.hooks.background import (
    JobRequest,
    find_transcript,
    hooks_dir,
    project_prompt,
    run_job,
    run_serialised,
    start_background,
)
from memdir.hooks.payload import parse_hook_input

DEADLINE = 120.0


@pytest.fixture(autouse=True)
def no_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """Background jobs started by these tests never find a model provider."""
    monkeypatch.setenv("MEMDIR_PROVIDER", "none")


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    return session_transcript(tmp_path)


def recorded(event: str, **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / "hooks" / f"{event}.json").read_text())
    return {**data, **overrides}


def invoke(args: list[str], payload: dict[str, Any] | str | None = None) -> Result:
    cli = MemdirGroup(commands={"hook": hook})
    stdin = payload if isinstance(payload, str) or payload is None else json.dumps(payload)
    return CliRunner().invoke(cli, ["hook", *args], input=stdin)


def wait_for_exit(pid: int) -> None:
    """Wait for a child process started by the code under test, within the deadline."""

    def reap() -> None:
        with contextlib.suppress(ChildProcessError):  # reaped already: it has exited
            os.waitpid(pid, 0)

    waiter = threading.Thread(target=reap, daemon=True)
    waiter.start()
    waiter.join(DEADLINE)
    assert not waiter.is_alive(), f"background job {pid} still running"


def started_runs(mem: Memdir) -> list[dict[str, Any]]:
    runs = hooks_dir(mem.layout) / "runs"
    return [json.loads(p.read_text()) for p in sorted(runs.glob("*.json"))]


def test_the_recorded_inputs_parse_into_the_fields_memdir_uses() -> None:
    start = parse_hook_input(json.dumps(recorded("session-start")))
    assert (start.session_id, start.hook_event_name, start.source) == (
        SESSION, "SessionStart", "startup"
    )  # fmt: skip
    assert start.cwd == "/home/dev/shop"
    compact = parse_hook_input(json.dumps(recorded("pre-compact")))
    assert (compact.hook_event_name, compact.trigger) == ("PreCompact", "auto")
    assert parse_hook_input(json.dumps(recorded("stop"))).transcript_path.endswith(".jsonl")  # type: ignore[union-attr]


def test_session_start_prints_the_prompt_as_additional_context(mem: Memdir, project: Path) -> None:
    mem.write(name="Deploy window", description="Deploys on Tuesdays", type="project")
    # As `memdir hook install claude` leaves it: Claude Code's own auto memory off.
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text('{"autoMemoryEnabled": false}')
    result = invoke(["session-start"], recorded("session-start", cwd=str(project)))
    assert result.exit_code == 0
    assert result.stderr == ""
    output = json.loads(result.stdout)
    assert output == {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": mem.prompt(tools="files"),
        }
    }
    assert "[Deploy window](deploy_window.md)" in output["hookSpecificOutput"]["additionalContext"]


def test_session_start_prints_nothing_when_memory_is_disabled(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMDIR_DISABLE", "1")
    result = invoke(["session-start"], recorded("session-start", cwd=str(project)))
    assert (result.exit_code, result.stdout) == (0, "")


def test_session_start_through_the_memdir_script_loads_neither_click_nor_the_stores(
    mem: Memdir, project: Path
) -> None:
    mem.write(name="Deploy window", description="Deploys on Tuesdays", type="project")
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memdir", "hook", "session-start"],
        input=json.dumps(recorded("session-start", cwd=str(project))),
        capture_output=True,
        text=True,
        # The hook's own process (not the hook server's) is the one whose imports count.
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "MEMDIR_HOOK_SERVER": "0"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] == mem.prompt()
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert not {m for m in loaded if m.split(".")[0] in ("click", "rich", "yaml", "filelock")}
    heavy = ("memdir.api", "memdir.cli", "memdir.storage.store", "memdir.search", "memdir.llm")
    assert not {m for m in loaded if m.startswith(heavy)}


def test_session_start_through_click_follows_the_profile_option(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    # Claude Code's own auto memory off: memdir's whole prompt, for the claude folder.
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    payload = json.dumps(recorded("session-start", cwd=str(project)))
    result = CliRunner().invoke(
        main, ["--profile", "claude", "hook", "session-start"], input=payload
    )
    assert result.exit_code == 0, result.output
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context == Memdir.open(project, profile="claude").prompt()
    assert str(tmp_path / "claude-config") in context


def _team_note_with_a_sidecar(team: Path) -> None:
    # A memory-tool note: any text file, its fields in a hidden sidecar; no index yet.
    (team / "notes.txt").write_text("kept byte for byte\n")
    (team / ".meta").mkdir()
    (team / ".meta" / "notes.txt.yaml").write_text(
        "name: Notes\ndescription: team notes\ntype: reference\n"
    )


PROMPT_CASES: dict[str, tuple[dict[str, str], str, dict[str, Any]]] = {
    "defaults": ({}, "", {}),
    "team index": ({}, "index", {}),
    "team note with a sidecar only": ({}, "sidecar", {}),
    "team folder with a stray file only": ({}, "stray", {}),
    "team folder with hidden entries only": ({}, "hidden", {}),
    "team off by setting": ({"MEMDIR_TEAM": "0"}, "index", {}),
    "team on by setting": ({"MEMDIR_TEAM": "1"}, "", {}),
    "daily log": ({"MEMDIR_DAILY_LOG": "1"}, "index", {}),
    "disabled": ({"MEMDIR_DISABLE": "1"}, "", {}),
    "extra guidelines": ({"MEMDIR_EXTRA_GUIDELINES": "Be brief."}, "", {}),
    "explicit mode, no index, memdir tools": (
        {},
        "index",
        {"mode": "combined", "skip_index": True, "tools": "memdir"},
    ),
    "claude profile": ({}, "", {"profile": "claude"}),
}


@pytest.mark.parametrize("case", PROMPT_CASES)
def test_the_prompt_built_without_the_stores_is_the_facades_prompt(
    case: str, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    variables, team_files, options = PROMPT_CASES[case]
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    mem = Memdir.open(project, profile=options.get("profile"))
    mem.write(name="Deploy window", description="Deploys on Tuesdays", type="project")
    team = mem.layout.team_dir
    if team_files == "index":
        mem.write(name="Style", description="Black, 100 columns", type="feedback", scope="team")
    elif team_files == "sidecar":
        _team_note_with_a_sidecar(team)
    elif team_files == "stray":
        (team / "README.txt").write_text("not a memory\n")
    elif team_files == "hidden":
        (team / ".git").mkdir()
        (team / ".git" / "deploy.md").write_text("---\nname: x\n---\n")
        (team / ".notes.md").write_text("hidden\n")
    kwargs = {k: v for k, v in options.items() if k != "profile"}
    expected = mem.prompt(**kwargs)
    assert project_prompt(project, env=os.environ, **options) == expected
    if case == "team note with a sidecar only":
        assert expected is not None and str(team) in expected  # combined: the team counts


def test_the_prompt_built_without_the_stores_creates_the_memory_folders_as_open_does(
    project: Path,
) -> None:
    prompt = project_prompt(project, env=os.environ)
    mem = Memdir.open(project)
    assert mem.layout.memory_dir.is_dir() and mem.layout.team_dir.is_dir()
    assert prompt == mem.prompt()


@pytest.mark.parametrize("command", ["session-start", "stop", "pre-compact"])
@pytest.mark.parametrize("stdin", ["not json", "[1, 2]", ""])
def test_a_hook_with_bad_input_exits_0_with_a_note(command: str, stdin: str) -> None:
    result = invoke([command], stdin)
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr.startswith(f"memdir: hook {command}: the hook input is not")


def test_stop_without_a_session_id_starts_nothing(project: Path, mem: Memdir) -> None:
    payload = recorded("stop", cwd=str(project))
    del payload["session_id"]
    result = invoke(["stop"], payload)
    assert result.exit_code == 0
    assert "no usable session_id" in result.stderr
    assert started_runs(mem) == []


@pytest.mark.parametrize("event", ["stop", "pre-compact", "session-end"])
def test_the_hook_returns_at_once_and_its_background_job_records_it_skipped_the_model(
    project: Path, mem: Memdir, transcript: Path, event: str
) -> None:
    payload = recorded(event, cwd=str(project), transcript_path=str(transcript))
    result = invoke([event], payload)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    [run] = started_runs(mem)
    assert (run["event"], run["session_id"]) == (event, SESSION)
    wait_for_exit(run["pid"])
    marker = hooks_dir(mem.layout) / "runs" / f"{run['run_id']}.done"
    report = json.loads(marker.read_text())
    assert report["status"] == "skipped"
    assert report["run_ids"] == [run["run_id"]]
    assert report["steps"][0].startswith("read ") and report["steps"][0].endswith(
        " turns from the transcript"
    )
    assert report["steps"][-1].startswith("model steps are off (provider none)")


def test_pre_compact_runs_detached_in_its_own_session(
    project: Path, mem: Memdir, transcript: Path
) -> None:
    payload = parse_hook_input(
        json.dumps(recorded("pre-compact", cwd=str(project), transcript_path=str(transcript)))
    )
    run = start_background("pre-compact", payload, env=os.environ, keep_process=True)
    assert os.getsid(run.pid) == run.pid  # start_new_session: not in the agent's process group
    assert run.process is not None
    assert run.process.wait(timeout=DEADLINE) == 0
    report = json.loads(run.marker.read_text())
    assert (report["event"], report["status"]) == ("pre-compact", "skipped")
    assert run.log.is_file() and run.log.stat().st_mode & 0o077 == 0


def test_the_transcript_is_found_in_claudes_folder_when_the_hook_names_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, transcript: Path, project: Path
) -> None:
    from memdir.storage.claude import slugify

    claude = tmp_path / "claude-config"
    folder = claude / "projects" / slugify(os.path.realpath(project))
    folder.mkdir(parents=True)
    shutil.copy(transcript, folder / f"{SESSION}.jsonl")
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(claude)}
    found = find_transcript("/nowhere.jsonl", session_id=SESSION, cwd=project, env=env)
    assert found == folder / f"{SESSION}.jsonl"
    assert find_transcript(None, session_id="other", cwd=project, env=env) is None


def test_a_job_without_a_transcript_is_skipped(project: Path) -> None:
    report = run_job(
        event="stop", session_id=SESSION, project=project, transcript=None,
        env={**os.environ, "CLAUDE_CONFIG_DIR": str(project / "none")},
    )  # fmt: skip
    assert (report.status, report.steps) == ("skipped", ("no transcript found for this session",))


def test_a_job_with_a_provider_updates_the_session_notes(
    project: Path, mem: Memdir, transcript: Path
) -> None:
    line = "Compacting: the notes were brought up to date first.\n"
    path, notes = notes_adding(mem, line)
    provider = notes_router(notes, extractions=3)
    report = session_job("pre-compact", project, transcript, provider)
    assert report.status == "done", report.steps
    assert report.steps[0].startswith("read ")
    assert "session notes updated" in report.steps
    # The template alone would make the file exist: the model's edit must be in it.
    assert line in path.read_text()
    assert notes.pending == 0


def test_a_job_arriving_mid_run_is_coalesced_into_one_trailing_run(
    project: Path, mem: Memdir, transcript: Path
) -> None:
    base = hooks_dir(mem.layout)
    request = JobRequest(
        event="stop", session_id=SESSION, project=str(project),
        transcript=str(transcript), run_ids=("first",),
    )  # fmt: skip
    holder = filelock.FileLock(str(base / "locks" / f"{SESSION}.lock"))
    (base / "locks").mkdir(parents=True)
    with holder:  # a job of this session is running
        assert run_serialised(request, env=os.environ) == []
        second = JobRequest(**{**request.__dict__, "run_ids": ("second",)})
        assert run_serialised(second, env=os.environ) == []
    assert not (base / "runs" / "first.done").exists()
    third = JobRequest(**{**request.__dict__, "run_ids": ("third",)})
    reports = run_serialised(third, env=os.environ)
    assert [r.run_ids for r in reports] == [("third",), ("first", "second")]
    for run_id in ("first", "second", "third"):
        assert json.loads((base / "runs" / f"{run_id}.done").read_text())["status"] == "skipped"


def test_the_background_runner_refuses_a_run_id_that_is_a_path(
    project: Path, tmp_path: Path
) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "memdir.hooks.background", "run", "--event", "stop",
         "--session", "s1", "--project", str(project), "--run-id", "../../../escaped"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode != 0 and "invalid run id" in done.stderr
    assert not list(tmp_path.rglob("escaped*"))


@pytest.mark.parametrize("command", ["session-start", "pre-tool-use", "user-prompt-submit"])
def test_a_fast_hook_given_bytes_that_are_not_utf8_steps_aside_without_a_traceback(
    project: Path, command: str
) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(sys.path),
        "LC_ALL": "C",
        "PYTHONIOENCODING": "utf-8:strict",
    }
    done = subprocess.run(
        [sys.executable, "-m", "memdir", "hook", command],
        input=b'{"cwd": "' + os.fsencode(project) + b'", "prompt": "caf\xe9 \xff"}',
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0
    assert b"Traceback" not in done.stderr
