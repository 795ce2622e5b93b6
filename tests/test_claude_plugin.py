"""memdir as a Claude Code plugin: the repository is the plugin and its own marketplace.

The first tests run the plugin's launcher as Claude Code runs it (``python3 -I -S
<root>/bin/memdir-plugin hook NAME`` with ``CLAUDE_PLUGIN_ROOT``, ``CLAUDE_PLUGIN_DATA`` and
the hook's JSON on stdin), on real files and real processes, and ``memdir doctor`` and
the installers on settings written as Claude Code writes them. Those marked
``claude_code`` drive the real CLI: ``claude plugin validate`` on the repository, then
``claude plugin install`` from a copy of the working tree (as a fresh clone holds it)
into a throwaway home, run with memdir off PATH and ``MEMDIR_PYTHON`` naming the test
suite's interpreter; the slow one lets the plugin build its own environment instead.
"""

from __future__ import annotations

import ast
import fcntl
import json
import os
import re
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import memdir
from claude_api import Turn
from claude_code import (
    CLAUDE_PATH,
    ClaudeRun,
    Sandbox,
    claude_binary,
    install_plugin,
    plugin_source,
    sandbox,
)
from cli_runner import FREEZE, NPM_WHY, save_freeze, save_npm_rule
from memdir.api import Memdir
from memdir.cli import main
from memdir.hosts import plugin_launcher
from memdir.hosts.claude_code import (
    HOOK_TIMEOUT,
    hook_commands,
    install_claude_hooks,
    memdir_hook_entries,
)
from memdir.hosts.install_check import check_installs
from memdir.hosts.launch import launch_for
from memdir.hosts.mcp_servers import host_target, install_mcp_server

ROOT = Path(__file__).resolve().parent.parent
LAUNCHER = ROOT / "bin" / "memdir-plugin"
MANIFEST = ROOT / ".claude-plugin" / "plugin.json"
TOOLS = ("view", "search", "recall", "write", "edit", "delete", "why", "log")
# The variables that choose which memdir the launcher runs: set by each test, never inherited.
CHOOSERS = ("MEMDIR_PYTHON", "MEMDIR_PLUGIN_BUILD", "MEMDIR_PROFILE")
FREEZE_PROMPT = "When does the deploy freeze for the billing migration end?"
BUILD_TIMEOUT = 60.0  # seconds for a build that fails at once (a real one: the slow test)


def manifest() -> dict[str, Any]:
    data = json.loads(MANIFEST.read_text())
    assert isinstance(data, dict)
    return data


# -- the launcher, run as Claude Code runs it ------------------------------------------


