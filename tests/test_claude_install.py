"""`memdir hook install claude`: commands that run wherever memdir is installed.

The installed commands are run the way Claude Code runs them, through
``/bin/sh`` in a fresh process, from an environment whose PATH holds no
memdir (``env -i PATH=/usr/bin:/bin``), with a recorded hook payload on stdin.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from gitutil import git
from memdir.api import Memdir
from memdir.cli import main
from memdir.cli.hook import SCOPES as CLI_SCOPES
from memdir.errors import ConfigError
from memdir.hosts.claude_code import (
    SCOPES,
    install_claude_hooks,
    memdir_hook_entries,
    settings_path,
    uninstall_claude_hooks,
)
from memdir.hosts.launch import Launch, hook_name, launch_for, this_installation
from memutil import save_rule

FIXTURES = Path(__file__).parent / "fixtures" / "hooks"
BARE_PATH = "/usr/bin:/bin"
RULE = {"tool": "Bash", "match": r"\bnpm (install|i)\b", "action": "deny"}
BODY = (
    "Use pnpm for every package command, never npm.\n"
    "**Why:** npm rewrote pnpm-lock.yaml and broke the release build.\n"
    "**How to apply:** installs and CI steps.\n"
)
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "PreCompact", "SessionEnd")


def cli(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env=env)


def payload(event: str, project: Path, **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{event}.json").read_text())
    return {**data, "cwd": str(project), **overrides}


def run_as_claude_code(
    command: str, data: dict[str, Any], cwd: Path, home: Path, path: str = BARE_PATH
) -> subprocess.CompletedProcess[str]:
    """``command`` through /bin/sh with nothing of this environment but HOME and ``path``."""
    return subprocess.run(
        ["/usr/bin/env", "-i", f"PATH={path}", f"HOME={home}", "/bin/sh", "-c", command],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def commands_in(path: Path) -> dict[str, str]:
    return dict(memdir_hook_entries(json.loads(path.read_text())))


def deny_npm(mem: Memdir) -> None:
    description = "package installs go through pnpm, npm breaks the lockfile"
    save_rule(mem, "Use pnpm, never npm", RULE, description=description, body=BODY)


def test_memdir_is_not_on_the_bare_path() -> None:
    # The premise of the tests below: a shell with this PATH cannot find memdir by name.
    assert shutil.which("memdir", path=BARE_PATH) is None


def test_the_installed_hooks_answer_from_a_shell_whose_path_lacks_memdir(
    mem: Memdir, project: Path, home: Path
) -> None:
    deny_npm(mem)
    result = cli("hook", "install", "claude", "--project", str(project))
    assert result.exit_code == 0, result.output
    commands = commands_in(project / ".claude" / "settings.local.json")
    assert set(commands) == set(EVENTS)
    # MEMDIR_HOME (set by the test suite) is carried: env -i drops it from the shell.
    assert f"MEMDIR_HOME={os.environ['MEMDIR_HOME']}" in commands["PreToolUse"]
    assert commands["PreToolUse"].endswith(" hook pre-tool-use")

    denied = run_as_claude_code(
        commands["PreToolUse"], payload("pre-tool-use", project), project, home
    )
    assert denied.returncode == 0 and denied.stderr == "", denied.stderr
    decision = json.loads(denied.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "npm rewrote pnpm-lock.yaml" in decision["permissionDecisionReason"]

    start = run_as_claude_code(
        commands["SessionStart"], payload("session-start", project), project, home
    )
    assert start.returncode == 0, start.stderr
    assert (
        "Use pnpm, never npm" in json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    )


def test_the_claude_profile_is_carried_into_every_hook(project: Path, home: Path) -> None:
    # A rule saved in Claude Code's own folder (the claude profile) is enforced.
    deny_npm(Memdir.open(project, profile="claude"))
    result = cli("--profile", "claude", "hook", "install", "claude", "--project", str(project))
    assert result.exit_code == 0, result.output
    commands = commands_in(project / ".claude" / "settings.local.json")
    for event, command in commands.items():
        assert "MEMDIR_PROFILE=claude " in command, event
        # The fast path answers only when argv starts with `hook <name>`.
        assert "--profile" not in command
    denied = run_as_claude_code(
        commands["PreToolUse"], payload("pre-tool-use", project), project, home
    )
    assert json.loads(denied.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    # ...and the environment variable chooses the profile as the option does.
    again = cli(
        "hook", "install", "claude", "--project", str(project), env={"MEMDIR_PROFILE": "claude"}
    )
    assert again.exit_code == 0 and "already installed" in again.output


def test_a_shell_quoted_path_with_spaces_and_quotes_still_runs(
    mem: Memdir, project: Path, home: Path, tmp_path: Path
) -> None:
    deny_npm(mem)
    folder = tmp_path / "my tools's bin"
    folder.mkdir()
    wrapper = folder / "memdir"
    wrapper.write_text(
        f'#!/bin/sh\nPYTHONPATH={os.pathsep.join(sys.path)} exec {sys.executable} -m memdir "$@"\n'
    )
    wrapper.chmod(0o755)
    launch = launch_for(os.environ, command=str(wrapper))
    install_claude_hooks(project, launch)
    command = commands_in(settings_path("local", project))["PreToolUse"]
    denied = run_as_claude_code(command, payload("pre-tool-use", project), project, home)
    assert json.loads(denied.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_each_scope_writes_its_own_file(project: Path, home: Path, tmp_path: Path) -> None:
    launch = launch_for(os.environ)
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    expected = {
        "local": project / ".claude" / "settings.local.json",
        "project": project / ".claude" / "settings.json",
        "user": home / ".claude" / "settings.json",
    }
    for scope in SCOPES:
        result = install_claude_hooks(sub, launch, scope=scope)
        assert result.path == expected[scope] and result.changed
        assert set(commands_in(result.path)) == set(EVENTS)
    assert stat.S_IMODE(expected["local"].stat().st_mode) == 0o600
    assert stat.S_IMODE(expected["project"].stat().st_mode) == 0o644
    assert CLI_SCOPES == SCOPES
    config = tmp_path / "claude-config"
    assert settings_path("user", project, {"CLAUDE_CONFIG_DIR": str(config)}) == (
        config / "settings.json"
    )


def test_a_worktree_gets_local_hooks_at_the_main_root_and_shared_ones_in_its_checkout(
    project: Path, tmp_path: Path
) -> None:
    # Claude Code 2.1 reads settings.local.json at the main repository's root from a
    # worktree, and settings.json from the checkout it runs in.
    worktree = tmp_path / "feature"
    git(project, "worktree", "add", "-q", str(worktree))
    assert settings_path("local", worktree) == project / ".claude" / "settings.local.json"
    assert settings_path("project", worktree) == worktree / ".claude" / "settings.json"


def test_the_shared_command_skips_with_one_line_where_memdir_is_missing(
    mem: Memdir, project: Path, home: Path, tmp_path: Path
) -> None:
    deny_npm(mem)
    folder = tmp_path / "venv" / "bin"
    folder.mkdir(parents=True)
    script = folder / "memdir"
    script.write_text(f'#!/bin/sh\nexec {sys.executable} -m memdir "$@"\n')
    script.chmod(0o755)
    source = str(Path(__file__).resolve().parent.parent / "src")
    launch = Launch(
        program=(str(script),),
        env=(("PYTHONPATH", source), ("MEMDIR_HOME", os.environ["MEMDIR_HOME"])),
    )
    result = install_claude_hooks(project, launch, scope="project")
    commands = commands_in(result.path)
    call = payload("pre-tool-use", project)

    here = run_as_claude_code(commands["PreToolUse"], call, project, home)
    assert json.loads(here.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"

    # A teammate with memdir on PATH (and no such path) gets theirs.
    shutil.rmtree(tmp_path / "venv")
    theirs = tmp_path / "teammate-bin"
    theirs.mkdir()
    (theirs / "memdir").write_text('#!/bin/sh\necho teammate-memdir "$@"\n')
    (theirs / "memdir").chmod(0o755)
    teammate = run_as_claude_code(
        commands["PreToolUse"], call, project, home, path=f"{theirs}:{BARE_PATH}"
    )
    assert teammate.returncode == 0 and teammate.stdout == "teammate-memdir hook pre-tool-use\n"

    # A teammate without memdir: every hook exits 0 with one line naming what is missing.
    for event, command in commands.items():
        done = run_as_claude_code(command, call, project, home)
        assert done.returncode == 0 and done.stdout == "", event
        lines = done.stderr.splitlines()
        assert len(lines) == 1, done.stderr
        assert str(script) in lines[0] and "no memdir on PATH" in lines[0]
        assert f"hook {hook_name(command)} skipped" in lines[0]


def test_the_shared_command_keeps_the_profile_and_lets_a_teammate_choose_theirs(
    project: Path, home: Path, tmp_path: Path
) -> None:
    launch = Launch(program=("/nowhere/memdir",), profile="claude")
    command = launch.hook_command("pre-tool-use", shared=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "memdir").write_text('#!/bin/sh\necho "profile=$MEMDIR_PROFILE $*"\n')
    (bin_dir / "memdir").chmod(0o755)
    path = f"{bin_dir}:{BARE_PATH}"
    done = run_as_claude_code(command, {}, project, home, path=path)
    assert done.stdout == "profile=claude hook pre-tool-use\n"
    chosen = run_as_claude_code(
        f"MEMDIR_PROFILE=memdir; export MEMDIR_PROFILE; {command}", {}, project, home, path=path
    )
    assert chosen.stdout == "profile=memdir hook pre-tool-use\n"


def test_installing_again_changes_nothing(project: Path, home: Path) -> None:
    args = ("hook", "install", "claude", "--project", str(project))
    assert cli(*args).exit_code == 0
    path = project / ".claude" / "settings.local.json"
    first = path.read_bytes()
    again = cli(*args)
    assert again.exit_code == 0 and "already installed" in again.output
    assert path.read_bytes() == first


def test_older_entries_are_replaced_in_place_and_nothing_else_moves(
    project: Path, home: Path
) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    settings = json.loads((FIXTURES / "settings-existing.json").read_text())
    # What earlier versions wrote: bare commands; one event twice, beside a user's hook.
    settings["hooks"]["SessionStart"] = [
        {"hooks": [{"type": "command", "command": "memdir hook session-start", "timeout": 30}]}
    ]
    settings["hooks"]["PreToolUse"].append(
        {"matcher": "*", "hooks": [{"type": "command", "command": "memdir hook pre-tool-use"}]}
    )
    settings["hooks"]["Stop"][0]["hooks"].append(
        {"type": "command", "command": "/old/venv/bin/memdir hook stop"}
    )
    settings["hooks"]["Stop"].append(
        {"hooks": [{"type": "command", "command": "memdir hook stop"}]}
    )
    path.write_text(json.dumps(settings, indent=4) + "\n")

    launch = launch_for(os.environ)
    result = install_claude_hooks(project, launch, scope="project")
    after = json.loads(path.read_text())
    assert result.added == ("UserPromptSubmit", "PreCompact", "SessionEnd")
    assert set(result.updated) == {"SessionStart", "PreToolUse", "Stop"}
    shared = {event: launch.hook_command(name, shared=True) for event, name in (
        ("SessionStart", "session-start"), ("PreToolUse", "pre-tool-use"), ("Stop", "stop"),
    )}  # fmt: skip
    assert after["hooks"]["SessionStart"] == [
        {"hooks": [{"type": "command", "command": shared["SessionStart"], "timeout": 30}]}
    ]
    # The user's Bash check stays first and unchanged; memdir's entry keeps its place.
    assert after["hooks"]["PreToolUse"] == [
        settings["hooks"]["PreToolUse"][0],
        {"matcher": "*", "hooks": [{"type": "command", "command": shared["PreToolUse"]}]},
    ]
    # The old path took the new command beside the user's hook; the bare duplicate went.
    assert after["hooks"]["Stop"] == [
        {"hooks": [
            {"type": "command", "command": "say done", "timeout": 5},
            {"type": "command", "command": shared["Stop"]},
        ]},
    ]  # fmt: skip
    for key in ("permissions", "env", "model", "statusLine"):
        assert after[key] == settings[key]
    assert path.read_text().startswith('{\n    "permissions"')  # its 4-space indent kept
    assert install_claude_hooks(project, launch, scope="project").changed is False


def test_uninstall_removes_only_memdirs_entries(project: Path, home: Path) -> None:
    path = project / ".claude" / "settings.local.json"
    path.parent.mkdir()
    shutil.copy(FIXTURES / "settings-existing.json", path)
    before = json.loads(path.read_text())
    assert cli("hook", "install", "claude", "--project", str(project)).exit_code == 0
    assert json.loads(path.read_text())["autoMemoryEnabled"] is False

    dry = cli("hook", "uninstall", "claude", "--dry-run", "--project", str(project))
    assert dry.exit_code == 0 and f"would change {path}:" in dry.output
    assert memdir_hook_entries(json.loads(path.read_text()))

    gone = cli("hook", "uninstall", "claude", "--project", str(project))
    assert gone.exit_code == 0, gone.output
    # In the file's order: the user's events first, then those the install added.
    removed = "PreToolUse, Stop, SessionStart, UserPromptSubmit, PreCompact, SessionEnd"
    assert f"removed memdir's hooks ({removed}) from {path}" in gone.output
    assert "auto memory back on" in gone.output
    assert json.loads(path.read_text()) == before
    again = cli("hook", "uninstall", "claude", "--project", str(project))
    assert again.exit_code == 0 and f"no memdir hooks in {path}" in again.output


def test_uninstall_of_a_file_that_is_not_there_writes_nothing(project: Path, home: Path) -> None:
    result = uninstall_claude_hooks(project, scope="user")
    assert not result.changed and not result.path.exists()


def test_dry_run_prints_the_full_path_and_the_diff_and_writes_nothing(
    project: Path, home: Path
) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    shutil.copy(FIXTURES / "settings-existing.json", path)
    before = path.read_bytes()
    result = cli(
        "hook", "install", "claude", "--scope", "project", "--dry-run", "--project", str(project)
    )
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[:3] == [f"would change {path}:", f"--- {path}", f"+++ {path}"]
    assert any(line.startswith("+") and "hook session-start" in line for line in lines)
    # Claude Code's auto memory goes off for this user alone, never in the shared file.
    local_diff = lines.index(f"+++ {project / '.claude' / 'settings.local.json'}")
    assert not any("autoMemoryEnabled" in line for line in lines[:local_diff])
    assert '+  "autoMemoryEnabled": false' in lines[local_diff:]
    assert path.read_bytes() == before
    fresh = cli("hook", "install", "claude", "--dry-run", "--project", str(project))
    local = project / ".claude" / "settings.local.json"
    assert fresh.output.splitlines()[:3] == [
        f"would create {local}:",
        "--- /dev/null",
        f"+++ {local}",
    ]
    assert not local.exists()


def test_memdirs_own_folder_turns_claude_codes_auto_memory_off_and_says_so(
    project: Path, home: Path
) -> None:
    path = project / ".claude" / "settings.local.json"
    path.parent.mkdir()
    path.write_text('{"autoMemoryEnabled": true}\n')
    result = cli("hook", "install", "claude", "--project", str(project))
    assert result.exit_code == 0
    assert json.loads(path.read_text())["autoMemoryEnabled"] is False
    assert (
        f"note: autoMemoryEnabled was true in {path}: memdir turned it off, because"
        in result.output
    )
    # Under the claude profile Claude Code loads MEMORY.md itself: memdir's false goes.
    claude = cli("--profile", "claude", "hook", "install", "claude", "--project", str(project))
    assert claude.exit_code == 0
    assert "autoMemoryEnabled" not in json.loads(path.read_text())
    assert "auto memory back on" in claude.output


def test_the_claude_profile_leaves_auto_memory_as_the_user_set_it(
    project: Path, home: Path
) -> None:
    path = project / ".claude" / "settings.local.json"
    path.parent.mkdir()
    path.write_text('{"autoMemoryEnabled": false}\n')
    result = cli("--profile", "claude", "hook", "install", "claude", "--project", str(project))
    assert json.loads(path.read_text())["autoMemoryEnabled"] is False
    assert "Claude Code will not load MEMORY.md" in result.output
    fresh = install_claude_hooks(
        project, launch_for(os.environ, profile="claude"), scope="user", own_folder=False
    )
    assert "autoMemoryEnabled" not in json.loads(fresh.path.read_text())


def test_hooks_in_two_scopes_are_pointed_out(project: Path, home: Path) -> None:
    assert (
        cli("hook", "install", "claude", "--scope", "project", "--project", str(project)).exit_code
        == 0
    )
    result = cli("hook", "install", "claude", "--project", str(project))
    assert f"memdir's hooks are also in {project / '.claude' / 'settings.json'}" in result.output
    assert "memdir hook uninstall claude --scope project" in result.output


def test_settings_memdir_cannot_read_are_refused_and_kept(project: Path, home: Path) -> None:
    for text in ('{"model": "x",,}', "[1]", '{"hooks": []}', '{"hooks": {"Stop": {}}}'):
        path = project / ".claude" / "settings.local.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
        result = cli("hook", "install", "claude", "--project", str(project))
        assert result.exit_code == 1, text
        assert result.stderr.startswith("memdir: error:")
        assert path.read_text() == text
    with pytest.raises(ConfigError):
        settings_path("team", project)


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("memdir hook pre-tool-use", "pre-tool-use"),
        ("/home/a/.venv/bin/memdir hook stop", "stop"),
        ("'/home/a/my tools/memdir' hook session-start", "session-start"),
        ("MEMDIR_PROFILE=claude /x/memdir hook user-prompt-submit", "user-prompt-submit"),
        ("/usr/bin/python3 -m memdir hook pre-compact", "pre-compact"),
        ("memdir hook session-end", "session-end"),
        ("./scripts/check-bash.sh", None),
        ("say done", None),
        ("mymemdir hook stop", None),
        ("memdir serve", None),
    ],
)
def test_memdirs_own_hook_commands_are_recognised_in_every_form_it_wrote(
    command: str, name: str | None
) -> None:
    assert hook_name(command) == name
    shared = Launch(program=("/x/memdir",)).hook_command("stop", shared=True)
    assert hook_name(shared) == "stop"


def make_script(
    folder: Path, first_line: str, body: str = "from memdir.__main__ import main\n"
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "memdir"
    script.write_text(first_line + "\n" + body)
    script.chmod(0o755)
    return script


def test_the_installation_is_the_script_beside_the_interpreter_only_when_it_is_its_own(
    tmp_path: Path,
) -> None:
    venv = tmp_path / "venv" / "bin"
    python = venv / "python"
    script = make_script(venv, f"#!{python}")
    assert this_installation(str(python)) == (str(script),)
    # pip's form for long paths or spaces: a /bin/sh line that execs the interpreter.
    make_script(venv, "#!/bin/sh", f"'''exec' \"{python}\" \"$0\" \"$@\"\n' '''\nimport memdir\n")
    assert this_installation(str(python)) == (str(script),)
    # A script of another interpreter, or of another program, is not this installation.
    make_script(venv, "#!/elsewhere/bin/python")
    assert this_installation(str(python)) == (str(python), "-m", "memdir")
    make_script(venv, f"#!{python}", "from othertool import main\n")
    assert this_installation(str(python)) == (str(python), "-m", "memdir")
    script.unlink()
    assert this_installation(str(python)) == (str(python), "-m", "memdir")
    with pytest.raises(ConfigError):
        this_installation("")


def test_the_running_installation_answers_without_path(project: Path, home: Path) -> None:
    program = this_installation()
    assert all(os.path.isabs(word) for word in program[:1])
    launch = launch_for(os.environ)
    done = run_as_claude_code(launch.hook_command("pre-tool-use"), {}, project, home)
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""


def test_command_replaces_the_program_with_the_users_own_text(project: Path, home: Path) -> None:
    args = ("hook", "install", "claude", "--command", "uv run --quiet memdir")
    result = cli("--profile", "claude", *args, "--project", str(project))
    assert result.exit_code == 0, result.output
    commands = commands_in(project / ".claude" / "settings.local.json")
    home_var = shlex.quote(os.environ["MEMDIR_HOME"])
    assert commands["Stop"] == (
        f"MEMDIR_HOME={home_var} MEMDIR_PROFILE=claude uv run --quiet memdir hook stop"
    )
    shared = cli(*args, "--scope", "project", "--project", str(project))
    assert shared.exit_code == 0
    command = commands_in(project / ".claude" / "settings.json")["Stop"]
    assert command.startswith("if command -v uv >/dev/null 2>&1; then ")
    done = run_as_claude_code(command, {}, project, home, path="/nowhere")
    assert done.returncode == 0 and "(no uv, no memdir on PATH)" in done.stderr


# -- Codex CLI: the same hooks in its hooks.json, answering in its dialect ------------------

CODEX_EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse")


def codex_cli(*args: str, home: Path, project: Path) -> Result:
    """``memdir ARGS`` with Codex's folder under the throwaway HOME."""
    env = {"CODEX_HOME": str(home / ".codex")}
    return cli(*args, "--project", str(project), env=env)


