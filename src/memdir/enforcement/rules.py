"""Enforced feedback: the ``enforce:`` rules a feedback memory carries, checked and matched.

A feedback memory may say, in its frontmatter, which tool calls break it::

    enforce:
      - tool: Bash                        # a tool name, "Edit|Write", "mcp__*" or "*"
        match: '\\bnpm (install|i|run)\\b' # searched in the command, or a file's path/content
        action: deny                      # deny | ask | warn: never allow
      - command: npm                      # or: the command a Bash call runs (RE2, whole name)
        args: install|i|run               # and one of its arguments (options skipped)
        action: deny

A Bash rule is matched on each simple command the shell would run (see
:mod:`memdir.enforcement.shell_words`): a ``match`` pattern is searched in the
command's words joined by single spaces (blanks inside a quoted argument
stay apart from that: a commit message is one word, so ``npm install``
written in it is not the command); a ``command`` rule compares the command
name (after ``sudo``, ``env``, ``if``, ``!`` and the like; a path's last part)
and, with ``args``, each argument that is neither an option nor a redirection,
up to a ``help`` (``npm help install`` asks about install). A command line past
:data:`memdir.enforcement.shell_words.MAX_CHARS` is not read: the call is handed
to the user (:func:`unchecked`).

A rule can only hold a call back (``deny``), hand it to the user (``ask``) or
add a note (``warn``); no rule can let a call through that would otherwise be
stopped, so a teammate's rule can never widen anyone's permissions.

Patterns are compiled with RE2, which matches in time linear in the input:
a rule from a teammate cannot hang anyone's agent. They are validated when a
memory is written (:func:`parse_rules`, by
:func:`~memdir.enforcement.rule_validation.validate_memory_rules`, called by the store), and
refused with the reason when RE2 cannot compile them (backreferences,
lookaround), when they hold control characters or line breaks (frontmatter
would not keep them as written), when they are too long or compile to too large a program, when
they match the empty string (the rule would fire on every call), or when they
nest unbounded repeats (``(a+)+``): harmless to RE2 but catastrophic for the
backtracking engines (``grep -P``, Python's ``re``, JavaScript) other tools
reading the same memory may run them with.

A rule that can never fire is refused when written too
(:mod:`memdir.enforcement.rule_validation`); such a rule already saved still loads
(it never fires).

This module is pure: it reads no files. Loading the rules of a project (and
caching them by the files' mtimes) is :mod:`memdir.enforcement.enforced`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from functools import lru_cache

import re2

from memdir.enforcement.pattern_scan import skip_class, tokens
from memdir.enforcement.rule_subjects import EDIT_TOOLS, bash_subjects, subjects, unchecked
from memdir.enforcement.shell_words import Redirection, command_index
from memdir.errors import InvalidMemory
from memdir.utils.records import record

# The pre-tool-use hook loads this module on every tool call: no typing, no
# dataclasses, no model at run time (type checkers read this block).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    Action = Literal["deny", "ask", "warn"]
else:
    Action = str

__all__ = [
    "ACTIONS",
    "EDIT_TOOLS",
    "FIELD",
    "GLOB",
    "MAX_PATTERN_CHARS",
    "Action",
    "Rule",
    "bash_subjects",
    "compile_pattern",
    "fired_rules",
    "parse_rule",
    "parse_rules",
    "pattern_problem",
    "rule_fires",
    "skip_class",
    "stronger",
    "subjects",
    "tool_matches",
    "unchecked",
    "why_line",
]

FIELD = "enforce"
ACTIONS: tuple[Action, ...] = ("deny", "ask", "warn")  # strongest first
MAX_PATTERN_CHARS = 500
MAX_RULES = 20
_MAX_PROGRAM = 5000  # RE2 program size: a bound on the memory a match may use
GLOB = frozenset("*?[")
_UNWRITABLE = frozenset({"Cc", "Cs", "Zl", "Zp"})  # YAML would not keep these as they are
_RULE_KEYS = frozenset({"tool", "match", "command", "args", "action"})
_HINT = (
    "write enforce: as a list of {tool, match, action} (or {command, args, action} for a "
    "Bash command) with action deny, ask or warn and match an RE2 regular expression"
)
# Texts every pattern that would fire on any call matches: one character of each kind.
_ANY_TEXT = ("a", "Z", "0", "_", "/", ".", "-", "{", "é", "ls")
_ANY_COMMAND = ("ls", "cd", "git", "cat", "make", "echo", "python3", "x")


@record
class Rule:
    """One rule: which tools, what to look for in their input, and what to do."""

    tool: str
    match: str
    action: Action
    command: str = ""  # a command rule (Bash): the command name, matched whole
    args: str = ""  # and one of its arguments, options skipped ("": any call)

    def as_dict(self) -> dict[str, str]:
        """The rule as written in frontmatter."""
        if self.command:
            shape = {"tool": self.tool, "command": self.command}
            return {**shape, **({"args": self.args} if self.args else {}), "action": self.action}
        return {"tool": self.tool, "match": self.match, "action": self.action}

    @property
    def summary(self) -> str:
        """What the rule looks for, in a few words: ``Bash matching `…```."""
        if self.command:
            args = f" with an argument `{self.args}`" if self.args else ""
            return f"{self.tool} command `{self.command}`{args}"
        return f"{self.tool} matching `{self.match}`"


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # RE2 would print every refused pattern on stderr
    options.max_mem = 8 << 20
    return options


@lru_cache(maxsize=512)
def compile_pattern(pattern: str) -> Any:
    """The RE2 program for ``pattern`` (raises ``re2.error`` when it cannot compile)."""
    return re2.compile(pattern, _options())


def _nested_unbounded_repeat(pattern: str) -> bool:
    """Whether a group that holds an unbounded repeat is itself repeated: ``(a+)+``."""
    stack: list[bool] = []  # per open group: does it contain an unbounded repeat?
    closed_unbounded = False  # the group that just closed held one
    for i, _ in tokens(pattern):
        c = pattern[i]
        if c == "(":
            stack.append(False)
        elif c == ")":
            inner = stack.pop() if stack else False
            closed_unbounded = inner
            if stack and inner:
                stack[-1] = True
            continue
        elif c in "*+" or (c == "{" and _open_brace(pattern, i)):
            if closed_unbounded:
                return True
            if stack:
                stack[-1] = True
        closed_unbounded = False
    return False


def _open_brace(pattern: str, i: int) -> bool:
    """Whether the ``{`` at ``i`` opens an unbounded repeat ``{n,}``."""
    end = pattern.find("}", i)
    body = pattern[i + 1 : end] if end > 0 else ""
    head, comma, tail = body.partition(",")
    return head.isdigit() and bool(comma) and not tail


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be a rule's ``match`` (see the module docstring), or None."""
    if not pattern.strip():
        return "the pattern is empty"
    if any(unicodedata.category(c) in _UNWRITABLE for c in pattern):
        return (
            "it holds a control character or a line break; write it as an escape "
            "(\\n, \\t, \\x{85}) so the pattern stays one line of frontmatter"
        )
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"the pattern is {len(pattern)} characters long; the limit is {MAX_PATTERN_CHARS}"
    try:
        program = compile_pattern(pattern)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        return f"RE2 cannot compile it ({detail}); backreferences and lookaround are not supported"
    if program.programsize > _MAX_PROGRAM:
        return f"it compiles to a program of {program.programsize} steps (limit {_MAX_PROGRAM})"
    if program.search("") is not None:
        return "it matches the empty string, so it would fire on every call"
    if all(program.search(text) is not None for text in _ANY_TEXT):
        return "it matches any text, so it would fire on every call"
    if _nested_unbounded_repeat(pattern):
        return (
            "it repeats a group that itself repeats without bound, e.g. (a+)+: "
            "catastrophic backtracking in other regex engines"
        )
    return None


def _tool_problem(tool: str) -> str | None:
    if not tool.strip():
        return "the tool is empty"
    if any(not part.strip() for part in tool.split("|")):
        return f"the tool {tool!r} has an empty alternative"
    return None


def parse_rule(index: int, raw: Any) -> Rule:
    """Rule number ``index`` (0-based) of an ``enforce:`` list; raises :class:`InvalidMemory`."""
    where = f"enforce rule {index + 1}"
    if not isinstance(raw, Mapping):
        raise InvalidMemory(f"{where} is not a mapping", hint=_HINT)
    unknown = sorted(str(k) for k in raw if k not in _RULE_KEYS)
    if unknown:
        raise InvalidMemory(f"{where} has unknown keys: {', '.join(unknown)}", hint=_HINT)
    action = raw.get("action")
    if action not in ACTIONS:
        raise InvalidMemory(
            f"{where}: action {action!r} is not one of deny, ask, warn "
            "(a memory can hold a call back, never allow one)",
            hint=_HINT,
        )
    if "command" in raw:
        return _command_rule(where, raw, action)
    tool, match = raw.get("tool"), raw.get("match")
    if not isinstance(tool, str) or (problem := _tool_problem(tool)) is not None:
        raise InvalidMemory(
            f"{where}: {problem if isinstance(tool, str) else 'tool must be text'}", hint=_HINT
        )
    if not isinstance(match, str):
        raise InvalidMemory(f"{where}: match must be a text pattern", hint=_HINT)
    if (problem := pattern_problem(match)) is not None:
        raise InvalidMemory(f"{where}: pattern {match!r} is refused: {problem}", hint=_HINT)
    return Rule(tool=tool.strip(), match=match, action=action)


def _command_rule(where: str, raw: Mapping[str, Any], action: Action) -> Rule:
    """A ``{command, args, action}`` rule: Bash only, no ``match``."""
    tool, command, args = raw.get("tool", "Bash"), raw.get("command"), raw.get("args", "")
    if tool != "Bash":
        raise InvalidMemory(f"{where}: a command rule is for tool Bash, not {tool!r}", hint=_HINT)
    if "match" in raw:
        raise InvalidMemory(f"{where}: give match or command, not both", hint=_HINT)
    for key, value in (("command", command), ("args", args)):
        if not isinstance(value, str):
            raise InvalidMemory(f"{where}: {key} must be a text pattern", hint=_HINT)
        if key == "args" and not value:
            continue
        if (problem := pattern_problem(value)) is not None:
            raise InvalidMemory(f"{where}: {key} {value!r} is refused: {problem}", hint=_HINT)
    assert isinstance(command, str) and isinstance(args, str)
    program = compile_pattern(command)
    if all(program.fullmatch(name) is not None for name in _ANY_COMMAND):
        raise InvalidMemory(
            f"{where}: command {command!r} is refused: it names every command, "
            "so it would fire on every Bash call",
            hint=_HINT,
        )
    return Rule(tool="Bash", match="", command=command, args=args, action=action)


def parse_rules(value: Any) -> tuple[Rule, ...]:
    """The rules of an ``enforce:`` value; raises :class:`InvalidMemory` naming the bad one."""
    if value is None:
        return ()
    items = [value] if isinstance(value, Mapping) else value
    if not isinstance(items, list | tuple):
        raise InvalidMemory("enforce: must be a list of rules", hint=_HINT)
    if len(items) > MAX_RULES:
        raise InvalidMemory(
            f"enforce: holds {len(items)} rules; the limit is {MAX_RULES}", hint=_HINT
        )
    return tuple(parse_rule(i, raw) for i, raw in enumerate(items))


def why_line(body: str) -> str:
    """The text of a body's ``**Why:**`` line, or ``""``."""
    for line in body.splitlines():
        text = line.strip()
        if text[:2] in ("- ", "* "):
            text = text[2:].strip()  # a list item, not the bold marker
        for prefix in ("**Why:**", "**Why**:", "Why:"):
            if text.startswith(prefix):
                return " ".join(text[len(prefix) :].split())
    return ""


# --- matching -------------------------------------------------------------------------


def tool_matches(spec: str, tool_name: str) -> bool:
    """Whether ``tool_name`` is one of ``spec``'s ``|``-separated names or globs."""
    for part in spec.split("|"):
        part = part.strip()
        if not part:
            continue
        # A plain name is compared as is: fnmatch would compile a regex for it (and its
        # import loads ``re``, which a hook that denies a call need not pay for).
        if GLOB.isdisjoint(part):
            if part == tool_name:
                return True
            continue
        import fnmatch

        if fnmatch.fnmatchcase(tool_name, part):
            return True
    return False


def _command_fires(rule: Rule, commands: Sequence[Sequence[str]]) -> bool:
    """Whether a command rule names one of ``commands`` (and, with args, one argument)."""
    try:
        name_program = compile_pattern(rule.command)
        args_program = compile_pattern(rule.args) if rule.args else None
    except re2.error:
        return False
    for words in commands:
        at = command_index(list(words))
        if at >= len(words):
            continue
        if name_program.fullmatch(_matchable(words[at].rsplit("/", 1)[-1])) is None:
            continue
        if args_program is None:
            return True
        for word in words[at + 1 :]:
            if word == "--":
                break
            if word.startswith("-") or isinstance(word, Redirection):
                continue
            if args_program.fullmatch(_matchable(word)) is not None:
                return True
            if word == "help":
                break  # ``npm help install``: what follows is a topic, not what runs
    return False


def rule_fires(
    rule: Rule, tool_name: str, texts: Sequence[str], commands: Sequence[Sequence[str]] = ()
) -> bool:
    """Whether ``rule`` applies to a call of ``tool_name`` whose input holds ``texts``."""
    if not tool_matches(rule.tool, tool_name):
        return False
    if rule.command:
        return _command_fires(rule, commands)
    try:
        program = compile_pattern(rule.match)
    except re2.error:
        return False  # refused at write time; a hand-edited bad pattern never fires
    return any(program.search(_matchable(text)) is not None for text in texts)


def fired_rules(
    rules: Sequence[Rule],
    tool_name: str,
    texts: Sequence[str],
    commands: Sequence[Sequence[str]] = (),
) -> list[int]:
    """The indexes of the ``rules`` that fire for one call, in order.

    One program of all the candidate patterns answers the common case (nothing
    fires) with one compile and one search per text; only when it matches does
    an RE2 set name the rules that did. Compiling one pattern at a time costs
    about as much per pattern as the whole alternation does. Command rules
    are judged on ``commands``, the call's simple commands (Bash).
    """
    candidates = [i for i, rule in enumerate(rules) if tool_matches(rule.tool, tool_name)]
    by_command = [i for i in candidates if rules[i].command]
    hits = {i for i in by_command if _command_fires(rules[i], commands)}
    candidates = [i for i in candidates if not rules[i].command]
    if candidates and texts:
        readable = [_matchable(text) for text in texts]
        hits.update(_pattern_hits(rules, candidates, tool_name, readable))
    return sorted(hits)


def _matchable(text: str) -> str:
    """``text`` as RE2 takes it: a lone surrogate (a JSON ``\\ud800``; UTF-8 cannot hold
    it, and RE2 would raise) becomes U+FFFD, so a call holding one is still judged."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return text


def _pattern_hits(
    rules: Sequence[Rule], candidates: list[int], tool_name: str, texts: Sequence[str]
) -> list[int]:
    try:
        combined = compile_pattern("|".join(f"(?:{rules[i].match})" for i in candidates))
        if not any(combined.search(text) is not None for text in texts):
            return []
        found = re2.Set.SearchSet(_options())
        for i in candidates:
            found.Add(rules[i].match)
        found.Compile()
        hits = {j for text in texts for j in (found.Match(text) or ())}
    except re2.error:
        # A pattern that slipped past validation: judge each rule on its own.
        return [i for i in candidates if rule_fires(rules[i], tool_name, texts)]
    return [candidates[j] for j in sorted(hits)]


def stronger(a: Action, b: Action) -> Action:
    """The stronger of two actions: deny over ask over warn."""
    return a if ACTIONS.index(a) <= ACTIONS.index(b) else b
