"""Enforced feedback: rules validated on write, matched on tool calls, cached by mtimes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.api import Memdir
from memdir.cli import main
from memdir.enforcement.enforced import cache_path, load_rules
from memdir.enforcement.pattern_scan import class_end
from memdir.enforcement.rules import (
    Rule,
    fired_rules,
    pattern_problem,
    skip_class,
    subjects,
    tool_matches,
)
from memdir.errors import InvalidMemory
from memdir.hooks.entry import pre_tool_use
from memdir.hooks.pre_tool_use import decide, pre_tool_use_output
from memdir.model import Memory, MemoryType
from memdir.storage.codec import parse_memory, render_memory
from memutil import save_rule

NPM: dict[str, Any] = {"tool": "Bash", "match": r"\bnpm (install|i|run)\b", "action": "deny"}
WHY = "**Why:** npm rewrote the lockfile and broke CI.\n"


def feedback(mem: Memdir, name: str, *rules: dict[str, Any], scope: str = "private") -> None:
    description = f"{name}: a rule for tool calls"
    save_rule(mem, name, *rules, description=description, body=f"{name}.\n{WHY}", scope=scope)


def hand_written(directory: Path, file: str, rules: list[dict[str, Any]], **fields: Any) -> Path:
    """A memory file written without the store (a teammate's file arriving through git)."""
    memory = Memory(
        name=fields.get("name", file.removesuffix(".md")),
        description="written by hand",
        type=fields.get("type", MemoryType.FEEDBACK),
        body=f"Hand-written rule.\n{WHY}",
        extra={"enforce": rules},
    )
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / file
    path.write_text(render_memory(memory))
    return path


def bash(command: str, mem: Memdir) -> dict[str, Any]:
    return {
        "cwd": str(mem.layout.project_root),
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }


def answer(mem: Memdir, payload: dict[str, Any]) -> dict[str, Any] | None:
    text = pre_tool_use(payload, os.environ)
    return json.loads(text) if text else None


# -- validation on write -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"(a+)+$", "catastrophic backtracking"),
        (r"(\w+\s?)*x", "catastrophic backtracking"),
        (r"(npm)\s+\1", "RE2 cannot compile it"),
        (r"npm(?= install)", "RE2 cannot compile it"),
        (r"x*", "matches the empty string"),
        ("", "empty"),
        ("npm\x85install", "control character"),
        ("a" * 600, "limit is 500"),
    ],
)
def test_the_store_refuses_a_bad_pattern_with_the_reason(
    mem: Memdir, pattern: str, reason: str
) -> None:
    rule = {**NPM, "match": pattern}
    with pytest.raises(InvalidMemory, match="refused") as caught:
        feedback(mem, "Bad rule", rule)
    assert reason in str(caught.value)
    assert mem.list() == []  # nothing was written


def test_a_rule_can_never_allow_not_even_from_the_team(mem: Memdir) -> None:
    with pytest.raises(InvalidMemory, match="never allow"):
        feedback(mem, "Allow npm", {**NPM, "action": "allow"}, scope="team")


def test_only_feedback_memories_carry_rules(mem: Memdir) -> None:
    with pytest.raises(InvalidMemory, match="not a feedback memory"):
        mem.write(name="Stack", description="the stack", type="project", extra={"enforce": [NPM]})


def test_a_valid_rule_round_trips_through_the_file(mem: Memdir) -> None:
    feedback(mem, "Use pnpm", NPM)
    record = mem.get("Use pnpm")
    assert record.memory.extra["enforce"] == [NPM]
    [found] = load_rules(mem.layout).rules
    assert found.rule == Rule(**NPM)
    assert found.why == "npm rewrote the lockfile and broke CI."


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_judged_as_a_pattern_without_raising(pattern: str) -> None:
    problem = pattern_problem(pattern)
    if problem is None:
        rule = Rule(tool="*", match=pattern, action="warn")
        fired_rules([rule], "Bash", ["some command", ""])  # compiles and runs


# -- matching ------------------------------------------------------------------------------


def test_tool_specs_are_names_alternatives_and_globs() -> None:
    assert tool_matches("Bash", "Bash") and not tool_matches("Bash", "BashOutput")
    assert tool_matches("Edit|Write", "Write") and not tool_matches("Edit|Write", "Read")
    assert tool_matches("mcp__*", "mcp__github__create_issue")
    assert tool_matches("*", "WebFetch")


def test_edit_tools_are_matched_on_the_file_path_and_the_new_content() -> None:
    texts = subjects("Edit", {"file_path": "/p/migrations/0001.sql", "new_string": "DROP TABLE"})
    assert texts == ["/p/migrations/0001.sql", "DROP TABLE"]
    multi = subjects("MultiEdit", {"file_path": "a.py", "edits": [{"new_string": "x = 1"}]})
    assert multi == ["a.py", "x = 1"]


