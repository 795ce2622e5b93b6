"""The public surface of memdir.llm and memdir.testing is a guarded list."""

from __future__ import annotations

import importlib

import pytest

EXPECTED = {
    "memdir.llm": {
        "AnthropicProvider",
        "ClaudeCodeProvider",
        "Completion",
        "Message",
        "MeteredProvider",
        "ModelTooSmall",
        "OpenAICompatProvider",
        "Provider",
        "Request",
        "RetryPolicy",
        "StopReason",
        "ToolCall",
        "ToolResult",
        "ToolSpec",
        "Usage",
        "complete_json",
        "detect_dialect",
        "estimate_tokens",
        "parse_json_reply",
        "provider_from_env",
        "validate_json",
    },
    "memdir.testing": {
        "BLOCK_ENV",
        "CountingProvider",
        "ScriptedProvider",
        "Step",
        "allow_real_providers",
        "block_real_providers",
        "tool_use",
    },
}


@pytest.mark.parametrize("module_name", sorted(EXPECTED))
def test_public_names_are_exactly_the_documented_list(module_name: str) -> None:
    module = importlib.import_module(module_name)
    assert set(module.__all__) == EXPECTED[module_name]
    assert list(module.__all__) == sorted(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is not None


def test_values_are_frozen_and_keyword_only() -> None:
    from dataclasses import FrozenInstanceError

    from memdir.llm import Message, Usage

    with pytest.raises(TypeError):
        Usage(1, 2)  # type: ignore[call-arg]
    with pytest.raises(FrozenInstanceError):
        Message.user("x").text = "y"  # type: ignore[misc]


def test_message_roles_keep_tool_calls_and_results_on_their_side() -> None:
    from memdir.llm import Message, ToolCall, ToolResult

    with pytest.raises(ValueError, match="user message cannot carry tool calls"):
        Message(role="user", tool_calls=(ToolCall(id="1", name="n", arguments={}),))
    with pytest.raises(ValueError, match="assistant message cannot carry tool results"):
        Message(role="assistant", tool_results=(ToolResult(tool_call_id="1", content=""),))
