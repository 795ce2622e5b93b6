"""The shipped test doubles: ScriptedProvider, CountingProvider, the blocking switch."""

from __future__ import annotations

import json

try:  # the SDKs moved from httpx to its successor httpx2 (same API)
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older SDKs
    import httpx  # type: ignore[no-redef, import-not-found]
import pytest

from memdir.errors import LimitExceeded, ProviderBlocked, ProviderError
from memdir.llm import (
    Completion,
    Message,
    MeteredProvider,
    OpenAICompatProvider,
    Provider,
    Request,
    StopReason,
    Usage,
)
from memdir.testing import (
    CountingProvider,
    ScriptedProvider,
    allow_real_providers,
    block_real_providers,
    tool_use,
)


def ask(text: str = "hello") -> Request:
    return Request(system="be brief", messages=(Message.user(text),))


def test_scripted_provider_replays_its_steps_in_order_and_records_requests() -> None:
    provider = ScriptedProvider("first", {"answer": 42}, tool_use("edit", {"path": "a.md"}))
    first = provider.complete(ask("one"))
    second = provider.complete(ask("two"))
    third = provider.complete(ask("three"))
    assert first.text == "first"
    assert json.loads(second.text) == {"answer": 42}
    assert third.stop_reason is StopReason.TOOL_USE
    assert [(c.name, dict(c.arguments)) for c in third.tool_calls] == [("edit", {"path": "a.md"})]
    assert [r.messages[0].text for r in provider.requests] == ["one", "two", "three"]
    assert provider.pending == 0


def test_scripted_provider_raises_when_the_script_runs_out() -> None:
    provider = ScriptedProvider("only")
    provider.complete(ask())
    with pytest.raises(ProviderError, match="ran out of steps at request 2"):
        provider.complete(ask())
    assert len(provider.requests) == 2


def test_scripted_provider_computes_a_reply_from_the_request() -> None:
    provider = ScriptedProvider(lambda request: request.messages[-1].text.upper())
    assert provider.complete(ask("shout")).text == "SHOUT"


def test_scripted_provider_raises_a_queued_exception() -> None:
    provider = ScriptedProvider(ProviderError("overloaded"), "recovered")
    with pytest.raises(ProviderError, match="overloaded"):
        provider.complete(ask())
    assert provider.complete(ask()).text == "recovered"


def test_scripted_provider_reports_usage_as_characters_over_four() -> None:
    request = Request(messages=(Message.user("x" * 40),))
    completion = ScriptedProvider("y" * 8).complete(request)
    assert completion.usage == Usage(input_tokens=10, output_tokens=2)


def test_scripted_provider_keeps_usage_given_by_the_step() -> None:
    given = Completion(text="hi", usage=Usage(input_tokens=7, output_tokens=3))
    assert ScriptedProvider(given).complete(ask()).usage == given.usage


def test_scripted_provider_satisfies_the_provider_protocol() -> None:
    assert isinstance(ScriptedProvider(), Provider)
    assert isinstance(CountingProvider(ScriptedProvider()), Provider)


def test_tool_use_ids_are_unique_unless_given() -> None:
    first, second = tool_use("a"), tool_use("a")
    assert first.tool_calls[0].id != second.tool_calls[0].id
    assert tool_use("a", id="fixed").tool_calls[0].id == "fixed"


def test_counting_provider_counts_calls_tokens_sent_and_usage() -> None:
    counting = CountingProvider(ScriptedProvider("abcd", "efgh"))
    counting.complete(Request(messages=(Message.user("x" * 400),)))
    counting.complete(Request(messages=(Message.user("x" * 40),)))
    assert counting.calls == 2
    assert counting.tokens_sent == 110
    assert counting.usage == Usage(input_tokens=110, output_tokens=2)


def test_metered_provider_stops_calls_once_the_budget_is_spent() -> None:
    metered = MeteredProvider(ScriptedProvider("a" * 40, "never"), budget=20)
    metered.complete(Request(messages=(Message.user("x" * 40),)))
    assert metered.usage.total == 20
    assert metered.remaining == 0
    with pytest.raises(LimitExceeded, match="token budget of 20 spent"):
        metered.complete(ask())
    assert metered.calls == 1


def test_metered_provider_without_budget_only_counts() -> None:
    metered = MeteredProvider(ScriptedProvider("ok"))
    metered.complete(ask())
    assert metered.remaining is None
    assert metered.calls == 1


def remote_provider() -> OpenAICompatProvider:
    return OpenAICompatProvider(model="m", api_key="k", base_url="https://api.example.com/v1")


def test_blocking_switch_refuses_remote_endpoints_before_sending() -> None:
    with block_real_providers(), pytest.raises(ProviderBlocked, match="blocked"):
        remote_provider().complete(ask())


def test_blocking_switch_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMDIR_BLOCK_REAL_PROVIDERS", "1")
    with pytest.raises(ProviderBlocked):
        remote_provider().complete(ask())


def test_allow_real_providers_overrides_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMDIR_BLOCK_REAL_PROVIDERS", "1")
    sent: list[str] = []
    provider = OpenAICompatProvider(
        model="m",
        api_key="k",
        base_url="https://api.example.com/v1",
        http_client=_recording_client(sent),
    )
    with allow_real_providers():
        assert provider.complete(ask()).text == "ok"
    assert sent == ["https://api.example.com/v1/chat/completions"]


def test_blocking_switch_lets_loopback_endpoints_through() -> None:
    sent: list[str] = []
    provider = OpenAICompatProvider(
        model="m", base_url="http://127.0.0.1:9/v1", http_client=_recording_client(sent)
    )
    with block_real_providers():
        assert provider.complete(ask()).text == "ok"
    assert len(sent) == 1


def _recording_client(sent: list[str]) -> httpx.Client:
    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(str(request.url))
        body = {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "ok"},
                    "finish_reason": "stop",
                }
            ],
        }
        return httpx.Response(200, json=body)

    return httpx.Client(transport=httpx.MockTransport(handler))
