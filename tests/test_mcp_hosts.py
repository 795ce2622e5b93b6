"""`memdir install <host>`: each host's MCP config on a real file, merged, idempotent."""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.cli import main
from memdir.errors import ConfigError
from memdir.integrations.mcp_hosts import (
    HOSTS,
    claude_desktop_config_path,
    host_target,
    install_mcp_server,
    read_server,
    render_toml_table,
)

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


def others(path: Path, text: str) -> object:
    """Everything in a host file but memdir's own entries."""
    if path.suffix == ".toml":
        data = tomllib.loads(text)
        servers = data.get("mcp_servers", {})
    else:
        data = json.loads(text)
        servers = data.get("mcpServers", {})
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
    target = host_target(host, project, path=path)

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
    target = host_target(host, project, path=path)
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
    result = install_mcp_server(host_target(host, project, path=path), dry_run=True)
    assert result.changed and result.dry_run
    assert "+" in result.diff and "serve" in result.diff
    assert path.read_text() == EXISTING[host]


def test_project_hosts_start_memdir_in_the_project_and_user_hosts_name_it(
    project: Path, tmp_path: Path
) -> None:
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    code = host_target("claude-code", project, env=env)
    assert (code.path, code.name, code.entry) == (
        project / ".mcp.json", "memdir", {"command": "memdir", "args": ["serve"]},
    )  # fmt: skip
    assert host_target("cursor", project, env=env).path == project / ".cursor" / "mcp.json"
    assert host_target("cursor", project).entry["args"][-1] == "${workspaceFolder}"
    assert host_target("gemini", project, env=env).path == project / ".gemini" / "settings.json"
    codex = host_target("codex", project, env=env, executable="/opt/bin/memdir")
    assert codex.path == tmp_path / ".codex" / "config.toml"
    assert codex.name == "memdir-project"
    assert codex.entry == {
        "command": "/opt/bin/memdir",
        "args": ["serve", "--project", str(project)],
    }
    assert host_target("codex", project, env={"CODEX_HOME": "/c"}).path == Path("/c/config.toml")
    desktop = host_target("claude-desktop", project, env=env, profile="claude")
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
        '[mcp_servers.memdir-project]\ncommand = "old-memdir"\n\n'
        '[mcp_servers.memdir-project.env]\nA = "1"\n\n[profiles.deep]',
    )
    path.write_text(stale)
    target = host_target("codex", project, path=path)
    assert install_mcp_server(target).changed
    text = path.read_text()
    assert read_server(path, "memdir-project") == target.entry
    assert "old-memdir" not in text and 'A = "1"' not in text
    assert text.startswith('# my codex settings\nmodel = "o4-mini"  # fast\n')
    assert text.count("[profiles.deep]") == 1 and others(path, text) == others(path, stale)

    json_path = tmp_path / "settings.json"
    json_path.write_text('{"mcpServers": {"memdir": {"command": "x"}}, "a": [1, 2]}\n')
    install_mcp_server(host_target("gemini", project, path=json_path))
    assert json.loads(json_path.read_text()) == {
        "mcpServers": {"memdir": {"command": "memdir", "args": ["serve"]}},
        "a": [1, 2],
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
        ("codex", 'mcp_servers.memdir-project = { command = "old" }\n'),
        ("codex", '[mcp_servers]\nmemdir-project = { command = "old" }\n'),
    ],
)
def test_a_file_memdir_cannot_read_or_edit_safely_is_refused_and_kept(
    host: str, text: str, project: Path, tmp_path: Path
) -> None:
    path = tmp_path / ("config.toml" if host == "codex" else "settings.json")
    path.write_text(text)
    with pytest.raises(ConfigError) as raised:
        install_mcp_server(host_target(host, project, path=path))
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


def test_the_install_command_writes_rewrites_and_dry_runs(project: Path, tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(EXISTING["claude-desktop"])
    runner = CliRunner()
    args = ["install", "claude-desktop", "--config", str(path), "--project", str(project)]
    dry = runner.invoke(main, [*args, "--dry-run"])
    assert dry.exit_code == 0 and '"memdir-project"' in dry.output
    assert path.read_text() == EXISTING["claude-desktop"]
    first = runner.invoke(main, args)
    assert first.exit_code == 0 and "added MCP server 'memdir-project'" in first.output
    second = runner.invoke(main, args)
    assert second.exit_code == 0 and "already in" in second.output
    assert read_server(path, "memdir-project") == {
        "command": "memdir",
        "args": ["serve", "--project", str(project)],
    }
    bad = runner.invoke(main, ["install", "vscode"])
    assert bad.exit_code == 2
