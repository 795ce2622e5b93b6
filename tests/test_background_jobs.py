"""Background hook jobs ask before they spend, and tell when they skip or fail.

The jobs run as the real detached process the Stop, PreCompact and SessionEnd hooks
start; where a key is at stake, a local stand-in for the Anthropic Messages API
(:mod:`claude_api`) at ``ANTHROPIC_BASE_URL`` records every request that reaches it.
The next session start (the real ``memdir`` script) and ``memdir doctor`` show what
the jobs recorded.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from background.helpers import (
    CURRENT,
    FIXTURES,
    SESSION,
    Router,
    edit,
    notes_adding,
    notes_router,
    session_job,
    session_transcript,
)
from claude_api import run_stand_in
from memdir.api import Memdir
from memdir.cli import main
from memdir.errors import ProviderAuthError
from memdir.hooks.background import (
    Event,
    JobReport,
    JobRequest,
    hooks_dir,
    run_job,
    run_serialised,
    start_background,
)
from memdir.hooks.job_status import (
    KEEP_RUNS,
    last_run,
    prune_runs,
    run_problem,
    session_notice,
)
from memdir.hooks.payload import parse_hook_input
from memdir.llm import Usage
from memdir.llm.spend import SpendLedger
from memdir.testing import ScriptedProvider

DEADLINE = 120.0
SRC = str(Path(__file__).resolve().parent.parent / "src")
MODEL_VARS = (
    "MEMDIR_PROVIDER", "MEMDIR_MODEL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY", "OPENAI_BASE_URL",
)  # fmt: skip


@pytest.fixture(autouse=True)
def no_model_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test says which model settings its jobs see; none leak in from the machine."""
    for var in MODEL_VARS:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    return session_transcript(tmp_path)


def job_env(**extra: str) -> dict[str, str]:
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{path}" if path else SRC, **extra}


def run_hook_job(
    event: str, project: Path, transcript: Path, env: dict[str, str]
) -> dict[str, Any]:
    """Start the job ``event``'s hook starts, as that detached process; its marker."""
    fixture = "pre-compact" if event == "pre-compact" else "stop"
    data = json.loads((FIXTURES / "hooks" / f"{fixture}.json").read_text())
    payload = {**data, "cwd": str(project), "transcript_path": str(transcript)}
    run = start_background(
        event,  # type: ignore[arg-type]
        parse_hook_input(json.dumps(payload)),
        env=env,
        keep_process=True,
    )
    assert run.process is not None
    assert run.process.wait(timeout=DEADLINE) == 0
    marker: dict[str, Any] = json.loads(run.marker.read_text())
    return marker


