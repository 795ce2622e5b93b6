"""`memdir doctor` runs the hook and MCP commands installed for Claude Code, for real."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from memdir.cli import main
from memdir.hosts.claude_code import install_claude_hooks
from memdir.hosts.install_check import check_installs
from memdir.hosts.launch import Launch, launch_for
from memdir.hosts.mcp_servers import host_target, install_mcp_server


def bare_env(home: Path) -> dict[str, str]:
    """What a Claude Code started from a desktop launcher might pass: no memdir on PATH."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home)}


def problems(project: Path, home: Path) -> list[tuple[str, Path]]:
    return [(f.problem, f.path) for f in check_installs(project, bare_env(home))]


def test_installed_hooks_and_server_that_answer_without_path_are_all_good(
    project: Path, home: Path
) -> None:
    install_claude_hooks(project, launch_for(os.environ))
    install_mcp_server(host_target("claude-code", project, launch=launch_for(os.environ)))
    assert (home / ".claude.json").exists()
    assert problems(project, home) == []
    result = CliRunner().invoke(main, ["doctor", "--project", str(project)])
    assert result.exit_code == 0, result.output
    assert result.output == "all good\n"


@pytest.mark.parametrize("gone", ["python", "launcher"])
def test_a_hook_whose_program_is_gone_is_flagged_with_the_fix(
    project: Path, home: Path, gone: str
) -> None:
    launch = launch_for(os.environ, profile="claude")
    result = install_claude_hooks(project, launch)
    path = result.path
    assert launch.hooks is not None  # the quick form: <python> -SP <launcher>
    python, _, launcher = launch.hooks
    old, new = (
        (python, "/gone/venv/bin/python")
        if gone == "python"
        else (launcher, "/gone/memdir/hook_launcher.py")
    )
    path.write_text(path.read_text().replace(old, new))

    doctor = CliRunner().invoke(main, ["doctor", "--project", str(project)])
    assert doctor.exit_code == 1
    line = next(x for x in doctor.output.splitlines() if x.startswith("[broken-hook]"))
    said = (
        "cannot run: /gone/venv/bin/python: no such executable"
        if gone == "python"
        else "cannot run: /gone/memdir/hook_launcher.py: no such file"
    )
    assert str(path) in line and said in line
    assert line.endswith("fix: memdir --profile claude hook install claude --scope local")
    assert len([x for x in doctor.output.splitlines() if x.startswith("[broken-hook]")]) == 1

    # The fix it names works.
    fixed = CliRunner().invoke(
        main, ["--profile", "claude", "hook", "install", "claude", "--project", str(project)]
    )
    assert fixed.exit_code == 0 and problems(project, home) == []

    as_json = CliRunner().invoke(main, ["doctor", "--json", "--project", str(project)])
    assert json.loads(as_json.output)["installs"] == [] and as_json.exit_code == 0


def test_a_bare_memdir_from_an_earlier_version_is_flagged(project: Path, home: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    entry = {"type": "command", "command": "memdir hook pre-tool-use"}
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [entry]}]}}))
    found = check_installs(project, bare_env(home))
    assert [f.problem for f in found] == ["path-hook", "broken-hook"]
    assert all(f.fix == "memdir hook install claude --scope project" for f in found)


def test_a_shared_command_that_skips_here_is_flagged(project: Path, home: Path) -> None:
    install_claude_hooks(project, Launch(program=("/gone/memdir",)), scope="project")
    (finding,) = check_installs(project, bare_env(home))
    assert finding.problem == "broken-hook"
    assert (
        "says: memdir: hook session-start skipped: memdir is not installed here" in finding.message
    )


def test_hooks_in_two_settings_files_are_flagged(project: Path, home: Path) -> None:
    launch = launch_for(os.environ)
    install_claude_hooks(project, launch, scope="local")
    install_claude_hooks(project, launch, scope="user")
    assert problems(project, home) == [
        ("duplicate-hooks", project / ".claude" / "settings.local.json")
    ]


