"""Running the real Codex CLI on memdir, installed the way a user installs it.

- **The client** is the npm package ``@openai/codex`` at the version in
  ``tests/codex.version``, which ``make codex`` (part of ``make test``) installs into
  ``.cache/codex/``; ``MEMDIR_CODEX_BIN`` names another binary. Where it is missing the
  tests skip with the reason the installer recorded (npm or the registry unreachable),
  except under ``CI=true``, where they fail.
- **memdir** is the test suite's own virtual environment, off the ``PATH`` Codex gets
  (``/usr/bin:/bin``): a hook or MCP command runs only if it names the installation.
  It is installed by its own commands (``memdir install codex``, ``memdir hook install
  codex``), run as ``<venv>/bin/memdir`` in the project, as a user runs them.
- **The machine** is a throwaway ``HOME`` holding ``CODEX_HOME`` (``~/.codex``, with the
  user's own ``config.toml``: the model provider below, Codex's calls home switched
  off) and memdir's ``~/.memdir``, and throwaway git projects. The test process points
  ``HOME`` at the same folder, so the Python API it sets memories up with sees what the
  hooks and the MCP server see.
- **The model** is the stand-in of :mod:`codex_api` on 127.0.0.1, named in
  ``config.toml`` as a model provider (Codex 0.171 speaks the Responses API to it).
- **Trust**: Codex runs a hook from ``~/.codex/hooks.json`` only once the user trusted
  it. :meth:`CodexBox.trust_hooks` does what the user's "Trust all" does, through
  Codex's own app server: it lists the hooks with the hash Codex computed for each and
  records those hashes as trusted in ``config.toml``.

Each run is ``codex exec --json`` in a project, with approvals and Codex's sandbox off
(the throwaway machine is the sandbox; a denied command must be one that would run):
the JSON events show each command, MCP call and message, and the stand-in shows what
reached the model.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cli_runner import CLIENT_PATH, RUN_TIMEOUT, ClientBox, TurnRun, Wire, installed_client, machine
from codex_api import Recorded, StandIn, Turn, request_texts, run_stand_in, tool_names, tool_outputs

__all__ = ["CODEX_PATH", "CodexBox", "CodexRun", "codex_binary", "codex_box"]

CODEX = installed_client(
    "codex",
    "codex",  # the native binary
    name="Codex CLI",
    variable="MEMDIR_CODEX_BIN",
    shows=lambda shown, pinned: shown == f"codex-cli {pinned}",
)
CODEX_PATH = CLIENT_PATH  # what Codex and its hooks get: memdir is not on it
MODEL = "gpt-5.5"  # a model Codex knows: it offers its apply_patch tool
# The user's own Codex settings before memdir's installers touch them: the local model
# provider, and what Codex would otherwise reach out for (update checks, analytics, the
# plugin marketplace's git repository, the apps directory).
USER_CONFIG = """\
# my Codex settings
model = "{model}"
model_provider = "stand-in"
check_for_update_on_startup = false

