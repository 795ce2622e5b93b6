"""The rule gate: a tool call no rule can fire on is answered before RE2 loads.

The gate may say "might fire" for a call no rule fires on, never "cannot"
for one a rule fires on: the property tests compare it with RE2 itself.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from fresh_python import run_fresh
from memdir.api import Memdir
from memdir.enforcement import shell_forms, shell_words
from memdir.enforcement.rule_gate import may_fire, required_runs, required_texts
from memdir.enforcement.rule_subjects import bash_subjects
from memdir.enforcement.rules import Rule, fired_rules
from memdir.hosts.launch import launch_for
from memdir.utils.json_text import dumps, loads
from memutil import NPM_INSTALL, USE_PNPM, save_rule


def test_required_texts_of_common_rule_shapes() -> None:
    assert required_texts(r"\bnpm (install|i|run)\b") == ("npm ",)
    assert required_texts(r"rm -rf /") == ("rm -rf /",)
    assert required_texts(r"git push.*--force") == ("git push",)
    assert required_texts(r"terraform apply|kubectl delete") == (
        "terraform apply",
        "kubectl delete",
    )
    assert required_texts(r"\.env$") == (".env",)
    assert required_texts(r"ab+c") == ("a",) or required_texts(r"ab+c") == ("c",)
    assert required_texts(r"colou?r") == ("colo",)
    assert required_texts(r"x{2,3}yz") == ("yz",)


def test_patterns_it_cannot_read_count_as_matching_everything() -> None:
    assert required_texts(r"(?i)npm install") is None  # a flag changes what matches
    assert required_texts(r"foo|.*") is None  # one alternative has no fixed text
    assert required_texts(r"[a-z]+") is None
    assert required_texts(r"(unbalanced") is None
    # An escape of unknown length ends the scan: \x41 is one character, not "41b".
    assert required_texts(r"a\x41bc") == ("a",)
    assert required_texts(r"\pLnpm") is None
    # A POSIX class inside a class does not end the class early.
    assert required_texts(r"[[:alpha:]]xyz") == ("xyz",)


_PATTERN_PARTS = st.sampled_from(
    [
        "a", "b", "n", "p", "m", " ", "-", "/", ".", "\\.", "\\b", "^", "$", "|", "(", ")",
        "(?:", "(?i)", "[ab]", "[^a]", "[[:alpha:]]", "*", "+", "?", "{2}", "{1,2}", "\\d",
        "\\x61", "\\s", "é", "{",
    ]
)  # fmt: skip
_TEXT = st.text(alphabet="abnpm -/.é1A\t'\"$;|", max_size=24)


def _compiles(pattern: str) -> Any:
    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error:
        return None


@settings(max_examples=600)
@given(st.lists(_PATTERN_PARTS, min_size=1, max_size=8).map("".join), st.lists(_TEXT, max_size=3))
def test_a_text_re2_matches_always_holds_a_required_text(pattern: str, texts: list[str]) -> None:
    program = _compiles(pattern)
    if program is None:
        return
    found = required_texts(pattern)
    if found is None:
        return
    for text in texts:
        if program.search(text) is not None:
            assert any(t in text for t in found), (pattern, text, found)


@settings(max_examples=300)
@given(
    st.lists(_PATTERN_PARTS, min_size=1, max_size=6).map("".join),
    st.text(alphabet="npm install -'\"$;|&()<>\\ax=", max_size=30),
)
def test_the_gate_never_lets_through_a_bash_call_a_rule_fires_on(
    pattern: str, command: str
) -> None:
    if _compiles(pattern) is None:
        return
    rule = Rule(tool="Bash", match=pattern, action="deny")
    texts, commands = bash_subjects(command)
    if fired_rules([rule], "Bash", texts, commands):
        assert may_fire([rule.as_dict()], "Bash", {"command": command})


def test_the_gate_reads_through_the_shell_as_the_rules_do() -> None:
    rules = [{"tool": "Bash", "match": r"\bnpm install\b", "action": "deny"}]
    # Quotes, escapes and variables spell npm without the letters in a row.
    for command in ("n''pm install", "$'\\x6e'pm install", "a=npm; $a install", "n\\pm install"):
        assert may_fire(rules, "Bash", {"command": command}), command
    assert not may_fire(rules, "Bash", {"command": "pnpm add left-pad"})
    assert not may_fire(rules, "Read", {"file_path": "/x/npm install"})  # another tool
    command_rule = [{"tool": "Bash", "command": "npm", "args": "install", "action": "deny"}]
    assert may_fire(command_rule, "Bash", {"command": "sudo /usr/bin/npm install"})
    assert not may_fire(command_rule, "Bash", {"command": "yarn install"})
    globbed = [{"tool": "mcp__*", "match": "drop table", "action": "deny"}]
    assert may_fire(globbed, "mcp__db__query", {"sql": "drop table users"})
    assert not may_fire(globbed, "mcp__db__query", {"sql": "select 1"})


@pytest.mark.parametrize(
    "command",
    [
        "{npm,x} install", "n{p,}m install", "npm${IFS}install", "${X:-npm} install",
        "env -S 'npm install'", "script -c 'npm install'", "trap 'npm install' EXIT",
        "bash <<< 'npm install'", "flock /l -c 'npm install'", "if true; then npm install; fi",
        "npm install>/dev/null", "find . -exec npm install {} \\;", "echo 'npm install' | sh",
        "bash <<'EOF'\nnpm install\nEOF",
    ],
)  # fmt: skip
def test_the_gate_reads_the_shell_forms_the_rules_read(command: str) -> None:
    for parsed in (
        Rule(tool="Bash", match=r"\bnpm install\b", action="deny"),
        Rule(tool="Bash", match="", command="npm", args="install", action="deny"),
    ):
        texts, commands = bash_subjects(command)
        assert fired_rules([parsed], "Bash", texts, commands), (command, parsed)
        assert may_fire([parsed.as_dict()], "Bash", {"command": command}), (command, parsed)
    harmless = "cat > Dockerfile <<'EOF'\nRUN npm install\nEOF"
    assert not may_fire([{"tool": "Bash", "match": "npm install", "action": "deny"}], "Bash",
                        {"command": harmless})  # fmt: skip


def test_the_runs_every_match_holds_in_order() -> None:
    assert required_runs(r"curl .*\| *(ba)?sh") == [["curl ", "|", "sh"]]
    assert required_runs(r"a;b|c(") is None
    assert required_runs(r"ab|(?i)cd") == [["ab"], []]


def test_a_command_too_long_to_read_goes_to_the_rules() -> None:
    rules = [{"tool": "Bash", "match": "zzz", "action": "deny"}]
    assert may_fire(rules, "Bash", {"command": "x" * (shell_words.MAX_CHARS + 1)})


@settings(max_examples=300)
@given(st.text(alphabet="ab $;'\"=_9\t\u00a0\u2003é", max_size=20))
def test_the_shell_scanner_reads_as_the_regular_expressions_did(text: str) -> None:
    plain = re.compile(r"[^\s'\"\\$`;&|()<>#]+")
    name = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
    for pos in range(len(text) + 1):
        found = plain.match(text, pos)
        assert shell_words._plain_end(text, pos) == (found.end() if found else pos)
        named = name.match(text, pos)
        assert shell_forms.name_end(text, pos) == (named.end() if named else pos)
    assignment = re.match(r"([A-Za-z_][A-Za-z0-9_]*)=", text)
    assert shell_forms.assigned(text) == (assignment.group(1) if assignment else None)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(_JSON, st.sampled_from(["", " ", "\n\t "]))
def test_json_text_reads_what_json_writes(value: Any, pad: str) -> None:
    text = pad + json.dumps(value) + pad
    assert loads(text) == json.loads(text)


def test_json_text_refuses_what_json_refuses() -> None:
    for bad in ("", "{", "[1] x", "\ufeff{}", '{"a": "\x01"}', "nul"):
        try:
            json.loads(bad)
        except ValueError as expected:
            try:
                loads(bad)
            except ValueError as got:
                assert str(got) == str(expected)
            else:
                raise AssertionError(f"accepted {bad!r}")


def _hook_in_a_fresh_process(project: Path, command: str) -> dict[str, Any]:
    """pre-tool-use run as the launcher runs it (no site module), and what it loaded."""
    return run_fresh(
        "from memdir.hooks.entry import pre_tool_use\n"
        f"payload = {{'cwd': {str(project)!r}, 'tool_name': 'Bash',"
        f" 'tool_input': {{'command': {command!r}}}}}\n"
        "out = pre_tool_use(payload, os.environ)\n"
        "result = {'out': out, **{m: m in sys.modules for m in ('re2', 'site', 'enum')}}"
    )


def test_a_call_no_rule_covers_loads_no_regex_engine(mem: Memdir, project: Path) -> None:
    save_rule(mem, "No npm", NPM_INSTALL, description="pnpm only", body=USE_PNPM)
    first = _hook_in_a_fresh_process(project, "npm install")  # fills the memo and the cache
    assert json.loads(first["out"])["hookSpecificOutput"]["permissionDecision"] == "deny"
    passing = _hook_in_a_fresh_process(project, "yarn add left-pad")
    assert passing == {"out": "", "re2": False, "site": False, "enum": False}
    denied = _hook_in_a_fresh_process(project, "npm install")
    assert denied["re2"] and denied["site"]
    assert json.loads(denied["out"])["hookSpecificOutput"]["permissionDecision"] == "deny"

    # A rule added in place (no folder change) is seen by the next call: the cache walk.
    path = next(mem.layout.memory_dir.glob("no_npm*.md"))
    text = path.read_text().replace(r"\bnpm install\b", r"\byarn add\b")
    with open(path, "r+", encoding="utf-8") as handle:
        handle.write(text)
        handle.truncate()
    now_denied = _hook_in_a_fresh_process(project, "yarn add left-pad")
    assert json.loads(now_denied["out"])["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_the_installed_hook_starts_python_without_the_site_module() -> None:
    launch = launch_for(os.environ)
    assert launch.hooks is not None
    python, flags, launcher = launch.hooks
    assert flags == "-SP" and Path(launcher).name == "hook_launcher.py"
    command = launch.hook_command("pre-tool-use")
    assert f"{python} -SP {launcher} hook pre-tool-use" in command
    # A shared file keeps the console-script form its wrapper tests for.
    assert "hook_launcher" not in launch.hook_command("pre-tool-use", shared=True)


@given(_JSON, st.booleans(), st.booleans())
def test_json_text_writes_what_json_writes(value: Any, ensure_ascii: bool, sort_keys: bool) -> None:
    expected = json.dumps(value, ensure_ascii=ensure_ascii, sort_keys=sort_keys)
    assert dumps(value, ensure_ascii=ensure_ascii, sort_keys=sort_keys) == expected


def test_json_text_refuses_what_json_cannot_write() -> None:
    looped: list[Any] = []
    looped.append(looped)
    for bad in ({"a": {1, 2}}, [object()], looped, {(1, 2): 3}):
        try:
            json.dumps(bad)
        except (TypeError, ValueError) as expected:
            try:
                dumps(bad)
            except (TypeError, ValueError) as got:
                assert (type(got), str(got)) == (type(expected), str(expected))
            else:
                raise AssertionError(f"wrote {bad!r}")
    assert dumps(float("nan")) == json.dumps(float("nan")) == "NaN"


@given(_JSON, st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-be", "utf-32"]))
def test_json_text_reads_json_bytes_in_any_encoding_json_reads(value: Any, encoding: str) -> None:
    data = json.dumps(value, ensure_ascii=False).encode(encoding, "surrogatepass")
    assert loads(data) == json.loads(data)


def test_the_cache_keeps_each_rules_gate_and_a_bad_one_is_worked_out_again(
    mem: Memdir, project: Path
) -> None:
    from memdir.enforcement import rule_cache
    from memdir.enforcement.enforced import cache_path, load_rules

    rules = [
        {"tool": "Bash", "match": r"\bnpm (install|i)\b", "action": "deny"},
        {"tool": "Bash", "command": "curl", "args": "http:.*", "action": "ask"},
        {"tool": "Write|Edit", "match": r"(?i)\.env$", "action": "deny"},
    ]
    save_rule(mem, "No npm", *rules, description="pnpm only", body=USE_PNPM)
    load_rules(mem.layout)
    header, _ = rule_cache.read(str(cache_path(mem.layout)))
    expected = [
        ["Bash", "match", ["npm "]],
        ["Bash", "command", ["curl"]],
        ["Write|Edit", "match", None],  # a flag group: taken to match anything
    ]
    assert header["gate"] == expected
    assert rule_cache.header_gate(header) == expected
    short = [expected[0], expected[2]]  # whole, but one rule left out: it would never be judged
    swapped = [expected[1], expected[0], expected[2]]
    bads: list[object] = [
        "junk",
        [["Bash", "match"]],
        [["Bash", "regex", ["x"]]],
        [[1, "match", None]],
    ]
    for bad in (*bads, [], short, swapped):
        assert rule_cache.header_gate({**header, "gate": bad}) == expected