def test_the_strongest_action_wins_and_every_fired_memory_is_named(mem: Memdir) -> None:
    feedback(mem, "Warn on npm", {**NPM, "action": "warn"})
    feedback(mem, "Ask on installs", {"tool": "Bash", "match": r"\binstall\b", "action": "ask"})
    feedback(mem, "Never npm", NPM)
    rules = load_rules(mem.layout).rules
    decision = decide(rules, "Bash", {"command": "npm install left-pad"})
    assert decision.action == "deny"
    assert [r.name for r in decision.fired] == ["Ask on installs", "Never npm", "Warn on npm"]
    assert decide(rules, "Bash", {"command": "pip install x"}).action == "ask"
    assert decide(rules, "Bash", {"command": "pnpm install"}).action == "ask"
    assert decide(rules, "Read", {"file_path": "npm install"}).action is None


def test_deny_quotes_the_memory_name_and_its_why(mem: Memdir) -> None:
    feedback(mem, "Use pnpm, never npm", NPM)
    output = answer(mem, bash("cd web && npm i left-pad", mem))
    assert output is not None
    hook = output["hookSpecificOutput"]
    assert hook == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": hook["permissionDecisionReason"],
    }
    assert '"Use pnpm, never npm"' in hook["permissionDecisionReason"]
    assert (
        'words on why: "npm rewrote the lockfile and broke CI."' in hook["permissionDecisionReason"]
    )
    assert '."."' not in hook["permissionDecisionReason"] + "."  # one stop, not two


def test_warn_adds_context_without_a_permission_decision(mem: Memdir) -> None:
    feedback(mem, "Prefer pnpm", {**NPM, "action": "warn"})
    output = answer(mem, bash("npm run build", mem))
    assert output is not None
    assert "permissionDecision" not in output["hookSpecificOutput"]
    assert "Prefer pnpm" in output["hookSpecificOutput"]["additionalContext"]
    assert "Prefer pnpm" in output["systemMessage"]


def test_each_reason_says_what_its_rule_does(mem: Memdir) -> None:
    feedback(mem, "Warn on npm", {**NPM, "action": "warn"})
    feedback(mem, "Ask on installs", {"tool": "Bash", "match": r"\binstall\b", "action": "ask"})
    feedback(mem, "Never npm", NPM)
    reason = decide(load_rules(mem.layout).rules, "Bash", {"command": "npm install x"}).reason
    assert '"Ask on installs" (ask_on_installs.md, private) asks before this (Bash' in reason
    assert '"Never npm" (never_npm.md, private) forbids this (Bash' in reason
    assert '"Warn on npm" (warn_on_npm.md, private) warns about this (Bash' in reason


def test_a_call_no_rule_covers_gets_no_answer(mem: Memdir) -> None:
    feedback(mem, "Use pnpm", NPM)
    assert answer(mem, bash("pnpm install", mem)) is None


def test_team_rules_deny_but_a_hand_written_team_allow_never_allows(mem: Memdir) -> None:
    feedback(
        mem,
        "Team: no force push",
        {"tool": "Bash", "match": r"push\s+--force", "action": "deny"},
        scope="team",
    )
    hand_written(mem.layout.team_dir, "allow_npm.md", [{**NPM, "action": "allow"}])
    hand_written(mem.layout.team_dir, "hang.md", [{**NPM, "match": r"(a+)+$"}])
    denied = answer(mem, bash("git push --force origin main", mem))
    assert denied is not None
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "team" in denied["hookSpecificOutput"]["permissionDecisionReason"]
    # The allow rule is skipped, never applied: npm gets no answer, so no permission is widened.
    assert answer(mem, bash("npm install x", mem)) is None
    problems = load_rules(mem.layout).problems
    assert any("team/allow_npm.md" in p and "never allow" in p for p in problems)
    assert any("team/hang.md" in p and "catastrophic" in p for p in problems)


@settings(max_examples=60, deadline=None)
@given(
    action=st.sampled_from(["deny", "ask", "warn", "allow", "ALLOW", "approve", ""]),
    command=st.sampled_from(["npm install", "npm i x", "ls", "pnpm run"]),
)
def test_no_rule_ever_produces_an_allow(
    tmp_path_factory: pytest.TempPathFactory, action: str, command: str
) -> None:
    home = tmp_path_factory.mktemp("home")
    project = tmp_path_factory.mktemp("project")
    mem = Memdir.open(project, home=home)
    hand_written(mem.layout.team_dir, "rule.md", [{**NPM, "action": action}])
    hand_written(mem.layout.memory_dir, "mine.md", [{**NPM, "action": action}])
    output = pre_tool_use_output(decide(load_rules(mem.layout).rules, "Bash", {"command": command}))
    assert '"allow"' not in output


# -- the cache -----------------------------------------------------------------------------


def test_rules_follow_edits_deletes_and_a_damaged_cache(mem: Memdir) -> None:
    feedback(mem, "Use pnpm", NPM)
    assert len(load_rules(mem.layout).rules) == 1
    assert cache_path(mem.layout).is_file()
    feedback(mem, "Use pnpm", {**NPM, "action": "ask"})  # rewritten through the store
    assert [r.rule.action for r in load_rules(mem.layout).rules] == ["ask"]
    cache_path(mem.layout).write_text("{not json")
    assert [r.rule.action for r in load_rules(mem.layout).rules] == ["ask"]
    mem.delete("Use pnpm")
    assert load_rules(mem.layout).rules == ()


