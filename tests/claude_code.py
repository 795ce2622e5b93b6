"""Running the real Claude Code CLI on memdir, installed the way a user installs it.

- **The client** is the npm package ``@anthropic-ai/claude-code`` at the version in
  ``tests/claude-code.version``, which ``make claude-code`` (part of ``make test``)
  installs into ``.cache/claude-code/``; ``MEMDIR_CLAUDE_BIN`` names another binary.
  Where it is missing the tests skip with the reason the installer recorded (npm or
  the registry unreachable), except under ``CI=true``, where they fail.
- **memdir** is the test suite's own virtual environment: the folder of
  ``sys.executable`` holds the ``memdir`` script, and it is not on the ``PATH`` Claude
  Code gets (``/usr/bin:/bin``), so a hook or MCP command runs only if it names the
  installation. ``PYTHONPATH``, when the suite runs with one, is passed on, so the hooks
  run the code under test.
- **The machine** is a throwaway ``HOME`` (Claude Code's ``~/.claude`` and
  ``~/.claude.json``, memdir's ``~/.memdir``, both memory folders) and a throwaway git
  project. ``MEMDIR_HOME`` is unset, as for a user; the test process itself points
  ``HOME`` at the same folder, so the Python API it uses to set up memories sees what
  the hooks see.
- **The model** is the stand-in of :mod:`claude_api` on 127.0.0.1: Claude Code gets its
  URL as ``ANTHROPIC_BASE_URL``, a fake key, and its nonessential traffic and telemetry
  switched off, so it reaches no other host.

Each run is ``claude -p PROMPT --output-format stream-json --verbose
--include-hook-events``: the events show every hook's exit status and output, the MCP
servers' status, and what the user is shown (``informational`` events), while the
stand-in shows what reached the model.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from claude_api import Recorded, StandIn, Turn, request_texts, run_stand_in
from cli_runner import (
    CLIENT_PATH,
    ClientRun,
    client_env,
    installed_client,
    machine,
    run_client,
    run_in,
)
from memdir.api import Memdir
from memdir.hooks.background import hooks_dir

__all__ = [
    "CLAUDE_PATH",
    "HOOK_CONTEXT_LIMIT",
    "PERSISTED_MARKER",
    "ClaudeRun",
    "HookRun",
    "Sandbox",
    "claude_binary",
    "install_plugin",
    "plugin_source",
    "sandbox",
]

ROOT = Path(__file__).resolve().parent.parent
CLAUDE_CODE = installed_client(
    "claude-code",
    "claude",  # the native binary
    name="Claude Code CLI",
    variable="MEMDIR_CLAUDE_BIN",
    shows=lambda shown, pinned: shown.startswith(pinned),
    version_env={"DISABLE_AUTOUPDATER": "1"},
)
CLAUDE_PATH = CLIENT_PATH  # what Claude Code and its hooks get: memdir is not on it
PERSISTED_MARKER = "<persisted-output>"  # Claude Code's stand-in for hook context over 10,000
HOOK_CONTEXT_LIMIT = 10_000
_JOB_TIMEOUT = 90


def claude_binary() -> Path:
    """The Claude Code CLI to drive; skips (fails under ``CI=true``) when there is none."""
    return CLAUDE_CODE.binary()


@dataclass(frozen=True, kw_only=True)
class HookRun:
    """One hook Claude Code ran: its event, exit status and output."""

    event: str
    name: str  # e.g. ``SessionStart:startup``
    exit_code: int | None
    outcome: str
    stdout: str
    stderr: str

    @property
    def output(self) -> dict[str, Any]:
        """The hook's JSON answer (``{}`` when it printed none)."""
        try:
            data = json.loads(self.stdout) if self.stdout.strip() else {}
        except json.JSONDecodeError:
            return {}
        return data if isinstance(data, dict) else {}

    @property
    def context(self) -> str:
        """The ``additionalContext`` the hook gave the model, or ``""``."""
        specific = self.output.get("hookSpecificOutput")
        value = specific.get("additionalContext") if isinstance(specific, dict) else None
        return value if isinstance(value, str) else ""

    @property
    def system_message(self) -> str:
        """The ``systemMessage`` the hook showed the user, or ``""``."""
        value = self.output.get("systemMessage")
        return value if isinstance(value, str) else ""


