"""The shell-word splitter Bash rules are matched on: what the shell would run, as words."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from memdir.enforcement.rule_subjects import bash_subjects
from memdir.enforcement.rules import Rule, fired_rules
from memdir.enforcement.shell_words import (
    MAX_CHARS,
    MAX_DEPTH,
    Redirection,
    command_index,
    split_commands,
)


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


# -- the shell as it runs: expansions, here-documents, redirections, wrappers ----------------


@pytest.mark.parametrize(
    ("line", "commands"),
    [
        ("{npm,x} install", [["npm", "x", "install"], ["npm", "install"], ["x", "install"]]),
        ("n{p,}m i", [["npm", "nm", "i"], ["npm", "i"], ["nm", "i"]]),
        ("echo {1..3}", [["echo", "1", "2", "3"], ["echo", "1"], ["echo", "2"], ["echo", "3"]]),
        ("echo {c..a..2}", [["echo", "c", "a"], ["echo", "c"], ["echo", "a"]]),
        ("git rev-parse @{u} {} '{a,b}'", [["git", "rev-parse", "@{u}", "{}", "{a,b}"]]),
        ("A={x,y} npm", [["A={x,y}", "npm"]]),  # no brace expansion in an assignment
        ("npm${IFS}install", [["npm", "install"]]),
        ("npm$IFS'install'", [["npm", "install"]]),
        ('"npm$IFS"install', [["npm \t\ninstall"]]),  # quoted: one word
        ("${X:-npm} install", [["npm", "install"]]),
        ("${X-'n'pm} i", [["npm", "i"]]),
        ("${X:=npm}; $X i", [["npm"], ["npm", "i"]]),
        ("${HOME:+npm} i", [["npm", "i"]]),  # may be set: the word is what runs then
        ("X=npmx; ${X:0:3} i", [["X=npmx"], ["npm", "i"]]),
        ("${X#a} ${#X}", [["${X#a}", "${#X}"]]),
        ('npm$IFS$9i $@ "$1"', [["npm", "i", ""]]),  # no arguments: empty
        ("${X:-$(echo npm)} i", [["echo", "npm"], ["npm", "i"]]),
        ("${X#$(npm i)}", [["npm", "i"], ["${X#$(npm i)}"]]),
        ("npm install>/dev/null 2>&1", [["npm", "install", ">/dev/null", "2>&1"]]),
        (">log 2>>err npm i", [[">log", "2>>err", "npm", "i"]]),
        ("a > b < c", [["a", ">b", "<c"]]),
        ("cat <(ls) >(wc)", [["ls"], ["wc"], ["cat", "<(ls)", ">(wc)"]]),
        ("cat <<'EOF'\nnpm install\nEOF\nls", [["cat", "<<EOF"], ["ls"]]),
        ("cat <<-EOF\n\tnpm i\n\tEOF", [["cat", "<<-EOF"]]),
        ("cat <<EOF\n$(npm i)\nEOF", [["npm", "i"], ["cat", "<<EOF"]]),  # unquoted: it runs
        ("bash <<'EOF'\nnpm install\nEOF", [["bash", "<<EOF"], ["npm", "install"]]),
        ("sh -s <<< 'npm i'", [["sh", "-s", "<<<npm i"], ["npm", "i"]]),
        ("cat <<< 'npm i'", [["cat", "<<<npm i"]]),
        ("echo 'npm i' | sh", [["echo", "npm i"], ["sh"], ["npm", "i"]]),
        ("cat <<E | bash\nnpm i\nE", [["cat", "<<E"], ["bash"], ["npm", "i"]]),
        ("$(cat <<'E'\nnpm i\nE\n)", [["cat", "<<E"], ["npm", "i"]]),
        ("env -S 'npm i' x", [["env", "-S", "npm i", "x"], ["npm", "i", "x"]]),
        ("script -qc 'npm i' /dev/null", [["script", "-qc", "npm i", "/dev/null"], ["npm", "i"]]),
        ("flock /tmp/l -c 'npm i'", [["flock", "/tmp/l", "-c", "npm i"], ["npm", "i"]]),
        ("trap 'npm i' EXIT", [["trap", "npm i", "EXIT"], ["npm", "i"]]),
        ("watch -n 1 'npm i'", [["watch", "-n", "1", "npm i"], ["npm", "i"]]),
        (
            "find . -exec npm i {} \\;",
            [["find", ".", "-exec", "npm", "i", "{}", ";"], ["npm", "i", "{}"]],
        ),
    ],
)
def test_the_line_is_read_as_bash_expands_it(line: str, commands: list[list[str]]) -> None:
    found, complete = split_commands(line)
    assert found == commands
    assert complete


def test_a_redirection_is_a_word_of_its_own_kind() -> None:
    [words] = split_commands("npm install>/dev/null")[0]
    assert words == ["npm", "install", ">/dev/null"]
    assert [isinstance(w, Redirection) for w in words] == [False, False, True]
    quoted = split_commands("echo '>x'")[0][0]
    assert not isinstance(quoted[1], Redirection)


@pytest.mark.parametrize(
    ("words", "index"),
    [
        (["if", "npm", "i"], 1),
        (["!", "npm"], 1),
        (["{", "npm"], 1),
        (["until", "npm"], 1),
        ([">log", "npm"], 1),
        (["function", "f", "{", "npm"], 3),
        (["flock", "-w", "5", "/tmp/l", "npm"], 4),
        (["nice", "-n", "5", "nohup", "timeout", "10", "npm"], 6),
    ],
)
def test_the_command_name_is_found_behind_reserved_words_and_redirections(
    words: list[str], index: int
) -> None:
    if words[0].startswith(">"):
        words = [Redirection(words[0]), *words[1:]]
    assert command_index(words) == index


def test_a_here_document_that_never_closes_is_not_read_whole() -> None:
    assert split_commands("cat <<EOF\nnpm i\n")[1] is False
    assert split_commands("bash <<EOF")[1] is False


NPM_RULES = (
    Rule(tool="Bash", match=r"\bnpm (install|i)\b", action="deny"),
    Rule(tool="Bash", match="", command="npm", args="install|i", action="deny"),
)


def _fires(command: str) -> list[bool]:
    texts, commands = bash_subjects(command)
    return [bool(fired_rules([rule], "Bash", texts, commands)) for rule in NPM_RULES]


# Ways to run a command: each template holds the inner command once ({} as is, {q} quoted).
# A wrapper runs a simple command; a compound form or a shell string runs any command line;
# ``env -S`` and a substitution split words without reading quotes or operators.
PREFIXES = [
    "nice {}", "nice -n 5 {}", "nohup {}", "timeout 10 {}", "timeout -k 5 10 {}",
    "stdbuf -oL {}", "time {}", "time -p {}", "command {}", "exec {}", "xargs {}",
    "xargs -I X {}", "sudo -u x {}", "doas {}", "env A=1 {}", "setsid {}", "flock /tmp/l {}",
    "{} >/dev/null", "{}>/dev/null 2>&1", "sudo -iu x {}", "sudo -uroot {}", "nice -n5 {}",
    ">/dev/null {}",
]  # fmt: skip
COMPOUNDS = [
    "if true; then {}; fi", "! {}", "{{ {}; }}", "until {}; do :; done",
    "while true; do {}; done", "(cd x && {})", "echo go; {}", "x | {}",
]  # fmt: skip
STRINGS = [
    "bash -c {q}", "sh -ec {q}", "script -qc {q}", "flock /tmp/l -c {q}", "trap {q} EXIT",
    "bash <<< {q}", "eval {q}", "watch {q}", "su -c {q}", "echo {q} | sh",
    "bash -c -- {q}", "bash -o errexit -c {q}", "bash --login -c {q}", "sh -eo pipefail -c {q}",
]  # fmt: skip
WORD_STRINGS = ["env -S {q}", "$(echo {q})"]
DENIED = ["'npm' install", "{npm,x} install", "n{p,}m install", "npm${IFS}install",
          "${X:-npm} install", "n\\pm i", "npm>/dev/null install", "npm$IFS$9install"]  # fmt: skip
PLAIN_DENIED = ["npm install", "npm i left-pad"]


def _wrapped(template: str, inner: str) -> str:
    template = template.replace("{{", "\0").replace("}}", "\1")
    text = template.replace("{q}", shlex.quote(inner)).replace("{}", inner)
    return text.replace("\0", "{").replace("\1", "}")


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(PREFIXES + COMPOUNDS + STRINGS + WORD_STRINGS), max_size=4),
    st.sampled_from(DENIED + PLAIN_DENIED),
)
def test_a_denied_command_fires_both_rule_kinds_whatever_runs_it(
    templates: list[str], denied: str
) -> None:
    command, simple, plain = denied, True, denied in PLAIN_DENIED
    for template in templates:
        if (template in PREFIXES and not simple) or (template in WORD_STRINGS and not plain):
            continue  # not a way bash would run it
        command = _wrapped(template, command)
        simple = template not in COMPOUNDS and "|" not in template  # a pipe: two commands
        # A redirection read from a substitution's output is an argument: not plain.
        plain = plain and template in PREFIXES and ">" not in template
    assert _fires(command) == [True, True], command


# Commands whose arguments are data: a commit message, a note, a file written by heredoc.
HARMLESS = [
    "git commit -m {q}", "echo {q}", "printf '%s\\n' {q}", "grep -r {q} .",
    "git log --grep={q}", "cat > notes.md <<'EOF'\n{body}\nEOF",
    "cat > Dockerfile <<'EOF'\nFROM node\n{body}\nEOF",
    "git commit -m \"$(cat <<'EOF'\n{body}\nEOF\n)\"", "tee a.txt <<< {q} >/dev/null",
    "python3 - <<'EOF'\n{body}\nEOF",
]  # fmt: skip
_TEXT = st.text(
    alphabet=st.sampled_from(list("npm install i; &|$(){}`'\"\\\n\t<>#x=-")) | st.characters(),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(HARMLESS), _TEXT)
def test_text_in_a_heredoc_body_or_a_quoted_argument_never_fires_a_command_rule(
    template: str, text: str
) -> None:
    assume("EOF" not in text)  # a line ``EOF`` would end the body: what follows is a command
    command = template.replace("{q}", shlex.quote(text)).replace("{body}", text)
    assert _fires(command)[1] is False, command


@pytest.mark.parametrize(
    "command",
    [
        "git commit -m \"$(cat <<'EOF'\nUse pnpm: npm install broke CI\n\nnpm install\nEOF\n)\"",
        "cat > Dockerfile <<'EOF'\nFROM node:22\nRUN npm install\nEOF",
        "cat <<EOF > notes.md\nnever run npm install here\nEOF",
        "npm help install",
        "git log --grep='npm install'",
    ],
)
def test_harmless_commands_fire_neither_rule_kind(command: str) -> None:
    assert _fires(command) == [False, False]


@pytest.mark.parametrize(
    "command", ["command -v npm", "command -pV npm", "sudo -l npm", "sudo -u x --list npm"]
)
def test_a_wrapper_that_only_describes_a_command_runs_nothing(command: str) -> None:
    texts, commands = bash_subjects(command)
    npm = Rule(tool="Bash", match="", command="npm", action="deny")
    assert fired_rules([npm], "Bash", texts, commands) == []
    assert _fires(command.replace("npm", "npm install"))[1] is False  # nor with arguments
