"""Retries for provider calls: exponential backoff with full jitter.

The SDKs' own retry loops are switched off (``max_retries=0``) so one policy, with
an injectable ``sleep``, governs every provider and tests never wait. Each provider
classifies its SDK's exceptions into :class:`Failure` values:

- ``retry``: rate limits (429), server errors (5xx), timeouts, dropped connections;
  a ``Retry-After`` the server sent is honoured, capped at ``max_delay``.
- ``auth``: 401/403, raised at once as :class:`ProviderAuthError`, never retried.
- ``context``: a 400 whose error code says the prompt does not fit the model's window
  (``context_length_exceeded``, llama.cpp's ``exceed_context_size_error``), raised at
  once as :class:`~memdir.llm.context.ModelTooSmall`;
- ``fatal``: anything else (a bad request), raised at once as :class:`ProviderError`.

Messages pass through :func:`redact` so no API key ever reaches a log or a user.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal, TypeVar

from memdir.errors import ProviderAuthError, ProviderError
from memdir.llm.context import ModelTooSmall

__all__ = ["Failure", "RetryPolicy", "call_with_retries", "classify_sdk_error", "redact"]

T = TypeVar("T")

# The error codes (not texts) with which servers refuse a prompt too long for the model.
_CONTEXT_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error"})

# Key shapes of the hosted APIs, redacted even when the key in use is not known
# (an error body may quote a different or partly masked key).
_KEY_PATTERN = re.compile(r"\b(sk-[A-Za-z0-9_\-*]{6,}|key-[A-Za-z0-9]{16,})")


@dataclass(frozen=True, kw_only=True)
class Failure:
    """A classified provider failure: its kind, a safe message, a server-sent delay."""

    kind: Literal["retry", "auth", "context", "fatal"]
    message: str
    retry_after: float | None = None


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """How often and how long to retry: attempt ``n`` waits up to ``base * 2**n``."""

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 20.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {self.max_attempts}")

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before attempt ``attempt + 1`` (full jitter)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        return rng.uniform(0.0, min(self.max_delay, self.base_delay * 2**attempt))


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Remove the given secrets and anything shaped like an API key from ``text``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return _KEY_PATTERN.sub("[redacted]", text)


def classify_sdk_error(
    exc: Exception, sdk: ModuleType, secrets: Iterable[str | None] = ()
) -> Failure | None:
    """Classify an exception of the ``anthropic`` or ``openai`` SDK.

    Both SDKs share one exception tree (``APIStatusError``, ``APIConnectionError``,
    ...), so one function serves both; ``sdk`` is the imported SDK module.
    Exceptions from outside the SDK give ``None``.
    """
    if isinstance(exc, sdk.APIStatusError):
        status = int(exc.status_code)
        message = redact(f"HTTP {status}: {exc.message}", secrets)
        if status in (401, 403):
            return Failure(kind="auth", message=message)
        if status == 400 and _context_code(exc):
            return Failure(kind="context", message=message)
        if status in (408, 409, 429) or status >= 500:
            return Failure(kind="retry", message=message, retry_after=_retry_after(exc.response))
        return Failure(kind="fatal", message=message)
    if isinstance(exc, sdk.APIConnectionError):  # includes APITimeoutError
        return Failure(kind="retry", message=redact(f"{type(exc).__name__}: {exc}", secrets))
    base: type[Exception] = getattr(sdk, "AnthropicError", None) or sdk.OpenAIError
    if isinstance(exc, base):
        return Failure(kind="fatal", message=redact(f"{type(exc).__name__}: {exc}", secrets))
    return None


def _context_code(exc: Any) -> bool:
    """Whether an SDK's 400 carries one of the codes of a prompt too long for the window."""
    codes = {getattr(exc, "code", None), getattr(exc, "type", None)}
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error")
        inner: dict[str, Any] = error if isinstance(error, dict) else body
        codes |= {inner.get("code"), inner.get("type")}
    return bool(codes & _CONTEXT_CODES)


def _retry_after(response: Any) -> float | None:
    headers = getattr(response, "headers", None) or {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            return float(raw) * scale
        except ValueError:
            continue  # an HTTP date; the policy's own backoff is close enough
    return None


def call_with_retries(
    call: Callable[[], T],
    classify: Callable[[Exception], Failure | None],
    *,
    policy: RetryPolicy,
    label: str,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
) -> T:
    """Run ``call``, retrying what ``classify`` calls transient.

    ``classify`` returns ``None`` for exceptions that are not the provider's (they
    propagate untouched). ``label`` names the provider in messages.
    """
    rng = rng or random.Random()
    for attempt in range(policy.max_attempts):
        try:
            return call()
        except Exception as exc:
            failure = classify(exc)
            if failure is None:
                raise
            if failure.kind == "auth":
                raise ProviderAuthError(
                    f"{label}: credentials refused: {failure.message}",
                    hint="check the API key for this provider; auth errors are not retried",
                ) from None
            if failure.kind == "context":
                raise ModelTooSmall(
                    f"{label}: the model is too small for this job: {failure.message}",
                    hint="use a model with a larger context window, or a hosted provider",
                ) from None
            last_try = attempt + 1 >= policy.max_attempts
            if failure.kind == "fatal" or last_try:
                raise _final_error(label, failure, attempt + 1) from None
            sleep(policy.delay(attempt, failure.retry_after, rng))
    raise AssertionError("unreachable: max_attempts must be at least 1")


def _final_error(label: str, failure: Failure, attempts: int) -> ProviderError:
    if failure.kind == "fatal":
        return ProviderError(
            f"{label}: request failed: {failure.message}",
            hint="the request was rejected; check the model name and settings",
        )
    return ProviderError(
        f"{label}: gave up after {attempts} attempts: {failure.message}",
        hint="the endpoint is overloaded or unreachable; try again later",
    )
