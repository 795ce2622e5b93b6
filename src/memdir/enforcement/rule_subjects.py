"""The texts of a tool call that enforced rules are matched against.

Kept apart from :mod:`memdir.enforcement.rules` (which loads RE2) so that
:mod:`memdir.enforcement.rule_gate` can look at the same texts before any regex
engine is loaded: what a rule is searched in is defined once, here.
"""

from __future__ import annotations

# The same class as collections.abc.Mapping, from the module os has already loaded:
# importing collections costs the pre-tool-use hook more than reading the call.
from _collections_abc import Mapping

from memdir.enforcement.shell_words import MAX_CHARS, Redirection, split_commands

TYPE_CHECKING = False  # the pre-tool-use hook loads this module: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

__all__ = ["EDIT_TOOLS", "bash_subjects", "subjects", "unchecked"]

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
# Blanks inside one word (a quoted argument) are kept apart from the blanks between words.
_INNER_BLANKS = dict.fromkeys(map(ord, " \t\n\r\f\v"), "\x1f")


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif depth < 4 and isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item, depth + 1)
    elif depth < 4 and isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, depth + 1)


def subjects(tool_name: str, tool_input: Mapping[str, Any]) -> list[str]:
    """The texts a rule's pattern is searched in for one tool call.

    Bash: each simple command the shell would run (:func:`bash_subjects`).
    Edit tools: the file path and the new content. Other tools: every text
    value of their input. Texts are searched whole: RE2 is linear.
    """
    if tool_name == "Bash":
        command = tool_input.get("command")
        return bash_subjects(command)[0] if isinstance(command, str) else []
    if tool_name in EDIT_TOOLS:
        keys = ("file_path", "notebook_path", "content", "new_string", "new_source")
        found = [tool_input.get(k) for k in keys]
        edits = tool_input.get("edits")
        if isinstance(edits, list):
            found += [e.get("new_string") for e in edits if isinstance(e, Mapping)]
    else:
        found = list(_strings(tool_input))
    return [s for s in found if isinstance(s, str) and s]


def bash_subjects(command: str) -> tuple[list[str], list[list[str]]]:
    """A Bash command's texts for patterns and its simple commands' words.

    Each simple command is one text, its words joined by single spaces (the
    blanks inside a word read as ``\\x1f``, so no pattern crosses them); one with
    redirections is a second text without them. When the command could not be
    read whole (an open quote, deep nesting), the text as written is searched
    too: what the shell would refuse to run may still be what a rule is about.
    """
    commands, complete = split_commands(command)
    texts = []
    for words in commands:
        texts.append(" ".join(word.translate(_INNER_BLANKS) for word in words))
        if any(type(word) is Redirection for word in words):
            # ``npm>/dev/null install`` runs ``npm install``: a pattern is searched in that too.
            kept = (word for word in words if type(word) is not Redirection)
            texts.append(" ".join(word.translate(_INNER_BLANKS) for word in kept))
    if not complete and len(command) <= MAX_CHARS:
        texts.append(command)
    return texts, commands


def unchecked(tool_name: str, tool_input: Mapping[str, Any]) -> int:
    """The length of an input the rules cannot check (a command line past the limit), or 0."""
    command = tool_input.get("command") if tool_name == "Bash" else None
    return len(command) if isinstance(command, str) and len(command) > MAX_CHARS else 0
