"""The pre-tool-use hook remembers where a folder's memory lives, until what decided it changes."""

from __future__ import annotations

import copy
import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from gitutil import git
from memdir import config
from memdir.api import Memdir
from memdir.cli import main
from memdir.enforcement.enforced import EnforcedRule
from memdir.enforcement.rules import Rule
from memdir.hooks import memo as hook_memo
from memdir.hooks.entry import pre_tool_use
from memdir.kinds import Scope
from memdir.storage.paths import make_layout
from memdir.utils.inputs import note, record, state, states, unchanged
from memutil import NPM_INSTALL, save_rule

SRC = Path(__file__).resolve().parents[1] / "src" / "memdir"
WHY = "**Why:** npm rewrote the lockfile.\n"
NPM = NPM_INSTALL


def forbid_npm(mem: Memdir, name: str = "use pnpm") -> None:
    save_rule(mem, name, NPM, description="pnpm, never npm", body=f"Use pnpm.\n{WHY}")


def denied_root(mem: Memdir) -> Path:
    """The project root of ``mem`` once :func:`forbid_npm` holds there (checked)."""
    forbid_npm(mem)
    root = mem.layout.project_root
    assert decision(root) == "deny"
    return root


def decision(cwd: Path, env: dict[str, str] | None = None) -> str | None:
    payload = {"cwd": str(cwd), "tool_name": "Bash", "tool_input": {"command": "npm install"}}
    text = pre_tool_use(payload, os.environ if env is None else env)
    if not text:
        return None
    answer: dict[str, Any] = json.loads(text)
    return str(answer["hookSpecificOutput"]["permissionDecision"])


# -- the recorded inputs -------------------------------------------------------------------


def test_recording_a_layout_notes_the_git_markers_it_looked_for(project: Path) -> None:
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    with record() as read:
        make_layout(Path("/nowhere"), sub)
    assert str(sub / ".git") in read
    assert str(project / "src" / ".git") in read
    assert str(project / ".git") in read
    assert str(project.parent / ".git") not in read  # the search stopped at the root


def test_noting_outside_a_recording_keeps_nothing_and_nested_recordings_share(
    tmp_path: Path,
) -> None:
    note(tmp_path / "before")
    with record() as outer:
        note(tmp_path / "a")
        with record() as inner:
            note(tmp_path / "b")
        note(tmp_path / "c")
    assert inner == [str(tmp_path / "b")]
    assert outer == [str(tmp_path / n) for n in ("a", "b", "c")]


def test_a_file_that_changes_or_appears_is_a_change_a_new_file_in_a_folder_is_not(
    tmp_path: Path,
) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text("{}")
    missing = tmp_path / "later.json"
    recorded = states([str(settings), str(missing), str(tmp_path)])
    (tmp_path / "unrelated.txt").write_text("an agent writes files all the time")
    assert unchanged(recorded)
    missing.write_text("{}")
    assert not unchanged(recorded)
    missing.unlink()
    assert unchanged(recorded)
    settings.write_text('{"autoMemoryDirectory": "/elsewhere"}')
    assert not unchanged(recorded)


def test_a_link_pointed_elsewhere_is_a_change(tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    link = tmp_path / "here"
    link.symlink_to(tmp_path / "one")
    recorded = states([str(link)])
    link.unlink()
    link.symlink_to(tmp_path / "two")
    assert not unchanged(recorded)
    assert state(str(tmp_path / "absent")) is None


@pytest.mark.parametrize("damaged", [None, "text", [["only-a-path"]], [[1, None]]])
def test_a_malformed_record_never_counts_as_unchanged(damaged: Any) -> None:
    assert not unchanged(damaged)


# -- the memo --------------------------------------------------------------------------------


def test_the_second_call_reuses_the_answer_without_loading_settings_or_layout(
    mem: Memdir, memdir_home: Path
) -> None:
    forbid_npm(mem)
    payload = json.dumps(
        {
            "cwd": str(mem.layout.project_root),
            "tool_name": "Bash",
            "tool_input": {"command": "npm install left-pad"},
        }
    )
    probe = (
        "import sys\n"
        "from memdir.__main__ import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = ['memdir.config', 'memdir.storage.paths', 'memdir.model', 'dataclasses',"
        " 'typing', 'pathlib', 'click']\n"
        "print(sorted(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
    )
    # The hook's own process (not the hook server's) is the one whose imports count here.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "MEMDIR_HOOK_SERVER": "0"}
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe, "hook", "pre-tool-use"],
            input=payload,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=True,
        )
        for _ in range(2)
    ]
    for done in runs:
        assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "memdir.config" in runs[0].stderr  # the first call works the answer out
    assert runs[1].stderr.strip() == "[]"


