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
memory is written (:func:`validate_memory_rules`, called by the store), and
refused with the reason when RE2 cannot compile them (backreferences,
lookaround), when they hold control characters or line breaks (frontmatter
would not keep them as written), when they are too long or compile to too large a program, when
they match the empty string (the rule would fire on every call), or when they
nest unbounded repeats (``(a+)+``): harmless to RE2 but catastrophic for the
backtracking engines (``grep -P``, Python's ``re``, JavaScript) other tools
reading the same memory may run them with.

A rule that can never fire is refused when written too (:func:`never_fires`):
a tool no host reports (``bash``, ``Shell``), a Bash pattern that needs
``|``, ``;``, ``&&`` or ``||`` between two commands (``curl .*\\| *sh``: a
rule sees ``curl …`` and ``sh`` apart), a command rule naming a path, two
words, an operator or a wrapper it looks through (``sudo``), or ``args``
that only match options (skipped). The error says what to write instead.
Such a rule already saved still loads (it never fires); ``memdir enforce
list`` marks it.

This module is pure: it reads no files. Loading the rules of a project (and
caching them by the files' mtimes) is :mod:`memdir.enforcement.enforced`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from functools import lru_cache

import re2

from memdir.enforcement.rule_gate import required_runs
from memdir.enforcement.rule_subjects import EDIT_TOOLS, bash_subjects, subjects, unchecked
from memdir.enforcement.shell_forms import RESERVED_WORDS, WRAPPER_NAMES
from memdir.enforcement.shell_words import Redirection, command_index
from memdir.errors import InvalidMemory
from memdir.kinds import MemoryType
from memdir.utils.records import record

# The pre-tool-use hook loads this module on every tool call: no typing, no
# dataclasses, no model at run time (type checkers read this block).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    from memdir.model import Memory

    Action = Literal["deny", "ask", "warn"]
else:
    Action = str

__all__ = [
    "ACTIONS",
    "EDIT_TOOLS",
    "FIELD",
    "KNOWN_TOOLS",
    "MAX_PATTERN_CHARS",
    "Action",
    "Rule",
    "bash_subjects",
    "compile_pattern",
    "fired_rules",
    "never_fires",
    "parse_rule",
    "parse_rules",
    "pattern_problem",
    "rule_fires",
    "stronger",
    "subjects",
    "tool_matches",
    "unchecked",
    "validate_memory_rules",
    "why_line",
]

FIELD = "enforce"
ACTIONS: tuple[Action, ...] = ("deny", "ask", "warn")  # strongest first
MAX_PATTERN_CHARS = 500
MAX_RULES = 20
_MAX_PROGRAM = 5000  # RE2 program size: a bound on the memory a match may use
_GLOB = frozenset("*?[")
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
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        unbounded_here = False
        if c == "\\":
            i += 2
            closed_unbounded = False
            continue
        if c == "[":
            i = _skip_class(pattern, i)
            closed_unbounded = False
            continue
        if c == "(":
            stack.append(False)
        elif c == ")":
            inner = stack.pop() if stack else False
            closed_unbounded = inner
            if stack and inner:
                stack[-1] = True
            i += 1
            continue
        elif c in "*+" or (c == "{" and _open_brace(pattern, i)):
            if closed_unbounded:
                return True
            unbounded_here = True
        if unbounded_here and stack:
            stack[-1] = True
        closed_unbounded = False
        i += 1
    return False


def _skip_class(pattern: str, i: int) -> int:
    """The index after the character class starting at ``pattern[i] == '['``."""
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j + 1


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


# --- rules that can never fire ----------------------------------------------------------

# The tools the hosts memdir enforces in report to hooks (Claude Code, Codex CLI,
# Gemini CLI), besides MCP tools (``mcp__<server>__<tool>``, Gemini's ``mcp_<server>_<tool>``).
KNOWN_TOOLS = frozenset(
    {
        "Agent", "AskUserQuestion", "Bash", "BashOutput", "Edit", "EnterPlanMode",
        "EnterWorktree", "ExitPlanMode", "Glob", "Grep", "KillBash", "KillShell", "LS", "LSP",
        "ListMcpResourcesTool", "MultiEdit", "NotebookEdit", "NotebookRead", "Read",
        "ReadMcpResourceTool", "SlashCommand", "Skill", "Task", "TaskOutput", "TaskStop",
        "TodoWrite", "ToolSearch", "WebFetch", "WebSearch", "Write",
        "apply_patch", "shell", "local_shell", "exec_command", "write_stdin", "update_plan",
        "view_image", "web_search",
        "run_shell_command", "write_file", "replace", "read_file", "read_many_files",
        "list_directory", "glob", "search_file_content", "web_fetch", "google_web_search",
        "save_memory", "write_todos",
    }
)  # fmt: skip
_MCP_SAMPLES = ("mcp__server__tool", "mcp_server_tool")
_OPERATOR_CHARS = frozenset("|;&<>()")
_EDGE_REPEATS = (".*", ".+", r"\s*", r"\s+", " *", " +", " ?", "\\b", " ")


def never_fires(rule: Rule) -> tuple[str, str] | None:
    """Why ``rule`` can never fire, and what to write instead; None when it can.

    A tool no host has; a Bash ``match`` that needs a shell operator between two
    commands (a rule sees one simple command at a time); a command rule whose
    command cannot be a command's name (a path, two words, an operator, a
    wrapper such as ``sudo``, which is looked through) or whose ``args`` only
    match options (which are skipped).
    """
    found = _tool_nowhere(rule.tool)
    if found is None and rule.command:
        found = _command_nowhere(rule.command) or _args_nowhere(rule.command, rule.args)
    elif found is None and all(part.strip() == "Bash" for part in rule.tool.split("|")):
        found = _across_commands(rule.match)
    return found


def _known_tool(name: str) -> bool:
    if name in KNOWN_TOOLS or name.startswith("mcp_"):
        return True
    if _GLOB.isdisjoint(name):
        return False
    import fnmatch

    return any(fnmatch.fnmatchcase(tool, name) for tool in (*KNOWN_TOOLS, *_MCP_SAMPLES))


def _tool_nowhere(spec: str) -> tuple[str, str] | None:
    unknown = [part.strip() for part in spec.split("|") if not _known_tool(part.strip())]
    if not unknown:
        return None
    name = unknown[0]
    close = _closest_tool(name)
    guess = f"tool: {close}" if close else "tool: Bash, Edit|Write, Read or mcp__<server>__<tool>"
    return (
        f"the tool {name!r} is no tool Claude Code, Codex CLI or Gemini CLI reports",
        f"name a tool as the host reports it ({guess}), or a glob (mcp__*, *)",
    )


def _closest_tool(name: str) -> str | None:
    for tool in sorted(KNOWN_TOOLS):
        if tool.lower() == name.lower():
            return tool
    import difflib

    found = difflib.get_close_matches(name, sorted(KNOWN_TOOLS), n=1, cutoff=0.75)
    return found[0] if found else None


def _all_need(pattern: str, needs: Any) -> str | None:
    """What every top-level alternative of ``pattern`` needs (``needs(run)`` of one of
    its required runs), when each needs something; else None."""
    runs = required_runs(pattern)
    if not runs:
        return None
    found = None
    for alternative in runs:
        found = next((n for n in map(needs, alternative) if n is not None), None)
        if found is None:
            return None
    return found


def _operator_in(run: str) -> str | None:
    """The shell operator that joins two commands in ``run``, if any."""
    if "&&" in run:
        return "&&"
    at = run.find("|")
    while at >= 0:
        if at == 0 or run[at - 1] not in "><":  # ``>|`` is a redirection
            return "||" if run.startswith("||", at) else "|"
        at = run.find("|", at + 1)
    at = run.find(";")
    if at >= 0:  # ``\;`` ends find's -exec: an operator only when a command follows
        after = run[at + 1 :].lstrip(" ")
        if after and (after[0].isalnum() or after[0] in "_./$"):
            return ";"
    return None


def _across_commands(written: str) -> tuple[str, str] | None:
    pattern = _plain_operators(written)
    operator = _all_need(pattern, _operator_in)
    if operator is None:
        return None
    why = (
        f"it needs `{operator}` between two commands, but a Bash rule sees one simple "
        f"command at a time (in `a {operator} b` it sees `a`, then `b`)"
    )
    alternatives = required_runs(pattern) or []
    left, right = ("", "")
    if len(alternatives) == 1:  # the sides as written when the operator is, else made plain
        left, right = _split_pattern(written, operator)
        if not (left and right):
            left, right = _split_pattern(pattern, operator)
    if not (left and right):
        return why, "write one rule per command instead (a match rule for each side)"
    instead = f"write one rule per command instead: match: '{left}' and match: '{right}'"
    if operator == "|":
        instead += f", or a command rule for the pipe's target: command: '{right}'"
    return why, instead


# Other spellings of an operator and of the blanks around it, read as the plain ones so
# that ``curl\s*[|]\s*sh`` needs a ``|`` as ``curl *\| *sh`` does.
_ESCAPES_AS = {
    "s": " ", "x7c": "\\|", "x7C": "\\|", "x{7c}": "\\|", "x{7C}": "\\|",
    "x3b": ";", "x3B": ";", "x{3b}": ";", "x{3B}": ";", "x26": "&", "x{26}": "&",
    # a class escape as a class: what follows it is still read (``curl\S+ *\| *sh``)
    "S": "[\\S]", "d": "[\\d]", "D": "[\\D]", "w": "[\\w]", "W": "[\\W]",
}  # fmt: skip
_CLASSES_AS = {
    "[|]": "\\|", "[;]": ";", "[&]": "&", "[ ]": " ", "[[:space:]]": " ", "[[:blank:]]": " ",
    "[ \\t]": " ", "[\\t ]": " ",
}  # fmt: skip
_OPTIONAL_BLANKS = ("; *", "; +", "; ?")  # after ``;``: one blank stands for them


def _plain_operators(pattern: str) -> str:
    """``pattern`` with the other spellings of operators and blanks made plain (for
    :func:`_across_commands` only: the rule keeps its pattern)."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        spellings = _ESCAPES_AS if c == "\\" else _CLASSES_AS if c == "[" else None
        start = i + 1 if c == "\\" else i
        found = next((k for k in spellings or () if pattern.startswith(k, start)), None)
        if found is not None:
            out.append(_ESCAPES_AS[found] if c == "\\" else _CLASSES_AS[found])
            i = start + len(found)
        elif c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
        elif c == "[":
            end = _skip_class(pattern, i)
            out.append(pattern[i:end])
            i = end
        else:
            out.append(c)
            i += 1
    plain = "".join(out)
    for blanks in _OPTIONAL_BLANKS:
        plain = plain.replace(blanks, "; ")
    return plain


_OPERATOR_FORMS = {
    "|": ("\\|", "[|]", "\\x7c", "\\x7C"),
    "||": ("\\|\\|", "[|][|]"),
    "&&": ("&&", "\\&\\&", "[&][&]"),
    ";": (";", "\\;", "[;]"),
}


def _split_pattern(pattern: str, operator: str) -> tuple[str, str]:
    """``pattern`` cut at its first top-level ``operator`` (each side trimmed of the
    blanks and wildcards that stood next to it), or ``("", "")``."""
    forms = _OPERATOR_FORMS[operator]
    depth, i, n = 0, 0, len(pattern)
    while i < n:
        form = next((f for f in forms if pattern.startswith(f, i)), None) if not depth else None
        if form is not None:
            left, right = _trimmed(pattern[:i], end=True), _trimmed(pattern[i + len(form) :])
            usable = [side for side in (left, right) if side and pattern_problem(side) is None]
            return (left, right) if len(usable) == 2 else ("", "")
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = _skip_class(pattern, i)
            continue
        depth += 1 if c == "(" else -1 if c == ")" else 0
        i += 1
    return "", ""


def _trimmed(side: str, *, end: bool = False) -> str:
    """``side`` without the blanks and wildcards next to the cut."""
    while True:
        for edge in _EDGE_REPEATS:
            if end and side.endswith(edge) and not side.endswith("\\" + edge):
                side = side[: -len(edge)]
                break
            if not end and side.startswith(edge):
                side = side[len(edge) :]
                break
        else:
            return side


def _name_problem(run: str) -> str | None:
    if "/" in run:
        return "/"
    if any(c.isspace() for c in run):
        return " "
    return next((c for c in run if c in _OPERATOR_CHARS), None)


def _command_nowhere(command: str) -> tuple[str, str] | None:
    found = _all_need(command, _name_problem)
    if found == "/":
        last = command.rsplit("/", 1)[-1]
        return (
            "a command rule compares the command's name without its folder "
            "(`/usr/bin/npm install` runs `npm`), so a name with a `/` never matches",
            f"write the name alone: command: '{last}'",
        )
    if found == " ":
        name, _, args = command.strip().partition(" ")
        apart = f"command: '{name}', args: '{args.strip()}'" if args else f"command: '{name}'"
        return (
            "a command rule's command is one word, the command's name",
            f"name the command and one argument apart: {apart}",
        )
    if found is not None:
        return (
            f"it needs `{found}`, a shell operator, which is never a command's name",
            "name the command itself (command: 'curl'), one rule per command",
        )
    return _not_a_name(command)


def _not_a_name(command: str) -> tuple[str, str] | None:
    """Why ``command`` names no command the shell runs: a wrapper or reserved word (looked
    through), an option or an assignment (never a command's name); None: it may."""
    names = _literal_names(command.replace("\\", ""))
    if names and all(name in WRAPPER_NAMES or name in RESERVED_WORDS for name in names):
        name = names[0]
        match = f"\\b{name}\\b" if name.isalnum() else "^\\" + name
        return (
            f"`{name}` is looked through: a rule sees the command it runs "
            f"(`{name} npm install` is `npm install`)",
            f"to hold `{name}` itself back, write a match rule: match: '{match}'",
        )
    if all(alt.lstrip("^").startswith(("-", "\\-")) for alt in command.split("|")):
        return (
            "a command's name never starts with `-`: that is an option of the command before it",
            "name the command (command: 'rm'); an option is held back by a match rule "
            "(match: '\\brm\\b.*-rf')",
        )
    if _all_need(command, lambda run: "=" if "=" in run else None):
        return (
            "a word with `=` before a command assigns a variable; it is never the command's name",
            "name the command that runs after it (command: 'npm'), or write a match rule for "
            "the assignment (match: '\\bNAME=')",
        )
    return None


def _literal_names(pattern: str) -> list[str]:
    """The names a pattern of plain alternatives (``sudo|doas``) matches; ``[]``: not one."""
    names = pattern.removeprefix("^").removesuffix("$").split("|")
    plain = all(
        name in RESERVED_WORDS or (name and all(c.isalnum() or c in "_-" for c in name))
        for name in names
    )
    return names if plain else []


def _args_nowhere(command: str, args: str) -> tuple[str, str] | None:
    if not args:
        return None
    alternatives = [a.removeprefix("^") for a in args.split("|")]
    if required_runs(args) is None or not all(a.startswith(("-", "\\-")) for a in alternatives):
        return None
    option = alternatives[0].lstrip("\\")
    return (
        "a command rule skips options, so args that only match an option never match",
        f"write a match rule instead: match: '\\b{command}\\b.*{option}'",
    )


def validate_memory_rules(memory: Memory) -> tuple[Rule, ...]:
    """Check a memory's ``enforce:`` field before it is written; returns its rules.

    Only feedback memories carry rules: a rule is how a correction is held to.
    """
    if FIELD not in memory.extra:
        return ()
    if memory.type is not MemoryType.FEEDBACK:
        raise InvalidMemory(
            f"memory {memory.name!r} has enforce: rules but is not a feedback memory",
            hint="only feedback memories carry enforce: rules; change its type or drop them",
        )
    try:
        rules = parse_rules(memory.extra[FIELD])
    except InvalidMemory as exc:
        raise InvalidMemory(f"memory {memory.name!r}: {exc.message}", hint=exc.hint) from None
    for index, rule in enumerate(rules):
        dead = never_fires(rule)
        if dead is not None:
            why, instead = dead
            raise InvalidMemory(
                f"memory {memory.name!r}: enforce rule {index + 1} ({rule.summary}) can never "
                f"fire: {why}",
                hint=instead,
            )
    return rules


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
        if _GLOB.isdisjoint(part):
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
