"""memdir inside the real Codex CLI: its MCP tools, its hooks, its exported instructions.

Every test runs the pinned ``codex`` binary in throwaway projects with memdir installed
in a virtual environment that is not on Codex's PATH, by memdir's own installers (see
:mod:`codex_cli`); the model is the scripted stand-in of :mod:`codex_api`, which records
what Codex sends it. Hooks run only once trusted, as in Codex itself: the tests trust
them the way the user's "Trust all" does.
"""

from __future__ import annotations

import shutil
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_runner import (
    FREEZE,
    MIGRATIONS_WHY,
    NPM_WHY,
    ConnectTrace,
    assert_clean,
    assert_held_for_asking,
    save_freeze,
    save_migrations_rule,
    save_npm_rule,
    save_team_freeze,
    uninstall_hooks,
)
from codex_api import Turn
from codex_cli import CodexBox, CodexRun, codex_box
from memdir.api import Memdir
from memdir.hosts.config_files import render_toml_table
from memdir.hosts.launch import launch_for


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[CodexBox]:
    with codex_box(tmp_path, monkeypatch) as made:
        yield made


def install_hooks(box: CodexBox) -> str:
    """``memdir hook install codex``, then "Trust all": what the installer tells the user."""
    said = box.memdir("hook", "install", "codex")
    box.trust_hooks()
    return said


def servers(run: CodexRun) -> set[str]:
    """The MCP servers whose tools the run's first request offers (Codex's namespaces)."""
    return {name.split(".")[0] for name in run.first_tools() if name.startswith("mcp__")}


# -- (a) the tools are there from the first request ---------------------------------------


def test_memdirs_tools_are_in_the_first_request_once_installed_as_required(
    box: CodexBox,
) -> None:
    said = box.memdir("install", "codex", "--required")
    assert "waits for memdir's server" in said  # the cost, named
    box.use_model("test-model")  # a model Codex lists every tool for
    run = box.run("hello", [Turn(text="Hi.")])
    assert_clean(run)
    tools = run.first_tools()
    assert {"mcp__memdir.search", "mcp__memdir.recall", "mcp__memdir.write"} <= set(tools)


def test_the_first_tool_search_finds_memdirs_tools_where_codex_defers_them(
    box: CodexBox,
) -> None:
    box.memdir("install", "codex", "--required")
    run = box.run("hello", [Turn.find_tools("project memory"), Turn(text="Hi.")])
    assert_clean(run)
    assert "tool_search" in run.first_tools()  # Codex's own models find MCP tools by search
    (found,) = run.tool_outputs()
    assert {"mcp__memdir.search", "mcp__memdir.view"} <= set(found.splitlines())


# -- (b) one entry, serving the session's own project -------------------------------------


def test_a_session_is_offered_only_its_own_projects_memory(box: CodexBox) -> None:
    other = box.new_project("other")
    save_freeze(box.open())
    box.open(other).write(
        name="Other secret", description="Only the other project knows this", type="project"
    )
    box.memdir("install", "codex", "--required")
    box.memdir("install", "codex", "--required", cwd=other)  # the user installs in both
    box.use_model("test-model")  # every tool listed: each server's namespace shows
    view = Turn.mcp("memdir", "view", {})
    run = box.run("What do you remember?", [view, Turn(text="A freeze.")])
    assert_clean(run)
    assert servers(run) == {"mcp__memdir"}
    (index,) = run.tool_outputs()
    assert "Deploy freeze" in index
    assert "Other secret" not in index


# -- (c) a rule that denies keeps the command from running --------------------------------


def test_a_denied_command_does_not_run_once_the_user_trusts_memdirs_hooks(
    box: CodexBox,
) -> None:
    save_npm_rule(box.open())
    said = box.memdir("hook", "install", "codex")
    assert "Trust all and continue" in said  # how Codex asks, in the installer's words
    # The command names npm; if Codex runs it at all, built.txt appears.
    script = [Turn.shell("echo npm run build > built.txt"), Turn(text="OK.")]
    untrusted = box.run("Build it.", script)
    assert_clean(untrusted)
    assert (box.project / "built.txt").exists(), "Codex ran an untrusted hook"
    (box.project / "built.txt").unlink()

    box.trust_hooks()
    harmless = Turn.shell("echo checked > checked.txt")
    run = box.run("Check, then build it.", [harmless, *script])
    assert_clean(run)
    assert (box.project / "checked.txt").exists(), "Codex ran no command at all"
    assert not (box.project / "built.txt").exists(), "the denied command ran"
    denied = run.tool_outputs()[-1]
    assert NPM_WHY in denied and "Use pnpm, never npm" in denied


def test_a_rule_that_asks_holds_the_call_in_codex_and_says_why(box: CodexBox) -> None:
    save_npm_rule(box.open(), action="ask")
    install_hooks(box)
    run = box.run("Build it.", [Turn.shell("echo npm run build > built.txt"), Turn(text="OK.")])
    assert_held_for_asking(box, run)


def test_a_rule_that_warns_lets_the_command_run_and_the_model_reads_why(box: CodexBox) -> None:
    save_npm_rule(box.open(), action="warn")
    install_hooks(box)
    run = box.run("Build it.", [Turn.shell("echo npm run build > built.txt"), Turn(text="OK.")])
    assert_clean(run)
    assert (box.project / "built.txt").exists()
    assert run.delivered("memdir warning about this call")