def codex_payload(project: Path, tool_name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """A PreToolUse input as Codex 0.171 sends it (recorded from the real CLI)."""
    return {
        "session_id": "01a24982-cd52-7030-92e2-7fb97e53ec86",
        "turn_id": "01a24982-d2bf-7232-a882-e13a46289042",
        "transcript_path": None,
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "model": "gpt-5.5",
        "permission_mode": "bypassPermissions",
        "tool_name": tool_name,
        "tool_input": tool_input,
        "tool_use_id": "call_000003",
    }


def test_codex_hooks_go_in_its_hooks_json_and_answer_in_its_dialect_without_path(
    mem: Memdir, project: Path, home: Path
) -> None:
    ask = {**RULE, "action": "ask"}
    save_rule(mem, "Ask before npm", ask, description="npm only with the user's word", body=BODY)
    result = codex_cli("hook", "install", "codex", home=home, project=project)
    assert result.exit_code == 0, result.output
    assert "Trust all and continue" in result.output and "/hooks" in result.output
    path = home / ".codex" / "hooks.json"
    commands = commands_in(path)
    assert set(commands) == set(CODEX_EVENTS)  # no Stop: Codex's transcript is its own
    assert commands["PreToolUse"].endswith(" hook pre-tool-use --host codex")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600

    call = codex_payload(project, "Bash", {"command": "npm install left-pad"})
    held = run_as_claude_code(commands["PreToolUse"], call, project, home)
    assert held.returncode == 0 and held.stderr == "", held.stderr
    decision = json.loads(held.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"  # Codex's hooks cannot ask
    assert "cannot ask the user" in decision["permissionDecisionReason"]
    claude = run_as_claude_code(
        commands["PreToolUse"].removesuffix(" --host codex"), call, project, home
    )
    assert json.loads(claude.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"


def test_a_codex_patch_is_judged_file_by_file_by_the_edit_rules(
    mem: Memdir, project: Path, home: Path
) -> None:
    rule = {"tool": "Write", "match": r"(^|/)migrations/", "action": "deny"}
    description = "never hand-write migrations"
    save_rule(mem, "Migrations are generated", rule, description=description, body=BODY)
    codex_cli("hook", "install", "codex", home=home, project=project)
    command = commands_in(home / ".codex" / "hooks.json")["PreToolUse"]
    patch = "*** Begin Patch\n*** Add File: migrations/0001.sql\n+CREATE TABLE t;\n*** End Patch\n"
    denied = run_as_claude_code(
        command, codex_payload(project, "apply_patch", {"command": patch}), project, home
    )
    assert json.loads(denied.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    update = patch.replace("Add File: migrations/0001.sql", "Update File: src/app.py")
    allowed = run_as_claude_code(
        command, codex_payload(project, "apply_patch", {"command": update}), project, home
    )
    assert allowed.returncode == 0 and allowed.stdout == "" and allowed.stderr == ""


def test_codex_hooks_install_once_leave_the_users_own_and_uninstall_cleanly(
    project: Path, home: Path
) -> None:
    path = home / ".codex" / "hooks.json"
    path.parent.mkdir()
    theirs = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
              "command": "./guard.sh"}]}]}}  # fmt: skip
    path.write_text(json.dumps(theirs, indent=4) + "\n")
    first = codex_cli("hook", "install", "codex", home=home, project=project)
    assert first.exit_code == 0 and "added SessionStart" in first.output
    data = json.loads(path.read_text())
    # memdir's group comes after the user's: the positions Codex keys its trust by stay.
    assert data["hooks"]["PreToolUse"][0] == theirs["hooks"]["PreToolUse"][0]
    assert path.read_text().startswith('{\n    "hooks"')  # the file's own indentation
    written = path.read_text()
    again = codex_cli("hook", "install", "codex", home=home, project=project)
    assert "already installed" in again.output and path.read_text() == written
    dry = codex_cli("hook", "install", "codex", "--dry-run", home=home, project=project)
    assert "nothing to change" in dry.output
    gone = codex_cli("hook", "uninstall", "codex", home=home, project=project)
    assert gone.exit_code == 0 and "removed memdir's hooks" in gone.output
    assert json.loads(path.read_text()) == theirs


