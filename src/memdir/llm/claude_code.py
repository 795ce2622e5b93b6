"""The user's own Claude Code as the model: one ``claude -p`` child per call.

Most people who run Claude Code have its login and no API key. This provider lets
memdir's background work run through the ``claude`` command they already use. It is
opt-in only (``MEMDIR_PROVIDER=claude-code`` or ``provider = "claude-code"``); nothing
ever picks it by itself.

A call is one child process told to be nothing but a model:

- ``claude -p`` with the prompt on stdin and ``--output-format json`` (one result
  object: ``result``, ``is_error``, ``stop_reason``, ``usage``, ``total_cost_usd``,
  ``modelUsage``, ``api_error_status``), ``--max-turns 1``;
- no tools of the main agent (``--tools ""``), no MCP servers (``--strict-mcp-config``
  and an empty ``--mcp-config``), no hooks, plugins, skills or CLAUDE.md
  (``--safe-mode``), no session kept (``--no-session-persistence``), memdir's own
  system prompt, a small model (``--model``, default :data:`DEFAULT_CLAUDE_CODE_MODEL`)
  at low effort;
- in its environment: the answer's length (``CLAUDE_CODE_MAX_OUTPUT_TOKENS``, the
  request's ``max_tokens``), no thinking, no retries of its own
  (``CLAUDE_CODE_MAX_RETRIES=0``: a failure comes back at once), :data:`CHILD_ENV`
  (every memdir hook answers nothing where it is set, so a hook Claude Code runs in
  spite of ``--safe-mode`` cannot start memdir work in the child), and none of the
  parent session's own variables (its id, its messaging socket);
- a timeout, after which the child is killed.

Never ``--setting-sources ""`` (it logs out the users whose API settings live in their
settings file), and never a read of Claude Code's credentials: the child signs in as
the user's ``claude`` does.

The child has no tools, so the request's tools are described in its system prompt
and the model answers with one JSON object, ``{"text": ..., "tool_calls": [{"name",
"arguments"}]}``, which becomes the completion's tool calls; the conversation so far
(tool calls and their results included) is the prompt.

One child at a time per project (a file lock). A failure is recorded in a small file
and pauses the provider (an hour, doubled with each failure in a row, at most a day):
meanwhile a call raises :class:`ClaudeCodePaused` without starting a child, and
:meth:`ClaudeCodeProvider.paused_reason` says so up front, so a broken login is shown
once and never retried in a loop.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from memdir.errors import MemdirError, ProviderAuthError, ProviderError
from memdir.llm.base import Completion, Message, Request, StopReason, ToolCall, Usage
from memdir.llm.guard import check_allowed
from memdir.llm.schema import parse_json_reply, schema_instruction
from memdir.storage.fs import atomic_write, file_lock, read_json_object

__all__ = [
    "CHILD_ENV",
    "CHILD_SYSTEM_MARK",
    "DEFAULT_CLAUDE_CODE_MODEL",
    "DEFAULT_CLAUDE_CODE_TIMEOUT",
    "ClaudeCodePaused",
    "ClaudeCodeProvider",
    "child_environment",
    "find_claude",
]

CHILD_ENV = "MEMDIR_CHILD"
"""Set in the child's environment; every memdir hook answers nothing where it is set."""
DEFAULT_CLAUDE_CODE_MODEL = "haiku"  # the CLI's alias for its current Haiku model
DEFAULT_CLAUDE_CODE_TIMEOUT = 180.0
CHILD_SYSTEM_MARK = "You are the model of a memdir background job"
"""The first words of every child's system prompt (what a test or a log can look for)."""

