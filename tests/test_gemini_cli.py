"""memdir inside the real Gemini CLI: its MCP tools, its hooks, its exported instructions.

Every test runs the pinned ``gemini`` in throwaway projects with memdir installed in a
virtual environment that is not on Gemini's PATH, by memdir's own installers (see
:mod:`gemini_cli`); the model is the scripted stand-in of :mod:`gemini_api`, which
records what Gemini sends it. Gemini runs hooks, MCP servers and project settings only
in a folder the user trusts: the tests trust the project the way the user's "Trust
folder" does, unless they are about an untrusted one.
"""

from __future__ import annotations

import json
import shutil
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
from gemini_api import Turn
from gemini_cli import GeminiBox, gemini_box

READ_ONLY = {"mcp_memdir_view", "mcp_memdir_search", "mcp_memdir_recall", "mcp_memdir_why"}
WRITERS = {"mcp_memdir_write", "mcp_memdir_edit", "mcp_memdir_delete", "mcp_memdir_log"}


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[GeminiBox]:
    with gemini_box(tmp_path, monkeypatch) as made:
        yield made


BUILD = [Turn.shell("echo npm run build > built.txt"), Turn(text="OK.")]


# -- (a) memdir's tools in a headless run -------------------------------------------------


def test_memdirs_read_only_tools_are_offered_in_a_headless_run_and_its_writers_are_not(
    box: GeminiBox,
) -> None:
    said = box.memdir("install", "gemini")
    assert "read-only tools (view, search, recall, why)" in said
    run = box.run("hello", [Turn(text="Hi.")])
    assert_clean(run)
    tools = set(run.first_tools())
    assert tools >= READ_ONLY
    assert not tools & WRITERS  # they ask first, and a headless run cannot ask


def test_a_session_is_offered_only_its_own_projects_memory(box: GeminiBox) -> None:
    other = box.new_project("other")
    save_freeze(box.open())
    box.open(other).write(
        name="Other secret", description="Only the other project knows this", type="project"
    )
    box.memdir("install", "gemini")
    box.memdir("install", "gemini", cwd=other)  # the user installs in both
    run = box.run("What do you remember?", [Turn.mcp("memdir", "view"), Turn(text="A freeze.")])
    assert_clean(run)
    assert {t for t in run.first_tools() if t.startswith("mcp_")} == READ_ONLY
    (index,) = run.tool_outputs()
    assert "Deploy freeze" in index
    assert "Other secret" not in index


# -- (b) the folder's trust ---------------------------------------------------------------


def test_the_installers_say_when_gemini_does_not_trust_the_folder(box: GeminiBox) -> None:
    box.trust(box.project, "DO_NOT_TRUST")
    said = box.memdir("hook", "install", "gemini")
    assert f"{box.project} is NOT trusted" in said
    assert "is NOT trusted" in box.memdir("install", "gemini")
    run = box.run("hello", [Turn(text="Hi.")])
    assert run.returncode != 0 and not run.turns  # Gemini refuses to run there at all
    assert "not running in a trusted directory" in run.stderr

    box.trust(box.project)  # the user's "Trust folder"
    assert f"Gemini trusts {box.project}" in box.memdir("hook", "install", "gemini")
    assert_clean(box.run("hello", [Turn(text="Hi.")]))


# -- (c) a rule that denies keeps the command from running --------------------------------


def test_a_denied_command_does_not_run(box: GeminiBox) -> None:
    save_npm_rule(box.open())
    said = box.memdir("hook", "install", "gemini")
    assert "hooks run:" in said and "--host gemini" in said
    harmless = Turn.shell("echo checked > checked.txt")
    run = box.run("Check, then build it.", [harmless, *BUILD], yolo=True)
    assert_clean(run)
    assert (box.project / "checked.txt").exists(), "Gemini ran no command at all"
    assert not (box.project / "built.txt").exists(), "the denied command ran"
    checked, denied = run.tool_results()
    assert checked["status"] == "success" and denied["status"] == "error"
    reason = run.tool_outputs()[-1]
    assert NPM_WHY in reason and "Use pnpm, never npm" in reason


def test_a_rule_that_asks_holds_the_call_in_gemini_and_says_why(box: GeminiBox) -> None:
    save_npm_rule(box.open(), action="ask")
    box.memdir("hook", "install", "gemini")
    run = box.run("Build it.", BUILD, yolo=True)  # an "ask" would wait here forever
    assert_held_for_asking(box, run)


def test_a_rule_that_warns_lets_the_command_run_and_the_model_reads_why(box: GeminiBox) -> None:
    save_npm_rule(box.open(), action="warn")
    box.memdir("hook", "install", "gemini")
    run = box.run("Build it.", BUILD, yolo=True)
    assert_clean(run)
    assert (box.project / "built.txt").exists()
    (result,) = run.tool_outputs()
    assert "memdir warning about this call" in result and NPM_WHY in result
    assert "memdir warning about this call" in run.stderr  # and the user saw it


def test_an_edit_rule_holds_a_file_write(box: GeminiBox) -> None:
    save_migrations_rule(box.open())
    box.memdir("hook", "install", "gemini")
    target = box.project / "migrations" / "0001_init.sql"
    script = [Turn.write(str(target), "CREATE TABLE t;\n"), Turn(text="OK.")]
    run = box.run("Add the first migration.", script, yolo=True)
    assert_clean(run)
    assert not target.exists()
    (reason,) = run.tool_outputs()
    assert MIGRATIONS_WHY in reason