@dataclass(kw_only=True)
class Plugin:
    """The plugin's launcher in a project: its root, its data folder, the user's home."""

    root: Path
    data: Path
    home: Path
    project: Path

    def env(self, **extra: str) -> dict[str, str]:
        """What Claude Code gives a plugin's hook: the test's environment, memdir off
        PATH, the plugin's variables."""
        env = {k: v for k, v in os.environ.items() if k not in CHOOSERS}
        env.update(
            PATH=CLAUDE_PATH,
            HOME=str(self.home),
            CLAUDE_PLUGIN_ROOT=str(self.root),
            CLAUDE_PLUGIN_DATA=str(self.data),
            CLAUDE_PROJECT_DIR=str(self.project),
            # No hook server: one started from a test's own environment would outlive it.
            MEMDIR_HOOK_SERVER="0",
        )
        env.update(extra)
        return env

    def run(
        self, *args: str, stdin: str = "{}", env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        launcher = self.root / "bin" / "memdir-plugin"
        return subprocess.run(
            [sys.executable, "-I", "-S", str(launcher), *args],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=self.project,
            env=self.env() if env is None else env,
            timeout=120,
        )

    def start(self, **extra: str) -> subprocess.CompletedProcess[str]:
        """The session-start hook with Claude Code's input."""
        payload = {
            "hook_event_name": "SessionStart",
            "session_id": "s-1",
            "cwd": str(self.project),
            "source": "startup",
        }
        return self.run("hook", "session-start", stdin=json.dumps(payload), env=self.env(**extra))

    def check(self, **extra: str) -> dict[str, Any]:
        done = self.run("--check", env=self.env(**extra))
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert isinstance(report, dict)
        return report

    @property
    def log(self) -> Path:
        return self.data / f"venv-{memdir.__version__}.log"

    @property
    def failed(self) -> Path:
        return self.data / f"venv-{memdir.__version__}.failed"


@pytest.fixture
def plugin(tmp_path: Path, project: Path) -> Plugin:
    home = tmp_path / "home"
    home.mkdir()
    return Plugin(root=ROOT, data=tmp_path / "plugin-data", home=home, project=project)


def context(done: subprocess.CompletedProcess[str]) -> str:
    """The ``additionalContext`` a hook answered with."""
    assert done.returncode == 0, done.stderr
    specific = json.loads(done.stdout).get("hookSpecificOutput", {})
    text = specific.get("additionalContext", "")
    assert isinstance(text, str)
    return text


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    assert lines[0].startswith("memdir: ") and "Traceback" not in text, text
    return lines[0]


def shown_at_start(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a session start shows the user, and nothing for the model."""
    assert done.returncode == 0 and done.stderr == "", done.stderr
    answer = json.loads(done.stdout)
    assert set(answer) == {"systemMessage"}, answer
    return one_line(answer["systemMessage"])


def test_the_manifest_names_memdir_at_its_version_and_runs_its_server_through_the_launcher() -> (
    None
):
    data = manifest()
    assert (data["name"], data["version"]) == ("memdir", memdir.__version__)
    server = data["mcpServers"]["memdir"]
    assert server["command"] == "python3"
    assert server["args"] == ["-I", "-S", "${CLAUDE_PLUGIN_ROOT}/bin/memdir-plugin", "serve"]
    assert set(data["userConfig"]) == {"python", "profile"}


def test_the_plugin_runs_the_installers_hooks_each_through_its_launcher() -> None:
    hooks = json.loads((ROOT / "hooks" / "hooks.json").read_text())["hooks"]
    installed = hook_commands(launch_for(os.environ))
    assert list(hooks) == list(installed)  # SessionEnd included
    for event, groups in hooks.items():
        (group,) = groups
        (entry,) = group["hooks"]
        name = entry["args"][-1]
        assert installed[event].endswith(f"hook {name}")
        assert entry["command"] == "python3" and entry["timeout"] == HOOK_TIMEOUT
        assert entry["args"] == [
            "-I",
            "-S",
            "${CLAUDE_PLUGIN_ROOT}/bin/memdir-plugin",
            "hook",
            name,
        ]
        assert group.get("matcher") == ("*" if event == "PreToolUse" else None)


def test_the_repository_is_its_own_marketplace() -> None:
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    (entry,) = market["plugins"]
    assert (market["name"], entry["name"], entry["source"]) == ("memdir", "memdir", "./")


def test_every_skill_is_named_after_its_folder_and_says_what_it_is_for() -> None:
    skills = sorted((ROOT / "skills").glob("*/SKILL.md"))
    assert [s.parent.name for s in skills] == ["remember", "review", "why"]
    for skill in skills:
        front = skill.read_text().split("---\n")[1]
        fields = dict(line.split(": ", 1) for line in front.strip().splitlines())
        assert fields["name"] == skill.parent.name
        assert len(fields["description"]) > 40
        assert "memdir-plugin" in skill.read_text()  # the CLI, when MCP is not there


def test_the_launcher_reads_as_python_3_8_and_its_shim_as_any_python3() -> None:
    ast.parse(Path(plugin_launcher.__file__).read_text(), feature_version=(3, 8))
    ast.parse(LAUNCHER.read_text(), feature_version=(3, 4))


def test_the_launcher_reads_the_plugins_version_from_its_manifest() -> None:
    assert plugin_launcher.plugin_version(str(ROOT)) == memdir.__version__


def test_the_embedding_model_the_plugin_installs_is_the_one_the_makefile_pins() -> None:
    pinned = re.search(r"^MODEL_PACKAGE := (\S+)$", (ROOT / "Makefile").read_text(), re.M)
    assert pinned is not None and pinned.group(1) == plugin_launcher.MODEL_PACKAGE


def test_a_hook_answers_from_the_python_memdir_python_names(plugin: Plugin) -> None:
    mem = Memdir.open(plugin.project)
    save_freeze(mem)
    start = plugin.start(MEMDIR_PYTHON=sys.executable)
    assert str(mem.layout.memory_dir) in context(start)
    assert plugin.check(MEMDIR_PYTHON=sys.executable)["kind"] == "explicit"


def test_in_memdirs_own_background_claude_the_plugins_hooks_say_nothing(plugin: Plugin) -> None:
    save_freeze(Memdir.open(plugin.project))
    assert context(plugin.start(MEMDIR_PYTHON=sys.executable))  # the same start answers...
    quiet = plugin.start(MEMDIR_PYTHON=sys.executable, MEMDIR_CHILD="1")
    assert quiet.returncode == 0 and quiet.stdout.strip() == ""  # not in memdir's own child


def test_the_plugins_python_option_serves_when_memdir_python_is_unset(plugin: Plugin) -> None:
    save_freeze(Memdir.open(plugin.project))
    prompt = json.dumps({"prompt": FREEZE_PROMPT, "session_id": "s-1", "cwd": str(plugin.project)})
    env = plugin.env(CLAUDE_PLUGIN_OPTION_PYTHON=sys.executable)
    done = plugin.run("hook", "user-prompt-submit", stdin=prompt, env=env)
    assert FREEZE in context(done)


def test_the_profile_option_puts_memory_in_claude_codes_folder(plugin: Plugin) -> None:
    env = plugin.env(MEMDIR_PYTHON=sys.executable, CLAUDE_PLUGIN_OPTION_PROFILE="claude")
    env.pop("MEMDIR_HOME")  # the claude profile's home is Claude Code's folder
    done = plugin.run("path", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(plugin.home / ".claude" / "projects"))


def built_environment(plugin: Plugin) -> Path:
    """An environment as the plugin's builder leaves it, made without pip: a venv that
    sees the test suite's packages (memdir's code under test included), and the marker."""
    venv = plugin.data / f"venv-{memdir.__version__}"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = Path(sysconfig.get_paths(vars={"base": str(venv)})["purelib"])
    ours = sysconfig.get_paths()["purelib"]
    (purelib / "memdir-under-test.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    package = str(Path(memdir.__file__).parent)
    (venv / plugin_launcher.READY_NAME).write_text(package + "\n")
    return venv / "bin" / "python"


def test_a_hook_answers_from_the_environment_built_for_this_version(plugin: Plugin) -> None:
    python = built_environment(plugin)
    mem = Memdir.open(plugin.project)
    save_freeze(mem)
    assert str(mem.layout.memory_dir) in context(plugin.start())
    report = plugin.check()
    assert (report["state"], report["kind"]) == ("ready", "venv")
    assert report["argv"][:2] == [str(python), "-SP"]  # memdir's quick hook launcher


def test_the_models_shell_finds_the_built_environment_and_the_options_without_the_plugins_vars(
    plugin: Plugin,
) -> None:
    # Claude Code puts the plugin's bin/ on the Bash tool's PATH, with none of its variables.
    plugin.data = plugin.home / ".claude" / "plugins" / "data" / "memdir-memdir"
    built_environment(plugin)
    settings = plugin.home / ".claude" / "settings.json"
    options = {"memdir@memdir": {"options": {"profile": "claude"}}}
    settings.write_text(json.dumps({"pluginConfigs": options}))
    env = plugin.env()
    for name in ("CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA", "MEMDIR_HOME"):
        env.pop(name)
    done = plugin.run("path", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(plugin.home / ".claude" / "projects"))


@pytest.mark.parametrize("scope", ["local", "project", "user"])
def test_where_memdirs_installed_hooks_are_the_plugins_hooks_say_nothing(
    plugin: Plugin, scope: str
) -> None:
    env = plugin.env()
    install_claude_hooks(plugin.project, launch_for(os.environ), scope=scope, env=env)
    save_freeze(Memdir.open(plugin.project))
    for name in ("session-start", "user-prompt-submit", "pre-tool-use", "stop"):
        done = plugin.run("hook", name, env=plugin.env(MEMDIR_PYTHON=sys.executable))
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    report = plugin.check(MEMDIR_PYTHON=sys.executable)
    assert report["installer_hooks"].endswith(
        "settings.local.json" if scope == "local" else "settings.json"
    )


def test_with_no_memdir_anywhere_a_hook_exits_0_with_one_line_and_a_command_fails(
    plugin: Plugin,
) -> None:
    off = {"MEMDIR_PLUGIN_BUILD": "off"}
    line = shown_at_start(plugin.start(**off))
    assert "MEMDIR_PYTHON" in line
    for name in ("user-prompt-submit", "pre-tool-use", "stop", "pre-compact", "session-end"):
        done = plugin.run("hook", name, env=plugin.env(**off))
        assert (done.returncode, done.stdout) == (0, "")
        assert one_line(done.stderr) == line
    assert plugin.check(**off)["state"] == "missing"
    command = plugin.run("review", stdin="", env=plugin.env(**off))
    assert command.returncode == 1 and one_line(command.stderr) == line


def test_without_memdir_the_server_answers_with_no_tools_and_says_why(plugin: Plugin) -> None:
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "x"}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "recall"}},
    ]
    stdin = "".join(json.dumps(r) + "\n" for r in requests)
    served = plugin.run("serve", stdin=stdin, env=plugin.env(MEMDIR_PLUGIN_BUILD="off"))
    assert served.returncode == 0
    line = one_line(served.stderr)
    start, tools, call = (json.loads(reply) for reply in served.stdout.splitlines())
    assert start["result"]["protocolVersion"] == "x"
    assert start["result"]["instructions"] == line
    assert tools["result"] == {"tools": []}
    assert call["error"]["message"] == line


def test_a_setting_that_cannot_work_is_named_in_one_line(plugin: Plugin, tmp_path: Path) -> None:
    bare = tmp_path / "bare-venv"  # a Python without memdir
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    cases = [(tmp_path / "gone", "not an executable"), (bare / "bin" / "python", "cannot import")]
    typo = shown_at_start(plugin.start(CLAUDE_PLUGIN_OPTION_PROFILE="claud"))
    assert "profile option is 'claud'" in typo
    for python, why in cases:
        env = plugin.env(MEMDIR_PYTHON=str(python))
        env.pop("PYTHONPATH", None)  # the suite's own, which would find memdir
        line = shown_at_start(plugin.run("hook", "session-start", env=env))
        assert f"MEMDIR_PYTHON={python}" in line and why in line
        assert json.loads(plugin.run("--check", env=env).stdout)["state"] == "setting"


def test_while_a_build_holds_the_lock_hooks_answer_nothing_and_no_second_build_starts(
    plugin: Plugin,
) -> None:
    plugin.data.mkdir()
    with open(plugin.data / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # what a running builder holds
        line = shown_at_start(plugin.start())
        assert "in the background" in line and str(plugin.log) in line
        done = plugin.run("hook", "user-prompt-submit")
        assert (done.returncode, done.stdout, one_line(done.stderr)) == (0, "", line)
        assert plugin.check()["state"] == "building"
    assert not plugin.log.exists()  # the builder that holds the lock writes it; none started


def broken_source(tmp_path: Path) -> Path:
    """A plugin folder whose source pip refuses: a build of it fails, without the network."""
    root = tmp_path / "broken-plugin"
    for part in (
        "bin/memdir-plugin",
        "src/memdir/hosts/plugin_launcher.py",
        ".claude-plugin/plugin.json",
    ):
        (root / part).parent.mkdir(parents=True, exist_ok=True)
        (root / part).write_text((ROOT / part).read_text())
    (root / "pyproject.toml").write_text("this is [not toml\n")
    return root


def wait_for_failure(plugin: Plugin, after: float) -> None:
    """Wait until the detached builder has recorded its failure and let go of the lock."""
    deadline = time.monotonic() + BUILD_TIMEOUT
    while not (plugin.failed.exists() and plugin.failed.stat().st_mtime >= after):
        assert time.monotonic() < deadline, plugin.log.read_text() if plugin.log.exists() else ""
        time.sleep(0.05)
    with open(plugin.data / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # waits for the builder to finish


def test_a_failed_build_is_recorded_shown_at_each_start_and_due_again_a_day_later(
    plugin: Plugin, tmp_path: Path
) -> None:
    plugin.root = broken_source(tmp_path)
    began = time.time() - 1
    assert "in the background" in shown_at_start(plugin.start())
    wait_for_failure(plugin, began)
    assert plugin.log.read_text().count("memdir: install memdir:") == 1
    for _ in range(2):  # shown at each start, never tried again by it
        line = shown_at_start(plugin.start())
        assert "failed" in line and str(plugin.log) in line and "--build" in line
    assert plugin.check()["state"] == "failed"
    assert plugin.log.read_text().count("memdir: install memdir:") == 1
    day_old = time.time() - plugin_launcher.RETRY_AFTER - 60
    os.utime(plugin.failed, (day_old, day_old))
    assert plugin.check()["state"] == "due"  # the next session start builds again


# -- the installers and doctor beside the plugin ---------------------------------------


def enable_plugin(home: Path, root: Path = ROOT, *, scope_file: Path | None = None) -> Path:
    """What ``claude plugin install memdir --marketplace ROOT`` records: the plugin enabled
    in the user's settings, the folder marketplace it is read from in place."""
    settings = scope_file or home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"enabledPlugins": {"memdir@memdir": True}}))
    plugins = home / ".claude" / "plugins"
    plugins.mkdir(parents=True, exist_ok=True)
    source = {"source": "directory", "path": str(root)}
    known = {"memdir": {"source": source, "installLocation": str(root)}}
    (plugins / "known_marketplaces.json").write_text(json.dumps(known))
    return settings


