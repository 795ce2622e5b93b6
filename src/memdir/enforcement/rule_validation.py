"""Rules refused when written: those that can never fire, and a memory's check.

:func:`validate_memory_rules` (called by the store before a memory is written)
parses a memory's ``enforce:`` field (:mod:`memdir.enforcement.rules`) and refuses
it when it is not a feedback memory's or when one of its rules can never fire.

A rule that can never fire is refused when written too (:func:`never_fires`):
a tool no host reports (``bash``, ``Shell``), a Bash pattern that needs
``|``, ``;``, ``&&`` or ``||`` between two commands (``curl .*\\| *sh``: a
rule sees ``curl …`` and ``sh`` apart), a command rule naming a path, two
words, an operator or a wrapper it looks through (``sudo``), or ``args``
that only match options (skipped). The error says what to write instead.
Such a rule already saved still loads (it never fires); ``memdir enforce
list`` marks it.

Like :mod:`memdir.enforcement.rules`, pure: it reads no files.
"""

from __future__ import annotations

from memdir.enforcement.pattern_scan import skip_class, tokens
from memdir.enforcement.rule_gate import required_runs
from memdir.enforcement.rules import FIELD, GLOB, Rule, parse_rules, pattern_problem
from memdir.enforcement.shell_forms import RESERVED_WORDS, WRAPPER_NAMES
from memdir.errors import InvalidMemory
from memdir.kinds import MemoryType

TYPE_CHECKING = False  # as in memdir.enforcement.rules: no typing at run time
if TYPE_CHECKING:
    from typing import Any

    from memdir.model import Memory

__all__ = ["KNOWN_TOOLS", "never_fires", "validate_memory_rules"]

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
    if GLOB.isdisjoint(name):
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
            end = skip_class(pattern, i)
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
    depth = 0
    for i, _ in tokens(pattern):
        form = next((f for f in forms if pattern.startswith(f, i)), None) if not depth else None
        if form is not None:
            left, right = _trimmed(pattern[:i], end=True), _trimmed(pattern[i + len(form) :])
            usable = [side for side in (left, right) if side and pattern_problem(side) is None]
            return (left, right) if len(usable) == 2 else ("", "")
        c = pattern[i]
        depth += 1 if c == "(" else -1 if c == ")" else 0
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