@dataclass(frozen=True, kw_only=True)
class ClaudeRun(ClientRun[Recorded]):
    """One ``claude -p`` run: its events, stderr, and the requests the model got."""

    @property
    def result(self) -> dict[str, Any]:
        """The final ``result`` event."""
        found = [e for e in self.events if e.get("type") == "result"]
        assert found, f"no result event; stderr: {self.stderr[-2000:]}"
        return found[-1]

    @property
    def session_id(self) -> str:
        session = self.result.get("session_id")
        assert isinstance(session, str)
        return session

    @property
    def init(self) -> dict[str, Any]:
        """The ``system/init`` event: tools, MCP servers, memory paths."""
        found = [e for e in self.events if e.get("subtype") == "init"]
        assert found, "no init event"
        return found[-1]

    def hooks(self, event: str | None = None) -> list[HookRun]:
        """The hooks that ran (of ``event`` only, when given), in order."""
        runs = [
            HookRun(
                event=str(e.get("hook_event", "")),
                name=str(e.get("hook_name", "")),
                exit_code=e.get("exit_code"),
                outcome=str(e.get("outcome", "")),
                stdout=str(e.get("stdout", e.get("output", ""))),
                stderr=str(e.get("stderr", "")),
            )
            for e in self.events
            if e.get("type") == "system" and e.get("subtype") == "hook_response"
        ]
        return [r for r in runs if event is None or r.event == event]

    @property
    def notices(self) -> list[str]:
        """What Claude Code showed the user beside the conversation (hooks' messages)."""
        return [
            str(e.get("content", ""))
            for e in self.events
            if e.get("type") == "system" and e.get("subtype") == "informational"
        ]

    @property
    def conversation(self) -> list[Recorded]:
        """Claude Code's main-loop requests during this run."""
        return [r for r in self.requests if r.is_conversation]

    def model_texts(self) -> list[str]:
        """Everything the model read in the run's last request (the whole conversation)."""
        assert self.conversation, "Claude Code sent the model nothing"
        return request_texts(self.conversation[-1].body)

    def model_text(self) -> str:
        return "\n".join(self.model_texts())

    def tool_results(self) -> list[str]:
        """The tool results the model got back in this run, in order."""
        results: list[str] = []
        seen: set[str] = set()
        for recorded in self.conversation:
            for message in recorded.body.get("messages", []):
                for block in message.get("content") or []:
                    if not isinstance(block, dict) or block.get("type") != "tool_result":
                        continue
                    key = str(block.get("tool_use_id"))
                    if key not in seen:
                        seen.add(key)
                        results.append("\n".join(request_texts({"messages": [message]})))
        return results

    def delivered(self, context: str) -> bool:
        """Whether ``context`` reached the model whole in one of the run's requests."""
        return bool(context) and any(
            context in text for r in self.conversation for text in request_texts(r.body)
        )


