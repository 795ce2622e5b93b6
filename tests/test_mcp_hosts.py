"""`memdir install <host>`: each host's MCP config on a real file, merged, idempotent."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.cli import main
from memdir.errors import ConfigError
from memdir.hosts import config_files
from memdir.hosts.claude_code import claude_json_path
from memdir.hosts.config_files import render_toml_table
from memdir.hosts.desktop import claude_desktop_config_path
from memdir.hosts.launch import Launch, launch_for
from memdir.hosts.mcp_servers import HOSTS, host_target, install_mcp_server, read_server

# Each host's file as a user might already have it: other servers and settings.
EXISTING = {
    "claude-desktop": (
        '{\n    "mcpServers": {\n        "github": {"command": "gh-mcp", "args": []}\n    },\n'
        '    "globalShortcut": "Cmd+Space"\n}\n'
    ),
    "claude-code": (
        '{\n  "mcpServers": {\n    "db": {"command": "db-mcp", "env": {"X": "1"}}\n  }\n}\n'
    ),
    "cursor": '{"mcpServers": {}, "theme": "dark"}\n',
    "gemini": (
        '{\n  "theme": "GitHub",\n  "mcpServers": {\n    "docs": {"httpUrl": "https://d/mcp"}\n'
        '  },\n  "mcp": {"allowed": ["docs"]}\n}\n'
    ),
    "codex": (
        '# my codex settings\nmodel = "o4-mini"  # fast\n\n[mcp_servers.github]\n'
        'command = "gh-mcp"\nargs = ["--ro"]\n\n[mcp_servers.github.env]\nTOKEN = "t"\n\n'
        '[profiles.deep]\nmodel = "o3"\n'
    ),
}
FILES = {
    "claude-desktop": "claude_desktop_config.json",
    "claude-code": ".mcp.json",
    "cursor": ".cursor/mcp.json",
    "gemini": ".gemini/settings.json",
    "codex": "config.toml",
}


OPT = Launch(program=("/opt/bin/memdir",))


@pytest.fixture(autouse=True)
def gemini_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Gemini's per-user folder, away from this machine's (its settings and policies)."""
    home = tmp_path / "gemini-user"
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))
    monkeypatch.delenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", raising=False)
    return home / ".gemini"


def scoped(host: str) -> str | None:
    """Claude Code's shared project file, where the tests below keep each host's file."""
    return "project" if host == "claude-code" else None


def others(path: Path, text: str) -> object:
    """Everything in a host file but memdir's own entries (and, in Gemini's, the
    ``AGENTS.md`` memdir adds to its context files when none were named)."""
    if path.suffix == ".toml":
        data = tomllib.loads(text)
        servers = data.get("mcp_servers", {})
    else:
        data = json.loads(text)
        servers = data.get("mcpServers", {})
        if data.get("context") == {"fileName": ["GEMINI.md", "AGENTS.md"]}:
            del data["context"]
    for name in [n for n in servers if n.startswith("memdir")]:
        del servers[name]
    return data


@pytest.mark.parametrize("host", HOSTS)
def test_each_host_file_gets_the_entry_once_and_keeps_every_other_setting(
    host: str, project: Path, tmp_path: Path
) -> None:
    path = tmp_path / "host" / FILES[host]
    path.parent.mkdir(parents=True)
    path.write_text(EXISTING[host])
    os.chmod(path, 0o640)
    target = host_target(host, project, path=path, scope=scoped(host))

    first = install_mcp_server(target)
    assert first.changed and first.path == path
    written = path.read_text()
    assert read_server(path, target.name) == target.entry
    assert others(path, written) == others(path, EXISTING[host])
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]

    again = install_mcp_server(target)
    assert not again.changed and again.diff == ""
    assert path.read_text() == written


