"""The switch that keeps real model requests out of a test run.

Under test, a request that reaches a hosted API costs money and makes results
depend on the network. When the switch is on, real providers raise
:class:`ProviderBlocked` before sending anything, unless the endpoint is on the
loopback interface (a local llama.cpp server is part of the test suite).

The switch is on while ``MEMDIR_BLOCK_REAL_PROVIDERS=1`` is in the environment, or
inside ``memdir.testing.block_real_providers()``; ``allow_real_providers()``
overrides both for tests that mean to call a hosted API. The override is
process-wide (not a context variable) so background threads obey it too.
"""

from __future__ import annotations

import ipaddress
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from memdir.errors import ProviderBlocked

__all__ = ["BLOCK_ENV", "check_allowed", "is_loopback_url", "override_blocking"]

BLOCK_ENV = "MEMDIR_BLOCK_REAL_PROVIDERS"

_lock = threading.Lock()
_overrides: list[bool] = []


@contextmanager
def override_blocking(blocked: bool) -> Iterator[None]:
    """Force the switch on (``True``) or off (``False``) inside the block."""
    with _lock:
        _overrides.append(blocked)
    try:
        yield
    finally:
        with _lock:
            _overrides.pop()


def _blocked() -> bool:
    with _lock:
        if _overrides:
            return _overrides[-1]
    return os.environ.get(BLOCK_ENV, "").strip().lower() in {"1", "true", "yes"}


def is_loopback_url(url: str) -> bool:
    """Whether ``url`` points at this machine (127.0.0.0/8, ::1 or ``localhost``)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_allowed(label: str, base_url: str) -> None:
    """Raise :class:`ProviderBlocked` if real requests are blocked and ``base_url`` is remote."""
    if _blocked() and not is_loopback_url(base_url):
        raise ProviderBlocked(
            f"{label}: real model requests are blocked ({BLOCK_ENV}=1)",
            hint="use memdir.testing.ScriptedProvider, a loopback endpoint, "
            "or memdir.testing.allow_real_providers()",
        )
