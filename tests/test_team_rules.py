"""Teammates' enforced rules take effect only once this user accepts them; one's own always."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import teamutil
from memdir.api import Memdir
from memdir.enforcement.enforced import load_rules
from memdir.hooks.entry import pre_tool_use
from memdir.team.sync import sync_team
from teamutil import Clone, cli_output

git_home, remote, opened, clone = (
    teamutil.git_home,
    teamutil.remote,
    teamutil.opened,
    teamutil.clone,
)

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
