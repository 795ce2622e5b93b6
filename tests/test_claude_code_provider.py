"""Background work through the user's own Claude Code: ``MEMDIR_PROVIDER=claude-code``.

Every test drives the pinned ``claude`` CLI (see :mod:`claude_code`) against the local
stand-in for the Messages API (:mod:`claude_api`), which answers memdir's ``claude -p``
children with a second script and records every request, so a test sees what each
child sent: its system prompt, its tools, its length limit, and whether any hook of the
parent session reached it. The first tests call the provider directly; the rest run a
Claude Code session with memdir's hooks installed and let its Stop hook's background
job do the work.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from claude_api import Recorded, StandIn, Turn, request_texts, run_stand_in, system_text
from claude_code import CLAUDE_PATH, Sandbox, claude_binary, sandbox
from memdir.errors import ProviderAuthError, ProviderError
from memdir.hooks.background import hooks_dir
from memdir.llm import Message, Request, StopReason, ToolCall, ToolResult, ToolSpec
from memdir.llm.claude_code import (
    CHILD_ENV,
    CHILD_SYSTEM_MARK,
    ClaudeCodePaused,
    ClaudeCodeProvider,
    child_environment,
)

pytestmark = pytest.mark.claude_code

WRITE = ToolSpec(
    name="write_memory",
    description="Create a memory.",
    input_schema={"type": "object", "properties": {"name": {"type": "string"}}},
)
FREEZE = {
    "name": "Deploy freeze",
    "description": "Deploys are frozen until the billing migration lands",
    "type": "project",
    "body": "Hold every release until 2026-12-15.\n**Why:** the billing migration.",
}
SaveCall = {"text": "", "tool_calls": [{"name": "write_memory", "arguments": FREEZE}]}
DONE = {"text": "Saved the deploy freeze.", "tool_calls": []}
LOOPBACK = "http://127.0.0.1:9"  # nothing is sent: the test switch allows only loopback


def is_child(recorded: Recorded) -> bool:
    """A request from one of memdir's ``claude -p`` children (its system prompt's mark)."""
    return CHILD_SYSTEM_MARK in system_text(recorded.body)


def children(api: StandIn) -> list[Recorded]:
    return [r for r in api.recorded() if is_child(r)]


def child_script(answer: Callable[[dict[str, Any]], Turn]) -> Callable[[dict[str, Any]], Turn]:
    """Answer memdir's children with ``answer``; Claude Code's own side calls with text."""

    def script(body: dict[str, Any]) -> Turn:
        return answer(body) if CHILD_SYSTEM_MARK in system_text(body) else Turn(text="ok")

    return script


def extraction(body: dict[str, Any]) -> Turn:
    """The extraction's model: save the freeze, then, given the tool's result, finish."""
    saved = any("created private:" in text for text in request_texts(body))
    return Turn(text=json.dumps(DONE if saved else SaveCall))


# -- the provider on its own ---------------------------------------------------------------


@pytest.fixture
def api() -> Iterator[StandIn]:
    with run_stand_in([]) as server:
        yield server


def client_env(home: Path, api: StandIn) -> dict[str, str]:
    home.mkdir(exist_ok=True)
    return {
        "PATH": CLAUDE_PATH,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "ANTHROPIC_BASE_URL": api.url,
        "ANTHROPIC_API_KEY": "sk-ant-test-000",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
    }


def provider(tmp_path: Path, api: StandIn, **options: Any) -> ClaudeCodeProvider:
    return ClaudeCodeProvider(
        env=client_env(tmp_path / "home", api),
        state_dir=tmp_path / "state",
        command=str(claude_binary()),
        cwd=tmp_path,
        **options,
    )


def test_a_call_is_one_claude_child_with_no_tools_and_memdirs_own_system_prompt(
    tmp_path: Path, api: StandIn
) -> None:
    api.script_side(child_script(lambda body: Turn(text=json.dumps(SaveCall))))
    request = Request(
        system="You save memories.",
        messages=(Message.user("Deploys wait for the billing migration."),),
        tools=(WRITE,),
        max_tokens=700,
    )
    completion = provider(tmp_path, api).complete(request)
    (sent,) = api.recorded()
    assert sent.from_claude_code and is_child(sent)
    assert sent.body["tools"] == []  # none of the main agent's, no MCP server's
    assert sent.body["max_tokens"] == 700
    system = system_text(sent.body)
    assert "You save memories." in system and "- write_memory: Create a memory." in system
    assert "Deploys wait for the billing migration." in "\n".join(request_texts(sent.body))
    assert completion.stop_reason is StopReason.TOOL_USE
    assert completion.tool_calls == (ToolCall(id="call_1", name="write_memory", arguments=FREEZE),)
    # What the CLI reported: the stand-in's 10 + 5 tokens, and a price.
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (10, 5)
    assert completion.usage.cost_usd > 0


def test_the_conversation_so_far_with_its_tool_results_is_the_childs_prompt(
    tmp_path: Path, api: StandIn
) -> None:
    api.script_side(child_script(lambda body: Turn(text=json.dumps(DONE))))
    call = ToolCall(id="call_1", name="write_memory", arguments=FREEZE)
    request = Request(
        messages=(
            Message.user("Deploys wait for the billing migration."),
            Message.assistant("", (call,)),
            Message.tool_reply(ToolResult(tool_call_id="call_1", content="created private:x.md")),
        ),
        tools=(WRITE,),
    )
    completion = provider(tmp_path, api).complete(request)
    assert (completion.text, completion.tool_calls) == ("Saved the deploy freeze.", ())
    (sent,) = api.recorded()
    prompt = "\n".join(request_texts(sent.body))
    assert '"name": "write_memory"' in prompt
    assert '<result id="call_1" tool="write_memory">\ncreated private:x.md' in prompt


def test_a_refused_login_fails_at_once_and_pauses_the_provider_instead_of_retrying(
    tmp_path: Path, api: StandIn
) -> None:
    api.script_side(child_script(lambda body: Turn(error=401)))
    now = [1_000_000.0]
    model = provider(tmp_path, api, clock=lambda: now[0])
    request = Request(messages=(Message.user("hello"),))
    with pytest.raises(ProviderAuthError, match="claude -p failed"):
        model.complete(request)
    assert len(api.recorded()) == 1  # the CLI's own retries are off
    reason = model.paused_reason()
    assert reason is not None and "waits until" in reason
    with pytest.raises(ClaudeCodePaused):
        model.complete(request)
    assert len(api.recorded()) == 1  # paused: no child started
    now[0] += 3601  # an hour later it tries once more
    api.script_side(child_script(lambda body: Turn(text="hi")))
    assert model.complete(request).text == "hi"
    assert model.paused_reason() is None


def test_a_child_that_does_not_answer_in_time_is_stopped(tmp_path: Path, api: StandIn) -> None:
    release = threading.Event()

    def hang(body: dict[str, Any]) -> Turn:
        release.wait(60)  # until the test is over: the child must be stopped first
        return Turn(text="late")

    api.script_side(child_script(hang))
    model = provider(tmp_path, api, timeout=8.0)
    try:
        with pytest.raises(ProviderError, match="did not answer within 8 s"):
            model.complete(Request(messages=(Message.user("hello"),)))
    finally:
        release.set()


def test_a_missing_claude_command_is_one_failure_then_a_pause(tmp_path: Path) -> None:
    model = ClaudeCodeProvider(
        env={"PATH": CLAUDE_PATH, "HOME": str(tmp_path), "ANTHROPIC_BASE_URL": LOOPBACK},
        state_dir=tmp_path / "state",
        command=str(tmp_path / "no-claude"),
    )
    request = Request(messages=(Message.user("hello"),))
    with pytest.raises(ProviderError, match=r"cannot find the `.*no-claude` command"):
        model.complete(request)
    with pytest.raises(ClaudeCodePaused, match="cannot find"):
        model.complete(request)


def test_the_childs_environment_carries_the_marker_and_not_the_parent_session() -> None:
    parent = {
        "PATH": "/usr/bin", "ANTHROPIC_API_KEY": "k", "CLAUDECODE": "1",
        "CLAUDE_CODE_SESSION_ID": "s", "CLAUDE_CODE_MESSAGING_SOCKET": "/tmp/x.sock",
        "CLAUDE_PID": "12", "CLAUDE_CONFIG_DIR": "/c",
    }  # fmt: skip
    env = child_environment(parent, max_tokens=900)
    assert env[CHILD_ENV] == "1"
    assert env["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] == "900"
    assert env["CLAUDE_CODE_MAX_RETRIES"] == "0"
    assert {"ANTHROPIC_API_KEY", "CLAUDE_CONFIG_DIR", "PATH"} <= env.keys()
    assert not {"CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CLAUDE_PID"} & env.keys()
    assert not [name for name in env if name.startswith("CLAUDE_CODE_MESSAGING")]


# -- a Claude Code session with memdir's hooks, its Stop job through claude -p ------------


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sandbox]:
    with sandbox(tmp_path, monkeypatch) as made:
        made.memdir("hook", "install", "claude")
        yield made


def use_claude_code(box: Sandbox, **settings: object) -> None:
    """memdir's settings file names the claude-code provider (and ``settings``)."""
    lines = ['provider = "claude-code"', f'claude_code_command = "{box.claude}"']
    lines += [f"{key} = {json.dumps(value)}" for key, value in settings.items()]
    config = box.home / ".memdir" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("\n".join(lines) + "\n")