@dataclass(kw_only=True)
class Sandbox:
    """A throwaway machine for one test: HOME, a git project, the stand-in, memdir's venv."""

    root: Path
    home: Path
    project: Path
    venv_bin: Path
    claude: Path
    api: StandIn
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def memdir_script(self) -> Path:
        """The installation's ``memdir`` script (what a user runs as ``.venv/bin/memdir``)."""
        return self.venv_bin / "memdir"

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment of Claude Code, its hooks and the user's memdir commands."""
        own = {
            "ANTHROPIC_BASE_URL": self.api.url,
            "ANTHROPIC_API_KEY": "sk-ant-test-000",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
        }
        env = client_env(self.root, self.home, own)
        env.update(self.extra_env)
        env.update(extra or {})
        return env

    def memdir(
        self, *args: str, check: bool = True, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run ``<venv>/bin/memdir ARGS`` in the project, as the user would."""
        done = self._in_project([str(self.memdir_script), *args], env)
        if check and done.returncode != 0:
            raise AssertionError(
                f"memdir {' '.join(args)} exited {done.returncode}:\n{done.stdout}{done.stderr}"
            )
        return done

    def _in_project(
        self, command: Sequence[str], env: Mapping[str, str] | None
    ) -> subprocess.CompletedProcess[str]:
        """``command`` in the project with no input, its output captured as text."""
        return run_in(command, cwd=self.project, env=self.env(env))

    def open(self, profile: str | None = None) -> Memdir:
        """The project's memory through the Python API (the test process shares HOME)."""
        return Memdir.open(self.project, profile=profile)

    def run(
        self,
        prompt: str,
        turns: Sequence[Turn] = (),
        *,
        resume: str | None = None,
        allowed_tools: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        args: Sequence[str] = (),
        wrapper: Sequence[str] = (),
        check: bool = True,
    ) -> ClaudeRun:
        """``claude -p PROMPT`` in the project, the model answering with ``turns``.

        ``wrapper`` runs before the client (a tracer); ``check`` asserts a clean exit.
        """
        command = [*wrapper, str(self.claude), "-p", prompt, *_STREAM, *args]
        if resume is not None:
            command += ["--resume", resume]
        if allowed_tools:
            command += ["--allowedTools", ",".join(allowed_tools)]
        run = run_client(ClaudeRun, self.api, turns, command, cwd=self.project, env=self.env(env))
        if check:
            assert run.returncode == 0, f"claude exited {run.returncode}: {run.stderr[-2000:]}"
            assert run.result.get("is_error") is False, run.result
        return run

    def jobs(self, session_id: str, profile: str | None = None) -> list[dict[str, Any]]:
        """The finished background jobs of a session (their completion records)."""
        runs = hooks_dir(self.open(profile).layout) / "runs"
        found = []
        for marker in sorted(runs.glob("*.done")):
            data = json.loads(marker.read_text(encoding="utf-8"))
            if data.get("session_id") == session_id:
                found.append(data)
        return found

    def wait_for_jobs(self, session_id: str, profile: str | None = None) -> list[dict[str, Any]]:
        """Wait until every background job the session started has finished; their records.

        A hook records a start (or a job it did not need to start) before it returns, so
        once Claude Code has exited, a session with neither has no job. The jobs run
        detached, so the only event to wait on is their completion record appearing.
        """
        runs = hooks_dir(self.open(profile).layout) / "runs"

        def pending() -> list[dict[str, Any]]:
            found = [_read_json(p) for p in runs.glob("*.json")]
            mine = [s for s in found if s.get("session_id") == session_id]
            return [s for s in mine if not (runs / f"{s.get('run_id')}.done").exists()]

        assert pending() or self.jobs(session_id, profile), (
            f"no background job was recorded for session {session_id}"
        )
        deadline = time.monotonic() + _JOB_TIMEOUT
        while waiting := pending():
            if time.monotonic() > deadline:
                raise AssertionError(f"jobs of session {session_id} did not finish: {waiting}")
            time.sleep(0.05)
        return self.jobs(session_id, profile)

    def drain(self) -> None:
        """Wait (bounded) for every background job started here whose process still runs."""
        deadline = time.monotonic() + _JOB_TIMEOUT
        for start in self.home.glob("**/hooks/runs/*.json"):
            done = start.with_suffix(".done")
            pid = _read_json(start).get("pid")
            while not done.exists() and isinstance(pid, int) and _alive(pid):
                if time.monotonic() > deadline:
                    os.kill(pid, signal.SIGTERM)  # a job of this test, started by its hook
                    break
                time.sleep(0.05)

    def index_lines(self, profile: str | None = None) -> list[str]:
        """The lines of the project's private ``MEMORY.md`` that point at a memory."""
        index = self.open(profile).layout.memory_dir / "MEMORY.md"
        return [
            line
            for line in index.read_text(encoding="utf-8").splitlines()
            if line.startswith("- [")
        ]


_STREAM = ("--output-format", "stream-json", "--verbose", "--include-hook-events")


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextmanager
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sandbox]:
    """A fresh :class:`Sandbox` under ``tmp_path``; the test process shares its HOME."""
    claude = claude_binary()
    made = machine(tmp_path, monkeypatch)
    with run_stand_in([]) as api:
        box = Sandbox(**made, claude=claude, api=api)
        try:
            yield box
        finally:
            box.drain()


# -- memdir as a Claude Code plugin (the repository is the plugin and its marketplace) -----


def plugin_source(dest: Path) -> Path:
    """``dest`` filled with the repository as a fresh clone of this working tree holds it:
    the tracked files and the new ones git does not ignore, as they are now (a folder
    marketplace is copied whole into Claude Code's plugin cache, ``.venv`` and all)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a file deleted in the working tree is not in a clone
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def install_plugin(
    box: Sandbox, source: Path, *options: str, scope: str = "user"
) -> subprocess.CompletedProcess[str]:
    """``claude plugin install memdir --marketplace SOURCE [--config KEY=VALUE...]``, in the
    project, as the README says (it adds the marketplace first)."""
    config = [arg for option in options for arg in ("--config", option)]
    command = [str(box.claude), "plugin", "install", "memdir", "--marketplace", str(source)]
    done = box._in_project([*command, *config, "--scope", scope], None)
    assert done.returncode == 0, done.stdout + done.stderr
    return done
