"""A tiny real call to each hosted API, run only when its key is in the environment."""

from __future__ import annotations

import os

import pytest

from memdir.llm import Message, Request, complete_json, provider_from_env
from memdir.testing import allow_real_providers

pytestmark = pytest.mark.network

TINY = Request(
    system="Answer with one word.",
    messages=(Message.user("What colour is the sky?"),),
    max_tokens=16,
)
SCHEMA = {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}


def hosted(provider_name: str, key: str) -> dict[str, str]:
    if not os.environ.get(key):
        pytest.skip(f"{key} is not set")
    return {"MEMDIR_PROVIDER": provider_name, key: os.environ[key]}


@pytest.mark.parametrize(
    ("name", "key"), [("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY")]
)
def test_hosted_api_answers_a_tiny_request_and_reports_usage(name: str, key: str) -> None:
    provider = provider_from_env(hosted(name, key))
    assert provider is not None
    with allow_real_providers():
        completion = provider.complete(TINY)
    assert completion.text.strip()
    assert completion.usage.input_tokens > 0
    assert 0 < completion.usage.output_tokens <= 16


@pytest.mark.parametrize(
    ("name", "key"), [("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY")]
)
def test_hosted_api_returns_schema_valid_json(name: str, key: str) -> None:
    provider = provider_from_env(hosted(name, key))
    assert provider is not None
    request = Request(
        messages=(Message.user("Give one word for the sky's colour."),), max_tokens=64
    )
    with allow_real_providers():
        value = complete_json(provider, request, SCHEMA)
    assert isinstance(value["word"], str)