def session_start(project: Path, env: dict[str, str]) -> dict[str, Any]:
    """What the real ``memdir hook session-start`` prints, as JSON (hooks installed as
    ``memdir hook install claude`` leaves them: Claude Code's own auto memory off)."""
    local = project / ".claude" / "settings.local.json"
    if not local.exists():
        local.parent.mkdir(exist_ok=True)
        local.write_text('{"autoMemoryEnabled": false}\n')
    payload = json.loads((FIXTURES / "hooks" / "session-start.json").read_text())
    payload["cwd"] = str(project)
    done = subprocess.run(
        [sys.executable, "-m", "memdir", "hook", "session-start"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        timeout=DEADLINE,
        check=True,
    )
    assert done.stderr == ""
    output: dict[str, Any] = json.loads(done.stdout)
    return output


def started_job(
    base: Path,
    project: Path,
    transcript: Path,
    run_id: str,
    *,
    event: Event = "stop",
    start: str = "{}",
) -> JobRequest:
    """The request of a job whose start file (``start``) a hook left in ``base``'s runs."""
    (base / "runs").mkdir(parents=True, exist_ok=True)
    (base / "runs" / f"{run_id}.json").write_text(start)
    return JobRequest(
        event=event, session_id=SESSION, project=str(project),
        transcript=str(transcript), run_ids=(run_id,),
    )  # fmt: skip


def run_started_job(
    project: Path,
    transcript: Path,
    run_id: str,
    env: Mapping[str, str],
    *,
    event: Event = "stop",
    start: str = "{}",
) -> list[JobReport]:
    """A job a hook started in ``project`` (:func:`started_job`), run as the serialised
    job runner runs it, with ``env`` on top of this environment."""
    base = hooks_dir(Memdir.open(project).layout)
    request = started_job(base, project, transcript, run_id, event=event, start=start)
    return run_serialised(request, env={**os.environ, **env})


def failed_job(project: Path, transcript: Path, run_id: str = "20250101T000000-aaaaaaaa") -> None:
    """A job that fails: its provider is named, but the key it needs is not set."""
    start = json.dumps({"run_id": run_id, "pid": 1})
    env = {"MEMDIR_PROVIDER": "anthropic"}
    [report] = run_started_job(project, transcript, run_id, env, start=start)
    assert report.status == "failed"


# -- a key in the environment is not consent ---------------------------------------------


@pytest.mark.parametrize("event", ["stop", "pre-compact", "session-end"])
def test_a_hook_job_with_only_claude_codes_key_skips_and_sends_nothing(
    project: Path, mem: Memdir, transcript: Path, event: str
) -> None:
    with run_stand_in([]) as api:
        env = job_env(ANTHROPIC_API_KEY="sk-ant-from-claude-code", ANTHROPIC_BASE_URL=api.url)
        marker = run_hook_job(event, project, transcript, env)
    assert marker["status"] == "skipped"
    assert marker["reason"] == "no model configured for background work"
    assert marker["fix"].startswith("set MEMDIR_PROVIDER=anthropic (uses ANTHROPIC_API_KEY)")
    assert str(Path(os.environ["MEMDIR_HOME"]) / "config.toml") in marker["fix"]
    assert api.requests == []


def test_the_same_job_spends_the_key_once_memdir_provider_names_the_provider(
    project: Path, mem: Memdir, transcript: Path
) -> None:
    pytest.importorskip("anthropic")
    with run_stand_in([]) as api:
        env = job_env(
            MEMDIR_PROVIDER="anthropic",
            ANTHROPIC_API_KEY="sk-ant-configured",
            ANTHROPIC_BASE_URL=api.url,
        )
        marker = run_hook_job("pre-compact", project, transcript, env)
    assert marker["status"] == "done", marker
    sent_requests = [r for r in api.requests if r.path.startswith("/v1/messages")]
    assert sent_requests, "the configured provider sent no request"
    headers = sent_requests[0].headers
    sent = headers.get("x-api-key", "") + headers.get("authorization", "")
    assert "sk-ant-configured" in sent


def test_the_provider_in_memdirs_settings_file_counts_as_configured(
    project: Path, mem: Memdir, transcript: Path, memdir_home: Path
) -> None:
    (memdir_home / "config.toml").write_text('provider = "openai"\n')
    report = run_job(
        event="stop", session_id=SESSION, project=project, transcript=transcript,
        env={**os.environ, "ANTHROPIC_API_KEY": "k"},
    )  # fmt: skip
    # openai named, and neither its key nor its URL set: a failure that says so, not a skip.
    assert (report.status, report.reason) == (
        "failed", "MEMDIR_PROVIDER=openai but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set"
    )  # fmt: skip
    assert report.fix.startswith("set OPENAI_API_KEY")


def test_provider_none_skips_quietly(project: Path, mem: Memdir, transcript: Path) -> None:
    report = run_job(
        event="stop", session_id=SESSION, project=project, transcript=transcript,
        env={**os.environ, "MEMDIR_PROVIDER": "none", "ANTHROPIC_API_KEY": "k"},
    )  # fmt: skip
    assert report.status == "skipped" and report.fix == ""
    assert report.reason.startswith("model steps are off")


@pytest.mark.parametrize("configured", [False, True], ids=["key-only", "provider-named"])
def test_recall_by_model_in_the_prompt_hook_needs_a_named_provider(
    project: Path, mem: Memdir, configured: bool
) -> None:
    if configured:
        pytest.importorskip("anthropic")
    mem.write(name="Deploy window", description="Deploys happen on Tuesdays", type="project")
    payload = json.loads((FIXTURES / "hooks" / "user-prompt-submit.json").read_text())
    payload.update(cwd=str(project), prompt="when is the deploy window this week?")
    with run_stand_in([]) as api:
        env = job_env(ANTHROPIC_API_KEY="sk-ant-from-claude-code", ANTHROPIC_BASE_URL=api.url)
        if configured:
            env["MEMDIR_PROVIDER"] = "anthropic"
        done = subprocess.run(
            [sys.executable, "-m", "memdir", "hook", "user-prompt-submit", "--model"],
            input=json.dumps(payload), capture_output=True, text=True, env=env,
            timeout=DEADLINE, check=True,
        )  # fmt: skip
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Deploy window" in context  # recalled either way (lexically without a model)
    assert bool(api.requests) is configured


# -- failures say so, with the fix -------------------------------------------------------


def test_a_provider_whose_package_is_missing_fails_the_job_and_doctor_reports_it(
    project: Path, mem: Memdir, transcript: Path, tmp_path: Path
) -> None:
    # `pip install 'memdir[mcp]'` has no anthropic package: shadow the installed one.
    shadow = tmp_path / "no-anthropic" / "anthropic"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('anthropic is not installed')\n")
    env = job_env(MEMDIR_PROVIDER="anthropic", ANTHROPIC_API_KEY="k")
    env["PYTHONPATH"] = f"{shadow.parent}{os.pathsep}{env['PYTHONPATH']}"
    marker = run_hook_job("stop", project, transcript, env)
    assert marker["status"] == "failed"
    assert marker["reason"] == "the Anthropic provider needs the anthropic package"
    assert marker["fix"] == "pip install 'memdir[anthropic]'"

    result = CliRunner().invoke(main, ["doctor", "--project", str(project)])
    assert result.exit_code == 1
    assert "all good" not in result.output
    [line] = [ln for ln in result.output.splitlines() if ln.startswith("[background]")]
    assert "failed (Stop hook," in line
    assert line.endswith(
        "the Anthropic provider needs the anthropic package. Fix: pip install 'memdir[anthropic]'"
    )
    as_json = json.loads(
        CliRunner().invoke(main, ["doctor", "--json", "--project", str(project)]).output
    )
    assert as_json["ok"] is False
    assert as_json["background"]["status"] == "failed"


def test_a_model_call_that_fails_fails_the_job(
    project: Path, mem: Memdir, transcript: Path
) -> None:
    refused = ScriptedProvider(ProviderAuthError("the key was refused"))
    provider = Router(notes=refused, extractor=ScriptedProvider())
    report = session_job("pre-compact", project, transcript, provider)
    assert report.status == "failed"
    assert report.reason.startswith("session notes update failed: ")
    assert "the key was refused" in report.reason
    assert "MEMDIR_PROVIDER" in report.fix


def test_doctor_names_a_job_skipped_for_want_of_a_model_without_failing(
    project: Path, mem: Memdir, transcript: Path
) -> None:
    run_id = "20250101T000000-bbbbbbbb"
    [report] = run_started_job(project, transcript, run_id, {"ANTHROPIC_API_KEY": "k"})
    assert report.status == "skipped"
    result = CliRunner().invoke(main, ["doctor", "--project", str(project)])
    assert result.exit_code == 0
    assert "all good" not in result.output
    assert "[background] background session notes and extraction skipped" in result.output
    assert "Fix: set MEMDIR_PROVIDER=anthropic (uses ANTHROPIC_API_KEY)" in result.output


def test_doctor_stays_quiet_about_jobs_that_went_well_or_were_turned_off(
    project: Path, mem: Memdir, transcript: Path
) -> None:
    run_started_job(project, transcript, "20250101T000000-cccccccc", {"MEMDIR_PROVIDER": "none"})
    assert last_run(hooks_dir(mem.layout) / "runs") is not None
    assert run_problem(mem.layout) is None
    result = CliRunner().invoke(main, ["doctor", "--project", str(project)])
    assert (result.exit_code, result.output) == (0, "all good\n")


# -- the next session start says it, once --------------------------------------------------


def test_the_next_session_start_shows_a_failed_job_once_to_the_user(
    project: Path, mem: Memdir, transcript: Path
) -> None:
    failed_job(project, transcript)
    env = job_env()
    first = session_start(project, env)
    message = first["systemMessage"]
    assert message.startswith("memdir: background session notes and extraction failed (Stop")
    assert "MEMDIR_PROVIDER=anthropic but ANTHROPIC_API_KEY is not set" in message
    assert "Fix: set ANTHROPIC_API_KEY" in message
    assert "\n" not in message
    # For the user, not the model.
    assert "MEMDIR_PROVIDER" not in first["hookSpecificOutput"]["additionalContext"]
    second = session_start(project, env)
    assert "systemMessage" not in second
    assert second["hookSpecificOutput"] == first["hookSpecificOutput"]
    # A new failure is news again.
    failed_job(project, transcript, run_id="20250101T000100-dddddddd")
    assert "systemMessage" in session_start(project, env)


def test_a_job_skipped_for_want_of_a_model_is_announced_and_a_job_that_went_well_is_not(
    project: Path, mem: Memdir, transcript: Path
) -> None:
    base = hooks_dir(mem.layout)
    run_id = "20250101T000000-eeeeeeee"
    run_started_job(project, transcript, run_id, {"ANTHROPIC_API_KEY": "k"}, event="session-end")
    notice = session_notice(project, env=os.environ)
    assert notice is not None and "(SessionEnd hook," in notice
    assert "no model configured for background work" in notice
    assert session_notice(project, env=os.environ) is None  # shown once
    done = {"status": "done", "event": "stop", "session_id": SESSION, "steps": ["ok"]}
    (base / "runs" / "20250101T000200-ffffffff.json").write_text("{}")
    (base / "runs" / "20250101T000200-ffffffff.done").write_text(json.dumps(done))
    assert session_notice(project, env=os.environ) is None


# -- what the run files say ----------------------------------------------------------------


def test_a_start_that_never_got_its_marker_and_whose_process_is_gone_reads_as_failed(
    mem: Memdir,
) -> None:
    runs = hooks_dir(mem.layout) / "runs"
    runs.mkdir(parents=True)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    start = runs / "20250101T000000-00000000.json"
    start.write_text(json.dumps({"pid": gone.pid, "event": "stop", "session_id": SESSION}))
    assert last_run(runs).status == "running"  # type: ignore[union-attr]  # too young to tell
    two_hours_ago = start.stat().st_mtime - 7200
    os.utime(start, (two_hours_ago, two_hours_ago))
    lost = last_run(runs)
    assert lost is not None and lost.status == "failed" and lost.notable
    assert lost.reason.startswith("the job ended without a report")
    assert lost.fix.endswith(f"logs/{SESSION}.log")


def test_a_marker_from_before_reasons_were_recorded_takes_its_reason_from_the_last_step(
    mem: Memdir,
) -> None:
    runs = hooks_dir(mem.layout) / "runs"
    runs.mkdir(parents=True)
    old = {"status": "failed", "event": "stop", "session_id": SESSION, "steps": ["a", "b broke"]}
    (runs / "20250101T000000-11111111.json").write_text("{}")
    (runs / "20250101T000000-11111111.done").write_text(json.dumps(old))
    status = last_run(runs)
    assert status is not None and (status.reason, status.fix) == ("b broke", "")


def test_only_the_newest_runs_are_kept(mem: Memdir) -> None:
    runs = hooks_dir(mem.layout) / "runs"
    runs.mkdir(parents=True)
    ids = [f"20250101T{i:06d}-00000000" for i in range(KEEP_RUNS + 5)]
    for run_id in ids:
        (runs / f"{run_id}.json").write_text("{}")
        (runs / f"{run_id}.done").write_text("{}")
    assert prune_runs(runs) == 5
    left = sorted(p.name for p in runs.iterdir())
    assert left == sorted([f"{i}.json" for i in ids[5:]] + [f"{i}.done" for i in ids[5:]])


# -- SessionEnd ----------------------------------------------------------------------------


def test_session_end_brings_existing_notes_up_to_date(
    project: Path, mem: Memdir, transcript: Path
) -> None:
    path, notes = notes_adding(mem, "Rounding fixed with Decimal.quantize.\n")
    provider = notes_router(notes, extractions=6)
    assert session_job("pre-compact", project, transcript, provider).status == "done"
    more = [
        {"parentUuid": "a8", "isSidechain": False, "type": "user", "uuid": "u3",
         "message": {"role": "user", "content": "Also note the EUR case in the changelog."}},
        {"parentUuid": "u3", "isSidechain": False, "type": "assistant", "uuid": "a9",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "Noted."}]}},
    ]  # fmt: skip
    with transcript.open("a") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in more)
    second = "Changelog entry for the EUR case added.\n"
    notes.add(edit(path, CURRENT, CURRENT + second), "Updated.")
    report = session_job("session-end", project, transcript, provider)
    assert report.status == "done", report.steps
    assert "session notes updated" in report.steps
    assert second in path.read_text() and notes.pending == 0


