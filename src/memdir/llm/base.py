"""The provider interface: one call, ``complete(request) -> Completion``.

Every model call memdir makes (recall selection, session notes, extraction,
consolidation) goes through :class:`Provider`, so a real endpoint and the scripted
test double are interchangeable. Values are frozen keyword-only dataclasses that
speak neither SDK's dialect; each provider module translates at its edge.

A conversation is a tuple of :class:`Message`: ``user`` turns carry text and/or
the results of tools the assistant asked for; ``assistant`` turns carry text
and/or tool calls. This is the shape both Anthropic and OpenAI map onto without
loss. Token counts the provider reports come back as :class:`Usage` so every
background job can keep a budget and report what it spent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol, runtime_checkable

from memdir.transcripts.turns import estimate_tokens as estimate_text_tokens

__all__ = [
    "Completion",
    "Message",
    "Provider",
    "Request",
    "StopReason",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "Usage",
    "estimate_tokens",
    "request_text",
]

JSONObject = dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """A tool the model may call: ``input_schema`` is a JSON-schema object."""

    name: str
    description: str
    input_schema: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )


@dataclass(frozen=True, kw_only=True)
class ToolCall:
    """One tool call the model made; ``id`` pairs it with its :class:`ToolResult`."""

    id: str
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True, kw_only=True)
class ToolResult:
    """What a tool returned, sent back to the model in the next user turn."""

    tool_call_id: str
    content: str
    is_error: bool = False


@dataclass(frozen=True, kw_only=True)
class Message:
    """One turn. Build with :meth:`user`, :meth:`assistant` or :meth:`tool_reply`."""

    role: Literal["user", "assistant"]
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()

    def __post_init__(self) -> None:
        if self.role == "user" and self.tool_calls:
            raise ValueError("a user message cannot carry tool calls")
        if self.role == "assistant" and self.tool_results:
            raise ValueError("an assistant message cannot carry tool results")

    @classmethod
    def user(cls, text: str) -> Message:
        """A plain user turn."""
        return cls(role="user", text=text)

    @classmethod
    def assistant(cls, text: str = "", tool_calls: tuple[ToolCall, ...] = ()) -> Message:
        """An assistant turn, as the model produced it."""
        return cls(role="assistant", text=text, tool_calls=tool_calls)

    @classmethod
    def tool_reply(cls, *results: ToolResult, text: str = "") -> Message:
        """A user turn answering the previous assistant turn's tool calls."""
        return cls(role="user", text=text, tool_results=results)


@dataclass(frozen=True, kw_only=True)
class Request:
    """Everything one model call needs.

    ``json_schema`` asks for a JSON object matching that schema (each provider
    uses the strongest mechanism its endpoint has); validate the answer with
    :func:`memdir.llm.complete_json`. ``temperature`` ``None`` leaves sampling to
    the endpoint (some models accept no other value).
    """

    system: str = ""
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    json_schema: Mapping[str, Any] | None = None
    max_tokens: int = 1024
    temperature: float | None = None

    def __post_init__(self) -> None:
        if not self.messages:
            raise ValueError("a request needs at least one message")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be positive, got {self.max_tokens}")


class StopReason(StrEnum):
    """Why the model stopped, normalised across providers."""

    END = "end"
    MAX_TOKENS = "max_tokens"
    TOOL_USE = "tool_use"
    STOP_SEQUENCE = "stop_sequence"
    REFUSAL = "refusal"
    OTHER = "other"


@dataclass(frozen=True, kw_only=True)
class Usage:
    """Tokens one call (or a sum of calls) consumed, and its price where the provider
    says (``cost_usd``: the Claude Code CLI reports one; 0.0 when none is known)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def total(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
        )


@dataclass(frozen=True, kw_only=True)
class Completion:
    """What the model answered: text, tool calls, why it stopped and what it cost."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    stop_reason: StopReason = StopReason.END
    usage: Usage = field(default_factory=Usage)
    model: str = ""

    def as_message(self) -> Message:
        """This answer as the assistant turn to append to the conversation."""
        return Message.assistant(self.text, self.tool_calls)


@runtime_checkable
class Provider(Protocol):
    """A language model: messages in; text, tool calls or JSON out; usage reported.

    Implementations raise :class:`memdir.errors.ProviderError` (or its subclasses
    ``ProviderAuthError``, ``ProviderBlocked``) and nothing else on failure.
    """

    def complete(self, request: Request) -> Completion:
        """Run one model call."""
        ...


def estimate_tokens(value: str | Request) -> int:
    """A rough token count (characters / 4), for budgets before a call is made."""
    return estimate_text_tokens(value if isinstance(value, str) else request_text(value))


def request_text(request: Request) -> str:
    """Every text a model reads in ``request`` (system, turns, tools, schema), joined."""
    parts = [request.system]
    for message in request.messages:
        parts.append(message.text)
        parts.extend(json.dumps(dict(c.arguments)) for c in message.tool_calls)
        parts.extend(r.content for r in message.tool_results)
    for tool in request.tools:
        parts.extend((tool.name, tool.description, json.dumps(dict(tool.input_schema))))
    if request.json_schema is not None:
        parts.append(json.dumps(dict(request.json_schema)))
    return "\n".join(p for p in parts if p)
