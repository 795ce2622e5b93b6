"""Fitting a request into its model's context window.

A model reads the prompt and writes its answer in one window of ``n_ctx`` tokens.
Endpoints refuse what does not fit, with an HTTP 400: vLLM and OpenAI a prompt plus
``max_tokens`` past the window, llama.cpp a prompt that fills it alone. The jobs ask
for answers as long as they may need (consolidation 8,192 tokens), and the embedded
local model has 2,048 in all. So before a call :func:`fit_request` lowers
``max_tokens`` to what the window leaves after the prompt, and when too little is left
for a useful answer raises :class:`ModelTooSmall`: one line saying the model is too
small for the job, and by how much, instead of a server's error.

The window comes from the server where it says (:func:`probe_context_tokens`:
llama.cpp's ``/props`` gives ``n_ctx``; ``/v1/models`` gives vLLM's ``max_model_len``
or llama.cpp's ``meta.n_ctx_train``), else from the setting ``model_context_tokens``;
unknown, a request is sent as it is. The prompt is counted high
(:func:`prompt_tokens`: characters / 3, plus a few tokens a turn for the chat
template): a count too low would end in the server's 400, one too high only in a
shorter answer. Where the server can count (llama.cpp's tokenizer endpoints,
:func:`counted_prompt_tokens`) its count is used, with a tenth added for what the chat
template renders around the tools: a count twice too high leaves a small model too
little room to finish its tool call.
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from memdir.errors import ProviderError
from memdir.llm.base import Request, request_text

__all__ = [
    "MIN_ANSWER_TOKENS",
    "ModelTooSmall",
    "counted_prompt_tokens",
    "fit_request",
    "probe_context_tokens",
    "prompt_tokens",
]

MIN_ANSWER_TOKENS = 256
"""The shortest answer worth asking for (a tool call writing one memory is about that)."""

_CHARS_PER_TOKEN = 3  # small models' tokenizers split code, JSON and paths finely
_TURN_TOKENS = 8  # the chat template's markers around each message
_TEMPLATE_TOKENS = 16  # and around the whole prompt
_TOO_SMALL_HINT = (
    "use a model with a larger context window (or set model_context_tokens when the "
    "server's window is larger than memdir was told), or a hosted provider"
)


class ModelTooSmall(ProviderError):
    """The model's context window cannot hold the job's prompt and a useful answer."""


def prompt_tokens(request: Request) -> int:
    """A high count of the tokens ``request``'s prompt takes in the model's window."""
    text = request_text(request)
    return math.ceil(len(text) / _CHARS_PER_TOKEN) + _template_tokens(request)


def _template_tokens(request: Request) -> int:
    """The chat template's markers around ``request``'s turns and the whole prompt."""
    turns = len(request.messages) + (1 if request.system else 0)
    return _TURN_TOKENS * turns + _TEMPLATE_TOKENS


def counted_prompt_tokens(
    base_url: str, request: Request, *, api_key: str | None = None, timeout: float = 5.0
) -> int | None:
    """The tokens ``request``'s prompt takes, counted by a llama.cpp server, or ``None``.

    The server's tokenizer counts the prompt's text (llama-cpp-python's
    ``/extras/tokenize/count``, llama.cpp's ``/tokenize``); a tenth and the template's
    markers are added for the chat template's rendering of turns and tools. A server
    that counts neither way gives ``None``: use :func:`prompt_tokens`.
    """
    root = base_url.rstrip("/").removesuffix("/v1")
    text = request_text(request)
    # llama-cpp-python's endpoint first (the embedded model's server), then llama.cpp's.
    for path, body in (("extras/tokenize/count", {"input": text}), ("tokenize", {"content": text})):
        data = _get_json(f"{root}/{path}", api_key=api_key, timeout=timeout, body=body)
        count = _token_count(data)
        if count is not None:
            break
    else:
        return None
    return math.ceil(count * 1.1) + _template_tokens(request)


def _token_count(data: Mapping[str, Any] | None) -> int | None:
    """The count in a tokenizer's answer: llama.cpp's token list or llama-cpp-python's count."""
    if data is None:
        return None
    tokens = data.get("tokens")
    return len(tokens) if isinstance(tokens, list) else _positive(data.get("count"))


def fit_request(
    request: Request, context_tokens: int | None, *, label: str, prompt: int | None = None
) -> Request:
    """``request`` with ``max_tokens`` lowered to what the window leaves after the prompt.

    ``prompt`` is the server's own count where known, else :func:`prompt_tokens`
    counts high. ``context_tokens`` ``None`` (unknown) leaves the request as it is. Raises
    :class:`ModelTooSmall` when fewer than :data:`MIN_ANSWER_TOKENS` (or the request's
    own ``max_tokens``, if lower) would be left.
    """
    if context_tokens is None:
        return request
    if prompt is None:
        prompt = prompt_tokens(request)
    room = context_tokens - prompt
    needed = min(request.max_tokens, MIN_ANSWER_TOKENS)
    if room < needed:
        raise ModelTooSmall(
            f"{label}: the model is too small for this job: its context window holds "
            f"{context_tokens:,} tokens and the prompt alone takes about {prompt:,}, "
            f"leaving {max(room, 0):,} for an answer that needs {needed:,}",
            hint=_TOO_SMALL_HINT,
        )
    if request.max_tokens <= room:
        return request
    return replace(request, max_tokens=room)


def probe_context_tokens(
    base_url: str, *, api_key: str | None = None, timeout: float = 2.0
) -> int | None:
    """The context window an OpenAI-compatible server says it has, or ``None``.

    Asks llama.cpp's ``/props`` (beside ``/v1``), then ``<base_url>/models``; a server
    that answers neither, or says nothing of its window, gives ``None``.
    """
    base = base_url.rstrip("/")
    root = base.removesuffix("/v1")
    for url, read in ((f"{root}/props", _from_props), (f"{base}/models", _from_models)):
        data = _get_json(url, api_key=api_key, timeout=timeout)
        found = read(data) if data is not None else None
        if found is not None:
            return found
    return None


def _from_props(data: Mapping[str, Any]) -> int | None:
    settings = data.get("default_generation_settings")
    nested = settings.get("n_ctx") if isinstance(settings, Mapping) else None
    return _positive(data.get("n_ctx")) or _positive(nested)


def _from_models(data: Mapping[str, Any]) -> int | None:
    models = data.get("data")
    if not isinstance(models, list) or not models or not isinstance(models[0], Mapping):
        return None
    model = models[0]
    given = model.get("meta")
    meta: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    for value in (
        model.get("max_model_len"),  # vLLM
        model.get("context_length"),  # LM Studio and others
        meta.get("n_ctx"),
        meta.get("n_ctx_train"),  # llama.cpp: the window it was trained with
    ):
        found = _positive(value)
        if found is not None:
            return found
    return None


def _positive(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


def _get_json(
    url: str, *, api_key: str | None, timeout: float, body: Mapping[str, str] | None = None
) -> Mapping[str, Any] | None:
    """The JSON object ``url`` answers (a POST of ``body`` where given), or ``None``."""
    headers = {"Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    payload = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        payload = json.dumps(body).encode()
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, data=payload, headers=headers), timeout=timeout
        ) as reply:
            data = json.loads(reply.read(16 << 20 if body is not None else 1 << 20))
    except (urllib.error.URLError, OSError, ValueError):
        return None
    return data if isinstance(data, Mapping) else None
