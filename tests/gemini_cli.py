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

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cli_runner import CLIENT_PATH, ClientBox, TurnRun, Wire, installed_client, machine, run_ok
from gemini_api import (
    Recorded,
    StandIn,
    Turn,
    function_responses,
    request_texts,
    run_stand_in,
    tool_names,
)

__all__ = ["GEMINI_PATH", "GeminiBox", "GeminiRun", "gemini_binary", "gemini_box"]

GEMINI = installed_client(
    "gemini",
    "gemini",  # the package's script
    name="Gemini CLI",
    variable="MEMDIR_GEMINI_BIN",
    shows=lambda shown, pinned: shown.splitlines()[-1:] == [pinned],
    version_home="home",
    needs=("node",),
)
GEMINI_PATH = CLIENT_PATH  # what Gemini and its hooks get: node, not memdir
MODEL = "gemini-2.5-flash"  # a model named outright: no routing calls before the first turn
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


def gemini_binary() -> Path:
    """The Gemini CLI to drive; skips (fails under ``CI=true``) when there is none."""
    return GEMINI.binary()


@dataclass(frozen=True, kw_only=True)
class GeminiRun(TurnRun[Recorded]):
    """One ``gemini -p`` run: its JSON events, stderr, and the requests the model got."""

    wire = Wire("Gemini", tool_names, function_responses, request_texts)

    def tool_results(self) -> list[dict[str, Any]]:
        """Each tool call's result event (``status``, ``output``), in order."""
        return [e for e in self.events if e.get("type") == "tool_result"]

    def first_texts(self) -> list[str]:
        """Every text of the run's first request to the model."""
        assert self.turns, f"Gemini sent the model nothing: {self.stderr[-2000:]}"
        return request_texts(self.turns[0].body)


@dataclass(kw_only=True)
class GeminiBox(ClientBox[StandIn]):
    """A throwaway machine for one test: HOME, Gemini's folder (the user's
    ``settings.json``, the trusted folders), git projects, the stand-in."""

    folder = ".gemini"
    settings_file = "settings.json"

    def own_env(self) -> dict[str, str]:
        return {"GEMINI_API_KEY": "memdir-test-key", "GOOGLE_GEMINI_BASE_URL": self.api.url}

    @property
    def project_settings(self) -> Path:
        """The project's ``.gemini/settings.json``."""
        return self.project / self.folder / self.settings_file

    def trust(self, folder: Path, level: str = "TRUST_FOLDER") -> None:
        """Record ``folder``'s trust as Gemini's trust dialog does."""
        path = self.client_home / "trustedFolders.json"
        rules = json.loads(path.read_text()) if path.exists() else {}
        rules[str(folder)] = level
        path.write_text(json.dumps(rules, indent=2))

    def new_project(self, name: str) -> Path:
        """Another git project beside the first, trusted."""
        folder = super().new_project(name)
        self.trust(folder)
        return folder

    def gemini_command(self, *args: str, cwd: Path | None = None) -> str:
        """Run one of Gemini's own commands (``hooks migrate``...); its output."""
        done = run_ok([str(self.client), *args], cwd=cwd or self.project, env=self.env())
        return done.stdout + done.stderr

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
        flags = ["--yolo"] if yolo else []
        command = [*wrapper, str(self.client), *flags, "--output-format", "stream-json"]
        return self.run_turns(GeminiRun, turns, [*command, "-p", prompt], cwd)


@contextmanager
def gemini_box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[GeminiBox]:
    """A fresh :class:`GeminiBox` under ``tmp_path``; the test process shares its HOME."""
    gemini = gemini_binary()
    made = machine(tmp_path, monkeypatch, GeminiBox.folder)
    for name in ("GEMINI_CLI_HOME", "GEMINI_CLI_TRUSTED_FOLDERS_PATH"):
        monkeypatch.delenv(name, raising=False)
    with run_stand_in([]) as api:
        box = GeminiBox(**made, client=gemini, api=api)
        box.user_settings.write_text(json.dumps(USER_SETTINGS, indent=2))
        box.trust(box.project)
        yield box