_ANTHROPIC_URL = "https://api.anthropic.com"  # where the child goes unless told otherwise
_PAUSE = 3600.0
_MAX_PAUSE = 86_400.0
_LOCK_NAME = "claude-code.lock"
_RECORD_NAME = "claude-code.json"
_MAX_ARGUMENT = 100_000  # characters: past this the system prompt goes on stdin instead
# The parent session's own variables: the child is a session of its own.
_SESSION_VARIABLES = frozenset(
    {
        "CLAUDECODE",
        "CLAUDE_PID",
        "CLAUDE_PROJECT_DIR",
        "CLAUDE_CODE_SESSION_ID",
        "CLAUDE_CODE_ENTRYPOINT",
        "CLAUDE_CODE_SESSION_ATTENDED",
        "CLAUDE_EFFORT",
        "CLAUDE_CODE_SAFE_MODE",
        "AI_AGENT",
    }
)
_SESSION_PREFIXES = ("CLAUDE_CODE_MESSAGING_", "CLAUDE_CODE_CHILD_")
_STOP = {"end_turn": StopReason.END, "max_tokens": StopReason.MAX_TOKENS}
_LOGIN_HINT = (
    "check that `claude -p hello` works in this project (run `claude` and sign in), "
    "or set claude_code_command in memdir's settings to the claude you use"
)


class ClaudeCodePaused(ProviderError):
    """The provider failed lately and waits before it starts another child."""


