"""Running the real Gemini CLI on memdir, installed the way a user installs it.

- **The client** is the npm package ``@google/gemini-cli`` at the version in
  ``tests/gemini.version``, which ``make gemini`` (part of ``make test``) installs into
  ``.cache/gemini/``; ``MEMDIR_GEMINI_BIN`` names another one. It is one bundled script
  that node runs. Where it is missing the tests skip with the reason the installer
  recorded (npm, node or the registry unavailable), except under ``CI=true``, where they
  fail.
- **memdir** is the test suite's own virtual environment, off the ``PATH`` Gemini gets
  (``/usr/bin:/bin``, where node is): a hook or MCP command runs only if it names the
  installation. It is installed by its own commands (``memdir install gemini``, ``memdir
  hook install gemini``), run as ``<venv>/bin/memdir`` in the project, as a user runs them.
- **The machine** is a throwaway ``HOME`` holding Gemini's ``~/.gemini`` (the user's
  ``settings.json``: an API key sign-in, a fixed model, and Gemini's calls home switched
  off; ``trustedFolders.json``: the project trusted, as the user's "Trust folder" in
  Gemini's dialog records it) and memdir's ``~/.memdir``, and throwaway git projects.
  The test process points ``HOME`` at the same folder, so the Python API it sets
  memories up with sees what the hooks and the MCP server see.
- **The model** is the stand-in of :mod:`gemini_api` on 127.0.0.1, reached through
  ``GOOGLE_GEMINI_BASE_URL`` with a made-up ``GEMINI_API_KEY``.

Each run is ``gemini -p PROMPT --output-format stream-json`` in a project: a headless
run, its events (each tool call and its result) on stdout, and the stand-in shows what
reached the model. Gemini asks before a tool that changes something and a headless
run cannot ask, so it leaves those tools out; a run that must be able to run a command
(a denied one must be one that would run) turns approvals off (``--yolo``), as a user
scripting Gemini does.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gemini_api import Recorded, StandIn, Turn, function_responses, request_texts, run_stand_in
from gemini_api import tool_names as offered
from gitutil import git
from memdir.api import Memdir

__all__ = ["GEMINI_PATH", "GeminiBox", "GeminiRun", "gemini_binary", "gemini_box"]

ROOT = Path(__file__).resolve().parent.parent
VERSION_FILE = ROOT / "tests" / "gemini.version"
INSTALL_DIR = ROOT / ".cache" / "gemini"
DEFAULT_BIN = INSTALL_DIR / "gemini"  # linked to the package's script by the installer
UNAVAILABLE = INSTALL_DIR / "unavailable"  # the installer's reason, when it could not install
GEMINI_PATH = "/usr/bin:/bin"  # what Gemini and its hooks get: node, not memdir
MODEL = "gemini-2.5-flash"  # a model named outright: no routing calls before the first turn
_RUN_TIMEOUT = 180  # seconds: a guard against a hung client, never an assertion
# The user's own Gemini settings before memdir's installers touch them: sign-in with an
# API key, the model, and what Gemini would otherwise reach out for (usage statistics,
# telemetry, update checks).
USER_SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "model": {"name": MODEL},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}


def pinned_version() -> str:
    """The Gemini CLI version the tests run (``tests/gemini.version``)."""
    return VERSION_FILE.read_text(encoding="utf-8").strip()


def gemini_binary() -> Path:
    """The Gemini CLI to drive; skips (fails under ``CI=true``) when there is none."""
    given = os.environ.get("MEMDIR_GEMINI_BIN", "").strip()
    path = Path(given) if given else DEFAULT_BIN
    reason = _unusable(path, check_version=not given or path == DEFAULT_BIN)
    if reason is None:
        return path
    if os.environ.get("CI", "").strip().lower() == "true":
        pytest.fail(f"the Gemini CLI is required under CI=true: {reason}")
    pytest.skip(reason)


@functools.cache
def _unusable(path: Path, *, check_version: bool) -> str | None:
    """Why ``path`` cannot be the client under test, or None when it can."""
    if not (path.is_file() and os.access(path, os.X_OK)):
        recorded = ""
        if path == DEFAULT_BIN:  # the installer says why it could not install
            with suppress(OSError):
                recorded = UNAVAILABLE.read_text(encoding="utf-8").strip()
        why = recorded or "not installed"
        return f"Gemini CLI {path} missing ({why}); `make gemini` installs it"
    if shutil.which("node", path=GEMINI_PATH) is None:
        return f"Gemini CLI {path} needs node on {GEMINI_PATH}, and there is none"
    if not check_version:
        return None
    try:
        shown = subprocess.run(
            [str(path), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": GEMINI_PATH, "HOME": str(INSTALL_DIR / "home")},
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"Gemini CLI {path} does not run ({exc})"
    if shown.splitlines()[-1:] != [pinned_version()]:
        return (
            f"Gemini CLI {path} is {shown!r}, the tests pin {pinned_version()}; "
            "`make gemini` installs the pinned version"
        )
    return None


@dataclass(frozen=True, kw_only=True)
class GeminiRun:
    """One ``gemini -p`` run: its JSON events, stderr, and the requests the model got."""

    events: list[dict[str, Any]]
    stderr: str
    returncode: int
    requests: list[Recorded]

    @property
    def turns(self) -> list[Recorded]:
        """The run's requests of the conversation (those that offer Gemini's tools)."""
        return [r for r in self.requests if r.is_turn]

    def first_tools(self) -> list[str]:
        """The tools the run's first request offered the model."""
        assert self.turns, f"Gemini sent the model nothing: {self.stderr[-2000:]}"
        return offered(self.turns[0].body)

    def tool_results(self) -> list[dict[str, Any]]:
        """Each tool call's result event (``status``, ``output``), in order."""
        return [e for e in self.events if e.get("type") == "tool_result"]

    def tool_outputs(self) -> list[str]:
        """What each tool call returned to the model, in order."""
        assert self.turns, "Gemini sent the model nothing"
        return function_responses(self.turns[-1].body)

    def first_texts(self) -> list[str]:
        """Every text of the run's first request to the model."""
        assert self.turns, f"Gemini sent the model nothing: {self.stderr[-2000:]}"
        return request_texts(self.turns[0].body)

    def delivered(self, text: str) -> bool:
        """Whether ``text`` reached the model whole in one of the run's requests."""
        return bool(text) and any(text in t for r in self.turns for t in request_texts(r.body))


