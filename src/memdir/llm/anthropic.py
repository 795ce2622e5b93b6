"""Anthropic's Messages API through the official ``anthropic`` SDK.

Install with ``pip install 'memdir[anthropic]'``; the SDK is imported when a
provider is built, never at memdir's import. The SDK's retry loop is off; memdir's
:mod:`memdir.llm.retry` policy runs instead.

Structured output: a request with ``json_schema`` offers one extra tool whose input
schema is that schema and forces the model to call it; the tool's input comes back
as the completion's text (JSON), so ``complete_json`` treats every provider alike.
Such a request is a final answer: the model cannot call the request's other tools.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memdir.errors import ConfigError
from memdir.llm._sdk import SDKProvider, import_sdk
from memdir.llm.base import Completion, Message, Request, StopReason, ToolCall, Usage
from memdir.llm.guard import check_allowed
from memdir.llm.retry import RetryPolicy

if TYPE_CHECKING:
    import anthropic
    from anthropic.types import Message as AnthropicMessage

__all__ = ["DEFAULT_ANTHROPIC_MODEL", "AnthropicProvider"]

DEFAULT_ANTHROPIC_MODEL = "claude-haiku-4-5"
ANTHROPIC_BASE_URL = "https://api.anthropic.com"
JSON_TOOL = "reply_json"
_STOP = {
    "end_turn": StopReason.END,
    "max_tokens": StopReason.MAX_TOKENS,
    "tool_use": StopReason.TOOL_USE,
    "stop_sequence": StopReason.STOP_SEQUENCE,
    "refusal": StopReason.REFUSAL,
}


class AnthropicProvider(SDKProvider):
    """A :class:`~memdir.llm.Provider` over Anthropic's Messages API.

    ``http_client`` is an ``httpx`` client of the flavour the SDK uses. A request's
    ``temperature`` is sent only where the SDK's API version accepts one.
    """

    def __init__(
        self,
        *,
        api_key: str,
        model: str = DEFAULT_ANTHROPIC_MODEL,
        base_url: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        http_client: Any = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not api_key:
            raise ConfigError(
                "the Anthropic provider needs an API key", hint="set ANTHROPIC_API_KEY"
            )
        self.model = model
        self.base_url = (base_url or ANTHROPIC_BASE_URL).rstrip("/")
        sdk = import_sdk("anthropic", "Anthropic")
        super().__init__(sdk=sdk, api_key=api_key, retry=retry, sleep=sleep)
        self._client: anthropic.Anthropic = self._sdk.Anthropic(
            api_key=api_key,
            base_url=self.base_url,
            timeout=timeout,
            max_retries=0,
            http_client=http_client,
        )
        # SDK 2.x speaks an API version that refuses sampling parameters (HTTP 400
        # even for the default value) and dropped them from its signature; older
        # SDKs accept them.
        create = self._client.messages.create
        self._sampling = "temperature" in inspect.signature(create).parameters

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r}, base_url={self.base_url!r})"

    def complete(self, request: Request) -> Completion:
        """Send ``request`` as one Messages API call (retrying transient failures)."""
        check_allowed("anthropic", self.base_url)
        params = self.build_params(request)
        response: AnthropicMessage = self._send(
            "anthropic", lambda: self._client.messages.create(**params)
        )
        return _parse(response, structured=request.json_schema is not None)

    def build_params(self, request: Request) -> dict[str, Any]:
        """The keyword arguments of ``messages.create`` for ``request``."""
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_tokens,
            "messages": [_message_param(m) for m in request.messages],
        }
        if request.system:
            params["system"] = request.system
        if request.temperature is not None and self._sampling:
            params["temperature"] = request.temperature
        tools = [
            {"name": t.name, "description": t.description, "input_schema": dict(t.input_schema)}
            for t in request.tools
        ]
        if request.json_schema is not None:
            tools.append(
                {
                    "name": JSON_TOOL,
                    "description": "Give your answer as this tool's input.",
                    "input_schema": dict(request.json_schema),
                }
            )
            params["tool_choice"] = {"type": "tool", "name": JSON_TOOL}
        if tools:
            params["tools"] = tools
        return params


def _message_param(message: Message) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [
        {
            "type": "tool_result",
            "tool_use_id": r.tool_call_id,
            "content": r.content,
            "is_error": r.is_error,
        }
        for r in message.tool_results
    ]
    if message.text:
        blocks.append({"type": "text", "text": message.text})
    blocks.extend(
        {"type": "tool_use", "id": c.id, "name": c.name, "input": dict(c.arguments)}
        for c in message.tool_calls
    )
    if not blocks:  # the API refuses empty turns; an empty reply still has to be replayed
        blocks.append({"type": "text", "text": "(empty)"})
    return {"role": message.role, "content": blocks}


def _parse(response: AnthropicMessage, *, structured: bool) -> Completion:
    texts: list[str] = []
    calls: list[ToolCall] = []
    stop = _STOP.get(response.stop_reason or "", StopReason.OTHER)
    for block in response.content:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use" and structured and block.name == JSON_TOOL:
            texts = [json.dumps(block.input)]
            stop = StopReason.END if stop is StopReason.TOOL_USE else stop
        elif block.type == "tool_use":
            calls.append(ToolCall(id=block.id, name=block.name, arguments=dict(block.input)))
    usage = response.usage
    cached = (usage.cache_creation_input_tokens or 0) + (usage.cache_read_input_tokens or 0)
    return Completion(
        text="".join(texts),
        tool_calls=tuple(calls),
        stop_reason=stop,
        usage=Usage(input_tokens=usage.input_tokens + cached, output_tokens=usage.output_tokens),
        model=response.model,
    )
