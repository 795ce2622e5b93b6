"""provider_from_env: which provider the environment configures, and when none."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from memdir.errors import ConfigError
from memdir.llm import AnthropicProvider, OpenAICompatProvider, provider_from_env


class _Models(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"object": "list", "data": []}')

    def log_message(self, format: str, *args: object) -> None:  # keep test output clean
        pass


@pytest.fixture
def server_on_8080() -> Iterator[None]:
    """Something answering /v1/models at the default local URL (skips if 8080 is taken)."""
    try:
        server = ThreadingHTTPServer(("127.0.0.1", 8080), _Models)
    except OSError:
        pytest.skip("port 8080 is in use")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_nothing_configured_and_no_local_model_means_no_provider(tmp_path: Path) -> None:
    env = {"MEMDIR_LOCAL_MODEL": str(tmp_path / "missing.gguf")}
    assert provider_from_env(env) is None


def test_explicit_none_wins_over_keys() -> None:
    assert provider_from_env({"MEMDIR_PROVIDER": "none", "ANTHROPIC_API_KEY": "k"}) is None


def test_an_anthropic_key_alone_selects_anthropic_with_its_default_model() -> None:
    provider = provider_from_env({"ANTHROPIC_API_KEY": "k"})
    assert isinstance(provider, AnthropicProvider)
    assert provider.model == "claude-haiku-4-5"
    assert provider.base_url == "https://api.anthropic.com"


def test_an_openai_key_selects_openai_and_memdir_model_names_the_model() -> None:
    provider = provider_from_env({"OPENAI_API_KEY": "k", "MEMDIR_MODEL": "gpt-x"})
    assert isinstance(provider, OpenAICompatProvider)
    assert provider.model == "gpt-x"
    assert provider.dialect == "json_schema"


def test_an_openai_base_url_without_a_key_selects_that_server() -> None:
    provider = provider_from_env({"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"})
    assert isinstance(provider, OpenAICompatProvider)
    assert provider.base_url == "http://127.0.0.1:8000/v1"
    assert provider.dialect == "json_object"


def test_local_uses_the_loopback_server_and_an_explicit_dialect() -> None:
    env = {
        "MEMDIR_PROVIDER": "local",
        "MEMDIR_LOCAL_BASE_URL": "http://127.0.0.1:9999/v1",
        "MEMDIR_LLM_DIALECT": "prompt",
    }
    provider = provider_from_env(env)
    assert isinstance(provider, OpenAICompatProvider)
    assert provider.base_url == "http://127.0.0.1:9999/v1"
    assert provider.dialect == "prompt"


def test_local_uses_a_server_already_answering_on_port_8080(
    server_on_8080: None, tmp_path: Path
) -> None:
    env = {"MEMDIR_PROVIDER": "local", "MEMDIR_LOCAL_MODEL": str(tmp_path / "missing.gguf")}
    provider = provider_from_env(env)
    assert isinstance(provider, OpenAICompatProvider)
    assert provider.base_url == "http://127.0.0.1:8080/v1"


def test_provider_name_is_case_insensitive() -> None:
    assert isinstance(
        provider_from_env({"MEMDIR_PROVIDER": "Anthropic", "ANTHROPIC_API_KEY": "k"}),
        AnthropicProvider,
    )


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"MEMDIR_PROVIDER": "gemini"}, "not a provider"),
        ({"MEMDIR_PROVIDER": "anthropic"}, "ANTHROPIC_API_KEY is not set"),
        ({"MEMDIR_PROVIDER": "openai"}, "neither OPENAI_API_KEY"),
        ({"OPENAI_API_KEY": "k", "MEMDIR_LLM_TIMEOUT": "soon"}, "MEMDIR_LLM_TIMEOUT"),
        ({"OPENAI_API_KEY": "k", "MEMDIR_LLM_TIMEOUT": "0"}, "MEMDIR_LLM_TIMEOUT"),
        ({"OPENAI_API_KEY": "k", "MEMDIR_LLM_DIALECT": "yaml"}, "dialect"),
    ],
)
def test_misconfiguration_is_a_config_error_with_a_hint(env: dict[str, str], needle: str) -> None:
    with pytest.raises(ConfigError, match=needle) as caught:
        provider_from_env(env)
    assert caught.value.hint


def test_the_key_never_appears_in_a_config_error() -> None:
    with pytest.raises(ConfigError) as caught:
        provider_from_env({"OPENAI_API_KEY": "sk-very-secret", "MEMDIR_LLM_TIMEOUT": "x"})
    assert "sk-very-secret" not in str(caught.value)


def test_importing_memdir_llm_imports_no_sdk() -> None:
    import subprocess
    import sys

    code = (
        "import sys, memdir.llm, memdir.testing; "
        "print('openai' in sys.modules, 'anthropic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_describe_provider_names_the_kind_the_model_and_the_host_but_no_credentials() -> None:
    from memdir.llm.factory import describe_provider

    anthropic = provider_from_env({"ANTHROPIC_API_KEY": "k"})
    endpoint = provider_from_env(
        {"OPENAI_BASE_URL": "http://user:secret@127.0.0.1:8000/v1", "MEMDIR_MODEL": "m"}
    )
    assert anthropic is not None and endpoint is not None
    assert describe_provider(anthropic) == "Anthropic model claude-haiku-4-5"
    described = describe_provider(endpoint)
    assert described == "model m at the OpenAI-compatible endpoint 127.0.0.1:8000"
    assert "secret" not in described


@pytest.mark.parametrize(
    "env",
    [
        {"ANTHROPIC_API_KEY": "k"},
        {"OPENAI_API_KEY": "k"},
        {"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"},
    ],
)
def test_unattended_work_takes_no_provider_from_a_key_alone(env: dict[str, str]) -> None:
    assert provider_from_env(env) is not None  # a person asking may use it
    assert provider_from_env(env, unattended=True) is None


def test_unattended_work_uses_the_provider_memdir_provider_names() -> None:
    env = {"MEMDIR_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "k", "MEMDIR_MODEL": "m"}
    provider = provider_from_env(env, unattended=True)
    assert isinstance(provider, AnthropicProvider) and provider.model == "m"


def test_the_settings_files_provider_and_model_count_and_the_environment_wins(
    tmp_path: Path,
) -> None:
    from memdir.config import load_settings
    from memdir.llm.factory import provider_from_settings

    (tmp_path / "config.toml").write_text('provider = "openai"\nmodel = "from-file"\n')
    env = {"MEMDIR_HOME": str(tmp_path), "OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"}
    env["ANTHROPIC_API_KEY"] = "k"  # not what the file names: it stays unused
    provider = provider_from_settings(load_settings(env), env, unattended=True)
    assert isinstance(provider, OpenAICompatProvider) and provider.model == "from-file"
    env["MEMDIR_PROVIDER"] = "none"
    assert provider_from_settings(load_settings(env), env, unattended=True) is None


# -- claude-code: the user's own Claude Code, only when named -------------------------------


def test_claude_code_is_never_picked_without_being_named(tmp_path: Path) -> None:
    # Claude Code's own environment, its key and a claude on PATH: still no provider.
    (tmp_path / "claude").write_text("#!/bin/sh\n")
    (tmp_path / "claude").chmod(0o755)
    env = {"PATH": str(tmp_path), "CLAUDECODE": "1", "ANTHROPIC_API_KEY": "k"}
    assert provider_from_env(env, unattended=True) is None


def test_claude_code_named_runs_a_small_model_in_the_project(tmp_path: Path) -> None:
    from memdir.config import load_settings
    from memdir.llm.claude_code import ClaudeCodeProvider
    from memdir.llm.factory import describe_provider, provider_from_settings
    from memdir.storage.paths import make_layout

    env = {"MEMDIR_PROVIDER": "claude-code", "MEMDIR_HOME": str(tmp_path / "home")}
    settings = load_settings(env, claude_code_command="/opt/claude/bin/claude")
    layout = make_layout(settings.home, tmp_path)
    provider = provider_from_settings(settings, env, unattended=True, layout=layout)
    assert isinstance(provider, ClaudeCodeProvider)
    assert (provider.model, provider.command) == ("haiku", "/opt/claude/bin/claude")
    assert provider.cwd == layout.project_root
    assert provider.timeout == 180.0  # a child's start-up and answer, unless told otherwise
    assert describe_provider(provider) == "model haiku through the user's Claude Code (claude -p)"
    named = provider_from_env({**env, "MEMDIR_MODEL": "sonnet", "MEMDIR_LLM_TIMEOUT": "30"})
    assert isinstance(named, ClaudeCodeProvider)
    assert (named.model, named.timeout) == ("sonnet", 30.0)