@dataclass(kw_only=True)
class GeminiBox:
    """A throwaway machine for one test: HOME, Gemini's folder, git projects, the stand-in."""

    root: Path
    home: Path
    project: Path
    venv_bin: Path
    gemini: Path
    api: StandIn

    @property
    def gemini_home(self) -> Path:
        return self.home / ".gemini"

    @property
    def settings(self) -> Path:
        """The user's ``settings.json``."""
        return self.gemini_home / "settings.json"

    @property
    def project_settings(self) -> Path:
        """The project's ``.gemini/settings.json``."""
        return self.project / ".gemini" / "settings.json"

    @property
    def memdir_script(self) -> Path:
        """The installation's ``memdir`` script (what a user runs as ``.venv/bin/memdir``)."""
        return self.venv_bin / "memdir"

    def env(self) -> dict[str, str]:
        """The environment of Gemini, its hooks and the user's memdir commands."""
        env = {
            "PATH": GEMINI_PATH,
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "GEMINI_API_KEY": "memdir-test-key",
            "GOOGLE_GEMINI_BASE_URL": self.api.url,
            # Belt and braces: memdir's providers refuse any endpoint off this machine.
            "MEMDIR_BLOCK_REAL_PROVIDERS": "1",
            "MEMDIR_LOCAL_MODEL": str(self.root / "no-local-model.gguf"),
        }
        for name in ("PYTHONPATH", "XDG_RUNTIME_DIR"):  # the code under test; the hook server
            if os.environ.get(name):
                env[name] = os.environ[name]
        return env

    def trust(self, folder: Path, level: str = "TRUST_FOLDER") -> None:
        """Record ``folder``'s trust as Gemini's trust dialog does."""
        path = self.gemini_home / "trustedFolders.json"
        rules = json.loads(path.read_text()) if path.exists() else {}
        rules[str(folder)] = level
        path.write_text(json.dumps(rules, indent=2))

    def new_project(self, name: str) -> Path:
        """Another git project beside the first, trusted."""
        folder = _git_project(self.root / name)
        self.trust(folder)
        return folder

    def memdir(self, *args: str, cwd: Path | None = None) -> str:
        """Run ``<venv>/bin/memdir ARGS`` in a project, as the user would; its output."""
        done = subprocess.run(
            [str(self.memdir_script), *args],
            cwd=cwd or self.project,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=_RUN_TIMEOUT,
        )
        assert done.returncode == 0, f"memdir {' '.join(args)}: {done.stdout}{done.stderr}"
        return done.stdout

    def gemini_command(self, *args: str, cwd: Path | None = None) -> str:
        """Run one of Gemini's own commands (``hooks migrate``...); its output."""
        done = subprocess.run(
            [str(self.gemini), *args],
            cwd=cwd or self.project,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=_RUN_TIMEOUT,
        )
        assert done.returncode == 0, f"gemini {' '.join(args)}: {done.stdout}{done.stderr}"
        return done.stdout + done.stderr

    def open(self, project: Path | None = None) -> Memdir:
        """A project's memory through the Python API (the test process shares HOME)."""
        return Memdir.open(project or self.project)

    def run(
        self,
        prompt: str,
        turns: Sequence[Turn] = (),
        *,
        yolo: bool = False,
        cwd: Path | None = None,
        wrapper: Sequence[str] = (),
    ) -> GeminiRun:
        """``gemini -p PROMPT`` in a project, the model answering with ``turns``.

        ``yolo``: approvals off (Gemini's ``--yolo``); ``wrapper`` runs before the client.
        """
        self.api.script(turns)
        before = len(self.api.recorded())
        flags = ["--yolo"] if yolo else []
        command = [*wrapper, str(self.gemini), *flags, "--output-format", "stream-json"]
        done = subprocess.run(
            [*command, "-p", prompt],
            cwd=cwd or self.project,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=_RUN_TIMEOUT,
        )
        return GeminiRun(
            events=_events(done.stdout),
            stderr=done.stderr,
            returncode=done.returncode,
            requests=self.api.recorded()[before:],
        )


