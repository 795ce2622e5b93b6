"""Choose the provider from configuration; ``None`` when model steps should be skipped.

The composition root passes its environment in (nothing here reads ``os.environ``).
Who asked decides how far the choice may guess:

- **a person** (``memdir consolidate``, ``recall --model``, a program calling
  :func:`provider_from_env`): ``MEMDIR_PROVIDER`` when set, else inferred: the
  Anthropic key, then the OpenAI key or base URL, then the embedded local model
  (llama.cpp's server on a bundled GGUF file, see :mod:`memdir.llm.local`) when it
  is installed, else ``None``;
- **nobody** (``unattended=True``: the hooks and their background jobs): only
  ``MEMDIR_PROVIDER`` (or ``provider`` in memdir's settings file, through
  :func:`provider_from_settings`) names the provider, and unset means ``None``.
  A key in the environment is not consent: Claude Code exports its own
  ``ANTHROPIC_API_KEY`` to every hook it runs. The named provider then reads its
  key, URL and model from the variables below as usual.

``MEMDIR_PROVIDER=local`` without ``MEMDIR_LOCAL_BASE_URL`` uses a server already
answering at the default URL (one quick probe, the only network access here), else
the embedded model, started on its first call.

``claude-code`` runs the user's own ``claude -p`` for each call
(:mod:`memdir.llm.claude_code`): never guessed, only named. Its child runs in the
project and keeps its lock and failure record in the project's state folder when the
caller passes the project's layout, else in memdir's home.

The setting ``model_context_tokens`` is the model's context window where its server
does not say (see :mod:`memdir.llm.context`).

=========================  =================================================
``MEMDIR_PROVIDER``        ``anthropic`` | ``openai`` | ``local`` |
                           ``claude-code`` | ``none``;
                           unset: none when unattended; else Anthropic if
                           its key is set, else OpenAI if its key or base
                           URL is set, else the embedded local model if
                           installed, else none
``MEMDIR_MODEL``           model name (each provider has a default)
``ANTHROPIC_API_KEY``      Anthropic key; ``ANTHROPIC_BASE_URL`` optional
``OPENAI_API_KEY``         OpenAI key (optional for servers that need none)
``OPENAI_BASE_URL``        any OpenAI-compatible endpoint
``MEMDIR_LOCAL_BASE_URL``  the local server for ``local`` (default below)
``MEMDIR_LOCAL_MODEL``     GGUF file of the embedded model (default: bundled)
``MEMDIR_LLM_DIALECT``     ``auto`` | ``json_schema`` | ``json_object`` | ``prompt``
``MEMDIR_LLM_TIMEOUT``     seconds per request (default 60; 180 for
                           ``claude-code``)
=========================  =================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from memdir.config import Settings, memdir_home
from memdir.errors import ConfigError
from memdir.llm.base import Provider
from memdir.llm.local import (
    INSTALL_HINT,
    EmbeddedProvider,
    embedded_missing_reason,
    local_model_path,
    server_answers,
)

if TYPE_CHECKING:
    from memdir.storage.paths import Layout

__all__ = [
    "DEFAULT_LOCAL_BASE_URL",
    "PROVIDER_NAMES",
    "describe_provider",
    "provider_from_env",
    "provider_from_settings",
]

PROVIDER_NAMES = ("anthropic", "openai", "local", "claude-code", "none")
DEFAULT_LOCAL_BASE_URL = "http://127.0.0.1:8080/v1"
_LOCAL_MODEL = "local"
_PROBE_TIMEOUT = 0.5
_EMBEDDED = "embedded"


def provider_from_env(
    env: Mapping[str, str],
    *,
    unattended: bool = False,
    context_tokens: int | None = None,
    claude_command: str | None = None,
    layout: Layout | None = None,
) -> Provider | None:
    """The provider ``env`` configures, or ``None`` when model steps should be skipped.

    ``unattended``: the work runs by itself (a hook, a background job), so only an
    explicit ``MEMDIR_PROVIDER`` counts; no key, URL or installed model is guessed at.
    ``context_tokens``: the model's window where its server does not say.
    ``claude_command`` and ``layout`` place the ``claude-code`` provider's child.
    """
    name = _provider_name(env, unattended=unattended)
    if name == "none":
        return None
    model = env.get("MEMDIR_MODEL") or None
    if name == "claude-code":
        return _claude_code(env, model, claude_command, layout)
    timeout = _timeout(env)
    if name == "anthropic":
        return _anthropic(env, model, timeout)
    from memdir.llm.openai_compat import DEFAULT_OPENAI_MODEL, OpenAICompatProvider

    dialect = env.get("MEMDIR_LLM_DIALECT") or "auto"
    if name == _EMBEDDED:
        return _embedded(env, dialect, timeout)
    if name == "local":
        local_url = env.get("MEMDIR_LOCAL_BASE_URL") or None
        if local_url is None and not server_answers(DEFAULT_LOCAL_BASE_URL, timeout=_PROBE_TIMEOUT):
            return _embedded(env, dialect, timeout)
        return OpenAICompatProvider(
            model=model or _LOCAL_MODEL,
            base_url=local_url or DEFAULT_LOCAL_BASE_URL,
            dialect=dialect,
            timeout=timeout,
            context_tokens=context_tokens,
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
        context_tokens=context_tokens,
    )


def provider_from_settings(
    settings: Settings,
    env: Mapping[str, str],
    *,
    unattended: bool = False,
    layout: Layout | None = None,
) -> Provider | None:
    """:func:`provider_from_env` with the settings' provider, model, context window and
    claude command in force; ``layout`` is the project's (where a ``claude-code`` child runs).

    The settings already hold ``MEMDIR_PROVIDER`` and ``MEMDIR_MODEL`` when they are set
    (the environment wins over the settings file), so what they name is what runs.
    """
    merged = dict(env)
    if settings.provider:
        merged["MEMDIR_PROVIDER"] = settings.provider
    if settings.model:
        merged["MEMDIR_MODEL"] = settings.model
    return provider_from_env(
        merged,
        unattended=unattended,
        context_tokens=settings.model_context_tokens,
        claude_command=settings.claude_code_command,
        layout=layout,
    )


def _provider_name(env: Mapping[str, str], *, unattended: bool) -> str:
    name = (env.get("MEMDIR_PROVIDER") or "").strip().lower()
    if not name:
        if unattended:
            return "none"
        if env.get("ANTHROPIC_API_KEY"):
            return "anthropic"
        if env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"):
            return "openai"
        return _EMBEDDED if embedded_missing_reason(env) is None else "none"
    if name not in PROVIDER_NAMES:
        raise ConfigError(
            f"MEMDIR_PROVIDER={name!r} is not a provider",
            hint=f"use one of {', '.join(PROVIDER_NAMES)}",
        )
    return name


def describe_provider(provider: Provider) -> str:
    """Which model a provider runs, for people: kind, model and (for endpoints) host."""
    from memdir.llm.anthropic import AnthropicProvider
    from memdir.llm.claude_code import ClaudeCodeProvider
    from memdir.llm.openai_compat import OpenAICompatProvider

    if isinstance(provider, EmbeddedProvider | ClaudeCodeProvider):
        return provider.description
    if isinstance(provider, AnthropicProvider):
        return f"Anthropic model {provider.model}"
    if isinstance(provider, OpenAICompatProvider):
        # Host and port only: a base URL may carry credentials.
        where = urlsplit(provider.base_url)
        host = f"{where.hostname}:{where.port}" if where.port else str(where.hostname)
        return f"model {provider.model} at the OpenAI-compatible endpoint {host}"
    return f"{type(provider).__name__} model {getattr(provider, 'model', '(unnamed)')}"


def _claude_code(
    env: Mapping[str, str], model: str | None, command: str | None, layout: Layout | None
) -> Provider:
    """The user's own Claude Code; its child runs in the project when the layout is known."""
    from memdir.llm.claude_code import (
        DEFAULT_CLAUDE_CODE_MODEL,
        DEFAULT_CLAUDE_CODE_TIMEOUT,
        ClaudeCodeProvider,
    )

    timeout = _timeout(env) if env.get("MEMDIR_LLM_TIMEOUT") else DEFAULT_CLAUDE_CODE_TIMEOUT
    state_dir = layout.state_dir if layout is not None else memdir_home(env) / "state"
    return ClaudeCodeProvider(
        env=env,
        state_dir=state_dir,
        command=command,
        model=model or DEFAULT_CLAUDE_CODE_MODEL,
        timeout=timeout,
        cwd=layout.project_root if layout is not None else None,
    )


def _embedded(env: Mapping[str, str], dialect: str, timeout: float) -> Provider:
    """The embedded model, started on its first call; a ConfigError when it cannot run."""
    reason = embedded_missing_reason(env)
    path = local_model_path(env)
    if reason is not None or path is None:
        raise ConfigError(
            f"MEMDIR_PROVIDER=local: no server answers at {DEFAULT_LOCAL_BASE_URL} "
            f"and the embedded model cannot run ({reason})",
            hint=f"start a server and set MEMDIR_LOCAL_BASE_URL, or {INSTALL_HINT}",
        )
    return EmbeddedProvider(model_path=path, dialect=dialect, timeout=timeout)


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