def test_codex_hooks_in_the_project_are_shared_and_local_is_refused(
    project: Path, home: Path
) -> None:
    shared = codex_cli("hook", "install", "codex", "--scope", "project", home=home, project=project)
    assert shared.exit_code == 0, shared.output
    assert "only once you trust the project" in shared.output
    command = commands_in(project / ".codex" / "hooks.json")["PreToolUse"]
    assert (
        command.startswith("if [ -x ") and "exec memdir hook pre-tool-use --host codex" in command
    )
    done = run_as_claude_code(command, {}, project, home, path="/nowhere")
    assert done.returncode == 0 and done.stdout == ""  # a teammate without memdir: skipped
    user = codex_cli("hook", "install", "codex", home=home, project=project)
    assert f"also in {project / '.codex' / 'hooks.json'}" in user.output
    local = codex_cli("hook", "install", "codex", "--scope", "local", home=home, project=project)
    assert local.exit_code == 2 and "codex has no local scope" in local.output


def test_codex_install_names_what_in_config_toml_changes_the_hooks(
    project: Path, home: Path
) -> None:
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        '[features]\nhooks = false\n\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\n'
        'command = "true"\n'
    )
    result = codex_cli("hook", "install", "codex", home=home, project=project)
    assert "hooks = false" in result.output and "defines hooks as well" in result.output


@pytest.mark.parametrize(
    "command",
    [
        "/x/memdir hook pre-tool-use --host codex",
        "MEMDIR_HOME=/m /usr/bin/python3 -SP /x/memdir/hook_launcher.py hook session-start "
        "--host codex",
        Launch(program=("/x/memdir",)).hook_command(
            "user-prompt-submit", shared=True, host="codex"
        ),
    ],
)
def test_codex_hook_commands_read_back_as_memdirs_own(command: str) -> None:
    from memdir.hosts.written import read_hook_command

    written = read_hook_command(command)
    assert written is not None and written.args[-2:] == ("--host", "codex")
    assert hook_name(command) is not None