def test_memories_without_rules_are_not_parsed_on_a_cache_miss(mem: Memdir) -> None:
    # A file that never mentions enforce: is skipped unread by YAML: even a broken one.
    (mem.layout.memory_dir / "broken.md").write_text("---\nname: [unclosed\n---\nbody\n")
    feedback(mem, "Use pnpm", NPM)
    rules = load_rules(mem.layout)
    assert [r.name for r in rules.rules] == ["Use pnpm"] and rules.problems == ()


def test_a_rule_added_by_an_edit_in_place_is_seen_on_the_next_call(mem: Memdir) -> None:
    feedback(mem, "Use pnpm", NPM)
    mem.write(name="Plain", description="d", type="feedback", body="no rule yet\n")
    assert len(load_rules(mem.layout).rules) == 1
    plain = mem.layout.memory_dir / "plain.md"
    inode = plain.stat().st_ino
    text = render_memory(
        Memory(
            name="Plain",
            description="d",
            type=MemoryType.FEEDBACK,
            body=WHY,
            extra={"enforce": [{**NPM, "match": r"\byarn\b"}]},
        )
    )
    with plain.open("r+", encoding="utf-8") as handle:  # an editor's write: same file, no rename
        handle.write(text)
        handle.truncate()
    assert plain.stat().st_ino == inode
    assert sorted(r.name for r in load_rules(mem.layout).rules) == ["Plain", "Use pnpm"]


def test_rules_of_files_whose_names_hold_line_breaks_survive_the_cache(mem: Memdir) -> None:
    feedback(mem, "Use pnpm", NPM)
    odd = mem.layout.memory_dir / "odd\nname.md"
    odd.write_bytes((mem.layout.memory_dir / "use_pnpm.md").read_bytes().replace(b"pnpm", b"x"))
    first = load_rules(mem.layout)
    again = load_rules(mem.layout)  # from the cache
    assert sorted(r.file for r in first.rules) == sorted(r.file for r in again.rules)
    assert "odd\nname.md" in {r.file for r in again.rules}
    odd.unlink()
    assert [r.file for r in load_rules(mem.layout).rules] == ["use_pnpm.md"]


def test_a_cache_from_an_older_version_is_read_again_not_trusted(mem: Memdir) -> None:
    feedback(mem, "Use pnpm", NPM)
    load_rules(mem.layout)
    cache_path(mem.layout).write_text(json.dumps({"version": 3, "stats": {}, "entries": {}}))
    assert len(load_rules(mem.layout).rules) == 1
    cache_path(mem.layout).write_bytes(b'{"version": 4, "entries": {}}\nodd\x00')
    assert len(load_rules(mem.layout).rules) == 1


# -- the commands --------------------------------------------------------------------------


def test_enforce_list_test_and_promote(mem: Memdir, project: Path) -> None:
    feedback(mem, "Use pnpm", {**NPM, "action": "ask"})
    runner = CliRunner()
    listed = runner.invoke(main, ["enforce", "list", "--project", str(project), "--json"])
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.stdout)["rules"][0]["action"] == "ask"
    tested = runner.invoke(
        main, ["enforce", "test", "--project", str(project), "--", "Bash", "npm install x"]
    )
    assert tested.exit_code == 0, tested.output
    assert tested.stdout.startswith("ask: ") and "Use pnpm" in tested.stdout
    promoted = runner.invoke(main, ["enforce", "promote", "Use pnpm", "--project", str(project)])
    assert promoted.exit_code == 0, promoted.output
    assert mem.get("Use pnpm").memory.extra["enforce"] == [NPM]
    clean = runner.invoke(main, ["enforce", "test", "--project", str(project), "--", "Bash", "ls"])
    assert "no rule fires" in clean.stdout


def test_the_fast_hook_path_loads_neither_click_nor_rich_nor_the_model_layer(
    mem: Memdir,
) -> None:
    feedback(mem, "Use pnpm", NPM)
    # The hook's own process (not the hook server's) is the one whose imports count here.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "MEMDIR_HOOK_SERVER": "0"}
    for command in ("pre-tool-use", "user-prompt-submit"):
        payload = {**bash("npm install", mem), "prompt": "should I use pnpm for tool calls?"}
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "memdir", "hook", command],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0 and done.stdout.strip(), done.stderr
        loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
        assert not {m for m in loaded if m.split(".")[0] in ("click", "rich", "anthropic")}
        assert not {m for m in loaded if m.startswith(("memdir.llm", "memdir.api", "memdir.cli"))}