def invoke(project: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [*args, "--project", str(project)])
    return result.exit_code, result.output


def test_the_installers_refuse_while_the_plugin_is_enabled_and_say_how_to_remove_it(
    plugin: Plugin, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(plugin.home))
    settings = enable_plugin(plugin.home)
    for command in (("hook", "install", "claude"), ("install", "claude-code")):
        code, output = invoke(plugin.project, *command)
        assert code != 0, output
        assert str(settings) in output
        assert "claude plugin uninstall memdir@memdir --scope user" in output
    assert not (plugin.project / ".claude").exists()
    assert not (plugin.home / ".claude.json").exists()


def test_a_plugin_turned_off_in_the_local_settings_lets_the_installers_install(
    plugin: Plugin, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(plugin.home))
    enable_plugin(plugin.home)
    local = plugin.project / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text(json.dumps({"enabledPlugins": {"memdir@memdir": False}}))
    code, output = invoke(plugin.project, "hook", "install", "claude")
    assert code == 0, output
    assert memdir_hook_entries(json.loads(local.read_text()))


def test_doctor_runs_the_enabled_plugin_as_claude_code_would(plugin: Plugin) -> None:
    enable_plugin(plugin.home)
    assert check_installs(plugin.project, plugin.env(MEMDIR_PYTHON=sys.executable)) == []


