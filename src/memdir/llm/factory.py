"""Choose the provider from configuration; ``None`` when none is configured.

The composition root passes its environment in (nothing here reads ``os.environ``)
and nothing touches the network: a provider only connects on its first call.

=========================  =================================================
``MEMDIR_PROVIDER``        ``anthropic`` | ``openai`` | ``local`` | ``none``;
                           unset: Anthropic if its key is set, else OpenAI if
                           its key or base URL is set, else none
``MEMDIR_MODEL``           model name (each provider has a default)
``ANTHROPIC_API_KEY``      Anthropic key; ``ANTHROPIC_BASE_URL`` optional
``OPENAI_API_KEY``         OpenAI key (optional for servers that need none)
``OPENAI_BASE_URL``        any OpenAI-compatible endpoint
``MEMDIR_LOCAL_BASE_URL``  the local server for ``local`` (default below)
``MEMDIR_LLM_DIALECT``     ``auto`` | ``json_schema`` | ``json_object`` | ``prompt``
``MEMDIR_LLM_TIMEOUT``     seconds per request (default 60)
=========================  =================================================
"""

from __future__ import annotations

from collections.abc import Mapping

from memdir.errors import ConfigError
from memdir.llm.base import Provider

__all__ = ["DEFAULT_LOCAL_BASE_URL", "PROVIDER_NAMES", "provider_from_env"]

PROVIDER_NAMES = ("anthropic", "openai", "local", "none")
DEFAULT_LOCAL_BASE_URL = "http://127.0.0.1:8080/v1"
_LOCAL_MODEL = "local"


def provider_from_env(env: Mapping[str, str]) -> Provider | None:
    """The provider ``env`` configures, or ``None`` when model steps should be skipped."""
    name = _provider_name(env)
    if name == "none":
        return None
    model = env.get("MEMDIR_MODEL") or None
    timeout = _timeout(env)
    if name == "anthropic":
        return _anthropic(env, model, timeout)
    from memdir.llm.openai_compat import DEFAULT_OPENAI_MODEL, OpenAICompatProvider

    dialect = env.get("MEMDIR_LLM_DIALECT") or "auto"
    if name == "local":
        local_url = env.get("MEMDIR_LOCAL_BASE_URL") or DEFAULT_LOCAL_BASE_URL
        return OpenAICompatProvider(
            model=model or _LOCAL_MODEL, base_url=local_url, dialect=dialect, timeout=timeout
        )
    api_key = env.get("OPENAI_API_KEY") or None
    base_url = env.get("OPENAI_BASE_URL") or None
    if api_key is None and base_url is None:
        raise ConfigError(
            "MEMDIR_PROVIDER=openai but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set",
            hint="set OPENAI_API_KEY, or OPENAI_BASE_URL for a server that needs no key",
        )
    return OpenAICompatProvider(
        model=model or DEFAULT_OPENAI_MODEL,
        api_key=api_key,
        base_url=base_url,
        dialect=dialect,
        timeout=timeout,
    )


def _provider_name(env: Mapping[str, str]) -> str:
    name = (env.get("MEMDIR_PROVIDER") or "").strip().lower()
    if not name:
        if env.get("ANTHROPIC_API_KEY"):
            return "anthropic"
        if env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"):
            return "openai"
        return "none"
    if name not in PROVIDER_NAMES:
        raise ConfigError(
            f"MEMDIR_PROVIDER={name!r} is not a provider",
            hint=f"use one of {', '.join(PROVIDER_NAMES)}",
        )
    return name


def _anthropic(env: Mapping[str, str], model: str | None, timeout: float) -> Provider:
    from memdir.llm.anthropic import DEFAULT_ANTHROPIC_MODEL, AnthropicProvider

    api_key = env.get("ANTHROPIC_API_KEY")
    if not api_key:
        raise ConfigError(
            "MEMDIR_PROVIDER=anthropic but ANTHROPIC_API_KEY is not set",
            hint="set ANTHROPIC_API_KEY, or MEMDIR_PROVIDER=none to skip model steps",
        )
    return AnthropicProvider(
        api_key=api_key,
        model=model or DEFAULT_ANTHROPIC_MODEL,
        base_url=env.get("ANTHROPIC_BASE_URL") or None,
        timeout=timeout,
    )


def _timeout(env: Mapping[str, str]) -> float:
    raw = env.get("MEMDIR_LLM_TIMEOUT") or "60"
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if value <= 0:
        raise ConfigError(
            f"MEMDIR_LLM_TIMEOUT={raw!r} is not a positive number of seconds",
            hint="set MEMDIR_LLM_TIMEOUT to e.g. 60",
        )
    return value