def test_a_git_repository_made_above_the_folder_moves_its_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outer = tmp_path / "outer"
    inner = outer / "app"
    inner.mkdir(parents=True)
    forbid_npm(Memdir.open(outer))  # the memory of the project rooted at outer/
    assert decision(inner) is None  # no git yet: app/ is its own project, without rules
    git(outer, "init", "-q")
    assert decision(inner) == "deny"  # now app/ belongs to outer/'s repository


def test_a_worktree_whose_pointers_stop_agreeing_becomes_its_own_project(
    mem: Memdir, tmp_path: Path
) -> None:
    forbid_npm(mem)
    tree = tmp_path / "tree"
    git(mem.layout.project_root, "worktree", "add", "-q", str(tree))
    assert decision(tree) == "deny"  # a worktree shares its repository's memory
    back = mem.layout.project_root / ".git" / "worktrees" / "tree" / "gitdir"
    back.write_text(str(tmp_path / "moved" / ".git") + "\n")
    assert decision(tree) is None


def test_settings_that_turn_memory_off_are_seen_on_the_next_call(
    mem: Memdir, memdir_home: Path
) -> None:
    root = denied_root(mem)
    (memdir_home / "config.toml").write_text("enabled = false\n")
    assert decision(root) is None
    (memdir_home / "config.toml").unlink()
    assert decision(root) == "deny"
    assert decision(root, {**os.environ, "MEMDIR_DISABLE": "1"}) is None


def test_a_claude_setting_that_moves_the_memory_is_seen_on_the_next_call(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = tmp_path / "claude-config"
    monkeypatch.setenv("MEMDIR_PROFILE", "claude")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    moved = tmp_path / "moved-memory"
    forbid_npm(Memdir.open(project))  # in Claude Code's default folder
    assert decision(project) == "deny"
    claude.mkdir(exist_ok=True)
    (claude / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(moved)}))
    assert decision(project) is None  # the memory now lives in an empty folder
    assert Memdir.open(project).layout.memory_dir == moved


def test_a_damaged_or_foreign_memo_is_worked_out_again(mem: Memdir) -> None:
    root = denied_root(mem)
    memo = Path(hook_memo.memo_path(str(root), os.environ))
    for damage in ("{not json", json.dumps({"version": 1, "cwd": "/elsewhere"})):
        memo.write_text(damage)
        assert decision(root) == "deny"
    data = json.loads(memo.read_text())
    data["answer"]["roots"] = [["private", 7, []]]
    memo.write_text(json.dumps(data))
    assert decision(root) == "deny"


def test_the_memo_lives_in_memdirs_own_home(
    memdir_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # what ``~`` means to both
    for env in (
        {"MEMDIR_HOME": str(memdir_home)},
        {"MEMDIR_HOME": "  "},
        {},
        {"MEMDIR_HOME": "~/elsewhere"},
    ):
        assert Path(hook_memo.memdir_home_path(env)) == config.memdir_home(env)
    memo = Path(hook_memo.memo_path("/some/project", {"MEMDIR_HOME": str(memdir_home)}))
    assert memo.parent == memdir_home / "state" / "hooks"


def test_every_environment_variable_the_folder_rules_read_is_part_of_the_memo_key() -> None:
    read: set[str] = set()
    for module in ("config.py", "storage/paths.py", "storage/claude.py"):
        read |= set(re.findall(r'"((?:MEMDIR|CLAUDE)_[A-Z_]+)"', (SRC / module).read_text()))
    assert read  # the scan found the variables it is meant to find
    assert read <= set(hook_memo.ENV_NAMES)


# -- the frozen values the hook builds -----------------------------------------------------


def test_rules_compare_hash_copy_and_refuse_assignment_like_frozen_dataclasses() -> None:
    one = Rule(tool="Bash", match="npm", action="deny")
    assert one == Rule(tool="Bash", match="npm", action="deny")
    assert one != Rule(tool="Bash", match="npm", action="ask")
    assert len({one, Rule(tool="Bash", match="npm", action="deny")}) == 1
    with pytest.raises(AttributeError, match="frozen"):
        one.tool = "Edit"  # type: ignore[misc]
    found = EnforcedRule(rule=one, scope=Scope.TEAM, file="a.md", name="a", why="")
    assert found.ref == "team/a.md"
    assert "match='npm'" in repr(found)
    assert copy.deepcopy(found) == found
    assert pickle.loads(pickle.dumps(found)) == found


def test_the_hook_reads_rules_where_the_claude_profile_keeps_memory(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = tmp_path / "claude-config"
    claude.mkdir()
    moved = tmp_path / "auto-memory"
    (claude / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(moved)}))
    monkeypatch.setenv("MEMDIR_PROFILE", "claude")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    mem = Memdir.open(project)
    assert mem.layout.memory_dir == moved
    forbid_npm(mem)
    assert decision(project) == "deny"


