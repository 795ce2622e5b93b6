"""The shell-word splitter Bash rules are matched on: what the shell would run, as words."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memdir.enforcement.shell_words import MAX_CHARS, MAX_DEPTH, command_index, split_commands


@pytest.mark.parametrize(
    ("line", "commands"),
    [
        ("npm  install", [["npm", "install"]]),
        ("npm\tinstall", [["npm", "install"]]),
        ("npm \\\ninstall", [["npm", "install"]]),
        ("n\\pm install", [["npm", "install"]]),
        ("'npm' \"install\"", [["npm", "install"]]),
        ("$'npm\\x20i'", [["npm i"]]),
        (
            "git commit -m 'stop using npm install'",
            [["git", "commit", "-m", "stop using npm install"]],
        ),
        (
            "a; b && c || d | e |& f & g\nh",
            [["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"], ["h"]],
        ),
        ("make 2>&1 >out &>all", [["make", "2>&1", ">out", "&>all"]]),
        ("ls # rm -rf /", [["ls"]]),
        ("echo a#b", [["echo", "a#b"]]),
        ("(cd x && make)", [["cd", "x"], ["make"]]),
        ("N=npm; $N install", [["N=npm"], ["npm", "install"]]),
        ("export N=npm; ${N} i", [["export", "N=npm"], ["npm", "i"]]),
        ("C='npm install'; $C", [["C=npm install"], ["npm", "install"]]),
        ("C='npm install'; \"$C\"", [["C=npm install"], ["npm install"]]),
        ("N=npm $N", [["N=npm", "$N"]]),  # a prefix assignment is not seen by its own words
        ("$HOME/bin/x", [["$HOME/bin/x"]]),
        ("$(echo npm) install", [["echo", "npm"], ["npm", "install"]]),
        ("`echo npm` install", [["echo", "npm"], ["npm", "install"]]),
        ("x=$(date +%s)", [["date", "+%s"], ["x=$(date +%s)"]]),
        ("diff <(ls a) b", [["ls", "a"], ["diff", "<(ls a)", "b"]]),
        ("bash -c 'npm i'", [["bash", "-c", "npm i"], ["npm", "i"]]),
        (
            'sudo -u me /bin/sh -ec "npm run x"',
            [["sudo", "-u", "me", "/bin/sh", "-ec", "npm run x"], ["npm", "run", "x"]],
        ),
        ("eval 'npm' run", [["eval", "npm", "run"], ["npm", "run"]]),
        ("bash script.sh -c x", [["bash", "script.sh", "-c", "x"]]),
    ],
)
def test_a_line_splits_into_the_commands_the_shell_runs(
    line: str, commands: list[list[str]]
) -> None:
    found, complete = split_commands(line)
    assert found == commands
    assert complete


@pytest.mark.parametrize(
    "line",
    ["echo 'open", 'echo "open', "$(npm i", "(a", "a)", "`npm i", "$(" * (MAX_DEPTH + 2) + "x"],
)
def test_an_open_quote_or_deep_nesting_is_reported_as_not_read_whole(line: str) -> None:
    assert split_commands(line)[1] is False


def test_a_line_past_the_limit_is_not_read_at_all() -> None:
    assert split_commands("x" * (MAX_CHARS + 1)) == ([], False)
    assert split_commands("x" * (MAX_CHARS - 20) + "; npm i")[0][-1] == ["npm", "i"]


@pytest.mark.parametrize(
    ("words", "index"),
    [
        (["npm", "i"], 0),
        (["A=1", "B=2", "npm"], 2),
        (["sudo", "-u", "bob", "env", "X=1", "-i", "npm"], 6),
        (["timeout", "-s", "KILL", "10", "npm"], 4),
        (["xargs", "-n", "1", "npm"], 3),
        (["command", "--", "npm"], 2),
        (["A=1"], 1),
    ],
)
def test_the_command_name_is_found_behind_assignments_and_wrappers(
    words: list[str], index: int
) -> None:
    assert command_index(words) == index


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab $()`'\"\\;|&\n#{}=<>-c")), max_size=60))
@example(line="$'\\;")  # an escape bash does not know, inside $'...': kept, no warning
def test_any_text_splits_without_raising(line: str) -> None:
    commands, complete = split_commands(line)
    assert all(words for words in commands)
    assert isinstance(complete, bool)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.from_regex(r"[a-z0-9_./-]{1,8}", fullmatch=True), min_size=1, max_size=6))
def test_plain_words_come_back_as_they_were(words: list[str]) -> None:
    words = [w for w in words if not w.startswith("#")] or ["x"]
    assert split_commands(" ".join(words)) == ([words], True)


def test_ansi_c_quoting_decodes_the_escapes_bash_knows_and_keeps_the_rest() -> None:
    assert split_commands("$'np\\x6d' install")[0] == [["npm", "install"]]
    assert split_commands("echo $'a\\;b'")[0] == [["echo", "a\\;b"]]