def test_session_end_of_a_short_session_without_notes_calls_no_model_for_them(
    project: Path, mem: Memdir, transcript: Path
) -> None:
    notes = ScriptedProvider()  # any call would fail the job
    provider = notes_router(notes, extractions=6)
    report = session_job("session-end", project, transcript, provider)
    assert report.status == "done", report.steps
    assert notes.requests == []
    assert not mem.layout.session_notes_path(SESSION).exists()


# -- spend: every call recorded, a daily cap --------------------------------------------


def ledger() -> SpendLedger:
    return SpendLedger.for_env(os.environ)


def test_every_model_call_of_a_job_is_recorded_in_the_days_ledger(
    project: Path, mem: Memdir, transcript: Path
) -> None:
    provider = Router(notes=ScriptedProvider("Nothing to add."), extractor=ScriptedProvider("ok"))
    report = session_job(
        "pre-compact", project, transcript, provider, run_id="20250101T000000-abcdefab"
    )
    assert report.status == "done", report.steps
    day = ledger().day()
    assert day.calls == 2 and day.tokens > 0
    assert [run for run, _ in day.runs] == ["20250101T000000-abcdefab"]
    lines = ledger().path(day.day).read_text().splitlines()
    assert {json.loads(line)["job"] for line in lines} == {"session_notes", "extract"}


