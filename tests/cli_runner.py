"""What the harnesses that drive a real agent CLI have in common, whichever CLI it is.

:mod:`claude_code`, :mod:`codex_cli` and :mod:`gemini_cli` each run a pinned npm
package against a stand-in model, in a throwaway machine. The client and its wire
differ; this much does not:

- **Which binary**: a :class:`PinnedClient` names the client, the variable that points
  at another binary, the installer's folder and ``make`` target, and how its
  ``--version`` shows the pinned version. :meth:`PinnedClient.binary` returns the binary,
  or skips the test with the reason (the installer's own, when it recorded one), or
  fails it under ``CI=true``. A binary is asked its version once per test run.
- **The machine** (:func:`machine`): ``HOME`` is a throwaway folder the test process
  shares (:func:`shared_home`), with ``MEMDIR_HOME`` unset as for a user; projects are
  fresh git repositories (:func:`git_project`); the client, its hooks and the user's memdir
  commands get :data:`CLIENT_PATH`, where memdir is not, so a hook or MCP command runs
  only if it names the installation in :func:`venv_bin`, and :func:`client_env` gives
  them the code under test and keeps memdir's providers on this machine.
- **A run**: every command runs in a project with no input and a timeout that only
  guards against a hung client (:func:`run_in`); a client run's JSON-lines events and
  the requests the stand-in recorded meanwhile make a :class:`ClientRun`
  (:func:`run_client`); a :class:`ConnectTrace` wrapped around a run records every
  address its processes connect to.
- **What reached the model**, where each recorded request knows whether it is a turn of
  the conversation (Codex, Gemini): a :class:`TurnRun` reads its turns through the
  stand-in's :class:`Wire` (the tools offered, the tools' outputs, every text).
- **The memories** the suites save are the same three: a rule that denies npm
  (:func:`save_npm_rule`), a deploy freeze (:func:`save_freeze`) and a rule that holds
  hand-written migrations (:func:`save_migrations_rule`).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, NoReturn, Protocol, TypedDict, TypeVar

import pytest

from gitutil import committed_repo
from memdir.api import Memdir
from memutil import save_rule
from stand_in_api import ScriptedServer

__all__ = [
    "CLIENT_PATH",
    "FREEZE",
    "MIGRATIONS_WHY",
    "NPM_RULE",
    "NPM_WHY",
    "RUN_TIMEOUT",
    "ClientBox",
    "ClientRun",
    "ConnectTrace",
    "Machine",
    "PinnedClient",
    "TurnRequest",
    "TurnRun",
    "Wire",
    "assert_clean",
    "assert_held_for_asking",
    "client_env",
    "git_project",
    "installed_client",
    "json_lines",
    "machine",
    "run_client",
    "run_in",
    "run_ok",
    "save_freeze",
    "save_migrations_rule",
    "save_npm_rule",
    "save_team_freeze",
    "shared_home",
    "uninstall_hooks",
    "venv_bin",
]

ROOT = Path(__file__).resolve().parent.parent  # the repository
CLIENT_PATH = "/usr/bin:/bin"  # what a client and its hooks get: memdir is not on it
RUN_TIMEOUT = 180  # seconds: a guard against a hung client, never an assertion
NPM_RULE = {"tool": "Bash", "match": r"\bnpm (install|i|run)\b", "action": "deny"}
NPM_WHY = "npm rewrites pnpm-lock.yaml and CI rejects it"
FREEZE = "Hold every release until 2026-12-15."
MIGRATIONS_WHY = "hand-written migrations drifted from the models"
RecordedT = TypeVar("RecordedT")
RunT = TypeVar("RunT", bound="ClientRun[Any]")
ApiT = TypeVar("ApiT", bound="ScriptedServer[Any, Any]")


@dataclass(frozen=True, kw_only=True, eq=False)
class PinnedClient:
    """A client CLI at the version its tests pin, as ``make <target>`` installs it."""

    name: str  # "Codex CLI", in every reason a test is skipped for
    variable: str  # the environment variable that names another binary
    make_target: str
    version_file: Path
    default_bin: Path  # linked to the package's binary by the installer
    version_env: Mapping[str, str]  # the environment ``--version`` runs in
    shows: Callable[[str, str], bool]  # whether ``--version``'s output shows the pinned one
    needs: tuple[str, ...] = ()  # programs it runs on, which must be on CLIENT_PATH

    def pinned_version(self) -> str:
        """The version the tests run (the version file's text)."""
        return self.version_file.read_text(encoding="utf-8").strip()

    def binary(self) -> Path:
        """The client to drive; skips (fails under ``CI=true``) when there is none."""
        given = os.environ.get(self.variable, "").strip()
        path = Path(given) if given else self.default_bin
        reason = _unusable(self, path, check_version=not given or path == self.default_bin)
        if reason is None:
            return path
        self._unavailable(reason)

    def _unavailable(self, reason: str) -> NoReturn:
        if os.environ.get("CI", "").strip().lower() == "true":
            pytest.fail(f"the {self.name} is required under CI=true: {reason}")
        pytest.skip(reason)


def installed_client(
    target: str,
    binary: str,
    *,
    name: str,
    variable: str,
    shows: Callable[[str, str], bool],
    version_home: str = "",
    version_env: Mapping[str, str] | None = None,
    needs: tuple[str, ...] = (),
) -> PinnedClient:
    """The client ``make <target>`` installs into ``.cache/<target>/`` (``binary`` there,
    linked by the installer), at the version in ``tests/<target>.version``; its
    ``--version`` runs with HOME at ``version_home`` in that folder, and ``version_env``."""
    folder = ROOT / ".cache" / target
    return PinnedClient(
        name=name,
        variable=variable,
        make_target=target,
        version_file=ROOT / "tests" / f"{target}.version",
        default_bin=folder / binary,
        version_env={"HOME": str(folder / version_home), **(version_env or {})},
        shows=shows,
        needs=needs,
    )


@functools.cache
def _unusable(client: PinnedClient, path: Path, *, check_version: bool) -> str | None:
    """Why ``path`` cannot be the client under test, or None when it can."""
    if not (path.is_file() and os.access(path, os.X_OK)):
        recorded = ""
        if path == client.default_bin:  # the installer says why it could not install
            with suppress(OSError):
                recorded = (path.parent / "unavailable").read_text(encoding="utf-8").strip()
        why = recorded or "not installed"
        return f"{client.name} {path} missing ({why}); `make {client.make_target}` installs it"
    for program in client.needs:
        if shutil.which(program, path=CLIENT_PATH) is None:
            return f"{client.name} {path} needs {program} on {CLIENT_PATH}, and there is none"
    if not check_version:
        return None
    try:
        shown = subprocess.run(
            [str(path), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": CLIENT_PATH, **client.version_env},
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{client.name} {path} does not run ({exc})"
    pinned = client.pinned_version()
    if not client.shows(shown, pinned):
        return (
            f"{client.name} {path} is {shown!r}, the tests pin {pinned}; "
            f"`make {client.make_target}` installs the pinned version"
        )
    return None


@dataclass(frozen=True, kw_only=True)
class ClientRun(Generic[RecordedT]):
    """One client run: its JSON events, stderr, exit status, and the requests the model got."""

    events: list[dict[str, Any]]
    stderr: str
    returncode: int
    requests: list[RecordedT]


class TurnRequest(Protocol):
    """A recorded request that knows whether it is a turn of the conversation."""

    @property
    def is_turn(self) -> bool: ...

    @property
    def body(self) -> dict[str, Any]: ...


TurnRequestT = TypeVar("TurnRequestT", bound=TurnRequest)
BodyReader = Callable[[dict[str, Any]], list[str]]


@dataclass(frozen=True)
class Wire:
    """What a stand-in's module reads out of a request body, for a :class:`TurnRun`."""

    client: str  # "Codex", in an assertion's message
    tool_names: BodyReader  # the tools the request offers the model
    tool_outputs: BodyReader  # what each tool call returned to the model, in order
    request_texts: BodyReader  # every text the model reads in the request


@dataclass(frozen=True, kw_only=True)
class TurnRun(ClientRun[TurnRequestT]):
    """A run whose requests tell the conversation's turns from side calls, read through
    the :class:`Wire` of the client's stand-in."""

    wire: ClassVar[Wire]

    @property
    def turns(self) -> list[TurnRequestT]:
        """The run's requests of the conversation (those that offer the client's tools)."""
        return [r for r in self.requests if r.is_turn]

    def first_tools(self) -> list[str]:
        """The tools the run's first request offered the model."""
        assert self.turns, f"{self.wire.client} sent the model nothing: {self.stderr[-2000:]}"
        return self.wire.tool_names(self.turns[0].body)

    def tool_outputs(self) -> list[str]:
        """What each tool call returned to the model, in order."""
        assert self.turns, f"{self.wire.client} sent the model nothing"
        return self.wire.tool_outputs(self.turns[-1].body)

    def delivered(self, text: str) -> bool:
        """Whether ``text`` reached the model whole in one of the run's requests."""
        texts = self.wire.request_texts
        return bool(text) and any(text in t for r in self.turns for t in texts(r.body))


def assert_clean(run: TurnRun[Any]) -> None:
    """The client exited 0 and the model got at least one turn of the conversation."""
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.turns, f"{run.wire.client} sent the model nothing: {run.stderr[-2000:]}"


@dataclass(kw_only=True)
class ClientBox(Generic[ApiT]):
    """A throwaway machine for one test: HOME, git projects, memdir's virtual environment,
    the client and its stand-in model API; a client's box says where the client keeps its
    settings and what else its environment holds."""

    folder: ClassVar[str]  # the client's folder in HOME (``.codex``)
    settings_file: ClassVar[str]  # the user's own settings, in that folder

    root: Path
    home: Path
    project: Path
    venv_bin: Path
    client: Path
    api: ApiT

    @property
    def memdir_script(self) -> Path:
        """The installation's ``memdir`` script (what a user runs as ``.venv/bin/memdir``)."""
        return self.venv_bin / "memdir"

    @property
    def client_home(self) -> Path:
        """The client's folder in HOME."""
        return self.home / self.folder

    @property
    def user_settings(self) -> Path:
        """The user's own settings file of the client."""
        return self.client_home / self.settings_file

    def own_env(self) -> dict[str, str]:
        """What the client's environment holds beyond what every client gets."""
        raise NotImplementedError

    def env(self) -> dict[str, str]:
        """The environment of the client, its hooks and the user's memdir commands."""
        return client_env(self.root, self.home, self.own_env())

    def new_project(self, name: str) -> Path:
        """Another git project beside the first."""
        return git_project(self.root / name)

    def run_turns(
        self, run_type: type[RunT], turns: Sequence[Any], command: Sequence[str], cwd: Path | None
    ) -> RunT:
        """``command`` in ``cwd`` (the project by default), the model answering with
        ``turns``: the run it made."""
        return run_client(
            run_type, self.api, turns, command, cwd=cwd or self.project, env=self.env()
        )

    def memdir(self, *args: str, cwd: Path | None = None) -> str:
        """Run ``<venv>/bin/memdir ARGS`` in a project, as the user would; its output."""
        command = [str(self.memdir_script), *args]
        return run_ok(command, cwd=cwd or self.project, env=self.env()).stdout

    def open(self, project: Path | None = None) -> Memdir:
        """A project's memory through the Python API (the test process shares HOME)."""
        return Memdir.open(project or self.project)


def run_client(
    run_type: type[RunT],
    api: ScriptedServer[Any, Any],
    turns: Sequence[Any],
    command: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
) -> RunT:
    """``command`` in ``cwd``, the stand-in answering with ``turns``: the run it made."""
    api.script(turns)
    before = len(api.recorded())
    done = run_in(command, cwd=cwd, env=env)
    return run_type(
        events=json_lines(done.stdout),
        stderr=done.stderr,
        returncode=done.returncode,
        requests=api.recorded()[before:],
    )


def run_in(
    command: Sequence[str], *, cwd: Path, env: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """``command`` in ``cwd`` with no input, its output captured as text."""
    return subprocess.run(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )


def run_ok(
    command: Sequence[str], *, cwd: Path, env: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """:func:`run_in`, asserting a clean exit (the message: the program, its arguments
    and its output)."""
    done = run_in(command, cwd=cwd, env=env)
    said = f"{Path(command[0]).name} {' '.join(command[1:])}"
    assert done.returncode == 0, f"{said}: {done.stdout}{done.stderr}"
    return done


def client_env(root: Path, home: Path, own: Mapping[str, str]) -> dict[str, str]:
    """The environment of a client, its hooks and the user's memdir commands: ``own``
    (the client's sign-in and settings) on top of what every client gets."""
    env = {
        "PATH": CLIENT_PATH,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        **own,
        # Belt and braces: memdir's providers refuse any endpoint off this machine.
        "MEMDIR_BLOCK_REAL_PROVIDERS": "1",
        # The embedded local model this machine may have is not what these tests are
        # about (and would take a core for minutes).
        "MEMDIR_LOCAL_MODEL": str(root / "no-local-model.gguf"),
    }
    for name in ("PYTHONPATH", "XDG_RUNTIME_DIR"):  # the code under test; the hook server
        if os.environ.get(name):
            env[name] = os.environ[name]
    return env


def json_lines(stdout: str) -> list[dict[str, Any]]:
    """The JSON objects of a client's output, one a line; other lines passed over."""
    events = []
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


class Machine(TypedDict):
    """The folders of a throwaway machine, as a :class:`ClientBox` takes them."""

    root: Path
    home: Path
    project: Path
    venv_bin: Path


def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder: str = "") -> Machine:
    """The throwaway machine a :class:`ClientBox` stands on, under ``tmp_path``: its
    ``root``, ``home`` (:func:`shared_home`, holding the client's ``folder`` where one is
    named), ``project`` (a git project) and ``venv_bin``."""
    home = shared_home(tmp_path, monkeypatch)
    if folder:
        (home / folder).mkdir()
    project = git_project(tmp_path / "project")
    return {"root": tmp_path, "home": home, "project": project, "venv_bin": venv_bin()}


def shared_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throwaway ``HOME`` under ``tmp_path``, the test process's own from now on, so the
    Python API a test sets memories up with sees what the hooks and the MCP server see."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("MEMDIR_HOME", raising=False)
    return home


def git_project(root: Path) -> Path:
    """A fresh git project at ``root`` with one commit (a README)."""
    return committed_repo(root, "README.md", "A project that installs its packages with pnpm.\n")


def venv_bin() -> Path:
    """The folder of the running interpreter, which must hold memdir's script and be off
    :data:`CLIENT_PATH` (else these tests could not tell an absolute command from luck)."""
    found = Path(sys.executable).parent
    assert (found / "memdir").is_file(), f"no memdir script beside {sys.executable}"
    on_path = shutil.which("memdir", path=CLIENT_PATH)
    assert on_path is None, f"memdir is on {CLIENT_PATH} ({on_path}): the tests need it off"
    return found


@dataclass(frozen=True)
class ConnectTrace:
    """strace around a client run, following every process the client starts (hooks, MCP
    servers) and writing each ``connect`` call to ``path``."""

    path: Path

    @property
    def wrapper(self) -> list[str]:
        """What a run's command starts with to be traced.

        strace ends when every process it follows does: the hook server a traced hook
        starts stops three seconds after its last request, not after its usual idle time.
        """
        trace = ["strace", "-f", "-qq", "-e", "trace=connect", "-o", str(self.path)]
        return ["env", "MEMDIR_HOOK_SERVER_IDLE=3", *trace]

    def skip_untraced(self, run: ClientRun[Any]) -> None:
        """Skip the test when strace could not trace here (no ptrace for it)."""
        if run.returncode != 0 and "ptrace" in run.stderr.lower():
            pytest.skip(f"strace cannot trace here: {run.stderr.strip()[:200]}")

    def hosts(self) -> set[str]:
        """The IP addresses the traced processes connected to."""
        pattern = r'inet_(?:addr|pton)\((?:AF_INET6?, )?"([^"]+)"'
        return set(re.findall(pattern, self.path.read_text()))


def save_npm_rule(mem: Memdir, action: str = "deny") -> None:
    """A memory with a rule on ``npm install``/``run`` (``action``: deny, ask, warn)."""
    description = "This project installs its packages with pnpm; npm breaks the lockfile"
    body = f"Install with pnpm.\n**Why:** {NPM_WHY}.\n**How to apply:** every install."
    rule = {**NPM_RULE, "action": action}
    save_rule(mem, "Use pnpm, never npm", rule, description=description, body=body)


def save_freeze(mem: Memdir) -> None:
    """A project memory holding :data:`FREEZE`."""
    mem.write(
        name="Deploy freeze",
        description="Deploys are frozen until the billing migration lands",
        type="project",
        body=f"{FREEZE}\n**Why:** the billing migration.",
    )


def save_team_freeze(mem: Memdir) -> None:
    """A team memory holding :data:`FREEZE` (one ``memdir export agents-md`` writes out)."""
    mem.write(
        name="Team deploy freeze",
        description="Deploys are frozen until the billing migration lands",
        type="project",
        scope="team",
        body=FREEZE,
    )


def assert_held_for_asking(box: ClientBox[Any], run: TurnRun[Any]) -> None:
    """The run's build command met a rule that asks: a client's hook cannot ask, so the
    command did not run and the model read why."""
    assert_clean(run)
    assert not (box.project / "built.txt").exists(), "a rule that asks let the call through"
    (reason,) = run.tool_outputs()
    assert "cannot ask the user" in reason and NPM_WHY in reason


def uninstall_hooks(box: ClientBox[Any], host: str) -> None:
    """``memdir hook uninstall HOST``, which says it removed memdir's hooks."""
    assert "removed memdir's hooks" in box.memdir("hook", "uninstall", host)


def save_migrations_rule(mem: Memdir) -> None:
    """A memory whose rule denies writing any file under ``migrations/``."""
    description = "Never hand-write files under migrations/: the schema tool generates them"
    body = f"Run the schema tool.\n**Why:** {MIGRATIONS_WHY}."
    rule = {"tool": "Edit|Write", "match": r"(^|/)migrations/", "action": "deny"}
    save_rule(mem, "Migrations are generated", rule, description=description, body=body)