def test_an_edit_rule_holds_a_patch_that_writes_a_matching_file(box: CodexBox) -> None:
    save_migrations_rule(box.open())
    install_hooks(box)
    patch = (
        "*** Begin Patch\n*** Add File: notes.txt\n+fine\n"
        "*** Add File: migrations/0001_init.sql\n+CREATE TABLE t;\n*** End Patch\n"
    )
    run = box.run("Add the first migration.", [Turn.patch(patch), Turn(text="OK.")])
    assert_clean(run)
    assert not (box.project / "migrations").exists()
    assert not (box.project / "notes.txt").exists()  # Codex applies a patch whole or not at all
    (reason,) = run.tool_outputs()
    assert MIGRATIONS_WHY in reason


# -- the memory section and recall ---------------------------------------------------------


def test_the_session_start_and_each_prompt_bring_memory_to_the_model(box: CodexBox) -> None:
    mem = box.open()
    save_freeze(mem)
    install_hooks(box)
    run = box.run("When does the deploy freeze for the billing migration end?", [Turn(text="On.")])
    assert_clean(run)
    first = run.turns[0]
    texts = "\n".join(t for t in _texts(first.body))
    assert str(mem.layout.memory_dir) in texts  # memdir's memory section, whole
    assert "Claude Code" not in texts  # nothing said of another agent's memory
    assert texts.count(FREEZE) == 1  # recalled once for the prompt
    assert run.delivered("Deploy freeze")


def test_under_the_claude_profile_codex_still_gets_the_index(box: CodexBox) -> None:
    # Claude Code loads its MEMORY.md itself, so its session start carries only the rest;
    # Codex loads none: the index must come with memdir's section.
    mem = Memdir.open(box.project, profile="claude")
    save_freeze(mem)
    box.memdir("--profile", "claude", "hook", "install", "codex")
    box.trust_hooks()
    run = box.run("hello", [Turn(text="Hi.")])
    assert_clean(run)
    index = (mem.layout.memory_dir / "MEMORY.md").read_text()
    (line,) = [x for x in index.splitlines() if x.startswith("- [")]
    assert run.delivered(line)


def _texts(body: dict[str, object]) -> list[str]:
    from codex_api import request_texts

    return request_texts(body)


# -- (d) the exported instructions, beside the hooks ---------------------------------------


def test_the_exported_instructions_and_the_hooks_both_reach_the_model(box: CodexBox) -> None:
    save_npm_rule(box.open(), action="deny")
    save_team_freeze(box.open())
    box.memdir("export", "agents-md")
    agents = (box.project / "AGENTS.md").read_text()
    assert "Team deploy freeze" in agents
    install_hooks(box)
    run = box.run("hello", [Turn(text="Hi.")])
    assert_clean(run)
    section = agents[agents.index("<!-- memdir:begin") :]
    assert any(section.strip() in t for t in _texts(run.turns[0].body))
    assert run.delivered(str(box.open().layout.memory_dir))  # and the session start's


# -- (e) installing again, and after earlier versions --------------------------------------


def test_the_installers_migrate_earlier_tables_and_installing_again_changes_nothing(
    box: CodexBox,
) -> None:
    other = box.new_project("other")
    launch = launch_for({}, executable=str(box.venv_bin / "python"))
    earlier = [
        render_toml_table(
            f"mcp_servers.memdir-{root.name}",
            launch.server_entry(["serve", "--project", str(root)]),
        )
        for root in (box.project, other)
    ]
    theirs = render_toml_table("mcp_servers.notes", {"command": "notes-mcp", "args": ["--ro"]})
    with box.user_settings.open("a") as config:
        config.write("\n" + "\n".join([*earlier, theirs]))

    said = box.memdir("install", "codex")
    assert "removed MCP server 'memdir-project'" in said
    assert "removed MCP server 'memdir-other'" in said
    servers_now = tomllib.loads(box.user_settings.read_text())["mcp_servers"]
    assert set(servers_now) == {"memdir", "notes"}
    box.memdir("hook", "install", "codex")
    keys = box.trust_hooks()
    files = {p: p.read_text() for p in (box.user_settings, box.client_home / "hooks.json")}

    assert "already in" in box.memdir("install", "codex")
    assert "already installed" in box.memdir("hook", "install", "codex")
    assert "nothing to change" in box.memdir("install", "codex", "--dry-run")
    assert "nothing to change" in box.memdir("hook", "install", "codex", "--dry-run")
    assert {p: p.read_text() for p in files} == files
    listed = box.hooks()
    assert sorted(h["key"] for h in listed) == sorted(keys)
    assert {h["trustStatus"] for h in listed} == {"trusted"}  # installing again kept the trust


def test_uninstalling_the_hooks_leaves_the_users_own(box: CodexBox) -> None:
    hooks = box.client_home / "hooks.json"
    mine = '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}\n'
    hooks.write_text(mine)
    box.memdir("hook", "install", "codex")
    assert {h["eventName"] for h in box.hooks()} == {
        "stop",
        "sessionStart",
        "userPromptSubmit",
        "preToolUse",
    }
    uninstall_hooks(box, "codex")
    assert hooks.read_text().replace(" ", "").replace("\n", "") == mine.replace(" ", "").strip()


# -- no host but the stand-in --------------------------------------------------------------


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_codex_and_memdir_reach_no_host_but_the_stand_in(box: CodexBox) -> None:
    save_npm_rule(box.open())
    box.memdir("install", "codex", "--required")
    install_hooks(box)
    trace = ConnectTrace(box.root / "connect.trace")
    # Every process Codex starts (hooks, the MCP server) is followed.
    script = [Turn.mcp("memdir", "search", {"query": "pnpm"}), Turn.shell("npm run build")]
    run = box.run("Build it.", [*script, Turn(text="OK.")], wrapper=trace.wrapper)
    trace.skip_untraced(run)
    assert_clean(run)
    assert len(run.items("mcp_tool_call")) == 1
    hosts = trace.hosts()
    assert hosts and hosts <= {"127.0.0.1", "::1"}, hosts