@settings(max_examples=200, deadline=None)
@given(
    tool=st.sampled_from(["Bash", "Edit|Write", "*", "mcp__*"]),
    pattern=st.text(min_size=1, max_size=40).filter(lambda p: pattern_problem(p) is None),
    action=st.sampled_from(["deny", "ask", "warn"]),
)
def test_any_valid_rule_round_trips_through_the_frontmatter(
    tool: str, pattern: str, action: str
) -> None:
    rule = {"tool": tool, "match": pattern, "action": action}
    memory = Memory(name="n", description="d", type=MemoryType.FEEDBACK, extra={"enforce": [rule]})
    assert parse_memory(render_memory(memory)).extra["enforce"] == [rule]


def test_enforce_add_writes_a_rule_the_hook_applies(mem: Memdir) -> None:
    mem.write(name="Use pnpm", description="installs go through pnpm", type="feedback", body=WHY)
    project = str(mem.layout.project_root)
    args = ["enforce", "add", "use_pnpm", "--tool", "Bash", "--match", r"\bnpm install\b"]
    result = CliRunner().invoke(main, [*args, "--action", "deny", "--project", project])
    assert result.exit_code == 0, result.output
    rules = mem.get("use_pnpm").memory.extra["enforce"]
    assert rules == [{"tool": "Bash", "match": r"\bnpm install\b", "action": "deny"}]
    decision = answer(mem, bash("npm install left-pad", mem))
    assert decision is not None and "deny" in json.dumps(decision)
    again = CliRunner().invoke(main, [*args, "--action", "deny", "--project", project])
    assert "already has this rule" in again.stdout
    assert len(mem.get("use_pnpm").memory.extra["enforce"]) == 1


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [(r"(a+)+$", "catastrophic backtracking"), (r"x*", "matches the empty string")],
)
def test_enforce_add_refuses_what_a_hand_written_rule_would_be_refused_for(
    mem: Memdir, pattern: str, reason: str
) -> None:
    mem.write(name="Careful", description="a rule", type="feedback", body=WHY)
    before = mem.get("careful")
    args = ["enforce", "add", "careful", "--tool", "Bash", "--match", pattern]
    result = CliRunner().invoke(main, [*args, "--project", str(mem.layout.project_root)])
    assert result.exit_code == 1 and reason in result.stderr
    assert mem.get("careful").version == before.version  # nothing was written


def test_enforce_add_to_a_memory_that_is_not_feedback_is_refused(mem: Memdir) -> None:
    mem.write(name="Fact", description="a project fact", type="project")
    args = ["enforce", "add", "fact", "--tool", "Bash", "--match", "rm -rf"]
    result = CliRunner().invoke(main, [*args, "--project", str(mem.layout.project_root)])
    assert result.exit_code == 1 and "not a feedback memory" in result.stderr


# -- rules see what the shell runs ---------------------------------------------------------

NPM_COMMAND: dict[str, Any] = {"command": "npm", "args": "install|i|run", "action": "deny"}


@pytest.mark.parametrize(
    ("command", "by_pattern", "by_command"),
    [
        ("npm  install", True, True),
        ("npm\tinstall", True, True),
        ("npm \\\ninstall", True, True),
        ("n\\pm install", True, True),
        ("'npm' install", True, True),
        ('"npm" install', True, True),
        ("$(echo npm) install", True, True),
        ("`echo npm` install", True, True),
        ("N=npm; $N install", True, True),
        ("bash -c 'npm install'", True, True),
        ('sh -c "cd web && npm run build"', True, True),
        ("eval 'npm i'", True, True),
        ("sudo /usr/bin/npm install", True, True),
        ("ls && (npm i)", True, True),
        ("npm -g install", False, True),
        ("npm --prefix . install", False, True),
        ("git commit -m 'stop using npm install in CI'", False, False),
        ('echo "npm install" >> notes.txt', False, False),
        ("pnpm install", False, False),
        ("npm test", False, False),
        ("{npm,x} install", True, True),
        ("n{p,}m install", True, True),
        ("npm${IFS}install", True, True),
        ("npm$IFS'install'", True, True),
        ("${X:-npm} install", True, True),
        ("env -S 'npm install'", True, True),
        ("script -c 'npm install'", True, True),
        ("trap 'npm install' EXIT", True, True),
        ("bash <<< 'npm install'", True, True),
        ("flock /tmp/lock -c 'npm install'", True, True),
        ("if true; then npm install; fi", True, True),
        ("! npm install", True, True),
        ("{ npm install; }", True, True),
        ("until npm install; do sleep 1; done", True, True),
        ("npm install>/dev/null", True, True),
        ("nice -n 5 nohup timeout 10 npm install", True, True),
        ("stdbuf -oL time npm install", True, True),
        ("command exec npm install", True, True),
        ("ls | xargs npm install", True, True),
        ("sudo -u x doas npm install", True, True),
        ("find . -exec npm install {} \\;", True, True),
        ("npm help install", False, False),
        ("cat > Dockerfile <<'EOF'\nFROM node\nRUN npm install\nEOF", False, False),
        (
            "git commit -m \"$(cat <<'EOF'\nUse pnpm\n\nnpm install broke CI\nEOF\n)\"",
            False,
            False,
        ),
    ],
)
def test_a_bash_rule_sees_each_command_the_shell_would_run(
    mem: Memdir, command: str, by_pattern: bool, by_command: bool
) -> None:
    feedback(mem, "Use pnpm", NPM)
    feedback(mem, "Use pnpm, whatever the options", NPM_COMMAND)
    rules = load_rules(mem.layout).rules
    fired = {found.name for found in decide(rules, "Bash", {"command": command}).fired}
    assert ("Use pnpm" in fired) is by_pattern
    assert ("Use pnpm, whatever the options" in fired) is by_command