@pytest.mark.parametrize("host", HOSTS)
def test_a_host_file_that_does_not_exist_is_created_with_just_the_entry(
    host: str, project: Path, tmp_path: Path
) -> None:
    path = tmp_path / "new" / FILES[host]
    target = host_target(host, project, path=path, scope=scoped(host))
    install_mcp_server(target)
    assert read_server(path, target.name) == target.entry
    assert others(path, path.read_text()) in ({"mcpServers": {}}, {"mcp_servers": {}})


@pytest.mark.parametrize("host", HOSTS)
def test_dry_run_shows_the_diff_and_writes_nothing(
    host: str, project: Path, tmp_path: Path
) -> None:
    path = tmp_path / FILES[host]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(EXISTING[host])
    result = install_mcp_server(
        host_target(host, project, path=path, scope=scoped(host)), dry_run=True
    )
    assert result.changed and result.dry_run
    assert "+" in result.diff and "serve" in result.diff
    assert path.read_text() == EXISTING[host]


def test_project_hosts_start_memdir_in_the_project_and_user_hosts_name_it(
    project: Path, tmp_path: Path
) -> None:
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    code = host_target("claude-code", project, env=env, launch=OPT, scope="project")
    assert (code.path, code.name) == (project / ".mcp.json", "memdir")
    # A shared file: /bin/sh runs this installation, else memdir on PATH.
    assert code.entry["command"] == "/bin/sh" and code.entry["args"][-2:] == ["memdir", "serve"]
    assert "/opt/bin/memdir" in code.entry["args"][1]
    cursor = host_target("cursor", project, env=env, launch=OPT)
    assert cursor.path == project / ".cursor" / "mcp.json"
    assert cursor.entry["args"][-1] == "${workspaceFolder}"
    assert host_target("gemini", project, env=env).path == project / ".gemini" / "settings.json"
    # Codex starts its servers in the session's folder: one entry serves every project.
    codex = host_target("codex", project, env=env, launch=OPT)
    assert codex.path == tmp_path / ".codex" / "config.toml"
    assert codex.name == "memdir"
    assert codex.entry == {"command": "/opt/bin/memdir", "args": ["serve"]}
    assert host_target("codex", project, env={"CODEX_HOME": "/c"}).path == Path("/c/config.toml")
    desktop = host_target(
        "claude-desktop", project, env=env, launch=Launch(program=("/m",), profile="claude")
    )
    assert desktop.path == tmp_path / "xdg" / "Claude" / "claude_desktop_config.json"
    assert desktop.entry["args"][:3] == ["--profile", "claude", "serve"]


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        ("darwin", {"HOME": "/Users/a"}, "/Users/a/Library/Application Support/Claude"),
        ("win32", {"HOME": "/h", "APPDATA": "/h/AppData/Roaming"}, "/h/AppData/Roaming/Claude"),
        ("linux", {"HOME": "/home/a"}, "/home/a/.config/Claude"),
        ("linux", {"HOME": "/home/a", "XDG_CONFIG_HOME": "/x"}, "/x/Claude"),
    ],
)
def test_claude_desktop_config_lives_in_the_platform_folder(
    platform: str, env: dict[str, str], expected: str
) -> None:
    path = claude_desktop_config_path(env, platform)
    assert path == Path(expected) / "claude_desktop_config.json"


def test_an_outdated_entry_is_replaced_and_nothing_else_moves(
    project: Path, tmp_path: Path
) -> None:
    path = tmp_path / "config.toml"
    stale = EXISTING["codex"].replace(
        "[profiles.deep]",
        '[mcp_servers.memdir]\ncommand = "old-memdir"\n\n'
        '[mcp_servers.memdir.env]\nA = "1"\n\n[profiles.deep]',
    )
    path.write_text(stale)
    target = host_target("codex", project, path=path)
    assert install_mcp_server(target).changed
    text = path.read_text()
    assert read_server(path, "memdir") == target.entry
    assert "old-memdir" not in text and 'A = "1"' not in text
    assert text.startswith('# my codex settings\nmodel = "o4-mini"  # fast\n')
    assert text.count("[profiles.deep]") == 1 and others(path, text) == others(path, stale)

    json_path = tmp_path / "settings.json"
    json_path.write_text('{"mcpServers": {"memdir": {"command": "x"}}, "a": [1, 2]}\n')
    gemini = host_target("gemini", project, path=json_path)
    install_mcp_server(gemini)
    assert json.loads(json_path.read_text()) == {
        "mcpServers": {"memdir": gemini.entry},
        "a": [1, 2],
        "context": {"fileName": ["GEMINI.md", "AGENTS.md"]},
    }