def _events(stdout: str) -> list[dict[str, Any]]:
    events = []
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def _git_project(root: Path) -> Path:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("A project that installs its packages with pnpm.\n")
    git(root, "add", "README.md")
    git(root, "commit", "-q", "-m", "init")
    return root


def _venv_bin() -> Path:
    """The folder of the running interpreter, which must hold memdir's script and be off
    :data:`GEMINI_PATH` (else these tests could not tell an absolute command from luck)."""
    venv_bin = Path(sys.executable).parent
    assert (venv_bin / "memdir").is_file(), f"no memdir script beside {sys.executable}"
    on_path = shutil.which("memdir", path=GEMINI_PATH)
    assert on_path is None, f"memdir is on {GEMINI_PATH} ({on_path}): the tests need it off"
    return venv_bin


@contextmanager
def gemini_box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[GeminiBox]:
    """A fresh :class:`GeminiBox` under ``tmp_path``; the test process shares its HOME."""
    gemini = gemini_binary()
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=2))
    project = _git_project(tmp_path / "project")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("MEMDIR_HOME", raising=False)
    for name in ("GEMINI_CLI_HOME", "GEMINI_CLI_TRUSTED_FOLDERS_PATH"):
        monkeypatch.delenv(name, raising=False)
    with run_stand_in([]) as api:
        box = GeminiBox(
            root=tmp_path,
            home=home,
            project=project,
            venv_bin=_venv_bin(),
            gemini=gemini,
            api=api,
        )
        box.trust(project)
        yield box