def test_a_command_rule_round_trips_and_is_listed_with_its_parts(mem: Memdir) -> None:
    feedback(mem, "Use pnpm", NPM_COMMAND)
    [found] = load_rules(mem.layout).rules
    assert found.rule == Rule(
        tool="Bash", match="", command="npm", args="install|i|run", action="deny"
    )
    assert mem.get("Use pnpm").memory.extra["enforce"] == [NPM_COMMAND]
    assert (
        "command `npm` with an argument `install|i|run`"
        in decide([found], "Bash", {"command": "npm i"}).reason
    )


@pytest.mark.parametrize(
    ("rule", "reason"),
    [
        ({"command": ".+", "action": "deny"}, "fire on every"),
        ({"command": "[a-z0-9]+", "action": "deny"}, "names every command"),
        ({"command": "npm", "args": "(a+)+", "action": "deny"}, "catastrophic"),
        ({"command": "npm", "match": "npm", "action": "deny"}, "not both"),
        ({"tool": "Edit", "command": "npm", "action": "deny"}, "for tool Bash"),
        ({"command": 3, "action": "deny"}, "must be a text pattern"),
        ({"tool": "*", "match": ".", "action": "deny"}, "matches any text"),
        ({"tool": "Read", "match": "(?s).", "action": "deny"}, "matches any text"),
        ({"tool": "*", "match": "\\S", "action": "deny"}, "matches any text"),
        ({"tool": "*", "match": ".*", "action": "deny"}, "empty string"),
    ],
)
def test_a_rule_that_would_fire_on_every_call_is_refused(
    mem: Memdir, rule: dict[str, Any], reason: str
) -> None:
    with pytest.raises(InvalidMemory, match=reason):
        feedback(mem, "Too wide", rule)
    assert mem.list() == []


def test_a_command_past_the_limit_is_asked_about_not_let_through(mem: Memdir) -> None:
    from memdir.enforcement.shell_words import MAX_CHARS

    feedback(mem, "Use pnpm", NPM)
    long = "x" * MAX_CHARS + "; npm install"
    got = answer(mem, bash(long, mem))
    assert got is not None
    output = got["hookSpecificOutput"]
    assert output["permissionDecision"] == "ask"
    assert f"{len(long):,} characters long" in output["permissionDecisionReason"]
    # Right at the limit it is read whole: the npm at its end is found.
    near = "x" * (MAX_CHARS - 20) + "; npm install"
    assert decide(load_rules(mem.layout).rules, "Bash", {"command": near}).action == "deny"
    # A tool no rule covers is not held back, however long its input.
    assert answer(mem, {**bash(long, mem), "tool_name": "Read"}) is None


def test_an_edit_is_checked_in_all_of_its_content(mem: Memdir) -> None:
    feedback(mem, "No eval", {"tool": "Write", "match": r"\beval\(", "action": "deny"})
    content = "x = 1\n" * 100_000 + "eval(user_input)\n"
    decision = decide(
        load_rules(mem.layout).rules, "Write", {"file_path": "a.py", "content": content}
    )
    assert decision.action == "deny"


def test_enforce_list_shows_a_command_rule_by_its_parts(mem: Memdir, project: Path) -> None:
    feedback(mem, "Use pnpm", NPM_COMMAND)
    listed = CliRunner().invoke(main, ["enforce", "list", "--project", str(project)])
    assert listed.exit_code == 0, listed.output
    assert "deny  Bash          command `npm` with an argument `install|i|run`" in listed.stdout


# -- other hosts' dialects ------------------------------------------------------------------


def codex_env() -> dict[str, str]:
    from memdir.hooks.dialects import HOST_VARIABLE

    return {**os.environ, HOST_VARIABLE: "codex"}


def test_codex_gets_a_deny_where_a_rule_asks_and_the_reason_says_why(mem: Memdir) -> None:
    feedback(mem, "Ask before npm", {**NPM, "action": "ask"})
    claude = answer(mem, bash("npm install", mem))
    assert claude is not None
    assert claude["hookSpecificOutput"]["permissionDecision"] == "ask"
    text = pre_tool_use(bash("npm install", mem), codex_env())
    codex = json.loads(text)["hookSpecificOutput"]
    assert codex["permissionDecision"] == "deny"
    assert codex["permissionDecisionReason"].startswith(
        claude["hookSpecificOutput"]["permissionDecisionReason"]
    )
    assert "Codex CLI's hooks cannot ask the user" in codex["permissionDecisionReason"]