def starts(box: Sandbox) -> list[dict[str, Any]]:
    """Every background job start recorded in the project, whatever its session."""
    runs = hooks_dir(box.open().layout) / "runs"
    return [json.loads(p.read_text()) for p in sorted(runs.glob("*.json"))]


PROMPT = "Remember: deploys are frozen until the billing migration lands."


def stop_job(box: Sandbox, session_id: str) -> dict[str, Any]:
    """The finished job of the session's Stop hook (SessionEnd's follows it, with nothing
    left to do)."""
    (job,) = [j for j in box.wait_for_jobs(session_id) if j["event"] == "stop"]
    return job


def test_a_stop_hooks_extraction_saves_a_memory_through_the_users_claude(box: Sandbox) -> None:
    use_claude_code(box)
    box.api.script_side(child_script(extraction))
    run = box.run(PROMPT, [Turn(text="Noted.")])
    job = stop_job(box, run.session_id)
    assert job["status"] == "done", job
    assert "Saved 1 memory (0 team)" in job["steps"]
    assert "Hold every release until 2026-12-15." in box.open().get("Deploy freeze").memory.body
    # One chain: the save, then the answer to its result; nothing else.
    first, second = children(box.api)
    assert all(r.from_claude_code and r.body["tools"] == [] for r in (first, second))
    assert not any("created private:" in t for t in request_texts(first.body))
    assert any("created private:" in t for t in request_texts(second.body))
    # No hook of the parent session reached the child, and no second job started.
    (start,) = run.hooks("SessionStart")
    assert start.context and str(box.open().layout.memory_dir) in start.context
    for child in (first, second):
        assert str(box.open().layout.memory_dir) not in "\n".join(request_texts(child.body))
    assert {s["session_id"] for s in starts(box)} == {run.session_id}  # Stop's and SessionEnd's


