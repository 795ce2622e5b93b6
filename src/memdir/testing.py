"""Test doubles memdir ships for its own tests and for yours.

:class:`ScriptedProvider` answers from a queue, deterministically, and records
every request, so a test states what the model "says" and then asserts on what
memdir sent it. A step is one of:

- ``str``: a text reply; a ``dict``: a JSON reply (its ``json.dumps``);
- a :class:`~memdir.llm.Completion` (e.g. from :func:`tool_use`);
- an exception instance: raised, to exercise error paths;
- a callable ``(Request) -> str | dict | Completion``: computed from the request.

Usage is reported as characters / 4. When the queue is empty the next call raises
:class:`ProviderError`, so a test never silently gets a default answer.

:func:`block_real_providers` / :func:`allow_real_providers` turn the switch that
makes real providers raise :class:`ProviderBlocked` (loopback endpoints excepted);
setting ``MEMDIR_BLOCK_REAL_PROVIDERS=1`` turns it on for a whole run.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, TypeAlias

from memdir.errors import ProviderError
from memdir.llm.base import (
    Completion,
    Provider,
    Request,
    StopReason,
    ToolCall,
    Usage,
    estimate_tokens,
)
from memdir.llm.guard import BLOCK_ENV, override_blocking

__all__ = [
    "BLOCK_ENV",
    "CountingProvider",
    "ScriptedProvider",
    "Step",
    "allow_real_providers",
    "block_real_providers",
    "tool_use",
]

Reply: TypeAlias = str | Mapping[str, Any] | Completion
Step: TypeAlias = Reply | BaseException | Callable[[Request], Reply]

_ids = itertools.count(1)


def tool_use(name: str, arguments: Mapping[str, Any] | None = None, *, id: str = "") -> Completion:
    """A completion in which the model calls one tool (``id`` generated when empty)."""
    call = ToolCall(id=id or f"call_{next(_ids)}", name=name, arguments=dict(arguments or {}))
    return Completion(tool_calls=(call,), stop_reason=StopReason.TOOL_USE)


class ScriptedProvider:
    """A :class:`~memdir.llm.Provider` that replays ``steps`` in order."""

    def __init__(self, *steps: Step, model: str = "scripted") -> None:
        self.model = model
        self.requests: list[Request] = []
        self._steps: deque[Step] = deque(steps)
        self._lock = threading.Lock()

    def add(self, *steps: Step) -> None:
        """Queue more steps."""
        with self._lock:
            self._steps.extend(steps)

    @property
    def pending(self) -> int:
        """Steps not yet used."""
        return len(self._steps)

    def complete(self, request: Request) -> Completion:
        """Record ``request`` and answer with the next step."""
        with self._lock:
            self.requests.append(request)
            if not self._steps:
                raise ProviderError(
                    f"the scripted provider ran out of steps at request {len(self.requests)}",
                    hint="queue one step per model call the code under test makes",
                )
            step = self._steps.popleft()
        if isinstance(step, BaseException):
            raise step
        reply = step(request) if callable(step) else step
        return self._completion(reply, request)

    def _completion(self, reply: Reply, request: Request) -> Completion:
        if isinstance(reply, str):
            completion = Completion(text=reply)
        elif isinstance(reply, Completion):
            completion = reply
        else:
            completion = Completion(text=json.dumps(dict(reply)))
        if completion.usage == Usage():
            output = completion.text + "".join(
                json.dumps(dict(c.arguments)) for c in completion.tool_calls
            )
            usage = Usage(
                input_tokens=estimate_tokens(request), output_tokens=estimate_tokens(output)
            )
            completion = replace(completion, usage=usage)
        return replace(completion, model=completion.model or self.model)


class CountingProvider:
    """Wrap a provider; count calls, tokens sent (estimated) and usage reported."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.calls = 0
        self.tokens_sent = 0
        self.usage = Usage()
        self._lock = threading.Lock()

    def complete(self, request: Request) -> Completion:
        """Count ``request`` and forward it."""
        with self._lock:
            self.calls += 1
            self.tokens_sent += estimate_tokens(request)
        completion = self.inner.complete(request)
        with self._lock:
            self.usage = self.usage + completion.usage
        return completion


@contextmanager
def block_real_providers() -> Iterator[None]:
    """Inside the block, real providers raise ``ProviderBlocked`` (loopback excepted)."""
    with override_blocking(True):
        yield


@contextmanager
def allow_real_providers() -> Iterator[None]:
    """Inside the block, real providers may call out even if the environment blocks them."""
    with override_blocking(False):
        yield