@pytest.mark.parametrize(
    ("host", "text"),
    [
        ("cursor", '{"mcpServers": {'),
        ("cursor", "[1, 2]"),
        ("gemini", '{"mcpServers": []}'),
        ("gemini", '{\n  // a comment\n  "theme": "x"\n}\n'),
        ("codex", "model = \n"),
        ("codex", 'mcp_servers = "x"\n'),
        ("codex", 'mcp_servers.memdir = { command = "old" }\n'),
        ("codex", '[mcp_servers]\nmemdir = { command = "old" }\n'),
    ],
)
def test_a_file_memdir_cannot_read_or_edit_safely_is_refused_and_kept(
    host: str, text: str, project: Path, tmp_path: Path
) -> None:
    path = tmp_path / ("config.toml" if host == "codex" else "settings.json")
    path.write_text(text)
    with pytest.raises(ConfigError) as raised:
        install_mcp_server(host_target(host, project, path=path, scope=scoped(host)))
    assert raised.value.hint
    assert path.read_text() == text


def test_a_server_name_that_is_not_a_plain_key_is_refused(project: Path) -> None:
    with pytest.raises(ConfigError):
        host_target("codex", project, name='x"]\n[evil')


_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=30)


@settings(max_examples=80, deadline=None)
@given(
    values=st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), _TEXT | st.lists(_TEXT))
)
def test_toml_tables_memdir_writes_read_back_as_the_same_values(
    values: dict[str, object],
) -> None:
    assert tomllib.loads(render_toml_table("mcp_servers.memdir", values)) == {
        "mcp_servers": {"memdir": values}
    }


@settings(max_examples=60, deadline=None)
@given(
    tables=st.dictionaries(
        st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True),
        st.dictionaries(st.from_regex(r"[a-z_]{1,6}", fullmatch=True), _TEXT, max_size=3),
        min_size=1,
        max_size=4,
    ),
    data=st.data(),
)
def test_removing_a_toml_table_leaves_every_other_value_as_it_was(
    tables: dict[str, dict[str, object]], data: st.DataObject
) -> None:
    text = 'model = "x"\n\n' + "\n".join(
        render_toml_table(f"mcp_servers.{name}", values) for name, values in tables.items()
    )
    gone = data.draw(st.sampled_from(sorted(tables)))
    left = config_files.remove_toml_table(text, f"mcp_servers.{gone}")
    expected = {k: v for k, v in tables.items() if k != gone}
    assert (
        tomllib.loads(left) == {"model": "x", "mcp_servers": expected}
        if expected
        else {"model": "x"}
    )
    assert left.endswith("\n") and "\n\n\n" not in left


def _earlier(name: str, project: Path, program: str = "/opt/bin/memdir") -> str:
    """A per-project table as earlier versions of `memdir install codex` wrote it."""
    entry = Launch(program=(program,)).server_entry(["serve", "--project", str(project)])
    return render_toml_table(f"mcp_servers.{name}", entry)


