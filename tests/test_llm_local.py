"""The OpenAI-compatible provider against a real model: llama.cpp's server, SmolLM2-135M.

Needs ``scripts/install-local-model.sh``; without it these tests skip, or fail when
``CI`` is set (see ``llm_local.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

try:  # the SDKs moved from httpx to its successor httpx2 (same API)
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older SDKs
    import httpx  # type: ignore[no-redef, import-not-found]
import pytest

from llm_local import LocalServer, local_llm_server
from memdir.errors import ProviderError
from memdir.llm import (
    Message,
    MeteredProvider,
    OpenAICompatProvider,
    Request,
    StopReason,
    complete_json,
    validate_json,
)
from memdir.testing import block_real_providers

__all__ = ["local_llm_server"]  # the fixture, imported so pytest finds it here

pytestmark = pytest.mark.slow

COLOR = {
    "type": "object",
    "properties": {"color": {"type": "string", "enum": ["red", "green", "blue"]}},
    "required": ["color"],
}


class Recorder:
    """Keeps each request body memdir sends, through httpx's request hook."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> None:
        self.paths.append(request.url.path)
        self.bodies.append(json.loads(request.read()))


def provider(
    server: LocalServer, recorder: Recorder | None = None, **kw: Any
) -> OpenAICompatProvider:
    hooks: dict[str, list[Callable[..., Any]]] = {"request": [recorder]} if recorder else {}
    client = httpx.Client(event_hooks=hooks)
    return OpenAICompatProvider(
        model=server.model_name, base_url=server.base_url, http_client=client, timeout=120.0, **kw
    )


def ask(text: str, max_tokens: int = 16) -> Request:
    return Request(
        system="You are a terse assistant.", messages=(Message.user(text),), max_tokens=max_tokens
    )


def test_local_server_gets_a_chat_request_in_openai_shape(local_llm_server: LocalServer) -> None:
    recorder = Recorder()
    # Loopback is allowed even when real providers are blocked.
    with block_real_providers(), provider(local_llm_server, recorder) as local:
        completion = local.complete(ask("Say hello.", 8))
    assert recorder.paths == ["/v1/chat/completions"]
    body = recorder.bodies[0]
    assert body["messages"] == [
        {"role": "system", "content": "You are a terse assistant."},
        {"role": "user", "content": "Say hello."},
    ]
    assert body["max_tokens"] == 8
    assert body["model"] == local_llm_server.model_name
    assert isinstance(completion.text, str)


def test_local_completion_stops_within_max_tokens(local_llm_server: LocalServer) -> None:
    with provider(local_llm_server) as local:
        completion = local.complete(ask("Count from one to one hundred in words.", 12))
    assert completion.usage.output_tokens <= 12
    assert completion.stop_reason in (StopReason.END, StopReason.MAX_TOKENS)
    assert completion.text.strip()


def test_local_usage_is_reported_and_summed_by_a_budget(local_llm_server: LocalServer) -> None:
    with provider(local_llm_server) as local:
        metered = MeteredProvider(local, budget=100_000)
        first = metered.complete(ask("Name a colour.", 8))
        second = metered.complete(ask("Name an animal.", 8))
    assert first.usage.input_tokens > 5  # the chat template and system text count too
    assert first.usage.output_tokens >= 1
    assert metered.usage == first.usage + second.usage
    assert metered.calls == 2


def test_local_structured_output_is_valid_json_or_a_clean_provider_error(
    local_llm_server: LocalServer,
) -> None:
    recorder = Recorder()
    request = ask("Pick a colour: red, green or blue. Answer in JSON.", 48)
    try:
        with provider(local_llm_server, recorder) as local:
            value = complete_json(local, request, COLOR)
    except ProviderError as err:
        assert "valid JSON" in str(err)
    else:
        assert validate_json(value, COLOR) == []
    assert recorder.bodies[0]["response_format"] == {"type": "json_object", "schema": COLOR}


def test_local_invalid_output_becomes_a_provider_error_not_a_crash(
    local_llm_server: LocalServer,
) -> None:
    schema = {
        "type": "object",
        "properties": {"explanation": {"type": "string", "minLength": 40}},
        "required": ["explanation"],
    }
    recorder = Recorder()
    # Three tokens cannot hold a 40-character string: both tries must fail validation.
    with (
        provider(local_llm_server, recorder, dialect="prompt") as local,
        pytest.raises(ProviderError, match="did not return valid JSON after 2 tries"),
    ):
        complete_json(local, ask("Explain tides.", 3), schema)
    assert len(recorder.bodies) == 2
    assert "Your reply was not valid" in recorder.bodies[1]["messages"][-1]["content"]
