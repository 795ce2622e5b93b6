"""The restricted sub-agent: tool policies, limits, usage, and the serial background runner."""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from background.helpers import edit, tool_results
from memdir.agents.limits import JobLimits
from memdir.agents.runner import AgentStop, RunReport, SerialRunner, run_agent
from memdir.agents.session.notes import ensure_notes_file, notes_file_policy
from memdir.agents.session.template import DEFAULT_TEMPLATE
from memdir.errors import ProviderError
from memdir.llm import Completion, Request, Usage
from memdir.testing import ScriptedProvider, tool_use

WAIT = 10.0
SIX_TURNS = JobLimits(max_turns=6)


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    path = tmp_path / "sessions" / "s1" / "session-memory" / "summary.md"
    ensure_notes_file(path, DEFAULT_TEMPLATE)
    return path


def run_notes_job(
    provider: ScriptedProvider, notes: Path, limits: JobLimits = SIX_TURNS
) -> RunReport:
    return run_agent(
        provider,
        job="session_notes",
        system="keep notes",
        prompt="update the notes",
        policy=notes_file_policy(notes),
        limits=limits,
    )


def test_notes_policy_refuses_another_file_another_tool_and_a_traversal_path(
    notes: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other.md"
    traversal = f"{notes.parent}/../../s1/session-memory/summary.md"
    provider = ScriptedProvider(
        edit(other, "a", "b"),
        tool_use("write_file", {"file_path": str(notes), "content": "gone"}),
        tool_use("edit_file", {"file_path": traversal, "old_string": "#", "new_string": "x"}),
        "done",
    )
    before = notes.read_text()

    report = run_notes_job(provider, notes)

    assert report.ok and report.refused == 3 and report.tool_calls == 3
    allowed = f"only edit_file and read_file on {notes} are allowed"
    for request in provider.requests[1:]:
        (result,) = tool_results(request)[-1:]
        assert result.is_error and allowed in result.content
    assert "'write_file' is not available" in tool_results(provider.requests[2])[-1].content
    assert notes.read_text() == before
    assert not other.exists()


def test_notes_policy_allows_edit_and_read_of_the_notes_file(notes: Path) -> None:
    old = "# Current State\n"
    provider = ScriptedProvider(
        tool_use("read_file", {"file_path": str(notes)}),
        edit(notes, old, old + "_placeholder_\n"),
        "done",
    )
    report = run_notes_job(provider, notes)
    assert report.ok and report.refused == 0
    assert tool_results(provider.requests[1])[0].content == DEFAULT_TEMPLATE
    assert "_placeholder_" in notes.read_text()


def test_an_edit_that_does_not_match_is_an_error_result_not_a_refusal(notes: Path) -> None:
    provider = ScriptedProvider(edit(notes, "not in the file", "x"), "done")
    report = run_notes_job(provider, notes)
    assert [e.outcome for e in report.events] == ["error"]
    assert "was not found" in tool_results(provider.requests[1])[0].content
    assert notes.read_text() == DEFAULT_TEMPLATE


def test_the_turn_limit_stops_a_model_that_keeps_calling_tools(notes: Path) -> None:
    provider = ScriptedProvider(*(tool_use("read_file", {"file_path": str(notes)}),) * 5)
    report = run_notes_job(provider, notes, JobLimits(max_turns=3))
    assert report.stop_reason is AgentStop.MAX_TURNS and not report.ok
    assert report.turns == 3 and len(provider.requests) == 3 and provider.pending == 2


def test_usage_is_the_sum_of_every_call_of_the_run(notes: Path) -> None:
    provider = ScriptedProvider(
        Completion(
            tool_calls=tool_use("read_file", {"file_path": str(notes)}).tool_calls,
            usage=Usage(input_tokens=100, output_tokens=7),
        ),
        Completion(text="done", usage=Usage(input_tokens=150, output_tokens=3)),
    )
    report = run_notes_job(provider, notes)
    assert report.usage == Usage(input_tokens=250, output_tokens=10)
    assert report.turns == 2 and report.final_text == "done"


def test_a_run_stops_before_a_call_that_would_pass_its_token_budget(notes: Path) -> None:
    provider = ScriptedProvider("done")
    report = run_notes_job(provider, notes, replace(SIX_TURNS, token_budget=50, max_tokens=100))
    assert report.stop_reason is AgentStop.BUDGET and report.error
    assert "token budget" in report.error and provider.requests == []


def test_a_run_stops_once_its_budget_is_spent(notes: Path) -> None:
    expensive = Completion(
        tool_calls=tool_use("read_file", {"file_path": str(notes)}).tool_calls,
        usage=Usage(input_tokens=10_000, output_tokens=0),
    )
    provider = ScriptedProvider(expensive, "done")
    report = run_notes_job(provider, notes, replace(SIX_TURNS, token_budget=10_200, max_tokens=16))
    assert report.stop_reason is AgentStop.BUDGET and report.turns == 1
    assert provider.pending == 1


def test_a_provider_error_ends_the_run_with_a_report_not_an_exception(notes: Path) -> None:
    provider = ScriptedProvider(ProviderError("the endpoint is down"))
    report = run_notes_job(provider, notes)
    assert report.stop_reason is AgentStop.ERROR and not report.ok
    assert report.error is not None and "the endpoint is down" in report.error


def test_an_answer_cut_off_at_max_tokens_is_not_a_success(notes: Path) -> None:
    from memdir.llm import StopReason

    provider = ScriptedProvider(Completion(text="I will now", stop_reason=StopReason.MAX_TOKENS))
    report = run_notes_job(provider, notes)
    assert report.stop_reason is AgentStop.MAX_TOKENS and not report.ok


def test_the_tools_offered_are_exactly_the_policy_tools(notes: Path) -> None:
    provider = ScriptedProvider("done")
    run_notes_job(provider, notes)
    assert [t.name for t in provider.requests[0].tools] == ["edit_file", "read_file"]


# --- the serial runner ----------------------------------------------------------------


def test_ten_submissions_during_a_run_become_one_trailing_run() -> None:
    started, release = threading.Event(), threading.Event()
    seen: list[int] = []

    def job(value: int) -> int:
        seen.append(value)
        if value == 0:
            started.set()
            assert release.wait(WAIT)
        return value

    runner: SerialRunner[int] = SerialRunner(job, name="memdir-test-job")
    runner.submit(0)
    assert started.wait(WAIT)
    for value in range(1, 11):
        assert runner.submit(value)
    assert runner.busy
    release.set()
    assert runner.drain(WAIT)
    assert seen == [0, 10]
    assert runner.runs == 2 and runner.results == [0, 10]


def test_the_runner_uses_a_named_non_daemon_thread() -> None:
    threads: list[threading.Thread] = []
    runner: SerialRunner[None] = SerialRunner(
        lambda _: threads.append(threading.current_thread()), name="memdir-named"
    )
    runner.submit(None)
    assert runner.drain(WAIT)
    assert threads[0].name == "memdir-named" and not threads[0].daemon
    assert threads[0] is not threading.current_thread()


def test_a_failing_job_is_logged_and_counted_never_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def job(_: None) -> None:
        raise RuntimeError("boom")

    runner: SerialRunner[None] = SerialRunner(job, name="memdir-failing")
    with caplog.at_level(logging.ERROR, logger="memdir.agents.runner"):
        runner.submit(None)
        assert runner.drain(WAIT)
    assert runner.failures == 1 and runner.runs == 1
    assert "memdir-failing failed" in caplog.text
    runner.submit(None)  # still usable after a failure
    assert runner.drain(WAIT) and runner.runs == 2


# The exit still ends the thread (it is re-raised there): pytest reports that as a warning.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_job_that_exits_its_thread_leaves_the_runner_idle() -> None:
    def job(_: None) -> None:
        raise SystemExit(3)

    runner: SerialRunner[None] = SerialRunner(job, name="memdir-exiting")
    runner.submit(None)
    assert runner.drain(WAIT) and not runner.busy
    assert runner.close(WAIT)


def test_a_closed_runner_refuses_new_work() -> None:
    runner: SerialRunner[int] = SerialRunner(lambda v: v, name="memdir-closed")
    runner.submit(1)
    assert runner.close(WAIT)
    assert runner.submit(2) is False
    assert runner.results == [1]


def test_drain_reports_a_timeout_while_a_run_is_held() -> None:
    release = threading.Event()
    started = threading.Event()

    def job(_: None) -> None:
        started.set()
        release.wait(WAIT)

    runner: SerialRunner[None] = SerialRunner(job, name="memdir-held")
    runner.submit(None)
    assert started.wait(WAIT)
    assert runner.drain(timeout=0) is False
    release.set()
    assert runner.drain(WAIT)


def test_requests_carry_the_system_prompt_and_the_job_prompt(notes: Path) -> None:
    provider = ScriptedProvider("done")
    run_notes_job(provider, notes)
    request: Request = provider.requests[0]
    assert request.system == "keep notes"
    assert request.messages[0].text == "update the notes"