def test_a_server_that_cannot_start_or_stops_at_once_is_flagged(project: Path, home: Path) -> None:
    gone = {"command": "/gone/memdir", "args": ["serve"]}
    shared = Launch(program=("/gone/memdir",)).server_entry(["serve"], shared=True)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"memdir": gone}}))
    (home / ".claude.json").write_text(
        json.dumps({"projects": {str(project): {"mcpServers": {"memdir": shared}}},
                    "mcpServers": {"other": {"command": "/gone/other", "args": ["serve"]}}})
    )  # fmt: skip
    found = check_installs(project, bare_env(home))
    assert [(f.problem, f.path) for f in found] == [
        ("broken-server", project / ".mcp.json"),
        ("broken-server", home / ".claude.json"),
    ]
    assert "cannot run: /gone/memdir: no such executable file" in found[0].message
    assert found[0].fix == "memdir install claude-code --scope project"
    # ~/.claude.json is the user's own: its server starts as Claude Code starts it.
    assert "exited with status 1 before answering: memdir: MCP server not started" in (
        found[1].message
    )
    assert found[1].fix == "memdir install claude-code --scope local"


def test_a_settings_file_that_does_not_parse_is_reported_and_kept(
    project: Path, home: Path
) -> None:
    path = project / ".claude" / "settings.local.json"
    path.parent.mkdir()
    path.write_text('{"hooks": ')
    (finding,) = check_installs(project, bare_env(home))
    assert (finding.problem, finding.path) == ("unreadable", path)
    assert path.read_text() == '{"hooks": '


def test_the_users_own_settings_run_through_the_shell_as_claude_code_runs_them(
    project: Path, home: Path
) -> None:
    result = install_claude_hooks(project, Launch(program=("/gone/memdir",)), scope="user")
    assert result.path == home / ".claude" / "settings.json"
    (finding,) = check_installs(project, bare_env(home))
    assert finding.problem == "broken-hook" and "exits 127" in finding.message
    assert finding.fix == "memdir hook install claude --scope user"


def test_commands_from_the_projects_files_run_only_in_the_forms_memdir_writes(
    project: Path, home: Path, tmp_path: Path
) -> None:
    # A cloned repository's files: doctor must not run what they say.
    marker = tmp_path / "ran"
    sneaky = f"touch {marker}; memdir hook stop"
    settings = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": sneaky}]}]}}
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command",
                    "command": f"PATH=/x /bin/sh -c 'touch {marker}' memdir hook stop"}]}]}})
    )  # fmt: skip
    server = {"command": "/bin/sh", "args": ["-c", f"touch {marker}", "memdir", "serve"]}
    other = {"command": str(tmp_path / "bin" / "memdir"), "args": ["serve"]}
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "memdir").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (tmp_path / "bin" / "memdir").chmod(0o755)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"memdir": server, "b": other}}))
    found = check_installs(project, bare_env(home))
    assert sorted(f.problem for f in found) == [
        "duplicate-hooks", "unchecked-hook", "unchecked-hook", "unchecked-server",
    ]  # fmt: skip
    # A program that is not this installation (nor memdir on PATH) is only looked at.
    assert not marker.exists()


def test_a_hook_server_folder_others_may_enter_is_flagged(
    project: Path, home: Path, tmp_path: Path
) -> None:
    install_claude_hooks(project, launch_for(os.environ))
    env = {**bare_env(home), "XDG_RUNTIME_DIR": str(tmp_path / "run")}
    folder = tmp_path / "run" / f"memdir-{os.getuid()}"
    assert check_installs(project, env) == []  # no folder yet: the first hook makes it
    folder.mkdir(parents=True, mode=0o700)
    assert check_installs(project, env) == []
    folder.chmod(0o755)
    [found] = check_installs(project, env)
    assert (found.problem, found.path) == ("hook-server-folder", folder)
    assert found.fix.startswith(f"rm -r {folder}")
    assert check_installs(project, {**env, "MEMDIR_HOOK_SERVER": "0"}) == []


# -- Codex CLI's files ------------------------------------------------------------------------


