"""What the SDK-backed providers share: importing the SDK, retries, closing.

:class:`SDKProvider` holds the SDK module, the key (for redaction), the retry
policy and the SDK client; each provider subclass builds its client and
translates requests and responses, and sends through :meth:`SDKProvider._send`
so both classify the SDKs' common exception tree the same way.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Self, TypeVar

from memdir.errors import ConfigError
from memdir.llm.retry import RetryPolicy, call_with_retries, classify_sdk_error
from memdir.utils.installs import install_hint

__all__ = ["SDKProvider", "import_sdk"]

T = TypeVar("T")


def import_sdk(module: str, provider: str) -> Any:
    """Import the SDK ``module``; a missing one is a ConfigError naming memdir's extra."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ConfigError(
            f"the {provider} provider needs the {module} package",
            hint=install_hint(module),
        ) from None


class SDKProvider:
    """Base of the providers over an official SDK (its own retries switched off)."""

    _client: Any

    def __init__(
        self,
        *,
        sdk: Any,
        api_key: str | None,
        retry: RetryPolicy | None,
        sleep: Callable[[float], None],
    ) -> None:
        self._sdk = sdk
        self._api_key = api_key
        self._retry = retry or RetryPolicy()
        self._sleep = sleep

    def close(self) -> None:
        """Close the HTTP connections (also those of an ``http_client`` passed in)."""
        self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _send(self, label: str, call: Callable[[], T]) -> T:
        """Run ``call`` (one SDK request) under memdir's retry policy."""
        return call_with_retries(
            call,
            lambda exc: classify_sdk_error(exc, self._sdk, (self._api_key,)),
            policy=self._retry,
            label=label,
            sleep=self._sleep,
        )