[model_providers.stand-in]
name = "local stand-in"
base_url = "{url}"
wire_api = "responses"

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
"""


def codex_binary() -> Path:
    """The Codex CLI to drive; skips (fails under ``CI=true``) when there is none."""
    return CODEX.binary()


@dataclass(frozen=True, kw_only=True)
class CodexRun(TurnRun[Recorded]):
    """One ``codex exec`` run: its JSON events, stderr, and the requests the model got."""

    wire = Wire("Codex", tool_names, tool_outputs, request_texts)

    def items(self, kind: str) -> list[dict[str, Any]]:
        """The completed items of ``kind`` (``command_execution``, ``mcp_tool_call``...)."""
        return [
            e["item"]
            for e in self.events
            if e.get("type") == "item.completed" and e.get("item", {}).get("type") == kind
        ]


@dataclass(kw_only=True)
class CodexBox(ClientBox[StandIn]):
    """A throwaway machine for one test: HOME, Codex's folder (``CODEX_HOME``, with the
    user's ``config.toml``), git projects, the stand-in."""

    folder = ".codex"
    settings_file = "config.toml"

    def own_env(self) -> dict[str, str]:
        return {"CODEX_HOME": str(self.client_home)}

    def use_model(self, model: str) -> None:
        """Have Codex ask for ``model`` (one Codex does not know: its tools, MCP's
        included, all listed in each request, where it defers MCP tools for its own)."""
        text = self.user_settings.read_text()
        new = text.replace(f'model = "{MODEL}"', f'model = "{model}"', 1)
        self.user_settings.write_text(new)

    def run(
        self,
        prompt: str,
        turns: Sequence[Turn] = (),
        *,
        cwd: Path | None = None,
        wrapper: Sequence[str] = (),
    ) -> CodexRun:
        """``codex exec PROMPT`` in a project, the model answering with ``turns``.

        ``wrapper`` runs before the client (a tracer).
        """
        command = [*wrapper, str(self.client), "exec", "--json", *_UNSANDBOXED, prompt]
        return self.run_turns(CodexRun, turns, command, cwd)

    def hooks(self, cwd: Path | None = None) -> list[dict[str, Any]]:
        """The hooks Codex finds for a session in ``cwd``, as its app server lists them."""
        with _app_server(self, cwd or self.project) as call:
            listed = call("hooks/list", {"cwds": [str(cwd or self.project)]})
        (found,) = listed["data"]
        hooks = found["hooks"]
        assert isinstance(hooks, list)
        return hooks

    def trust_hooks(self, cwd: Path | None = None) -> list[str]:
        """Trust every hook Codex lists, as the user's "Trust all" does: each one's hash,
        as Codex computed it, recorded in ``config.toml``. The keys trusted."""
        with _app_server(self, cwd or self.project) as call:
            listed = call("hooks/list", {"cwds": [str(cwd or self.project)]})
            hooks = listed["data"][0]["hooks"]
            edits = [
                {
                    "keyPath": f"hooks.state.{json.dumps(h['key'])}.trusted_hash",
                    "value": h["currentHash"],
                    "mergeStrategy": "replace",
                }
                for h in hooks
            ]
            call("config/batchWrite", {"edits": edits})
        return [h["key"] for h in hooks]


_UNSANDBOXED = ("--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox")


@contextmanager
def _app_server(box: CodexBox, cwd: Path) -> Iterator[Any]:
    """A ``codex app-server`` over stdio, and a function that calls one of its methods."""
    process = subprocess.Popen(
        [str(box.client), "app-server"],
        cwd=cwd,
        env=box.env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    ids = iter(range(1, 1000))
    # A hung server fails the test instead of hanging it: the guard kills it.
    guard = threading.Timer(RUN_TIMEOUT, process.kill)
    guard.start()

    def send(message: Mapping[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        process.stdin.flush()

    def call(method: str, params: Mapping[str, Any]) -> Any:
        number = next(ids)
        send({"id": number, "method": method, "params": params})
        assert process.stdout is not None
        for line in process.stdout:
            message = json.loads(line)
            if message.get("id") == number:
                assert "error" not in message, message
                return message["result"]
        raise AssertionError(f"codex app-server ended before answering {method}")

    try:
        call("initialize", {"clientInfo": {"name": "memdir-tests", "version": "1"}})
        send({"method": "initialized"})
        yield call
    finally:
        guard.cancel()
        process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()


@contextmanager
def codex_box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[CodexBox]:
    """A fresh :class:`CodexBox` under ``tmp_path``; the test process shares its HOME."""
    codex = codex_binary()
    made = machine(tmp_path, monkeypatch, CodexBox.folder)
    with run_stand_in([]) as api:
        box = CodexBox(**made, client=codex, api=api)
        box.user_settings.write_text(USER_CONFIG.format(model=MODEL, url=api.url))
        yield box
