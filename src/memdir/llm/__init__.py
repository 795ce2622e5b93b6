"""memdir's language-model layer: one Protocol, real providers, structured output.

Callers build a :class:`Request`, call ``provider.complete(request)`` and get a
:class:`Completion`; :func:`complete_json` adds schema-validated JSON with one
corrective retry. :func:`provider_from_env` returns the configured provider (by
default the embedded local model of :mod:`memdir.llm.local`, when it is installed)
or ``None`` (callers then skip model steps and say so). The SDK-backed providers
import their SDK only when built; :class:`ClaudeCodeProvider` runs the user's own
``claude -p`` instead of an SDK; every provider fits its requests into the model's
context window or raises :class:`ModelTooSmall`. The scripted double is in
:mod:`memdir.testing`.
"""

from memdir.llm.anthropic import AnthropicProvider
from memdir.llm.base import (
    Completion,
    Message,
    Provider,
    Request,
    StopReason,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
    estimate_tokens,
)
from memdir.llm.budget import MeteredProvider
from memdir.llm.claude_code import ClaudeCodeProvider
from memdir.llm.context import ModelTooSmall
from memdir.llm.factory import provider_from_env
from memdir.llm.openai_compat import OpenAICompatProvider, detect_dialect
from memdir.llm.retry import RetryPolicy
from memdir.llm.schema import complete_json, parse_json_reply, validate_json

__all__ = [
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
]