def test_doctor_says_the_plugin_has_no_environment_yet_and_how_to_build_it(
    plugin: Plugin,
) -> None:
    settings = enable_plugin(plugin.home)
    (finding,) = check_installs(plugin.project, plugin.env())
    assert (finding.problem, finding.path) == ("plugin-building", settings)
    assert "no Python environment built yet" in finding.message
    assert finding.fix.startswith(f"python3 {LAUNCHER} --build")
    assert not (plugin.home / ".claude" / "plugins" / "data").exists()  # it built nothing


def test_doctor_names_a_plugin_enabled_but_not_installed_here(plugin: Plugin) -> None:
    shared = plugin.project / ".claude" / "settings.json"
    enable_plugin(plugin.home, scope_file=shared)
    (plugin.home / ".claude" / "plugins" / "known_marketplaces.json").unlink()
    (finding,) = check_installs(plugin.project, plugin.env(MEMDIR_PYTHON=sys.executable))
    assert (finding.problem, finding.path) == ("broken-plugin", shared)
    assert finding.fix == "claude plugin install memdir@memdir --scope project"


def test_doctor_reports_memdirs_installed_hooks_and_server_beside_the_plugin(
    plugin: Plugin,
) -> None:
    env = plugin.env(MEMDIR_PYTHON=sys.executable)
    install_claude_hooks(plugin.project, launch_for(os.environ), env=env)
    install_mcp_server(host_target("claude-code", plugin.project, env=env))
    enable_plugin(plugin.home)
    found = {(f.problem, f.path.name) for f in check_installs(plugin.project, env)}
    assert found == {
        ("duplicate-install", "settings.local.json"),
        ("duplicate-install", ".claude.json"),
    }


