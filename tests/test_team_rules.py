"""Teammates' enforced rules take effect only once this user accepts them; one's own always."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from memdir.api import Memdir
from memdir.enforcement.enforced import cache_path, load_rules
from memdir.enforcement.team_rules import ACCEPTED_NAME, accepted_path, pending_path, read_held
from memdir.hooks.entry import pre_tool_use
from memdir.team.sync import sync_team
from teamutil import Clone, cli_output

# Git under a throwaway HOME for every test here (teamutil's fixtures, via conftest.py).
pytestmark = pytest.mark.usefixtures("git_home")

NPM: dict[str, Any] = {"tool": "Bash", "match": r"\bnpm install\b", "action": "deny"}


def rule_memory(mem: Memdir, name: str, *rules: dict[str, Any], body: str = "Use pnpm.") -> str:
    result = mem.write(
        name=name,
        description=f"{name}: a rule for tool calls",
        type="feedback",
        body=f"{body}\n**Why:** npm broke the lockfile.\n",
        scope="team",
        extra={"enforce": list(rules)},
    )
    return result.record.file


def hook_denies(mem: Memdir, command: str) -> bool:
    """What the real pre-tool-use hook answers for ``mem``'s project."""
    payload = {
        "cwd": str(mem.layout.project_root),
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    text = pre_tool_use(payload, {**os.environ, "MEMDIR_HOME": str(mem.layout.home)})
    if not text:
        return False
    decision = json.loads(text)["hookSpecificOutput"].get("permissionDecision")
    return bool(decision == "deny")


def test_a_teammates_rule_is_held_until_accepted_and_ones_own_is_enforced(
    clone: Clone,
) -> None:
    alice, bob = clone("alice"), clone("bob")
    file = rule_memory(bob, "Use pnpm", NPM)
    assert hook_denies(bob, "npm install left-pad")  # bob's own rule: enforced at once
    sync_team(bob)
    assert hook_denies(bob, "npm install left-pad")  # and still after his sync

    sync_team(alice)

    assert not hook_denies(alice, "npm install left-pad")
    rules = load_rules(alice.layout)
    assert [r.file for r in rules.held] == [file] and not rules.rules
    code, output = cli_output(alice, "team", "rules")
    assert code == 0 and "held" in output and f"team rules accept {file}" in output
    code, output = cli_output(alice, "enforce", "list")
    assert "not enforced until" in output
    code, output = cli_output(alice, "doctor")
    assert "[team:held-rule]" in output and file in output

    code, output = cli_output(alice, "team", "rules", "accept", file)

    assert code == 0, output
    assert hook_denies(alice, "npm install left-pad")
    assert load_rules(alice.layout).held == ()


def test_a_changed_rule_is_held_again_and_a_body_edit_holds_nothing(clone: Clone) -> None:
    alice, bob = clone("alice"), clone("bob")
    rule_memory(bob, "Use pnpm", NPM)
    sync_team(bob)
    sync_team(alice)
    cli_output(alice, "team", "rules", "accept", "--all")
    assert hook_denies(alice, "npm install x")

    rule_memory(bob, "Use pnpm", NPM, body="Use pnpm, always.")  # the body only
    sync_team(bob)
    sync_team(alice)
    assert hook_denies(alice, "npm install x")  # the accepted rules are unchanged

    wider = {**NPM, "match": r"\b(npm|yarn) install\b"}
    rule_memory(bob, "Use pnpm", wider)
    sync_team(bob)
    sync_team(alice)
    assert not hook_denies(alice, "yarn install x")  # new rules wait for acceptance
    assert not hook_denies(alice, "npm install x")
    cli_output(alice, "team", "rules", "accept", "Use pnpm")
    assert hook_denies(alice, "yarn install x")


def test_accepting_a_memory_without_held_rules_is_an_error(clone: Clone) -> None:
    alice = clone("alice")
    file = rule_memory(alice, "Mine", NPM)
    code, output = cli_output(alice, "team", "rules", "accept", file)
    assert code == 1 and "has no held rules" in output
    assert hook_denies(alice, "npm install x")


def test_the_hook_needs_no_git_repository(clone: Clone, tmp_path: Path) -> None:
    alice, bob = clone("alice"), clone("bob")
    rule_memory(bob, "Use pnpm", NPM)
    sync_team(bob)
    sync_team(alice)
    cli_output(alice, "team", "rules", "accept", "--all")
    git = alice.layout.team_dir / ".git"
    git.rename(tmp_path / "moved-git")  # the hook must not need the repository
    try:
        assert hook_denies(alice, "npm install x")
    finally:
        (tmp_path / "moved-git").rename(git)


def test_joining_a_team_holds_the_rules_already_there(clone: Clone, opened: Clone) -> None:
    bob = clone("bob")
    file = rule_memory(bob, "Use pnpm", NPM)
    sync_team(bob)

    alice = clone("alice")  # team init joins the remote's history

    assert [r.file for r in load_rules(alice.layout).held] == [file]
    assert not hook_denies(alice, "npm install x")


# -- what is held survives the loss of derived state ----------------------------------


def _held_at_alice(clone: Clone) -> tuple[Memdir, Memdir, str]:
    """Bob pushed a rule; alice pulled it and has not accepted it."""
    alice, bob = clone("alice"), clone("bob")
    file = rule_memory(bob, "Use pnpm", NPM)
    sync_team(bob)
    sync_team(alice)
    assert not hook_denies(alice, "npm install x")
    return alice, bob, file


def _forget_derived(mem: Memdir) -> None:
    shutil.rmtree(mem.layout.state_dir)


def test_deleting_the_state_folder_keeps_a_teammates_rules_held(clone: Clone) -> None:
    alice, _bob, file = _held_at_alice(clone)

    _forget_derived(alice)

    assert not hook_denies(alice, "npm install x")
    assert [r.file for r in load_rules(alice.layout).held] == [file]
    sync_team(alice)  # rebuilt from the repository: still held
    assert pending_path(alice.layout) and not hook_denies(alice, "npm install x")
    assert [r.file for r in load_rules(alice.layout).held] == [file]


@pytest.mark.parametrize(
    "damage",
    [b"", b"{", b"[]", b'{"team:use_pnpm.md": 5}', b'{"team:use_pnpm.md": {"rules": []}}'],
    ids=["empty", "cut short", "a list", "a number", "rules of the wrong type"],
)
def test_a_damaged_or_missing_held_list_releases_nothing(clone: Clone, damage: bytes) -> None:
    alice, _bob, _file = _held_at_alice(clone)
    Path(pending_path(alice.layout)).write_bytes(damage)
    assert not hook_denies(alice, "npm install x")
    Path(pending_path(alice.layout)).unlink()
    assert not hook_denies(alice, "npm install x")
    cache_path(alice.layout).unlink()
    assert not hook_denies(alice, "npm install x")


def test_accepted_rules_stay_enforced_after_the_state_folder_goes(clone: Clone) -> None:
    alice, bob, _file = _held_at_alice(clone)
    cli_output(alice, "team", "rules", "accept", "--all")
    _forget_derived(alice)

    assert hook_denies(alice, "npm install x")  # the acceptance is kept with the history
    wider = {**NPM, "match": r"\b(npm|yarn) install\b"}
    rule_memory(bob, "Use pnpm", wider)
    sync_team(bob)
    sync_team(alice)
    assert not hook_denies(alice, "yarn install x")  # a change is held again


def test_without_any_record_a_teammates_rule_is_held(clone: Clone) -> None:
    alice, _bob, _file = _held_at_alice(clone)
    _forget_derived(alice)
    Path(accepted_path(alice.layout)).unlink(missing_ok=True)

    assert not hook_denies(alice, "npm install x")
    Path(accepted_path(alice.layout)).write_text("not json")
    assert not hook_denies(alice, "npm install x")
    code, output = cli_output(alice, "doctor")
    assert code == 1 and "[team:accepted-rules]" in output and "cannot be rebuilt" in output


def test_ones_own_synced_rules_stay_enforced_and_doctor_rebuilds_the_held_list(
    clone: Clone,
) -> None:
    alice, _bob, file = _held_at_alice(clone)
    mine = rule_memory(alice, "No curl", {"tool": "Bash", "match": r"\bcurl\b", "action": "deny"})
    sync_team(alice)  # committed here: alice's own
    _forget_derived(alice)
    assert hook_denies(alice, "curl example.com")

    fresh = {"tool": "Bash", "match": r"\bwget\b", "action": "deny"}
    rule_memory(alice, "No wget", fresh)  # not synced yet: held until the list is rebuilt
    assert not hook_denies(alice, "wget x")
    code, output = cli_output(alice, "doctor")
    assert code == 1 and "[team:held-rules]" in output and "doctor --fix" in output

    code, output = cli_output(alice, "doctor", "--fix")

    assert code == 0 and "rebuilt from the team repository" in output, output
    assert hook_denies(alice, "wget x") and hook_denies(alice, "curl example.com")
    assert not hook_denies(alice, "npm install x")
    held = read_held(pending_path(alice.layout)) or {}
    assert list(held) == [f"team:{file}"] and mine != file


def test_the_hook_and_the_layout_name_the_same_accepted_record(opened: Clone) -> None:
    mem = opened("alice")
    near = os.path.join(
        os.path.dirname(os.path.dirname(str(cache_path(mem.layout)))),
        "history",
        ACCEPTED_NAME,
    )
    assert near == accepted_path(mem.layout)
    assert not Path(accepted_path(mem.layout)).is_relative_to(mem.layout.state_dir)
