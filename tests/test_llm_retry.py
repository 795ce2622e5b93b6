"""The retry policy, exercised through the real SDK clients over a mock HTTP transport."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

try:  # the SDKs moved from httpx to its successor httpx2 (same API)
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older SDKs
    import httpx  # type: ignore[no-redef, import-not-found]
import pytest

from memdir.errors import ProviderAuthError, ProviderError
from memdir.llm import AnthropicProvider, Message, OpenAICompatProvider, Request, RetryPolicy

SECRET = "sk-test-0123456789abcdef"
Reply = httpx.Response | Exception

OPENAI_OK = {
    "id": "c1",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
}
ANTHROPIC_OK = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-test",
    "content": [{"type": "text", "text": "ok"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 5, "output_tokens": 1},
}


class Server:
    """Replays HTTP replies in order and counts the requests that reached it."""

    def __init__(self, *replies: Reply) -> None:
        self._replies: Iterator[Reply] = iter(replies)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        reply = next(self._replies)
        if isinstance(reply, Exception):
            raise reply
        return reply


def ask() -> Request:
    return Request(messages=(Message.user("hi"),))


def error(status: int, headers: dict[str, str] | None = None) -> httpx.Response:
    body = {"error": {"message": f"failure {status} for key {SECRET}", "type": "x"}}
    return httpx.Response(status, json=body, headers=headers)


ProviderMaker = Callable[[Server, list[float]], OpenAICompatProvider | AnthropicProvider]


def make_openai(server: Server, sleeps: list[float]) -> OpenAICompatProvider:
    return OpenAICompatProvider(
        model="m",
        api_key=SECRET,
        base_url="http://127.0.0.1:9/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(server)),
        sleep=sleeps.append,
    )


def make_anthropic(server: Server, sleeps: list[float]) -> AnthropicProvider:
    return AnthropicProvider(
        api_key=SECRET,
        base_url="http://127.0.0.1:9",
        http_client=httpx.Client(transport=httpx.MockTransport(server)),
        sleep=sleeps.append,
    )


PROVIDERS = [
    pytest.param(make_openai, OPENAI_OK, id="openai"),
    pytest.param(make_anthropic, ANTHROPIC_OK, id="anthropic"),
]


# Made afresh for each case: an exception instance is raised once.
TRANSIENT: list[object] = [
    pytest.param(lambda: [error(429)], id="rate-limit"),
    pytest.param(
        lambda: [error(503), httpx.ConnectError("refused"), httpx.ReadTimeout("slow")],
        id="server-error-dropped-connection-timeout",
    ),
]


@pytest.mark.parametrize("failures", TRANSIENT)
@pytest.mark.parametrize(("make", "ok"), PROVIDERS)
def test_rate_limits_server_errors_timeouts_and_dropped_connections_are_retried_then_succeed(
    make: ProviderMaker, ok: dict[str, object], failures: Callable[[], list[Reply]]
) -> None:
    replies = failures()
    server, sleeps = Server(*replies, httpx.Response(200, json=ok)), list[float]()
    assert make(server, sleeps).complete(ask()).text == "ok"
    assert len(server.requests) == len(replies) + 1  # each failure retried, then the answer
    assert len(sleeps) == len(replies)


@pytest.mark.parametrize(("make", "ok"), PROVIDERS)
def test_auth_errors_are_never_retried_and_never_show_the_key(
    make: ProviderMaker, ok: dict[str, object]
) -> None:
    server, sleeps = Server(error(401), httpx.Response(200, json=ok)), list[float]()
    with pytest.raises(ProviderAuthError) as caught:
        make(server, sleeps).complete(ask())
    assert len(server.requests) == 1
    assert sleeps == []
    assert SECRET not in str(caught.value)
    assert "HTTP 401" in str(caught.value)
    assert caught.value.__cause__ is None


@pytest.mark.parametrize(("make", "ok"), PROVIDERS)
def test_bad_requests_fail_at_once_with_a_provider_error(
    make: ProviderMaker, ok: dict[str, object]
) -> None:
    server, sleeps = Server(error(400), httpx.Response(200, json=ok)), list[float]()
    with pytest.raises(ProviderError, match="HTTP 400") as caught:
        make(server, sleeps).complete(ask())
    assert not isinstance(caught.value, ProviderAuthError)
    assert len(server.requests) == 1
    assert SECRET not in str(caught.value)


@pytest.mark.parametrize(("make", "ok"), PROVIDERS)
def test_persistent_server_errors_give_up_after_the_policy_attempts(
    make: ProviderMaker, ok: dict[str, object]
) -> None:
    server, sleeps = Server(*(error(500) for _ in range(4))), list[float]()
    with pytest.raises(ProviderError, match="gave up after 4 attempts"):
        make(server, sleeps).complete(ask())
    assert len(server.requests) == 4
    assert len(sleeps) == 3


def test_anthropic_overloaded_status_is_retried() -> None:
    server, sleeps = Server(error(529), httpx.Response(200, json=ANTHROPIC_OK)), list[float]()
    assert make_anthropic(server, sleeps).complete(ask()).text == "ok"
    assert len(server.requests) == 2


def test_retry_after_header_sets_the_wait() -> None:
    server = Server(error(429, {"retry-after": "3"}), httpx.Response(200, json=OPENAI_OK))
    sleeps: list[float] = []
    make_openai(server, sleeps).complete(ask())
    assert sleeps == [3.0]


def test_retry_after_is_capped_by_the_policy() -> None:
    policy = RetryPolicy(max_delay=5.0)
    assert policy.delay(0, 3600.0, random.Random(0)) == 5.0


def test_backoff_grows_exponentially_with_full_jitter_under_the_cap() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=4.0)
    rng = random.Random(7)
    for attempt in range(6):
        ceiling = min(4.0, 0.5 * 2**attempt)
        waits = [policy.delay(attempt, None, rng) for _ in range(200)]
        assert all(0.0 <= w <= ceiling for w in waits)
        assert max(waits) > ceiling * 0.8  # jitter spans the window, not a fixed point


def test_a_policy_needs_at_least_one_attempt() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        RetryPolicy(max_attempts=0)