# -- the memory section and recall ---------------------------------------------------------


def test_the_session_start_and_each_prompt_bring_memory_to_the_model(box: GeminiBox) -> None:
    mem = box.open()
    save_freeze(mem)
    box.memdir("hook", "install", "gemini")
    run = box.run("When does the deploy freeze for the billing migration end?", [Turn(text="On.")])
    assert_clean(run)
    texts = "\n".join(run.first_texts())
    assert str(mem.layout.memory_dir) in texts  # memdir's memory section, whole
    assert "Claude Code" not in texts  # nothing said of another agent's memory
    assert texts.count(FREEZE) == 1  # recalled once for the prompt


# -- (d) the exported instructions ---------------------------------------------------------


def test_the_exported_instructions_reach_the_model(box: GeminiBox) -> None:
    save_npm_rule(box.open())
    save_team_freeze(box.open())
    said = box.memdir("export", "agents-md")
    assert "Gemini CLI reads GEMINI.md, not AGENTS.md" in said  # and how to change it
    agents = (box.project / "AGENTS.md").read_text()
    section = agents[agents.index("<!-- memdir:begin") :].strip()
    assert "Team deploy freeze" in section
    box.memdir("install", "gemini")
    assert "Gemini CLI reads it too" in box.memdir("export", "agents-md")
    run = box.run("hello", [Turn(text="Hi.")])
    assert_clean(run)
    assert any(section in t for t in run.first_texts())


# -- (e) installing again, and after Gemini's own migration --------------------------------


def test_the_hook_installer_repairs_geminis_migration_and_installing_again_changes_nothing(
    box: GeminiBox,
) -> None:
    save_npm_rule(box.open())
    box.memdir("hook", "install", "claude")  # the user's Claude Code hooks, then
    box.gemini_command("hooks", "migrate", "--from-claude")  # Gemini's own migration
    migrated = json.loads(box.project_settings.read_text())["hooks"]
    assert {h["timeout"] for g in migrated["BeforeTool"] for h in g["hooks"]} == {30}  # ms

    said = box.memdir("hook", "install", "gemini", "--scope", "project")
    assert "took memdir's AfterAgent, PreCompress, SessionEnd hooks out" in said
    hooks = json.loads(box.project_settings.read_text())["hooks"]
    # (the migration also wrote an empty list for each event Gemini knows)
    assert {e for e, g in hooks.items() if g} == {
        "SessionStart",
        "BeforeAgent",
        "BeforeTool",
        "AfterTool",
    }
    entries = [h for groups in hooks.values() for g in groups for h in g["hooks"]]
    assert {h["timeout"] for h in entries} == {30_000}
    assert all("--host gemini;" in h["command"] for h in entries)  # the shared wrapper's
    run = box.run("Build it.", BUILD, yolo=True)  # the project's hooks, in a trusted folder
    assert_clean(run)
    assert not (box.project / "built.txt").exists()

    box.memdir("install", "gemini")
    files = [box.project_settings, box.user_settings, box.client_home / "policies" / "memdir.toml"]
    before = {p: p.read_text() for p in files}
    shared = ("--scope", "project")
    assert "already installed" in box.memdir("hook", "install", "gemini", *shared)
    assert "already in" in box.memdir("install", "gemini")
    assert "nothing to change" in box.memdir("hook", "install", "gemini", "--dry-run", *shared)
    assert "nothing to change" in box.memdir("install", "gemini", "--dry-run")
    assert {p: p.read_text() for p in files} == before


def test_uninstalling_the_hooks_leaves_the_users_own(box: GeminiBox) -> None:
    settings = json.loads(box.user_settings.read_text())
    mine = {"AfterAgent": [{"hooks": [{"type": "command", "command": "true", "name": "mine"}]}]}
    box.user_settings.write_text(json.dumps({**settings, "hooks": mine}, indent=2))
    box.memdir("hook", "install", "gemini")
    assert set(json.loads(box.user_settings.read_text())["hooks"]) == {
        "AfterAgent",
        "SessionStart",
        "BeforeAgent",
        "BeforeTool",
        "AfterTool",
    }
    uninstall_hooks(box, "gemini")
    assert json.loads(box.user_settings.read_text())["hooks"] == mine


# -- no host but the stand-in --------------------------------------------------------------


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_gemini_and_memdir_reach_no_host_but_the_stand_in(box: GeminiBox) -> None:
    save_npm_rule(box.open())
    box.memdir("install", "gemini")
    box.memdir("hook", "install", "gemini")
    trace = ConnectTrace(box.root / "connect.trace")
    # Every process Gemini starts (its relaunched self, hooks, the MCP server) is followed.
    script = [Turn.mcp("memdir", "search", {"query": "pnpm"}), *BUILD]
    run = box.run("Build it.", script, yolo=True, wrapper=trace.wrapper)
    trace.skip_untraced(run)
    assert_clean(run)
    assert [r["status"] for r in run.tool_results()] == ["success", "error"]
    hosts = trace.hosts()
    assert hosts and hosts <= {"127.0.0.1", "::1"}, hosts