def test_the_daily_cap_stops_a_job_and_the_next_session_start_says_so_once(
    project: Path, mem: Memdir, transcript: Path, memdir_home: Path
) -> None:
    (memdir_home / "config.toml").write_text("daily_token_cap = 1000\n")
    ledger().record(Usage(input_tokens=990, output_tokens=20), project="/other", run="r0",
                    model="m")  # fmt: skip
    base = hooks_dir(mem.layout)
    reports = []
    for run_id in ("20250101T000000-0000000a", "20250101T000100-0000000b"):
        notes, extractor = ScriptedProvider(), ScriptedProvider()  # any call would fail
        request = started_job(base, project, transcript, run_id, event="pre-compact")
        reports.append(_run_with(request, Router(notes=notes, extractor=extractor)))
        assert notes.requests == [] and extractor.requests == []
    first, later = reports
    assert (first.status, later.status) == ("skipped", "skipped")
    assert first.reason.startswith("the daily token cap for background work (1,000 tokens)")
    assert "daily_token_cap" in first.fix and "daily_token_cap" in later.fix
    assert (first.quiet, later.quiet) == (False, True)  # announced once a day
    notice = session_notice(project, env=os.environ)
    assert notice is not None and "daily token cap" in notice and "\n" not in notice
    assert session_notice(project, env=os.environ) is None
    doctor = CliRunner().invoke(main, ["doctor", "--project", str(project)])
    assert doctor.exit_code == 0  # a skip is a choice to make, not a fault
    [spend] = [line for line in doctor.output.splitlines() if line.startswith("[spend]")]
    assert "1,010 tokens" in spend and "of the daily cap of 1,000" in spend