def test_without_the_provider_setting_no_child_is_ever_started(box: Sandbox) -> None:
    box.api.script_side(child_script(extraction))
    run = box.run(PROMPT, [Turn(text="Noted.")])
    assert stop_job(box, run.session_id)["status"] == "skipped"
    assert children(box.api) == []
    assert box.open().list() == []


def test_in_memdirs_child_no_memdir_hook_answers_or_starts_a_job(box: Sandbox) -> None:
    run = box.run("hello", [Turn(text="Hi.")], env={CHILD_ENV: "1"})
    hooks = run.hooks()
    assert {"SessionStart", "UserPromptSubmit", "Stop"} <= {h.event for h in hooks}
    assert [(h.name, h.stdout, h.exit_code) for h in hooks if h.stdout.strip() or h.exit_code] == []
    assert starts(box) == []


def test_a_failed_child_is_shown_once_and_the_next_job_starts_no_child(box: Sandbox) -> None:
    use_claude_code(box)
    box.api.script_side(child_script(lambda body: Turn(error=401)))
    first = box.run(PROMPT, [Turn(text="Noted.")])
    failed = stop_job(box, first.session_id)
    assert failed["status"] == "failed", failed
    assert "claude -p failed" in failed["reason"]
    assert len(children(box.api)) == 1
    second = box.run("And the release train?", [Turn(text="Tuesdays.")])
    (shown,) = [h.system_message for h in second.hooks("SessionStart") if h.system_message]
    assert "failed" in shown and "claude -p failed" in shown and "\n" not in shown
    paused = stop_job(box, second.session_id)
    assert (paused["status"], paused["quiet"]) == ("skipped", True)
    assert "waits until" in paused["reason"]
    assert len(children(box.api)) == 1  # no second child, no retry
    third = box.run("hello", [Turn(text="Hi.")])
    assert [h.system_message for h in third.hooks("SessionStart") if h.system_message] == []
    doctor = box.memdir("doctor", check=False).stdout  # still says why nothing is learnt
    (line,) = [line for line in doctor.splitlines() if line.startswith("[background]")]
    assert "waits until" in line and "claude -p hello" in line


def test_the_daily_cap_stops_the_next_job_and_the_next_session_start_says_so(
    box: Sandbox,
) -> None:
    use_claude_code(box, daily_token_cap=20)  # one extraction's two children spend 30
    box.api.script_side(child_script(extraction))
    first = box.run(PROMPT, [Turn(text="Noted.")])
    assert stop_job(box, first.session_id)["status"] == "done"
    second = box.run("Also: releases leave on Tuesdays.", [Turn(text="Noted.")])
    stopped = stop_job(box, second.session_id)
    assert stopped["status"] == "skipped"
    assert stopped["reason"].startswith("the daily token cap for background work (20 tokens)")
    assert "daily_token_cap" in stopped["fix"]
    assert len(children(box.api)) == 2  # the first job's; the second spent nothing
    third = box.run("hello", [Turn(text="Hi.")])
    (shown,) = [h.system_message for h in third.hooks("SessionStart") if h.system_message]
    assert "daily token cap" in shown and "\n" not in shown
    doctor = box.memdir("doctor", check=False).stdout
    (spend,) = [line for line in doctor.splitlines() if line.startswith("[spend]")]
    assert "30 tokens" in spend and "of the daily cap of 20" in spend
    assert "the cap stopped background work at" in spend
