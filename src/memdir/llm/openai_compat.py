"""Any OpenAI-compatible chat endpoint: OpenAI, vLLM, Ollama, llama.cpp's server.

Uses the official ``openai`` SDK (``pip install 'memdir[openai]'``), imported when
a provider is built, never at memdir's import. The SDK's retry loop is off; memdir's
:mod:`memdir.llm.retry` policy runs instead.

Structured output differs between servers, so a *dialect* chooses how a request's
``json_schema`` is sent (the reply is validated either way by ``complete_json``):

- ``json_schema``: ``response_format={"type": "json_schema", ...}`` (OpenAI, Ollama, vLLM);
- ``json_object``: ``{"type": "json_object", "schema": ...}``, which llama.cpp's
  servers compile into a grammar, plus the schema in the system prompt;
- ``prompt``: the schema in the system prompt only (works everywhere).

``auto`` picks by base URL: OpenAI and Azure hosts and Ollama's port get
``json_schema``; other loopback servers (llama.cpp) ``json_object``; anything else
``prompt``.

Every call fits the model's context window (:mod:`memdir.llm.context`): the window
the server reports on the first call (OpenAI's own hosts are not asked), else the
``context_tokens`` given (the setting ``model_context_tokens``). A server that still
refuses a prompt for its length raises :class:`~memdir.llm.context.ModelTooSmall`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, cast
from urllib.parse import urlsplit

from memdir.errors import ConfigError, ProviderError
from memdir.llm._sdk import SDKProvider, import_sdk
from memdir.llm.base import (
    Completion,
    Message,
    Request,
    StopReason,
    ToolCall,
    Usage,
    estimate_tokens,
)
from memdir.llm.context import counted_prompt_tokens, fit_request, probe_context_tokens
from memdir.llm.guard import check_allowed, is_loopback_url
from memdir.llm.retry import RetryPolicy
from memdir.llm.schema import schema_instruction

if TYPE_CHECKING:
    import openai
    from openai.types.chat import ChatCompletion

__all__ = ["DEFAULT_OPENAI_MODEL", "DIALECTS", "OpenAICompatProvider", "detect_dialect"]

Dialect = Literal["json_schema", "json_object", "prompt"]
DIALECTS: tuple[str, ...] = ("auto", "json_schema", "json_object", "prompt")
DEFAULT_OPENAI_MODEL = "gpt-4.1-mini"
OPENAI_BASE_URL = "https://api.openai.com/v1"
_OLLAMA_PORT = 11434
_FINISH = {
    "stop": StopReason.END,
    "length": StopReason.MAX_TOKENS,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "content_filter": StopReason.REFUSAL,
}


def detect_dialect(base_url: str) -> Dialect:
    """The structured-output dialect an endpoint most likely speaks."""
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    if host == "api.openai.com" or host.endswith(".openai.azure.com"):
        return "json_schema"
    if parts.port == _OLLAMA_PORT or "ollama" in host:
        return "json_schema"
    if is_loopback_url(base_url):
        return "json_object"
    return "prompt"


class OpenAICompatProvider(SDKProvider):
    """A :class:`~memdir.llm.Provider` over an OpenAI-compatible chat endpoint.

    ``api_key`` may be omitted for local servers (a placeholder is sent). ``label``
    names the model in errors (default: the endpoint's host and port).
    ``http_client`` is an ``httpx`` client of the flavour the SDK uses (tests pass
    one with a mock transport or request hooks). No
    environment variable is read here: configuration comes in as arguments
    (see :func:`memdir.llm.provider_from_env`).
    """

    def __init__(
        self,
        *,
        model: str = DEFAULT_OPENAI_MODEL,
        api_key: str | None = None,
        base_url: str | None = None,
        dialect: str = "auto",
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        http_client: Any = None,
        sleep: Callable[[float], None] = time.sleep,
        context_tokens: int | None = None,
        ask_context: bool = True,
        count_tokens: bool = False,
        label: str | None = None,
    ) -> None:
        self.model = model
        self.base_url = (base_url or OPENAI_BASE_URL).rstrip("/")
        # What the server says wins over what memdir was told; OpenAI's hosts say nothing.
        self._context_given = context_tokens
        self._ask_context = ask_context and not _hosted(self.base_url)
        self._context: int | None = None
        self._context_known = False
        self._count_tokens = count_tokens
        if dialect not in DIALECTS:
            raise ConfigError(
                f"unknown structured-output dialect {dialect!r}",
                hint=f"use one of {', '.join(DIALECTS)}",
            )
        self.dialect: Dialect = (
            detect_dialect(self.base_url) if dialect == "auto" else cast(Dialect, dialect)
        )
        if api_key is None and base_url is None:
            raise ConfigError("the OpenAI API needs an API key", hint="set OPENAI_API_KEY")
        sdk = import_sdk("openai", "OpenAI-compatible")
        super().__init__(sdk=sdk, api_key=api_key, retry=retry, sleep=sleep)
        self._client: openai.OpenAI = self._sdk.OpenAI(
            api_key=api_key or "unused",
            base_url=self.base_url,
            timeout=timeout,
            max_retries=0,
            http_client=http_client,
        )
        # Host and port only: a base URL may carry credentials in its user-info part.
        parts = urlsplit(self.base_url)
        where = f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)
        self._label = label or f"openai-compatible endpoint {where}"

    def __repr__(self) -> str:
        return f"OpenAICompatProvider(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def context_tokens(self) -> int | None:
        """The model's context window: the server's word, else the one given (None: unknown).

        The server is asked once, on first use.
        """
        if not self._context_known:
            told = None
            if self._ask_context:
                told = probe_context_tokens(self.base_url, api_key=self._api_key)
            self._context = told or self._context_given
            self._context_known = True
        return self._context

    def complete(self, request: Request) -> Completion:
        """Send ``request`` as one chat completion (retrying transient failures).

        Its ``max_tokens`` is lowered to what the context window leaves after the prompt.
        """
        check_allowed(self._label, self.base_url)
        window = self.context_tokens
        counted = None
        if window is not None and self._count_tokens:
            counted = counted_prompt_tokens(self.base_url, request, api_key=self._api_key)
        request = fit_request(request, window, label=self._label, prompt=counted)
        params = self.build_params(request)
        response: ChatCompletion = self._send(
            self._label, lambda: self._client.chat.completions.create(**params)
        )
        return self._parse(response, request)

    def build_params(self, request: Request) -> dict[str, Any]:
        """The keyword arguments of ``chat.completions.create`` for ``request``."""
        system = request.system
        if request.json_schema is not None and self.dialect != "json_schema":
            system = f"{system}\n\n{schema_instruction(request.json_schema)}".strip()
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        for message in request.messages:
            messages.extend(_message_params(message))
        # OpenAI's newer models refuse max_tokens; other servers may not know the new name.
        limit_key = "max_completion_tokens" if "api.openai.com" in self.base_url else "max_tokens"
        params: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            limit_key: request.max_tokens,
        }
        if request.temperature is not None:
            params["temperature"] = request.temperature
        if request.tools:
            params["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": dict(t.input_schema),
                    },
                }
                for t in request.tools
            ]
        response_format = self._response_format(request.json_schema)
        if response_format is not None:
            params["response_format"] = response_format
        return params

    def _response_format(self, schema: Mapping[str, Any] | None) -> dict[str, Any] | None:
        if schema is None:
            return None
        if self.dialect == "json_schema":
            # strict mode would demand every property be required; validation catches the rest.
            spec = {"name": "reply", "schema": dict(schema), "strict": False}
            return {"type": "json_schema", "json_schema": spec}
        if self.dialect == "json_object":
            return {"type": "json_object", "schema": dict(schema)}
        return None

    def _parse(self, response: ChatCompletion, request: Request) -> Completion:
        if not response.choices:
            raise ProviderError(f"{self._label}: the response has no choices")
        choice = response.choices[0]
        text = choice.message.content or ""
        calls = tuple(
            ToolCall(id=c.id, name=c.function.name, arguments=_arguments(c.function.arguments))
            for c in (choice.message.tool_calls or ())
            if c.type == "function"
        )
        if response.usage is not None:
            usage = Usage(
                input_tokens=response.usage.prompt_tokens,
                output_tokens=response.usage.completion_tokens,
            )
        else:  # some servers omit usage; budgets still need a number
            usage = Usage(
                input_tokens=estimate_tokens(request), output_tokens=estimate_tokens(text)
            )
        return Completion(
            text=text,
            tool_calls=calls,
            stop_reason=_FINISH.get(str(choice.finish_reason), StopReason.OTHER),
            usage=usage,
            model=response.model,
        )


def _hosted(base_url: str) -> bool:
    """OpenAI's own hosts: their windows are large and they do not report them."""
    host = (urlsplit(base_url).hostname or "").lower()
    return host == "api.openai.com" or host.endswith(".openai.azure.com")


def _message_params(message: Message) -> list[dict[str, Any]]:
    if message.role == "assistant":
        param: dict[str, Any] = {"role": "assistant", "content": message.text or None}
        if message.tool_calls:
            param["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(dict(c.arguments))},
                }
                for c in message.tool_calls
            ]
        return [param]
    params = [
        {
            "role": "tool",
            "tool_call_id": r.tool_call_id,
            "content": f"Error: {r.content}" if r.is_error else r.content,
        }
        for r in message.tool_results
    ]
    if message.text or not params:
        params.append({"role": "user", "content": message.text})
    return params


def _arguments(raw: str) -> dict[str, Any]:
    """Tool arguments; a malformed string is kept whole so the caller can report it."""
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {"_unparsed": raw}
    return value if isinstance(value, dict) else {"_unparsed": raw}