def _run_with(request: JobRequest, provider: Router) -> Any:
    report = run_job(
        event=request.event, session_id=request.session_id, project=request.project,
        transcript=request.transcript, env=os.environ, provider=provider,
        run_id=request.run_ids[0],
    )  # fmt: skip
    base = hooks_dir(Memdir.open(request.project).layout)
    marker = dataclasses.replace(report, run_ids=request.run_ids, finished="2025-01-01T00:00:00")
    (base / "runs" / f"{request.run_ids[0]}.done").write_text(
        json.dumps(dataclasses.asdict(marker))
    )
    return report


def test_doctor_shows_todays_spend_once_a_provider_is_named(
    project: Path, mem: Memdir, memdir_home: Path
) -> None:
    quiet = CliRunner().invoke(main, ["doctor", "--project", str(project)])
    assert "[spend]" not in quiet.output
    (memdir_home / "config.toml").write_text('provider = "claude-code"\n')
    named = CliRunner().invoke(main, ["doctor", "--json", "--project", str(project)])
    assert json.loads(named.output)["spend"] == (
        "background model use today: 0 tokens, of the daily cap of 200,000"
    )


# -- inside memdir's own claude -p ----------------------------------------------------------


def test_in_memdirs_claude_child_the_hooks_and_the_job_do_nothing(
    project: Path, mem: Memdir, transcript: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memdir.hooks.background import main as job_main
    from memdir.hooks.entry import dispatch
    from memdir.llm.claude_code import CHILD_ENV

    monkeypatch.setenv(CHILD_ENV, "1")
    for hook in ("session-start", "user-prompt-submit", "pre-tool-use", "stop", "session-end"):
        assert dispatch(["hook", hook]) == 0
    assert dispatch(["hook", "install", "claude"]) is None  # a person's command still runs
    args = ["run", "--event=stop", f"--session={SESSION}", f"--project={project}",
            "--run-id=20250101T000000-99999999", f"--transcript={transcript}"]  # fmt: skip
    assert job_main(args) == 0
    assert not (hooks_dir(mem.layout) / "runs").exists()