def test_codex_gets_the_same_deny_and_warning_as_claude_code(mem: Memdir) -> None:
    feedback(mem, "Use pnpm", NPM, {"tool": "Bash", "match": r"\byarn\b", "action": "warn"})
    for command in ("npm install", "yarn add x"):
        assert pre_tool_use(bash(command, mem), codex_env()) == pre_tool_use(
            bash(command, mem), os.environ
        )


def test_an_edit_rule_judges_each_file_of_a_codex_patch(mem: Memdir) -> None:
    feedback(mem, "No hand-written migrations", {"tool": "Edit|Write", "match": r"(^|/)migrations/",
             "action": "deny"})  # fmt: skip
    feedback(mem, "No secrets", {"tool": "Edit|Write", "match": "BEGIN PRIVATE KEY",
             "action": "deny"})  # fmt: skip
    root = str(mem.layout.project_root)

    def patched(patch: str, host: dict[str, str]) -> dict[str, Any] | None:
        payload = {"cwd": root, "tool_name": "apply_patch", "tool_input": {"command": patch}}
        text = pre_tool_use(payload, host)
        return json.loads(text) if text else None

    add = "*** Begin Patch\n*** Add File: db/migrations/1.sql\n+CREATE TABLE t;\n*** End Patch\n"
    assert patched(add, codex_env()) is not None
    assert patched(add, dict(os.environ)) is None  # Claude Code has no such tool to map
    moved = (
        "*** Begin Patch\n*** Update File: src/a.py\n*** Move to: migrations/a.py\n@@\n-x\n+y\n"
        "*** End Patch\n"
    )
    assert patched(moved, codex_env()) is not None
    key = (
        "*** Begin Patch\n*** Update File: src/k.txt\n@@\n-old\n+BEGIN PRIVATE KEY\n*** End Patch\n"
    )
    found = patched(key, codex_env())
    assert (
        found is not None
        and "No secrets" in found["hookSpecificOutput"]["permissionDecisionReason"]
    )
    clean = key.replace("BEGIN PRIVATE KEY", "fine")
    assert patched(clean, codex_env()) is None


_PATH = st.from_regex(r"[A-Za-z0-9_./-]{1,30}", fullmatch=True).filter(lambda p: p.strip())
_LINE = st.text(st.characters(exclude_categories=["Cs", "Cc", "Zl", "Zp"]), max_size=20)


@settings(max_examples=100, deadline=None)
@given(
    files=st.lists(
        st.tuples(st.sampled_from(["add", "update", "delete"]), _PATH, st.lists(_LINE, max_size=4)),
        max_size=4,
    )
)
def test_a_codex_patch_reads_back_as_the_files_it_touches(
    files: list[tuple[str, str, list[str]]],
) -> None:
    from memdir.hooks.dialects import patch_files

    headers = {
        "add": "*** Add File: ",
        "update": "*** Update File: ",
        "delete": "*** Delete File: ",
    }
    lines = ["*** Begin Patch"]
    for operation, path, added in files:
        lines.append(headers[operation] + path)
        if operation == "update":
            lines.append("@@")
        if operation != "delete":
            lines += ["+" + line for line in added]
    lines.append("*** End Patch")
    expected = [
        (operation, path.strip(), "\n".join(added) if operation != "delete" else "")
        for operation, path, added in files
    ]
    assert patch_files("\n".join(lines) + "\n") == expected


def gemini_env() -> dict[str, str]:
    from memdir.hooks.dialects import HOST_VARIABLE

    return {**os.environ, HOST_VARIABLE: "gemini"}


def gemini_call(
    mem: Memdir, tool: str, tool_input: dict[str, Any], event: str = "BeforeTool"
) -> dict[str, Any] | None:
    """Gemini CLI's BeforeTool (or AfterTool) hook input for one call, answered."""
    payload = {
        "cwd": str(mem.layout.project_root),
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": tool_input,
    }
    text = pre_tool_use(payload, gemini_env())
    return json.loads(text) if text else None


def test_gemini_gets_a_deny_it_reads_for_its_own_shell_tool(mem: Memdir) -> None:
    feedback(mem, "Use pnpm", NPM)
    claude = answer(mem, bash("npm install", mem))
    assert claude is not None
    gemini = gemini_call(mem, "run_shell_command", {"command": "npm install", "description": "x"})
    # Gemini reads a top-level decision; hookSpecificOutput's permissionDecision it ignores.
    assert gemini == {
        "decision": "deny",
        "reason": claude["hookSpecificOutput"]["permissionDecisionReason"],
    }
    assert gemini_call(mem, "run_shell_command", {"command": "pnpm install"}) is None


def test_gemini_gets_a_deny_where_a_rule_asks_and_the_reason_says_why(mem: Memdir) -> None:
    feedback(mem, "Ask before npm", {**NPM, "action": "ask"})
    gemini = gemini_call(mem, "run_shell_command", {"command": "npm run build"})
    assert gemini is not None and gemini["decision"] == "deny"  # an "ask" hangs `gemini -p`
    assert "Gemini CLI's hooks cannot ask the user" in gemini["reason"]


