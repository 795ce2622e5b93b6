"""Real providers' translation of requests and replies, over a mock HTTP transport."""

from __future__ import annotations

import json
import sys
from typing import Any

try:  # the SDKs moved from httpx to its successor httpx2 (same API)
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older SDKs
    import httpx  # type: ignore[no-redef, import-not-found]
import pytest

from memdir.errors import ConfigError
from memdir.llm import (
    AnthropicProvider,
    Message,
    OpenAICompatProvider,
    Request,
    StopReason,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
    complete_json,
    detect_dialect,
)

SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
EDIT = ToolSpec(
    name="edit",
    description="Edit the notes file.",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
)
CONVERSATION = (
    Message.user("update the notes"),
    Message.assistant("editing", (ToolCall(id="t1", name="edit", arguments={"text": "x"}),)),
    Message.tool_reply(ToolResult(tool_call_id="t1", content="no such file", is_error=True)),
)


class Capture:
    """Answers every request with ``reply`` and keeps the JSON bodies sent."""

    def __init__(self, reply: dict[str, Any]) -> None:
        self.reply = reply
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        return httpx.Response(200, json=self.reply)

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self))


def openai_reply(
    message: dict[str, Any], finish: str = "stop", usage: bool = True
) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "served-model",
        "choices": [
            {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}
        ],
    }
    if usage:
        reply["usage"] = {"prompt_tokens": 11, "completion_tokens": 4, "total_tokens": 15}
    return reply


def anthropic_reply(content: list[dict[str, Any]], stop: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 20, "output_tokens": 6, "cache_read_input_tokens": 100},
    }


def openai_provider(
    capture: Capture, base_url: str = "http://127.0.0.1:9/v1", **kw: Any
) -> OpenAICompatProvider:
    return OpenAICompatProvider(model="m", base_url=base_url, http_client=capture.client(), **kw)


def test_openai_request_carries_system_tools_and_tool_results_in_chat_shape() -> None:
    capture = Capture(openai_reply({"content": "done"}))
    request = Request(system="be brief", messages=CONVERSATION, tools=(EDIT,), max_tokens=50)
    openai_provider(capture).complete(request)
    body = capture.bodies[0]
    assert body["model"] == "m"
    assert body["max_tokens"] == 50
    assert "temperature" not in body  # left to the endpoint unless the request sets it
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool"]
    assert body["messages"][2]["tool_calls"][0]["function"] == {
        "name": "edit",
        "arguments": '{"text": "x"}',
    }
    assert body["messages"][3] == {
        "role": "tool",
        "tool_call_id": "t1",
        "content": "Error: no such file",
    }
    assert body["tools"][0]["function"]["parameters"] == dict(EDIT.input_schema)
    assert "response_format" not in body


def test_openai_request_sends_temperature_only_when_set() -> None:
    capture = Capture(openai_reply({"content": "done"}))
    openai_provider(capture).complete(Request(messages=CONVERSATION[:1], temperature=0.2))
    assert capture.bodies[0]["temperature"] == 0.2


def test_openai_reply_with_tool_calls_becomes_a_completion() -> None:
    call = {
        "id": "t9",
        "type": "function",
        "function": {"name": "edit", "arguments": '{"text": "y"}'},
    }
    capture = Capture(openai_reply({"content": None, "tool_calls": [call]}, finish="tool_calls"))
    completion = openai_provider(capture).complete(
        Request(messages=CONVERSATION[:1], tools=(EDIT,))
    )
    assert completion.tool_calls == (ToolCall(id="t9", name="edit", arguments={"text": "y"}),)
    assert completion.stop_reason is StopReason.TOOL_USE
    assert completion.usage == Usage(input_tokens=11, output_tokens=4)
    assert completion.model == "served-model"


def test_openai_malformed_tool_arguments_are_kept_for_the_caller_to_report() -> None:
    call = {"id": "t9", "type": "function", "function": {"name": "edit", "arguments": "{oops"}}
    capture = Capture(openai_reply({"content": None, "tool_calls": [call]}, finish="tool_calls"))
    completion = openai_provider(capture).complete(Request(messages=CONVERSATION[:1]))
    assert completion.tool_calls[0].arguments == {"_unparsed": "{oops"}


def test_openai_reply_without_usage_is_estimated_so_budgets_still_count() -> None:
    capture = Capture(openai_reply({"content": "abcdefgh"}, usage=False))
    completion = openai_provider(capture).complete(Request(messages=(Message.user("x" * 40),)))
    assert completion.usage == Usage(input_tokens=10, output_tokens=2)


def test_openai_hosted_api_gets_json_schema_and_the_new_token_limit_name() -> None:
    capture = Capture(openai_reply({"content": '{"ok": true}'}))
    provider = openai_provider(capture, base_url="https://api.openai.com/v1", api_key="k")
    from memdir.testing import allow_real_providers

    with allow_real_providers():
        assert complete_json(provider, Request(messages=CONVERSATION[:1]), SCHEMA) == {"ok": True}
    body = capture.bodies[0]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert body["max_completion_tokens"] == 1024
    assert "max_tokens" not in body
    assert body["messages"][0]["role"] == "user"  # no schema text added to the prompt


