"""The restricted background sub-agent: a model, a few tools, a policy, limits.

:func:`run_agent` runs one job (session notes, extraction, consolidation): it
sends the job's prompt, executes the tool calls the model makes and sends the
results back, until the model answers without tools, the turn limit is hit, or
the token budget is spent (the job's :class:`~memdir.agents.limits.JobLimits`).
Every call goes through the job's :class:`ToolPolicy`: a call to a tool the
job does not have, or with an argument the tool refuses (another file, a path
that escapes), is *refused back to the model* as an error result naming what
is allowed, so a model that strays learns the rule and nothing is touched. Domain errors from a tool
(``MemdirError``) are returned the same way, with their hint. The run ends in
a :class:`RunReport`: turns, usage, tool calls made and refused, why it
stopped, and the error if any; provider failures end the run, never raise.

:class:`SerialRunner` is the owner of a background job: one run at a time, in
a named non-daemon thread; submissions that arrive mid-run are coalesced into
one trailing run with the latest input; ``drain`` waits (on a condition, never
by polling) until it is idle. Failures are logged, never raised to the caller.
:class:`TurnJob` is what a session's jobs (extraction, session notes) share on
top of it: the runner over the conversation's turns, a lock that keeps a direct
run from overlapping a background one, and the history of results.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

from memdir.agents.limits import JobLimits
from memdir.errors import LimitExceeded, MemdirError, ProviderError
from memdir.llm.base import (
    Completion,
    Message,
    Provider,
    Request,
    StopReason,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
)
from memdir.llm.base import estimate_tokens as estimate_request_tokens
from memdir.llm.budget import MeteredProvider
from memdir.llm.spend import charge_to
from memdir.transcripts.turns import Turn

__all__ = [
    "AgentStop",
    "AgentTool",
    "RunReport",
    "SerialRunner",
    "ToolEvent",
    "ToolPolicy",
    "TurnJob",
    "format_conversation",
    "run_agent",
]

log = logging.getLogger("memdir.agents.runner")

T = TypeVar("T")
R = TypeVar("R")

# A tool check returns why a call is refused, or None to allow it.
ToolCheck = Callable[[Mapping[str, Any]], "str | None"]
ToolHandler = Callable[[Mapping[str, Any]], str]


class AgentStop(StrEnum):
    """Why a sub-agent run ended."""

    DONE = "done"  # the model answered without asking for tools
    MAX_TURNS = "max_turns"
    BUDGET = "budget"
    MAX_TOKENS = "max_tokens"  # the last answer was cut off, without tool calls
    ERROR = "error"


@dataclass(frozen=True, kw_only=True)
class AgentTool:
    """One tool of a job: what the model sees, an optional argument check, the handler."""

    spec: ToolSpec
    run: ToolHandler
    check: ToolCheck | None = None


@dataclass(frozen=True, kw_only=True)
class ToolEvent:
    """One tool call of a run and what became of it: ``ok``, ``refused`` or ``error``."""

    name: str
    outcome: str
    message: str = ""


@dataclass(frozen=True, kw_only=True)
class ToolPolicy:
    """The tools a job may use; ``allowed`` words the rule for refusal messages."""

    tools: tuple[AgentTool, ...]
    allowed: str

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        """What the model is offered."""
        return tuple(tool.spec for tool in self.tools)

    def refusal(self, call: ToolCall) -> str | None:
        """Why ``call`` is refused, or ``None`` when the policy allows it."""
        tool = self._find(call.name)
        if tool is None:
            return f"{call.name!r} is not available: {self.allowed}"
        reason = tool.check(call.arguments) if tool.check is not None else None
        return None if reason is None else f"{reason}: {self.allowed}"

    def handle(self, call: ToolCall) -> tuple[ToolResult, ToolEvent]:
        """Refuse, or run, one call; failures become error results for the model."""
        reason = self.refusal(call)
        if reason is not None:
            return _error(call, reason), ToolEvent(
                name=call.name, outcome="refused", message=reason
            )
        tool = self._find(call.name)
        assert tool is not None  # refusal() would have said so
        try:
            content = tool.run(call.arguments)
        except (MemdirError, OSError, ValueError, TypeError, KeyError) as exc:
            # The model can act on a domain error (wrong name, conflict, limit):
            # it gets the message and hint as a tool result and may try again.
            message = str(exc) or type(exc).__name__
            return _error(call, message), ToolEvent(
                name=call.name, outcome="error", message=message
            )
        result = ToolResult(tool_call_id=call.id, content=content)
        return result, ToolEvent(name=call.name, outcome="ok")

    def _find(self, name: str) -> AgentTool | None:
        return next((tool for tool in self.tools if tool.spec.name == name), None)


def _error(call: ToolCall, message: str) -> ToolResult:
    return ToolResult(tool_call_id=call.id, content=f"Error: {message}", is_error=True)


@dataclass(frozen=True, kw_only=True)
class RunReport:
    """What one sub-agent run did and spent."""

    job: str
    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    stop_reason: AgentStop = AgentStop.DONE
    error: str | None = None
    events: tuple[ToolEvent, ...] = ()
    final_text: str = ""

    @property
    def ok(self) -> bool:
        """The model finished on its own: no error, no limit cut it short."""
        return self.stop_reason is AgentStop.DONE

    @property
    def tool_calls(self) -> int:
        """Tool calls the model made (allowed or not)."""
        return len(self.events)

    @property
    def refused(self) -> int:
        """Tool calls the policy refused."""
        return sum(1 for event in self.events if event.outcome == "refused")


def run_agent(
    provider: Provider,
    *,
    job: str,
    system: str,
    prompt: str,
    policy: ToolPolicy,
    limits: JobLimits,
) -> RunReport:
    """Run ``job`` within ``limits``: its model calls, its token budget, each answer's length.

    Never raises for what the model or provider does: the report says how it ended.
    """
    with charge_to(job):  # a daily ledger, where the provider keeps one, names the job
        run = _Run(MeteredProvider(provider, budget=limits.token_budget), job=job)
        return _converse(run, system, prompt, policy, limits)


def _converse(
    run: _Run, system: str, prompt: str, policy: ToolPolicy, limits: JobLimits
) -> RunReport:
    """The loop: ask, run the tools the model calls, ask again, until it stops or a limit
    does."""
    messages: list[Message] = [Message.user(prompt)]
    for _turn in range(limits.max_turns):
        request = Request(
            system=system,
            messages=tuple(messages),
            tools=policy.specs,
            max_tokens=limits.max_tokens,
        )
        completion = run.call(request)
        if completion is None:
            return run.report()
        messages.append(completion.as_message())
        if not completion.tool_calls:
            stop = AgentStop.MAX_TOKENS if completion.stop_reason is StopReason.MAX_TOKENS else None
            return run.report(stop or AgentStop.DONE, final_text=completion.text)
        results = [run.handle(policy, call) for call in completion.tool_calls]
        # Message(...) directly: Message.tool_results is shadowed by the field of that name.
        messages.append(Message(role="user", tool_results=tuple(results)))
    return run.report(AgentStop.MAX_TURNS)


class _Run:
    """The mutable tally of one run, kept apart so that the loop reads as the algorithm."""

    def __init__(self, provider: MeteredProvider, *, job: str) -> None:
        self.provider = provider
        self.job = job
        self.turns = 0
        self.events: list[ToolEvent] = []
        self.stop: AgentStop = AgentStop.ERROR
        self.error: str | None = None

    def call(self, request: Request) -> Completion | None:
        remaining = self.provider.remaining
        needed = estimate_request_tokens(request) + request.max_tokens
        if remaining is not None and needed > remaining:
            # Trigger: the next call would likely cross the budget.
            # Why: the metered provider only stops the call *after* the crossing one.
            # Outcome: stop before spending, and say what was needed.
            return self._fail(
                AgentStop.BUDGET,
                f"token budget: the next call needs ~{needed} tokens, {remaining} are left",
            )
        try:
            completion = self.provider.complete(request)
        except LimitExceeded as exc:
            return self._fail(AgentStop.BUDGET, str(exc))
        except ProviderError as exc:
            return self._fail(AgentStop.ERROR, str(exc))
        self.turns += 1
        return completion

    def _fail(self, stop: AgentStop, error: str) -> Completion | None:
        self.stop, self.error = stop, error
        log.warning("%s run stopped: %s", self.job, error)
        return None

    def handle(self, policy: ToolPolicy, call: ToolCall) -> ToolResult:
        result, event = policy.handle(call)
        self.events.append(event)
        if event.outcome == "refused":
            log.info("%s: refused %s: %s", self.job, call.name, event.message)
        return result

    def report(self, stop: AgentStop | None = None, *, final_text: str = "") -> RunReport:
        return RunReport(
            job=self.job,
            turns=self.turns,
            usage=self.provider.usage,
            stop_reason=stop or self.stop,
            error=None if stop is not None else self.error,
            events=tuple(self.events),
            final_text=final_text,
        )


def format_conversation(turns: Sequence[Turn]) -> str:
    """Turns as plain text for a prompt: ``[role] text`` blocks, sidechains left out."""
    blocks = [
        f"[{turn.role}] {turn.text.strip()}"
        for turn in turns
        if not turn.is_sidechain and turn.text.strip()
    ]
    return "\n\n".join(blocks)


class SerialRunner(Generic[T]):
    """Runs ``job`` in a background thread, one run at a time, coalescing submissions.

    A submission while idle starts a run in a new named thread; submissions
    while a run is in progress replace one pending input, run once afterwards
    (the trailing run). Errors are logged and counted, never raised.
    """

    def __init__(self, job: Callable[[T], object], *, name: str) -> None:
        self._job = job
        self.name = name
        self._cond = threading.Condition()
        self._running = False
        self._pending: tuple[T] | None = None
        self._closed = False
        self._thread: threading.Thread | None = None
        self.runs = 0
        self.failures = 0
        self.results: list[object] = []

    @property
    def busy(self) -> bool:
        """A run is in progress or pending."""
        with self._cond:
            return self._running or self._pending is not None

    def submit(self, arg: T) -> bool:
        """Start a run with ``arg``, or make it the trailing run's input; False once closed."""
        with self._cond:
            if self._closed:
                return False
            if self._running:
                self._pending = (arg,)
                return True
            self._running = True
            # The run sees the submitter's context variables (the provenance of
            # what it writes: a hook's session and transcript).
            context = contextvars.copy_context()
            self._thread = threading.Thread(
                target=context.run, args=(self._loop, arg), name=self.name, daemon=False
            )
            self._thread.start()
            return True

    def _loop(self, arg: T) -> None:
        try:
            while True:
                self._run_once(arg)
                with self._cond:
                    if self._pending is None:
                        self._idle()
                        return
                    (arg,) = self._pending
                    self._pending = None
        except BaseException:
            # A job that exits the thread (SystemExit, KeyboardInterrupt) must not
            # leave the runner busy for ever: drain and close would never return.
            with self._cond:
                self._pending = None
                self._idle()
            raise

    def _idle(self) -> None:
        """Mark the runner idle and wake the drainers; the caller holds the condition."""
        self._running = False
        self._cond.notify_all()

    def _run_once(self, arg: T) -> None:
        try:
            result = self._job(arg)
        except Exception:
            # Background work must never take the agent down: log and carry on.
            log.exception("%s failed", self.name)
            with self._cond:
                self.runs += 1
                self.failures += 1
            return
        with self._cond:
            self.runs += 1
            self.results.append(result)

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until no run is in progress or pending; False if ``timeout`` passed first."""
        with self._cond:
            return self._cond.wait_for(
                lambda: not self._running and self._pending is None, timeout=timeout
            )

    def close(self, timeout: float | None = None) -> bool:
        """Refuse new submissions, then drain."""
        with self._cond:
            self._closed = True
        drained = self.drain(timeout)
        thread = self._thread
        if drained and thread is not None:
            thread.join(timeout)
        return drained


class TurnJob(Generic[R]):
    """The owner of one session job's runs over the conversation's turns.

    ``run`` is the job's one run; :meth:`submit` hands it to a :class:`SerialRunner`
    named ``name`` and :meth:`drain` waits for it. A subclass makes each run through
    :meth:`_kept`, so a direct call never overlaps a background one and each result
    is kept in ``history``.
    """

    def __init__(self, run: Callable[[Sequence[Turn]], R], *, name: str) -> None:
        self._run_lock = threading.Lock()
        self.history: list[R] = []  # every run of this object, oldest first
        self.runner: SerialRunner[Sequence[Turn]] = SerialRunner(run, name=name)

    def submit(self, turns: Sequence[Turn]) -> bool:
        """Run in the background; mid-run submissions coalesce into one trailing run."""
        return self.runner.submit(tuple(turns))

    def drain(self, timeout: float | None = None) -> bool:
        """Wait for background runs to finish."""
        return self.runner.drain(timeout)

    def _kept(self, run: Callable[[], R]) -> R:
        """``run()`` under the run lock (one run at a time), its result kept in ``history``."""
        with self._run_lock:
            result = run()
            self.history.append(result)
            return result
