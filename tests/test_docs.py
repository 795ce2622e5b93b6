"""The documentation runs and names only what exists.

Every ```python block of ``docs/*.md`` runs in a throwaway project, as the README's
"Memory in 10 lines" does. Every ``memdir`` command the README and the docs name,
in a shell block (```bash, ```console after its ``$``, a bare ``` block's lines that
start with ``memdir``) or in inline code, is checked against the CLI's own help, read
through click's CliRunner: each command path exists, each option exists on that
command (or one above it), and a word given for a choice argument is one of its
choices. Synopsis marks are read as they are meant: ``[...]`` optional, ``a|b``
alternatives (each checked), capitals and ``<...>`` placeholders. The README is a
front door: at most 300 lines, every top-level command named, every link to a file
or a heading that exists; the repository's root holds no generated output.
"""

from __future__ import annotations

import functools
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

from memdir.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]

FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```", re.M | re.S)
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
SHELL = {"bash", "sh", "shell", "console", ""}
OPERATORS = {"|", "||", "&&", ";", "&", ">", ">>", "<", "2>", "("}


# -- the CLI as its help describes it ---------------------------------------------------


@dataclass(frozen=True)
class Option:
    names: tuple[str, ...]
    takes_value: bool


@dataclass
class Command:
    """One command as ``memdir ... --help`` shows it."""

    path: tuple[str, ...]
    options: dict[str, Option] = field(default_factory=dict)
    commands: dict[str, Command] = field(default_factory=dict)
    arguments: list[tuple[str, ...] | None] = field(default_factory=list)  # choices, or None

    @property
    def name(self) -> str:
        return " ".join(("memdir", *self.path))


def _help(path: tuple[str, ...]) -> str:
    result = CliRunner().invoke(main, [*path, "--help"], prog_name="memdir")
    assert result.exit_code == 0, (path, result.output)
    return result.output


def _section(text: str, title: str) -> list[str]:
    """The first column of each entry of one section of a help text."""
    if f"\n{title}:\n" not in text:
        return []
    body = text.split(f"\n{title}:\n", 1)[1].split("\n\n", 1)[0]
    return [re.split(r"\s{2,}", line.strip())[0] for line in body.splitlines() if line[2:3] != " "]


def _usage_arguments(text: str, group: bool) -> list[tuple[str, ...] | None]:
    usage = " ".join(text.split("\n\n", 1)[0].split())
    words = usage.split("[OPTIONS]", 1)[1].split() if "[OPTIONS]" in usage else []
    if group:
        return []
    return [
        tuple(word.strip("[]{}.").split("|")) if word.strip("[]").startswith("{") else None
        for word in words
    ]


def _command(path: tuple[str, ...]) -> Command:
    text = _help(path)
    command = Command(path=path)
    for entry in _section(text, "Options"):
        words = entry.replace(",", " ").split()
        names = tuple(word for word in words if word.startswith("-"))
        option = Option(names, any(not w.startswith("-") and w != "/" for w in words))
        command.options.update((name, option) for name in names)
    for entry in _section(text, "Commands"):
        command.commands[entry] = _command((*path, entry))
    command.arguments = _usage_arguments(text, bool(command.commands))
    return command


@functools.cache
def cli() -> Command:
    return _command(())


# -- reading a command line ------------------------------------------------------------


def _placeholder(word: str) -> bool:
    return bool(re.fullmatch(r"[A-Z][A-Z0-9_.,=-]*|<[^>]*>|\.\.\.|…|-", word))


def _option(scope: tuple[Command, ...], name: str) -> Option | None:
    return next((c.options[name] for c in reversed(scope) if name in c.options), None)


def check(command: Command, words: list[str], above: tuple[Command, ...] = ()) -> list[str]:
    """What in ``words`` (after ``memdir``) the CLI does not have; empty when all exist."""
    scope = (*above, command)
    position = 0
    index = 0
    while index < len(words):
        word = words[index].strip("[](){},")
        index += 1
        if word == "--":
            break  # what follows is data (enforce test -- TOOL TEXT)
        if not word or word in ("...", "…"):
            continue
        alternatives = word.split("|")
        options = [alt for alt in alternatives if alt.startswith("-") and alt != "-"]
        for name in options:
            option = _option(scope, name.split("=")[0])
            if option is None:
                return [f"{command.name} has no option {name.split('=')[0]}"]
            if option.takes_value and len(alternatives) == 1 and "=" not in name:
                index += 1  # its value
        if options and len(options) == len(alternatives):
            continue
        if command.commands:
            if all(alt in command.commands for alt in alternatives):
                rest = words[index:]
                return [
                    problem
                    for alt in alternatives
                    for problem in check(command.commands[alt], rest, scope)
                ]
            if _placeholder(word):
                return []
            return [f"{command.name} has no command {word}"]
        choices = command.arguments[position] if position < len(command.arguments) else None
        for alt in alternatives:
            if choices and not alt.startswith("-") and not _placeholder(alt) and alt not in choices:
                return [f"{command.name} takes none of {alt!r} (only {', '.join(choices)})"]
        position += 1
    return []


def memdir_words(line: str) -> list[str] | None:
    """The words after ``memdir`` in one synopsis or command, or None when it is not one."""
    words = line.split()
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
        words = words[1:]  # VAR=value before the command
    if words[:1] and Path(words[0]).name == "memdir":
        return words[1:]
    if len(words) > 2 and words[1:3] == ["-m", "memdir"]:
        return words[3:]
    return None


def shell_commands(block: str) -> list[str]:
    """The simple commands of a shell block, continuation lines joined, comments out."""
    lines: list[list[str]] = [[]]
    # One line at a time: shlex swallows the newline that ends a comment, which would
    # join the command after a commented line to the one before it.
    for text in block.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
        lexer.whitespace = " \t\r"
        lexer.commenters = "#"
        lines.append([])
        for token in lexer:
            if token in OPERATORS or set(token) <= set("|&;<>()"):
                lines.append([])
            else:
                lines[-1].append(token)
    return [" ".join(line) for line in lines if line]


def named_commands(text: str) -> list[str]:
    """Every memdir command a page names: in its shell blocks and its inline code."""
    found: list[str] = []
    for language, block in FENCE.findall(text):
        if language not in SHELL:
            continue
        if language == "console":
            block = "\n".join(line[2:] for line in block.splitlines() if line.startswith("$ "))
        elif language == "":  # a synopsis: one command a line, a comment after its `#`
            found += [
                line.split("  #")[0] for line in block.splitlines() if line.startswith("memdir ")
            ]
            continue
        found += [command for command in shell_commands(block) if memdir_words(command)]
    prose = FENCE.sub("", text)
    found += [span for span in INLINE.findall(prose) if memdir_words(span) is not None]
    return found


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT))