# -- the real Claude Code CLI ------------------------------------------------------------


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository as a fresh clone of this working tree holds it."""
    return plugin_source(tmp_path_factory.mktemp("memdir-clone"))


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sandbox]:
    with sandbox(tmp_path, monkeypatch) as made:
        made.extra_env["MEMDIR_PYTHON"] = sys.executable
        yield made


def failed_hooks(run: ClaudeRun) -> list[str]:
    return [
        f"{h.name}: exit {h.exit_code} ({h.outcome}) {h.stderr.strip()}"
        for h in run.hooks()
        if h.exit_code != 0 or h.outcome != "success"
    ]


def mcp_status(run: ClaudeRun) -> str:
    servers = {s.get("name"): s.get("status") for s in run.init.get("mcp_servers", [])}
    return str(servers.get("plugin:memdir:memdir"))


MCP_WAIT = {"CLAUDE_CODE_MCP_STARTUP_WAIT_MS": "60000"}


@pytest.mark.claude_code
def test_claude_plugin_validate_passes_on_the_repository(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(claude_binary()), "plugin", "validate", "--strict", str(ROOT)],
        capture_output=True,
        text=True,
        env={"PATH": CLAUDE_PATH, "HOME": str(tmp_path), "DISABLE_AUTOUPDATER": "1"},
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Validation passed" in done.stdout
    for skill in ("remember", "review", "why"):
        assert f"skills: memdir:{skill}" in done.stdout


@pytest.mark.claude_code
def test_the_installed_plugin_gives_memory_at_start_and_per_prompt_with_memdir_off_the_path(
    box: Sandbox, source: Path
) -> None:
    install_plugin(box, source)
    settings = json.loads((box.home / ".claude" / "settings.json").read_text())
    assert settings["enabledPlugins"] == {"memdir@memdir": True}
    mem = box.open()
    save_freeze(mem)
    run = box.run(FREEZE_PROMPT, [Turn(text="On the 15th.")])
    assert failed_hooks(run) == []
    (start,) = run.hooks("SessionStart")
    assert str(mem.layout.memory_dir) in start.context and run.delivered(start.context)
    (recall,) = run.hooks("UserPromptSubmit")
    assert FREEZE in recall.context and run.delivered(recall.context)
    # Claude Code's auto memory is on, which the plugin cannot change: the user is told how.
    assert "plugin's profile option" in start.system_message
    doctor = box.memdir("doctor", check=False)  # it runs the plugin as Claude Code does
    assert not re.search(r"\[(broken-plugin|plugin-building|duplicate-install)\]", doctor.stdout)
    unset = box.memdir("doctor", check=False, env={"MEMDIR_PYTHON": ""})
    assert "[plugin-building]" in unset.stdout and "--build" in unset.stdout


@pytest.mark.claude_code
def test_the_installed_plugin_keeps_a_denied_command_from_running(
    box: Sandbox, source: Path
) -> None:
    install_plugin(box, source)
    save_npm_rule(box.open())
    npm = Turn(tool="Bash", tool_input={"command": "echo npm install > ran.txt"})
    run = box.run("Install the dependencies.", [npm, Turn(text="OK.")], allowed_tools=["Bash"])
    assert not (box.project / "ran.txt").exists(), "the denied command ran"
    (result,) = run.tool_results()
    assert NPM_WHY in result


@pytest.mark.claude_code
def test_the_installed_plugins_mcp_tools_reach_the_model_and_answer(
    box: Sandbox, source: Path
) -> None:
    install_plugin(box, source)
    save_freeze(box.open())
    tool = "mcp__plugin_memdir_memdir__recall"
    run = box.run(
        "What do you remember about deploys?",
        [Turn(tool=tool, tool_input={"query": FREEZE_PROMPT}), Turn(text="Frozen.")],
        allowed_tools=[tool],
        env=MCP_WAIT,
    )
    assert mcp_status(run) == "connected"
    sent = json.dumps(run.conversation[0].body)
    assert [t for t in TOOLS if f"mcp__plugin_memdir_memdir__{t}" not in sent] == []
    (result,) = run.tool_results()
    assert FREEZE in result


@pytest.mark.claude_code
def test_the_models_shell_runs_memdir_through_the_plugins_bin(box: Sandbox, source: Path) -> None:
    install_plugin(box, source)
    review = Turn(tool="Bash", tool_input={"command": "memdir-plugin review"})
    run = box.run("/memdir:review", [review, Turn(text="Nothing waits.")], allowed_tools=["Bash"])
    assert "The decisions are the person's, not yours." in run.model_text()  # the skill
    (result,) = run.tool_results()
    assert "nothing awaits review" in result


@pytest.mark.claude_code
def test_under_the_plugins_claude_profile_each_index_line_reaches_the_model_once(
    box: Sandbox, source: Path
) -> None:
    install_plugin(box, source, "profile=claude")
    mem = box.open("claude")
    for i in range(7):
        mem.write(
            name=f"Ledger note {i}",
            description=f"Billing ledger note {i}: how payments batch {i} retries at night",
            type="project",
        )
    run = box.run("hello", [Turn(text="Hi.")])
    assert failed_hooks(run) == []
    text = run.model_text()
    lines = box.index_lines("claude")
    assert lines and {line: text.count(line) for line in lines} == {line: 1 for line in lines}
    assert all(not h.system_message for h in run.hooks("SessionStart"))


@pytest.mark.claude_code
def test_beside_memdirs_installed_hooks_each_hook_answers_once_and_the_installers_refuse(
    box: Sandbox, source: Path
) -> None:
    box.memdir("hook", "install", "claude")
    install_plugin(box, source)
    save_freeze(box.open())
    run = box.run(FREEZE_PROMPT, [Turn(text="On the 15th.")])
    assert failed_hooks(run) == []
    assert [h.name for h in run.hooks("SessionStart") if h.context] == ["SessionStart:startup"]
    assert len([h for h in run.hooks("UserPromptSubmit") if FREEZE in h.context]) == 1
    refused = box.memdir("hook", "install", "claude", "--scope", "user", check=False)
    assert refused.returncode != 0
    assert "claude plugin uninstall memdir@memdir --scope user" in refused.stderr
    doctor = box.memdir("doctor", check=False)
    assert "[duplicate-install]" in doctor.stdout


@pytest.mark.claude_code
@pytest.mark.slow
def test_the_plugin_builds_its_own_environment_from_its_source_then_answers(
    box: Sandbox, source: Path
) -> None:
    del box.extra_env["MEMDIR_PYTHON"]
    # No hook server: one started from the environment built here would outlive the test.
    box.extra_env["MEMDIR_HOOK_SERVER"] = "0"
    install_plugin(box, source)
    save_freeze(box.open())
    first = box.run("hello", [Turn(text="Hi.")])
    assert failed_hooks(first) == []
    (start,) = first.hooks("SessionStart")
    assert "in the background" in start.system_message and not start.context
    assert mcp_status(first) == "connected"  # with no tools yet, so the next session asks again
    data = box.home / ".claude" / "plugins" / "data" / "memdir-memdir"
    ready = data / f"venv-{memdir.__version__}" / plugin_launcher.READY_NAME
    deadline = time.monotonic() + 1800  # pip installs memdir's dependencies from PyPI
    while not ready.exists():
        log = data / f"venv-{memdir.__version__}.log"
        assert time.monotonic() < deadline and not log.with_suffix(".failed").exists(), (
            log.read_text()
        )
        time.sleep(0.5)
    run = box.run(FREEZE_PROMPT, [Turn(text="On the 15th.")], env=MCP_WAIT)
    assert failed_hooks(run) == []
    assert any(FREEZE in h.context for h in run.hooks("UserPromptSubmit"))
    assert mcp_status(run) == "connected"