def test_an_edit_rule_holds_geminis_file_tools_by_absolute_path(mem: Memdir) -> None:
    feedback(mem, "No hand-written migrations", {"tool": "Edit|Write", "match": r"^/.*/migrations/",
             "action": "deny"})  # fmt: skip
    root = mem.layout.project_root
    write = {"file_path": "db/migrations/1.sql", "content": "CREATE TABLE t;"}
    assert gemini_call(mem, "write_file", write) is not None  # relative, made absolute
    edit = {"file_path": str(root / "migrations/2.sql"), "old_string": "a", "new_string": "b"}
    assert gemini_call(mem, "replace", edit) is not None
    assert gemini_call(mem, "write_file", {**write, "file_path": "src/a.py"}) is None
    assert answer(mem, {"cwd": str(root), "tool_name": "write_file", "tool_input": write}) is None


def test_a_rule_naming_a_claude_code_mcp_tool_holds_geminis_name_for_it(mem: Memdir) -> None:
    rule = {"tool": "mcp__memdir__delete", "match": r"\.md$", "action": "deny"}
    feedback(mem, "Keep memories", rule)
    assert gemini_call(mem, "mcp_memdir_delete", {"path": "a.md"}) is not None
    assert gemini_call(mem, "mcp_memdir_view", {"path": "a.md"}) is None


def test_gemini_hears_a_warning_from_the_user_before_the_call_and_the_model_after(
    mem: Memdir,
) -> None:
    feedback(mem, "Use pnpm", NPM, {"tool": "Bash", "match": r"\byarn\b", "action": "warn"})
    before = gemini_call(mem, "run_shell_command", {"command": "yarn add x"})
    assert before is not None and "decision" not in before
    assert before["systemMessage"].startswith("memdir warning about this call")
    after = gemini_call(mem, "run_shell_command", {"command": "yarn add x"}, event="AfterTool")
    assert after == {
        "hookSpecificOutput": {
            "hookEventName": "AfterTool",
            "additionalContext": before["systemMessage"],
        }
    }
    # A call a rule held never ran: after it, nothing more is said.
    assert gemini_call(mem, "run_shell_command", {"command": "npm i"}, event="AfterTool") is None


def test_recall_reads_the_users_words_not_the_session_context_gemini_puts_before_them() -> None:
    from memdir.hooks.dialects import DIALECTS, own_prompt

    gemini, claude = DIALECTS["gemini"], DIALECTS["claude"]
    prompt = "<hook_context># Memory\n&lt;memory&gt; x</hook_context>\n\nWhen is the freeze?"
    assert own_prompt(gemini, prompt) == "When is the freeze?"
    assert own_prompt(gemini, "When is the freeze?") == "When is the freeze?"
    assert own_prompt(claude, prompt) == prompt


# -- rules that can never fire ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "why", "instead"),
    [
        (
            {"tool": "Bash", "match": r"curl .*\| *(ba)?sh", "action": "deny"},
            "needs `|` between two commands",
            "command: '(ba)?sh'",
        ),
        (
            {"tool": "Bash", "match": r"cd .* && rm -rf", "action": "deny"},
            "needs `&&`",
            "match: 'cd' and match: 'rm -rf'",
        ),
        (
            {"tool": "Bash", "match": r"git add .*; git commit", "action": "ask"},
            "needs `;`",
            "one rule per command",
        ),
        (
            {"tool": "Bash", "match": r"curl\s+\S+\s*[|]\s*sh", "action": "deny"},
            "needs `|`",
            r"match: 'curl\s+\S+' and match: 'sh'",
        ),
        ({"tool": "Bash", "match": r"curl .*\x7c *sh", "action": "deny"}, "needs `|`", "sh"),
        ({"tool": "Bash", "match": r"npm i\s*;\s*rm", "action": "deny"}, "needs `;`", "'rm'"),
        (
            {"tool": "Bash", "match": r"a\s*\|\s*b|c\s*\|\s*d", "action": "deny"},
            "needs `|`",
            "a match rule for each side",
        ),
        ({"tool": "bash", "match": "npm", "action": "deny"}, "no tool", "tool: Bash"),
        ({"tool": "Edit|Wirte", "match": "x", "action": "deny"}, "'Wirte'", "tool: Write"),
        (
            {"command": "/usr/bin/npm", "action": "deny"},
            "without its folder",
            "command: 'npm'",
        ),
        (
            {"command": "npm install", "action": "deny"},
            "one word",
            "command: 'npm', args: 'install'",
        ),
        ({"command": "sudo", "action": "deny"}, "looked through", r"match: '\bsudo\b'"),
        ({"command": "\\|", "action": "deny"}, "shell operator", "name the command"),
        ({"command": "!", "action": "deny"}, "looked through", "match: '^\\!'"),
        ({"command": "-rf", "action": "deny"}, "never starts with `-`", "match: '\\brm\\b.*-rf'"),
        ({"command": "NODE_ENV=.*", "action": "deny"}, "assigns a variable", "match: '\\bNAME='"),
        ({"command": "npm ", "action": "deny"}, "one word", "command: 'npm'"),
        (
            {"command": "git", "args": "--force", "action": "deny"},
            "skips options",
            "match: '\\bgit\\b.*--force'",
        ),
    ],
)
def test_a_rule_that_can_never_fire_is_refused_saying_what_to_write(
    mem: Memdir, rule: dict[str, Any], why: str, instead: str
) -> None:
    with pytest.raises(InvalidMemory, match="can never fire") as caught:
        feedback(mem, "Dead rule", rule)
    assert why in caught.value.message
    assert caught.value.hint is not None and instead in caught.value.hint
    assert mem.list() == []