# -- a sealed memo: damage is worked out again, and doctor says so -----------------------------


def _memo(root: Path) -> Path:
    return Path(hook_memo.memo_path(str(root), os.environ))


def test_a_memo_changed_in_any_one_byte_is_worked_out_again(mem: Memdir) -> None:
    root = denied_root(mem)
    memo = _memo(root)
    whole = memo.read_bytes()
    for at in range(0, len(whole) - 1, 7):
        damaged = bytearray(whole)
        damaged[at] ^= 0x01  # a folder's name, a switch, a digit of a file's state ...
        memo.write_bytes(bytes(damaged))
        assert hook_memo.remembered(str(root), os.environ) is None, at
        assert decision(root) == "deny", at
        assert memo.read_bytes() == whole  # the answer, worked out again, is the same


@pytest.mark.parametrize("switch", [1, "true", None, [], {"on": True}])
def test_a_remembered_switch_that_is_not_true_or_false_is_worked_out_again(
    mem: Memdir, switch: Any
) -> None:
    from memdir.enforcement.rule_cache import sealed, unsealed

    root = denied_root(mem)
    memo = _memo(root)
    data = unsealed(memo.read_bytes())
    assert data is not None
    data["answer"]["enabled"] = switch
    memo.write_text(sealed(json.dumps(data)) + "\n")  # whole, but not what memdir writes
    assert decision(root) == "deny"


def _doctor(project: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["doctor", *args, "--project", str(project)])


def test_doctor_names_a_damaged_memo_and_fix_removes_it(mem: Memdir, project: Path) -> None:
    forbid_npm(mem)
    assert decision(project) == "deny"
    memo = _memo(project)
    memo.write_bytes(memo.read_bytes()[:40])  # cut short
    found = _doctor(project)
    assert found.exit_code == 1
    assert f"[damaged-state] {memo} the hook memo" in found.stdout
    assert "memdir doctor --fix" in found.stdout
    fixed = _doctor(project, "--fix")
    assert fixed.exit_code == 0, fixed.stdout
    assert not memo.exists()
    assert decision(project) == "deny" and memo.is_file()  # made again by the next call
    assert _doctor(project).stdout == "all good\n"


def test_doctor_moves_aside_a_folder_in_place_of_a_memo(mem: Memdir, project: Path) -> None:
    forbid_npm(mem)
    memo = _memo(project)
    memo.parent.mkdir(parents=True, exist_ok=True)
    memo.mkdir()
    (memo / "note.txt").write_text("kept")
    assert decision(project) == "deny"  # the memo cannot be read nor written: worked out
    found = _doctor(project)
    assert f"[damaged-state] {memo} the hook memo" in found.stdout
    assert "not a regular file" in found.stdout
    assert _doctor(project, "--fix").exit_code == 0
    assert decision(project) == "deny" and memo.is_file()


def test_a_memo_from_an_older_version_is_no_damage(mem: Memdir, project: Path) -> None:
    forbid_npm(mem)
    assert decision(project) == "deny"
    memo = _memo(project)
    memo.write_text(json.dumps({"version": 1, "cwd": str(project), "answer": {}}) + "\n")
    assert _doctor(project).stdout == "all good\n"
    assert decision(project) == "deny"
    assert hook_memo.remembered(str(project), os.environ) is not None  # replaced


def test_the_memo_records_the_modules_that_work_its_answer_out() -> None:
    for path in hook_memo._CODE:
        assert Path(path).is_file(), path  # a moved module would never count as a change
