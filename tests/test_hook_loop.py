"""Memory inside the agent loop, driven by recorded Claude Code hook JSON through processes.

The hooks are installed with ``memdir hook install claude``, then each event
runs the command it wrote the way Claude Code runs it (through ``/bin/sh``, in a
fresh process) with a recorded payload on stdin: session start,
a prompt, a tool call a feedback memory forbids, and the same call after the
memory is edited.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from memdir.api import Memdir
from memdir.hosts.claude_code import install_claude_hooks
from memdir.hosts.launch import launch_for
from memutil import save_rule

FIXTURES = Path(__file__).parent / "fixtures" / "hooks"
RULE = {"tool": "Bash", "match": r"\bnpm (install|i|run)\b", "action": "deny"}
PNPM_BODY = (
    "Use pnpm for every package command, never npm.\n"
    "**Why:** npm rewrote pnpm-lock.yaml and broke the release build.\n"
    "**How to apply:** installs, scripts and CI steps.\n"
)


def recorded(event: str, project: Path, **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{event}.json").read_text())
    return {**data, "cwd": str(project), **overrides}


def installed_commands(project: Path) -> dict[str, str]:
    """Each event's command, as ``memdir hook install claude`` wrote it."""
    install_claude_hooks(project, launch_for(os.environ))
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    return {event: groups[-1]["hooks"][0]["command"] for event, groups in settings["hooks"].items()}


def run_hook(command: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    """Run an installed hook command the way Claude Code does; its JSON answer, or None."""
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else None


def test_a_session_is_told_denied_and_then_allowed_as_the_feedback_memory_changes(
    mem: Memdir, project: Path
) -> None:
    description = "package installs in this repo go through pnpm, npm breaks the lockfile"
    save_rule(mem, "Use pnpm, never npm", RULE, description=description, body=PNPM_BODY)
    commands = installed_commands(project)

    start = run_hook(commands["SessionStart"], recorded("session-start", project))
    assert start is not None
    assert "Use pnpm, never npm" in start["hookSpecificOutput"]["additionalContext"]

    prompt = recorded("user-prompt-submit", project, prompt="install left-pad with npm please")
    recalled = run_hook(commands["UserPromptSubmit"], prompt)
    assert recalled is not None
    output = recalled["hookSpecificOutput"]
    assert output["hookEventName"] == "UserPromptSubmit"
    assert 'file="use_pnpm_never_npm.md"' in output["additionalContext"]
    assert "saved=" in output["additionalContext"]  # the age note rides along
    # The same session is never shown the same memory twice.
    assert run_hook(commands["UserPromptSubmit"], prompt) is None

    call = recorded("pre-tool-use", project)
    denied = run_hook(commands["PreToolUse"], call)
    assert denied is not None
    decision = denied["hookSpecificOutput"]
    assert decision["hookEventName"] == "PreToolUse"
    assert decision["permissionDecision"] == "deny"
    assert '"Use pnpm, never npm"' in decision["permissionDecisionReason"]
    assert "npm rewrote pnpm-lock.yaml" in decision["permissionDecisionReason"]

    # The user edits the memory by hand: npm is fine for scripts now, installs only ask.
    record = mem.get("Use pnpm, never npm")
    path = mem.layout.memory_dir / record.file
    path.write_text(path.read_text().replace("(install|i|run)", "(publish)"))
    assert run_hook(commands["PreToolUse"], call) is None

    other = recorded("pre-tool-use", project, tool_input={"command": "npm publish"})
    assert (
        run_hook(commands["PreToolUse"], other)["hookSpecificOutput"][  # type: ignore[index]
            "permissionDecision"
        ]
        == "deny"
    )


def test_a_hook_with_no_memory_home_yet_answers_nothing(project: Path) -> None:
    launch = launch_for(os.environ)
    call = recorded("pre-tool-use", project)
    assert run_hook(launch.hook_command("pre-tool-use"), call) is None
    prompt = recorded("user-prompt-submit", project)
    assert run_hook(launch.hook_command("user-prompt-submit"), prompt) is None


def test_each_prompt_gets_at_most_five_memories_and_never_one_shown_before(
    mem: Memdir, project: Path
) -> None:
    from memdir.hooks.entry import user_prompt_submit

    for n in range(8):
        mem.write(
            name=f"Checkout retries {n}",
            description=f"checkout service retries payment webhooks, case {n}",
            type="project",
            body=f"The checkout service retries payment webhooks (case {n}).\n",
        )
    payload = recorded(
        "user-prompt-submit", project, prompt="why does checkout retry payment webhooks"
    )

    def shown() -> list[str]:
        text = user_prompt_submit(payload, os.environ)
        if not text:
            return []
        context = json.loads(text)["hookSpecificOutput"]["additionalContext"]
        return [line.split('"')[1] for line in context.splitlines() if line.startswith("<memory ")]

    first, second = shown(), shown()
    assert len(first) == 5 and len(second) == 3
    assert not set(first) & set(second)
    assert shown() == []
    other_session = {**payload, "session_id": "another-session"}
    assert user_prompt_submit(other_session, os.environ)  # a new session starts afresh


def test_team_memories_are_recalled_once_the_team_folder_holds_any(
    mem: Memdir, project: Path
) -> None:
    from memdir.hooks.entry import user_prompt_submit

    payload = recorded("user-prompt-submit", project, prompt="is the staging database shared")
    assert user_prompt_submit(payload, os.environ) == ""
    mem.write(
        name="Staging is shared",
        description="the staging database is shared with QA",
        type="project",
        scope="team",
    )
    context = json.loads(user_prompt_submit(payload, os.environ))["hookSpecificOutput"]
    assert 'file="team/staging_is_shared.md" scope="team"' in context["additionalContext"]