@pytest.mark.parametrize(
    "rule",
    [
        {"tool": "Bash", "match": r"find .* -exec rm .*\;", "action": "deny"},
        {"tool": "Bash", "match": r"echo x >\| f", "action": "ask"},
        {"tool": "Bash", "match": r"[;|&]", "action": "ask"},  # a quoted argument's operator
        {"tool": "Bash", "match": r"npm\s+i\b|curl\s+\S+", "action": "ask"},
        {"tool": "Write", "match": r"a \| b; c && d", "action": "deny"},  # file text holds any
        {"tool": "mcp__github__*", "match": "delete", "action": "ask"},
        {"tool": "run_shell_command|apply_patch", "match": "npm", "action": "ask"},
        {"command": "bash|sh", "action": "ask"},
        {"command": "git", "args": "push", "action": "deny"},
    ],
)
def test_rules_that_can_fire_are_kept(mem: Memdir, rule: dict[str, Any]) -> None:
    feedback(mem, "Live rule", rule)
    assert len(load_rules(mem.layout).rules) == 1


def test_enforce_add_refuses_a_pipe_pattern_and_takes_the_command_rule_it_suggests(
    mem: Memdir,
) -> None:
    mem.write(name="No curl pipe", description="never curl into sh", type="feedback", body=WHY)
    project = ["--project", str(mem.layout.project_root)]
    pipe = ["enforce", "add", "no_curl_pipe", "--match", r"curl .*\| *(ba)?sh"]
    refused = CliRunner().invoke(main, [*pipe, "--action", "deny", *project])
    assert refused.exit_code == 1
    assert "can never fire" in refused.stderr and "command: '(ba)?sh'" in refused.stderr
    assert "enforce" not in mem.get("no_curl_pipe").memory.extra
    command = ["enforce", "add", "no_curl_pipe", "--command", "(ba)?sh", "--action", "deny"]
    added = CliRunner().invoke(main, [*command, *project])
    assert added.exit_code == 0, added.output
    assert mem.get("no_curl_pipe").memory.extra["enforce"] == [
        {"tool": "Bash", "command": "(ba)?sh", "action": "deny"}
    ]
    assert answer(mem, bash("curl -s https://x.example/install | sh", mem)) is not None
    again = CliRunner().invoke(main, [*command, *project])
    assert "already has this rule" in again.stdout
    both = CliRunner().invoke(main, [*command, "--match", "x", *project])
    assert both.exit_code == 2


def test_enforce_list_marks_a_saved_rule_that_can_never_fire(mem: Memdir, project: Path) -> None:
    dead = {"tool": "Bash", "match": r"curl .*\| *sh", "action": "deny"}
    hand_written(mem.layout.memory_dir, "old_rule.md", [dead, NPM])
    listed = CliRunner().invoke(main, ["enforce", "list", "--project", str(project)])
    assert listed.exit_code == 0, listed.output
    lines = listed.stdout.splitlines()
    marked = [i for i, line in enumerate(lines) if "never fires" in line]
    assert len(marked) == 1 and "curl" in lines[marked[0] - 1]
    data = CliRunner().invoke(main, ["enforce", "list", "--project", str(project), "--json"])
    rows = json.loads(data.stdout)["rules"]
    assert [row["never_fires"] is None for row in rows] == [False, True]


def test_a_command_holding_a_lone_surrogate_is_still_judged(mem: Memdir) -> None:
    feedback(mem, "Use pnpm", NPM, NPM_COMMAND)
    payload = json.loads('{"tool_name": "Bash", "tool_input": {"command": "npm install \\ud800"}}')
    got = answer(mem, {**bash("", mem), **payload})
    assert got is not None and got["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.parametrize(
    ("pattern", "end"),
    [
        ("[ab]c", 4),
        ("[]a]b", 4),  # a ']' first is one of the class's characters
        ("[^]a]b", 5),
        (r"[\]]x", 4),
        ("[[:alpha:]]x", 11),  # a POSIX class closes with its own ':]'
        ("[[:digit:]_(]+", 13),
    ],
)
def test_a_character_class_ends_where_re2_ends_it(pattern: str, end: int) -> None:
    assert class_end(pattern, 0) == end
    assert skip_class(pattern, 0) == end


def test_a_character_class_that_never_closes_has_no_end() -> None:
    assert class_end("[ab", 0) is None
    assert class_end("[[:alpha", 0) is None
    assert skip_class("[ab", 0) == len("[ab") + 1