def find_claude(command: str | None, env: Mapping[str, str]) -> str | None:
    """The ``claude`` executable: ``command`` when given (a path or a name on PATH),
    else ``claude`` on ``env``'s PATH, else where Claude Code's installers put it."""
    path = env.get("PATH", os.defpath)
    if command:
        return shutil.which(os.path.expanduser(command), path=path)
    found = shutil.which("claude", path=path)
    if found is not None:
        return found
    home = Path(env.get("HOME") or Path.home())
    for candidate in (home / ".claude" / "local" / "claude", home / ".local" / "bin" / "claude"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def child_environment(env: Mapping[str, str], *, max_tokens: int) -> dict[str, str]:
    """The environment of a child: ``env`` without the parent session's variables,
    with memdir's marker and the call's limits."""
    kept = {
        name: value
        for name, value in env.items()
        if name not in _SESSION_VARIABLES and not name.startswith(_SESSION_PREFIXES)
    }
    return {
        **kept,
        CHILD_ENV: "1",
        "CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(max_tokens),
        "MAX_THINKING_TOKENS": "0",
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }


class ClaudeCodeProvider:
    """A :class:`~memdir.llm.Provider` that runs the user's ``claude -p`` once per call.

    ``env`` is the environment the child starts from; ``state_dir`` holds the lock
    that keeps one child per project and the record of the last failure; ``cwd`` is
    where the child runs (the project). ``clock`` is injectable for the pause.
    """

    def __init__(
        self,
        *,
        env: Mapping[str, str],
        state_dir: Path,
        command: str | None = None,
        model: str = DEFAULT_CLAUDE_CODE_MODEL,
        timeout: float = DEFAULT_CLAUDE_CODE_TIMEOUT,
        cwd: Path | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.model = model
        self.command = command
        self.timeout = timeout
        self.cwd = cwd
        self._env = dict(env)
        self._lock = state_dir / "locks" / _LOCK_NAME
        self._record = state_dir / _RECORD_NAME
        self._clock = clock

    def __repr__(self) -> str:
        return f"ClaudeCodeProvider(model={self.model!r}, command={self.command!r})"

    @property
    def description(self) -> str:
        """Which model this is, for people."""
        return f"model {self.model} through the user's Claude Code (claude -p)"

    def paused_reason(self) -> str | None:
        """Why no child starts now (a recent failure), or ``None``."""
        record = read_json_object(self._record) or {}
        until = record.get("until")
        if not isinstance(until, int | float) or until <= self._clock():
            return None
        failed = _local_time(float(record.get("at") or 0))
        again = _local_time(float(until))
        return (
            f"the claude-code provider failed at {failed} ({record.get('message', '')}) "
            f"and waits until {again} before it tries again"
        )

    def complete(self, request: Request) -> Completion:
        """Run one child for ``request``; a failure is recorded and pauses the provider."""
        check_allowed("claude-code", self._env.get("ANTHROPIC_BASE_URL") or _ANTHROPIC_URL)
        paused = self.paused_reason()
        if paused is not None:
            raise ClaudeCodePaused(paused, hint=_LOGIN_HINT)
        try:
            with file_lock(self._lock, timeout=self.timeout):
                completion = self._run(request)
        except ProviderError as exc:
            self._record_failure(exc.message)
            raise
        except MemdirError as exc:  # the lock: another child of this project ran too long
            raise ProviderError(
                f"another claude child of this project is still running: {exc.message}",
                path=self._lock,
                hint="the next background job tries again",
            ) from None
        self._record.unlink(missing_ok=True)
        return completion

    def close(self) -> None:
        """Nothing to close: each call's child is gone when the call returns."""

    # -- one child ----------------------------------------------------------------

    def _run(self, request: Request) -> Completion:
        executable = find_claude(self.command, self._env)
        if executable is None:
            named = self.command or "claude"
            raise ProviderError(
                f"the claude-code provider cannot find the `{named}` command",
                hint="install Claude Code, or set claude_code_command in memdir's settings "
                "to the path of the claude you use",
            )
        system = child_system_prompt(request)
        prompt = child_prompt(request)
        if len(system) > _MAX_ARGUMENT:
            system, prompt = CHILD_SYSTEM_MARK + ".", f"{system}\n\n{prompt}"
        argv = [executable, "-p", *self._options(), "--system-prompt", system]
        out = self._spawn(argv, prompt, child_environment(self._env, max_tokens=request.max_tokens))
        return _completion(out, request, default_model=self.model)

    def _options(self) -> list[str]:
        return [
            "--output-format", "json",
            "--max-turns", "1",
            "--tools", "",
            "--strict-mcp-config", "--mcp-config", '{"mcpServers":{}}',
            "--safe-mode",
            "--no-session-persistence",
            "--model", self.model,
            "--effort", "low",
        ]  # fmt: skip

    def _spawn(self, argv: Sequence[str], prompt: str, env: Mapping[str, str]) -> dict[str, Any]:
        """Run the child to its end (killed past the timeout); its result object."""
        try:
            # Same process group as the job: killing a stuck job's group kills its child too.
            child = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=str(self.cwd) if self.cwd is not None else None,
                env=dict(env),
                text=True,
                encoding="utf-8",
                errors="replace",
            )
        except OSError as exc:
            raise ProviderError(f"claude could not start: {exc}", hint=_LOGIN_HINT) from None
        try:
            stdout, stderr = child.communicate(prompt, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            raise ProviderError(
                f"claude -p did not answer within {self.timeout:g} s and was stopped",
                hint="set MEMDIR_LLM_TIMEOUT higher, or check that `claude -p hello` answers",
            ) from None
        return _result_object(stdout, stderr, child.returncode)

    def _record_failure(self, message: str) -> None:
        record = read_json_object(self._record) or {}
        streak = int(record.get("failures") or 0) + 1
        now = self._clock()
        pause = min(_PAUSE * 2 ** (streak - 1), _MAX_PAUSE)
        line = " ".join(message.split())[:300]
        data = {"failures": streak, "at": now, "until": now + pause, "message": line}
        atomic_write(self._record, json.dumps(data) + "\n")


# -- the conversation as a prompt ------------------------------------------------------

_PROTOCOL = """\
You have no tools of your own here. You act by answering with exactly one JSON object \
and nothing else (no prose, no code fences):
{{"text": "what you say, or an empty string", "tool_calls": [{{"name": "<tool>", \
"arguments": {{...}}}}]}}
Each tool call is run for you and its result comes back in the next message. When you \
are done, answer with "tool_calls": [] and your closing words in "text".

The tools:
{tools}"""


def child_system_prompt(request: Request) -> str:
    """The child's system prompt: memdir's mark, the job's prompt, how to answer."""
    parts = [f"{CHILD_SYSTEM_MARK}, run through Claude Code with no tools of its own."]
    if request.system:
        parts.append(request.system)
    if request.json_schema is not None:
        parts.append(schema_instruction(request.json_schema))
    elif request.tools:
        tools = "\n".join(
            f"- {t.name}: {t.description}\n  arguments (JSON schema): "
            f"{json.dumps(dict(t.input_schema), separators=(',', ':'))}"
            for t in request.tools
        )
        parts.append(_PROTOCOL.format(tools=tools))
    return "\n\n".join(parts)


def child_prompt(request: Request) -> str:
    """The child's prompt: one user turn as it is, else the whole conversation."""
    messages = request.messages
    if len(messages) == 1 and not messages[0].tool_results:
        return messages[0].text
    names = {c.id: c.name for m in messages for c in m.tool_calls}
    blocks = [_render(message, names) for message in messages]
    return (
        "The conversation so far, oldest first:\n\n"
        + "\n\n".join(blocks)
        + "\n\nGive the assistant's next answer now."
    )


_ERROR_MARK = ' error="true"'


def _render(message: Message, names: Mapping[str, str]) -> str:
    if message.role == "assistant":
        calls = [
            {"id": c.id, "name": c.name, "arguments": dict(c.arguments)} for c in message.tool_calls
        ]
        answer = json.dumps({"text": message.text, "tool_calls": calls}, ensure_ascii=False)
        return f"<assistant>\n{answer}\n</assistant>"
    results = [
        f'<result id="{r.tool_call_id}" tool="{names.get(r.tool_call_id, "")}"'
        f"{_ERROR_MARK if r.is_error else ''}>\n{r.content}\n</result>"
        for r in message.tool_results
    ]
    text = [message.text] if message.text else []
    return "<user>\n" + "\n".join([*results, *text]) + "\n</user>"


# -- the child's answer ----------------------------------------------------------------


def _result_object(stdout: str, stderr: str, returncode: int) -> dict[str, Any]:
    """The CLI's result object (the last JSON line of type ``result``), or the error."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("type") == "result":
            _raise_for_error(data)
            return data
    said = " ".join((stderr.strip() or stdout.strip()).split())[-300:] or "no output"
    raise ProviderError(f"claude -p exited with status {returncode}: {said}", hint=_LOGIN_HINT)


def _raise_for_error(data: Mapping[str, Any]) -> None:
    if not data.get("is_error"):
        return
    status = data.get("api_error_status")
    said = " ".join(str(data.get("result") or data.get("subtype") or "an error").split())
    message = f"claude -p failed: {said[:300]}"
    if status in (401, 403):
        raise ProviderAuthError(message, hint=_LOGIN_HINT)
    raise ProviderError(message, hint=_LOGIN_HINT)


def _completion(data: Mapping[str, Any], request: Request, *, default_model: str) -> Completion:
    text = str(data.get("result") or "")
    stop = _STOP.get(str(data.get("stop_reason")), StopReason.OTHER)
    models = data.get("modelUsage")
    model = next(iter(models), default_model) if isinstance(models, dict) and models else ""
    common: dict[str, Any] = {"usage": _usage(data), "model": model or default_model}
    if request.json_schema is not None or not request.tools:
        return Completion(text=text, stop_reason=stop, **common)
    answer, calls = _tool_answer(text, first_id=_calls_so_far(request) + 1)
    if calls:
        stop = StopReason.TOOL_USE
    return Completion(text=answer, tool_calls=calls, stop_reason=stop, **common)


def _usage(data: Mapping[str, Any]) -> Usage:
    given = data.get("usage")
    raw: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    cost = data.get("total_cost_usd")

    def count(key: str) -> int:
        value = raw.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    read = count("input_tokens") + count("cache_creation_input_tokens")
    read += count("cache_read_input_tokens")
    return Usage(
        input_tokens=read,
        output_tokens=count("output_tokens"),
        cost_usd=float(cost) if isinstance(cost, int | float) else 0.0,
    )


def _calls_so_far(request: Request) -> int:
    return sum(len(m.tool_calls) for m in request.messages)


def _tool_answer(text: str, *, first_id: int) -> tuple[str, tuple[ToolCall, ...]]:
    """The answer's text and tool calls; a reply that is not the JSON object is all text."""
    try:
        value = parse_json_reply(text)
    except ValueError:
        return text, ()
    if not isinstance(value, dict):
        return text, ()
    raw_calls = value.get("tool_calls")
    calls: list[ToolCall] = []
    for item in raw_calls if isinstance(raw_calls, list) else ():
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            continue
        arguments = item.get("arguments")
        calls.append(
            ToolCall(
                id=f"call_{first_id + len(calls)}",
                name=item["name"],
                arguments=dict(arguments) if isinstance(arguments, Mapping) else {},
            )
        )
    said = value.get("text")
    return (said if isinstance(said, str) else ""), tuple(calls)


def _local_time(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(epoch))