def test_openai_json_object_dialect_sends_the_schema_and_asks_for_it_in_the_prompt() -> None:
    capture = Capture(openai_reply({"content": '{"ok": false}'}))
    provider = openai_provider(capture, dialect="json_object")
    complete_json(provider, Request(system="sys", messages=CONVERSATION[:1]), SCHEMA)
    body = capture.bodies[0]
    assert body["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert body["messages"][0]["content"].startswith("sys\n\nReply with one JSON object")


def test_openai_prompt_dialect_asks_in_the_prompt_only() -> None:
    capture = Capture(openai_reply({"content": 'Sure: {"ok": true}'}))
    provider = openai_provider(capture, dialect="prompt")
    assert complete_json(provider, Request(messages=CONVERSATION[:1]), SCHEMA) == {"ok": True}
    body = capture.bodies[0]
    assert "response_format" not in body
    assert json.dumps(SCHEMA) in body["messages"][0]["content"]


@pytest.mark.parametrize(
    ("url", "dialect"),
    [
        ("https://api.openai.com/v1", "json_schema"),
        ("https://team.openai.azure.com/openai", "json_schema"),
        ("http://localhost:11434/v1", "json_schema"),
        ("http://127.0.0.1:8080/v1", "json_object"),
        ("http://[::1]:8000/v1", "json_object"),
        ("https://llm.example.com/v1", "prompt"),
    ],
)
def test_dialect_is_detected_from_the_base_url(url: str, dialect: str) -> None:
    assert detect_dialect(url) == dialect


def test_unknown_dialect_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="dialect 'xml'"):
        OpenAICompatProvider(model="m", base_url="http://127.0.0.1:9/v1", dialect="xml")


def test_hosted_openai_without_a_key_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        OpenAICompatProvider(model="m")


def anthropic_provider(capture: Capture) -> AnthropicProvider:
    return AnthropicProvider(
        api_key="k", base_url="http://127.0.0.1:9", http_client=capture.client()
    )


def test_anthropic_request_uses_content_blocks_and_tool_results_in_a_user_turn() -> None:
    capture = Capture(anthropic_reply([{"type": "text", "text": "done"}]))
    request = Request(system="be brief", messages=CONVERSATION, tools=(EDIT,), max_tokens=50)
    completion = anthropic_provider(capture).complete(request)
    body = capture.bodies[0]
    assert body["system"] == "be brief"
    assert body["max_tokens"] == 50
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"][1] == {
        "type": "tool_use",
        "id": "t1",
        "name": "edit",
        "input": {"text": "x"},
    }
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": "no such file", "is_error": True}
    ]
    assert body["tools"] == [
        {"name": "edit", "description": EDIT.description, "input_schema": dict(EDIT.input_schema)}
    ]
    assert completion.text == "done"
    assert completion.usage == Usage(input_tokens=120, output_tokens=6)


def test_anthropic_tool_use_reply_becomes_tool_calls() -> None:
    block = {"type": "tool_use", "id": "tu1", "name": "edit", "input": {"text": "z"}}
    capture = Capture(anthropic_reply([{"type": "text", "text": "ok"}, block], stop="tool_use"))
    completion = anthropic_provider(capture).complete(Request(messages=CONVERSATION[:1]))
    assert completion.tool_calls == (ToolCall(id="tu1", name="edit", arguments={"text": "z"}),)
    assert completion.stop_reason is StopReason.TOOL_USE


def test_anthropic_structured_output_forces_a_tool_and_returns_its_input_as_json() -> None:
    block = {"type": "tool_use", "id": "tu1", "name": "reply_json", "input": {"ok": True}}
    capture = Capture(anthropic_reply([block], stop="tool_use"))
    provider = anthropic_provider(capture)
    assert complete_json(provider, Request(messages=CONVERSATION[:1]), SCHEMA) == {"ok": True}
    body = capture.bodies[0]
    assert body["tool_choice"] == {"type": "tool", "name": "reply_json"}
    assert body["tools"][-1]["input_schema"] == SCHEMA


def test_anthropic_replays_an_empty_assistant_turn_with_placeholder_text() -> None:
    capture = Capture(anthropic_reply([{"type": "text", "text": "ok"}]))
    messages = (Message.user("a"), Message.assistant(""), Message.user("b"))
    anthropic_provider(capture).complete(Request(messages=messages))
    assert capture.bodies[0]["messages"][1]["content"] == [{"type": "text", "text": "(empty)"}]


@pytest.mark.parametrize(
    ("module", "extra"), [("openai", "memdir[openai]"), ("anthropic", "memdir[anthropic]")]
)
def test_missing_sdk_is_a_config_error_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch, module: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ConfigError, match=extra.replace("[", r"\[").replace("]", r"\]")):
        if module == "openai":
            OpenAICompatProvider(model="m", base_url="http://127.0.0.1:9/v1")
        else:
            AnthropicProvider(api_key="k")


def test_provider_repr_never_shows_the_key() -> None:
    provider = AnthropicProvider(api_key="sk-ant-secret-key-123")
    assert "secret" not in repr(provider)