# -- the tests -------------------------------------------------------------------------


def test_the_help_reader_knows_commands_options_and_choices() -> None:
    assert check(cli(), "--profile claude hook install claude --scope local".split()) == []
    assert check(cli(), "team resolve NAME --keep mine|theirs|both".split()) == []
    assert check(cli(), "review approve NAME|--all".split()) == []
    assert check(cli(), "hook install|uninstall claude [--dry-run]".split()) == []
    assert check(cli(), ["sync-everything"]) == ["memdir has no command sync-everything"]
    assert check(cli(), "history NAME --colour".split()) == [
        "memdir history has no option --colour"
    ]
    assert check(cli(), "install vscode".split())[0].startswith("memdir install takes none of")
    assert check(cli(), "hook install|uninstall emacs".split())


def test_a_comment_ends_its_line_of_a_shell_block() -> None:
    block = "memdir init  # the folder\nmemdir add --name N \\\n  --type user  # one\n"
    assert shell_commands(block) == ["memdir init", "memdir add --name N --type user"]


@pytest.mark.parametrize("page", PAGES, ids=_id)
def test_every_memdir_command_a_page_names_exists(page: Path) -> None:
    problems = [
        f"`{command}`: {problem}"
        for command in named_commands(page.read_text(encoding="utf-8"))
        for problem in check(cli(), memdir_words(command) or [])
    ]
    assert problems == []


def _python_blocks() -> list[tuple[Path, int, str]]:
    return [
        (page, number, block)
        for page in DOCS
        for number, (language, block) in enumerate(FENCE.findall(page.read_text("utf-8")))
        if language == "python"
    ]


@pytest.mark.parametrize(
    ("page", "number", "code"),
    _python_blocks(),
    ids=[f"{_id(page)}-{number}" for page, number, _ in _python_blocks()],
)
def test_every_python_block_of_the_docs_runs_in_a_throwaway_project(
    page: Path, number: int, code: str, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    exec(compile(code, f"{page}:block {number}", "exec"), {"__name__": "__docs__"})


def test_the_readme_is_a_front_door_of_at_most_300_lines() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 300


def test_the_readme_names_every_top_level_command() -> None:
    named = {
        word
        for command in named_commands(README.read_text(encoding="utf-8"))
        for word in (memdir_words(command) or [])[:1]
        for word in word.split("|")
    }
    missing = sorted(set(cli().commands) - named)
    assert missing == []


def _anchors(page: Path) -> set[str]:
    """The heading anchors GitHub gives a page."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    headings = re.findall(r"^#+ (.+)$", text, re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("page", PAGES, ids=_id)
def test_every_link_of_a_page_reaches_a_file_and_a_heading_that_exist(page: Path) -> None:
    text = INLINE.sub("", FENCE.sub("", page.read_text(encoding="utf-8")))
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        file, _, anchor = target.partition("#")
        linked = (page.parent / file).resolve() if file else page
        if not linked.exists() or (
            anchor and linked.suffix == ".md" and anchor not in _anchors(linked)
        ):
            broken.append(target)
    assert broken == []


def test_the_repository_root_holds_no_generated_output() -> None:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    at_root = sorted({name for name in listed if "/" not in name})
    generated = [
        name
        for name in at_root
        if re.search(r"\.(jsonl|json|csv|log|out|sqlite\d?|db|png|svg|html|prof)$", name)
    ]
    assert generated == []