def test_codex_hooks_and_server_that_answer_without_path_are_all_good(
    project: Path, home: Path
) -> None:
    from memdir.hosts.codex import install_codex_hooks

    launch = launch_for(os.environ)
    install_codex_hooks(project, launch)
    install_mcp_server(host_target("codex", project, launch=launch, required=True))
    assert (home / ".codex" / "hooks.json").exists()
    assert problems(project, home) == []


def test_codex_tables_earlier_versions_wrote_and_broken_hooks_are_flagged_with_the_fix(
    project: Path, home: Path
) -> None:
    from memdir.hosts.codex import install_codex_hooks
    from memdir.hosts.config_files import render_toml_table

    launch = launch_for(os.environ)
    hooks = install_codex_hooks(project, launch).path
    assert launch.hooks is not None  # the quick form: <python> -SP <launcher>
    hooks.write_text(hooks.read_text().replace(launch.hooks[0], "/gone/python"))
    config = home / ".codex" / "config.toml"
    earlier = launch.server_entry(["serve", "--project", str(project)])
    config.write_text(render_toml_table(f"mcp_servers.memdir-{project.name}", earlier))
    found = {f.problem: f for f in check_installs(project, bare_env(home))}
    assert set(found) == {"broken-hook", "per-project-server"}
    assert found["broken-hook"].fix == "memdir hook install codex --scope user"
    assert str(project) in found["per-project-server"].message
    assert found["per-project-server"].fix.startswith("memdir install codex")
    install_mcp_server(host_target("codex", project, launch=launch))  # the fix it names
    install_codex_hooks(project, launch)
    assert problems(project, home) == []


# -- Gemini CLI's files -----------------------------------------------------------------------


def test_gemini_hooks_and_server_that_answer_without_path_are_all_good(
    project: Path, home: Path
) -> None:
    from memdir.hosts.gemini import install_gemini_hooks, uninstall_gemini_hooks

    launch = launch_for(os.environ)
    install_gemini_hooks(project, launch)
    install_mcp_server(host_target("gemini", project, launch=launch))
    assert (home / ".gemini" / "settings.json").exists()
    assert problems(project, home) == []
    shared = install_gemini_hooks(project, launch, scope="project").path  # run from the project
    assert problems(project, home) == [("duplicate-hooks", home / ".gemini" / "settings.json")]
    uninstall_gemini_hooks(project)
    assert problems(project, home) == []
    assert shared == project / ".gemini" / "settings.json"


def test_hooks_geminis_migration_copied_from_claude_code_are_flagged_with_the_fix(
    project: Path, home: Path
) -> None:
    from memdir.hosts.claude_code import hook_commands
    from memdir.hosts.gemini import install_gemini_hooks

    # What `gemini hooks migrate --from-claude` writes: Claude Code's events renamed, its
    # commands as they were, its seconds as Gemini's milliseconds.
    claude = hook_commands(launch_for(os.environ))
    renamed = {"PreToolUse": "BeforeTool", "Stop": "AfterAgent", "SessionStart": "SessionStart"}
    hooks = {
        gemini: [{"hooks": [{"type": "command", "command": claude[event], "timeout": 30}]}]
        for event, gemini in renamed.items()
    }
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": hooks}))
    found = {f.problem: f for f in check_installs(project, bare_env(home))}
    assert set(found) == {"wrong-dialect", "short-timeout", "stray-hook"}
    assert {f.fix for f in found.values()} == {"memdir hook install gemini --scope project"}
    assert "fail open" in found["wrong-dialect"].message
    assert "30 ms" in found["short-timeout"].message
    install_gemini_hooks(project, launch_for(os.environ), scope="project")  # the fix it names
    assert problems(project, home) == []


def test_a_folder_gemini_was_told_not_to_trust_is_flagged_once_memdir_is_installed_for_it(
    project: Path, home: Path
) -> None:
    from memdir.hosts.gemini import install_gemini_hooks

    trusted = home / ".gemini" / "trustedFolders.json"
    trusted.parent.mkdir()
    trusted.write_text(json.dumps({str(project): "DO_NOT_TRUST"}))
    assert problems(project, home) == []  # nothing of memdir's for Gemini: nothing to say
    install_gemini_hooks(project, launch_for(os.environ))
    assert problems(project, home) == [("untrusted-folder", trusted)]