def test_codex_install_removes_the_per_project_tables_memdir_wrote_and_no_other(
    project: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    text = (
        EXISTING["codex"]
        + "\n"
        + "\n".join(
            [
                _earlier("memdir-project", project),
                _earlier("memdir-other", other, program="/gone/venv/bin/memdir"),
                _earlier("memdir-pinned", project),  # a name the user chose: theirs
                render_toml_table("mcp_servers.memdir-notes", {"command": "notes-mcp"}),
            ]
        )
    )
    path = tmp_path / "config.toml"
    path.write_text(text)
    target = host_target("codex", project, path=path, launch=OPT)
    dry = install_mcp_server(target, dry_run=True)
    assert dry.removed == ("memdir-project", "memdir-other") and path.read_text() == text
    assert "-[mcp_servers.memdir-other]" in dry.diff

    result = install_mcp_server(target)
    assert result.removed == ("memdir-project", "memdir-other")
    data = tomllib.loads(path.read_text())
    assert set(data["mcp_servers"]) == {"github", "memdir-pinned", "memdir-notes", "memdir"}
    before = tomllib.loads(text)
    for gone in ("memdir-project", "memdir-other"):
        del before["mcp_servers"][gone]
    before["mcp_servers"]["memdir"] = target.entry
    assert data == before
    again = install_mcp_server(target)
    assert not again.changed and again.removed == ()


def test_an_earlier_table_memdir_cannot_edit_is_left_and_named(
    project: Path, tmp_path: Path
) -> None:
    path = tmp_path / "config.toml"
    args = json.dumps(["serve", "--project", str(project)])
    path.write_text(
        f'[mcp_servers]\nmemdir-project = {{ command = "/opt/bin/memdir", args = {args} }}\n'
    )
    result = install_mcp_server(host_target("codex", project, path=path, launch=OPT))
    assert result.kept == ("memdir-project",) and result.removed == ()
    assert "memdir-project" in tomllib.loads(path.read_text())["mcp_servers"]


def test_codex_keeps_the_keys_a_user_set_in_memdirs_table_and_required_is_a_choice(
    project: Path, tmp_path: Path
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[mcp_servers.memdir]\ncommand = "/old/memdir"\nargs = ["serve"]\nenabled = false\n'
        "tool_timeout_sec = 90\n"
    )
    install_mcp_server(host_target("codex", project, path=path, launch=OPT))
    assert read_server(path, "memdir") == {
        "command": "/opt/bin/memdir",
        "args": ["serve"],
        "enabled": False,
        "tool_timeout_sec": 90,
    }
    required = host_target("codex", project, path=path, launch=OPT, required=True)
    assert install_mcp_server(required).changed
    entry = read_server(path, "memdir")
    assert entry is not None and entry["required"] is True
    assert entry["startup_timeout_sec"] == 30 and entry["enabled"] is False
    plain = host_target("codex", project, path=path, launch=OPT)
    assert not install_mcp_server(plain).changed  # installing again keeps the choice
    optional = host_target("codex", project, path=path, launch=OPT, required=False)
    install_mcp_server(optional)
    entry = read_server(path, "memdir")
    assert entry is not None and "required" not in entry and entry["tool_timeout_sec"] == 90
    with pytest.raises(ConfigError):
        host_target("cursor", project, required=True)


def test_the_codex_install_says_what_required_costs(project: Path, tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    args = ["install", "codex", "--config", str(path), "--project", str(project)]
    plain = CliRunner().invoke(main, args)
    assert plain.exit_code == 0, plain.output
    assert "added MCP server 'memdir'" in plain.output
    assert "each session's folder" in plain.output and "--required" in plain.output
    required = CliRunner().invoke(main, [*args, "--required"])
    assert "every Codex session waits" in required.output and "within 30 s" in required.output
    wrong = CliRunner().invoke(main, ["install", "cursor", "--required"])
    assert wrong.exit_code == 2 and "--required is for codex" in wrong.output


def test_the_install_command_writes_rewrites_and_dry_runs(project: Path, tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(EXISTING["claude-desktop"])
    runner = CliRunner()
    args = ["install", "claude-desktop", "--config", str(path), "--project", str(project)]
    dry = runner.invoke(main, [*args, "--dry-run"])
    assert dry.exit_code == 0 and '"memdir-project"' in dry.output
    assert dry.output.splitlines()[:3] == [f"would change {path}:", f"--- {path}", f"+++ {path}"]
    assert path.read_text() == EXISTING["claude-desktop"]
    first = runner.invoke(main, args)
    assert first.exit_code == 0 and "added MCP server 'memdir-project'" in first.output
    second = runner.invoke(main, args)
    assert second.exit_code == 0 and "already in" in second.output
    assert read_server(path, "memdir-project") == launch_for(os.environ).server_entry(
        ["serve", "--project", str(project)]
    )
    bad = runner.invoke(main, ["install", "vscode"])
    assert bad.exit_code == 2
    scope = runner.invoke(main, ["install", "cursor", "--scope", "user"])
    assert scope.exit_code == 2 and "--scope is for claude-code" in scope.output


# -- Claude Code's scopes -------------------------------------------------------------

# ~/.claude.json as Claude Code 2.1 writes it: two-space JSON, no final newline.
CLAUDE_JSON: dict[str, Any] = {
    "numStartups": 12,
    "projects": {
        "/elsewhere": {"allowedTools": [], "mcpServers": {"db": {"command": "db-mcp"}}},
    },
    "mcpServers": {"github": {"command": "gh-mcp", "args": []}},
    "oauthAccount": {"emailAddress": "a@b.c"},
    "tipsHistory": {"x": 3},
}


@pytest.fixture
def claude_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    path = home / ".claude.json"
    path.write_text(json.dumps(CLAUDE_JSON, indent=2))
    path.chmod(0o600)
    return path


def test_claude_code_local_scope_goes_under_this_project_in_claude_json(
    project: Path, claude_json: Path
) -> None:
    result = CliRunner().invoke(
        main, ["--profile", "claude", "install", "claude-code", "--project", str(project)]
    )
    assert result.exit_code == 0, result.output
    assert f"added MCP server 'memdir' to {claude_json} (local scope)" in result.output
    text = claude_json.read_text()
    data = json.loads(text)
    entry = data["projects"][str(project)]["mcpServers"]["memdir"]
    assert entry["command"].startswith("/") and entry["args"] == ["--profile", "claude", "serve"]
    assert entry["env"]["MEMDIR_HOME"] == os.environ["MEMDIR_HOME"]
    del data["projects"][str(project)]
    assert data == CLAUDE_JSON  # nothing else moved
    assert not text.endswith("\n") and text.startswith('{\n  "numStartups": 12,')
    assert stat.S_IMODE(claude_json.stat().st_mode) == 0o600
    assert not Path(str(claude_json) + ".lock").exists()  # Claude Code's lock, released
    again = CliRunner().invoke(
        main, ["--profile", "claude", "install", "claude-code", "--project", str(project)]
    )
    assert "already in" in again.output and claude_json.read_text() == text


def test_claude_code_user_scope_is_the_top_level_table_and_follows_claude_config_dir(
    project: Path, claude_json: Path, tmp_path: Path
) -> None:
    target = host_target("claude-code", project, launch=OPT, scope="user")
    install_mcp_server(target)
    data = json.loads(claude_json.read_text())
    assert data["mcpServers"] == {
        **CLAUDE_JSON["mcpServers"],
        "memdir": OPT.server_entry(["serve"]),
    }
    assert (
        claude_json_path({"CLAUDE_CONFIG_DIR": str(tmp_path / "c")})
        == tmp_path / "c" / ".claude.json"
    )


def test_claude_code_waits_for_claude_codes_lock_and_takes_over_a_stale_one(
    project: Path, claude_json: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock = Path(str(claude_json) + ".lock")
    lock.mkdir()
    monkeypatch.setattr(config_files, "_LOCK_WAIT", 0.2)
    target = host_target("claude-code", project, launch=OPT)
    before = claude_json.read_text()
    with pytest.raises(ConfigError) as raised:
        install_mcp_server(target)
    assert "is locked" in raised.value.message and claude_json.read_text() == before
    assert lock.is_dir()  # someone else's lock is theirs to remove
    old = lock.stat().st_mtime - 60
    os.utime(lock, (old, old))  # a killed writer's lock: stale after 10 s
    assert install_mcp_server(target).changed
    assert not lock.exists()


@pytest.mark.parametrize(
    ("text", "scope"),
    [
        ('{"projects": ', "local"),
        ('{"projects": ', "user"),
        ('{"projects": []}', "local"),
        ('{"projects": {"%s": 1}}', "local"),
        ('{"mcpServers": 1}', "user"),
    ],
)
def test_claude_code_refuses_a_claude_json_it_cannot_edit_safely(
    text: str, scope: str, project: Path, claude_json: Path
) -> None:
    text = text.replace("%s", str(project))
    claude_json.write_text(text)
    with pytest.raises(ConfigError):
        install_mcp_server(host_target("claude-code", project, launch=OPT, scope=scope))
    assert claude_json.read_text() == text
    assert not Path(str(claude_json) + ".lock").exists()


def test_claude_code_project_scope_wraps_the_command_for_teammates(
    project: Path, tmp_path: Path
) -> None:
    result = CliRunner().invoke(
        main,
        ["install", "claude-code", "--scope", "project", "--command", "/gone/bin/memdir",
         "--project", str(project)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "approve" in result.output
    entry = read_server(project / ".mcp.json", "memdir")
    assert entry is not None and entry["command"] == "/bin/sh"
    done = subprocess.run(
        ["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", entry["command"], *entry["args"]],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    # The host lists the server as failed; the one line says what is missing.
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "memdir: MCP server not started: memdir is not installed here "
        "(no /gone/bin/memdir, no memdir on PATH)"
    ]


def test_claude_code_names_the_other_scopes_that_define_the_same_server(
    project: Path, claude_json: Path
) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["install", "claude-code", "--scope", "project",
                                "--project", str(project)]).exit_code == 0  # fmt: skip
    local = runner.invoke(main, ["install", "claude-code", "--project", str(project)])
    assert f"also in {project / '.mcp.json'} (project scope): this one wins" in local.output


# -- Gemini CLI: the read-only tools, the context files, the folder's trust -------------------


def _install_gemini(project: Path, *args: str) -> str:
    result = CliRunner().invoke(
        main, ["install", "gemini", "--command", "/opt/bin/memdir", "--project", str(project),
               *args],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return result.output


def test_gemini_may_run_exactly_memdirs_read_only_tools_unasked(
    project: Path, gemini_user: Path
) -> None:
    from memdir.hosts.gemini import READ_ONLY_TOOLS
    from memdir.mcp.tools import TOOLS

    said = _install_gemini(project)
    policy = gemini_user / "policies" / "memdir.toml"
    assert f"read-only tools (view, search, recall, why) in {policy}" in said
    (rule,) = tomllib.loads(policy.read_text())["rule"]
    # The names memdir's own server marks read-only, and only while it marks them so.
    read_only = {f.__name__ for f, notes in TOOLS if notes.read_only_hint}
    assert set(rule["toolName"]) == set(READ_ONLY_TOOLS) == read_only
    assert rule == {
        "mcpName": "memdir",
        "toolName": list(READ_ONLY_TOOLS),
        "toolAnnotations": {"readOnlyHint": True},
        "decision": "allow",
        "priority": 100,
    }
    entry = read_server(project / ".gemini" / "settings.json", "memdir")
    assert entry is not None and "trust" not in entry  # never every tool, writers included

    written = policy.read_text()
    assert "already allowed" in _install_gemini(project)
    assert policy.read_text() == written
    _install_gemini(project, "--name", "notes")  # a second name keeps the first
    assert [r["mcpName"] for r in tomllib.loads(policy.read_text())["rule"]] == ["memdir", "notes"]


def test_a_policy_file_memdir_did_not_write_is_refused_and_kept(
    project: Path, gemini_user: Path
) -> None:
    policy = gemini_user / "policies" / "memdir.toml"
    policy.parent.mkdir(parents=True)
    policy.write_text('[[rule]]\ntoolName = "*"\ndecision = "deny"\npriority = 1\n')
    result = CliRunner().invoke(main, ["install", "gemini", "--project", str(project)])
    assert result.exit_code != 0 and "was not written by memdir" in result.output
    assert policy.read_text().startswith("[[rule]]")


def test_gemini_dry_run_shows_both_files_and_writes_neither(
    project: Path, gemini_user: Path
) -> None:
    said = _install_gemini(project, "--dry-run")
    assert f"would create {project / '.gemini' / 'settings.json'}" in said
    assert f"would create {gemini_user / 'policies' / 'memdir.toml'}" in said
    assert not (project / ".gemini").exists() and not gemini_user.exists()


@pytest.mark.parametrize(
    ("user", "mine", "expected"),
    [
        (None, None, ["GEMINI.md", "AGENTS.md"]),  # Gemini's own default, kept
        (None, "CONTEXT.md", ["CONTEXT.md", "AGENTS.md"]),
        (["NOTES.md"], None, ["NOTES.md", "AGENTS.md"]),  # the project's replaces the user's
        (["GEMINI.md", "AGENTS.md"], None, None),  # the user's already reads it: left alone
        (None, ["AGENTS.md", "GEMINI.md"], ["AGENTS.md", "GEMINI.md"]),
    ],
)
def test_gemini_gets_agents_md_among_its_context_files_keeping_those_it_read(
    project: Path,
    gemini_user: Path,
    user: list[str] | None,
    mine: str | list[str] | None,
    expected: list[str] | None,
) -> None:
    if user is not None:
        gemini_user.mkdir(parents=True)
        (gemini_user / "settings.json").write_text(json.dumps({"context": {"fileName": user}}))
    path = project / ".gemini" / "settings.json"
    if mine is not None:
        path.parent.mkdir()
        path.write_text(json.dumps({"context": {"fileName": mine}, "theme": "x"}))
    said = _install_gemini(project)
    data = json.loads(path.read_text())
    assert data.get("context", {}).get("fileName") == expected
    assert "reaches it" in said
    assert data.get("theme") == ("x" if mine is not None else None)


@pytest.mark.parametrize(
    ("rules", "settings", "said"),
    [
        ({}, {}, "has not been told whether to trust"),
        ({"%p": "TRUST_FOLDER"}, {}, "Gemini trusts"),
        ({"%p/README.md": "TRUST_PARENT"}, {}, "Gemini trusts"),
        ({"%p": "DO_NOT_TRUST"}, {}, "is NOT trusted"),
        # The longest rule wins: a distrusted folder inside a trusted parent.
        ({"%t": "TRUST_FOLDER", "%p": "DO_NOT_TRUST"}, {}, "is NOT trusted"),
        ({"%p": "DO_NOT_TRUST"}, {"security": {"folderTrust": {"enabled": False}}}, "trust is off"),
    ],
)
def test_the_gemini_installer_says_how_gemini_trusts_the_folder(
    project: Path,
    gemini_user: Path,
    tmp_path: Path,
    rules: dict[str, str],
    settings: dict[str, Any],
    said: str,
) -> None:
    gemini_user.mkdir(parents=True)
    filled = {
        k.replace("%p", str(project)).replace("%t", str(tmp_path)): v for k, v in rules.items()
    }
    (gemini_user / "trustedFolders.json").write_text(json.dumps(filled))
    (gemini_user / "settings.json").write_text(json.dumps(settings))
    assert said in _install_gemini(project)
