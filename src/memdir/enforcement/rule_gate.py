"""Whether any enforced rule could fire on a tool call, told before a regex engine loads.

Most tool calls break no rule, and the pre-tool-use hook runs on every one:
loading RE2 (and, through it, ``re`` and ``enum``) costs that hook more than
everything else it does. So the hook first asks :func:`may_fire`, which
reads no pattern with a regex engine: from each rule's pattern it takes the
texts one of which every match must contain (:func:`required_texts`), and a
rule whose texts appear in none of the call's subjects (the very texts the
rule is matched against, from :mod:`memdir.enforcement.rule_subjects`) cannot
fire. Only when some rule might does the hook load the rules and RE2.

The answer may say "might" for a call no rule fires on (the rules then
decide, at the usual cost), but never "cannot" for one a rule fires on: a
pattern this module does not fully understand (a flag group, an escape it
does not know, an alternative with no fixed text) counts as matching
everything.
"""

from __future__ import annotations

from memdir.enforcement.pattern_scan import class_end, tokens
from memdir.enforcement.rule_subjects import bash_subjects, subjects, unchecked

TYPE_CHECKING = False  # the pre-tool-use hook loads this module: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from typing import Any

    Gate = list[list[Any]]

__all__ = ["gate_of", "may_fire", "may_fire_by", "required_runs", "required_texts"]

_GLOB = frozenset("*?[")
_ZERO_WIDTH_ESCAPES = frozenset("bBAz")  # assertions: they consume no character
_QUANTIFIERS = frozenset("*?+")


def required_texts(pattern: str) -> tuple[str, ...] | None:
    """Texts one of which every match of the RE2 ``pattern`` contains; None: unknown.

    One text per top-level alternative: the longest run of plain characters
    it must match in a row.
    """
    runs = required_runs(pattern)
    if runs is None or not all(runs):
        return None  # an alternative with no fixed text: it could match anywhere
    return tuple(max(found, key=len) for found in runs)


def required_runs(pattern: str) -> list[list[str]] | None:
    """For each top-level alternative of ``pattern``, the runs of plain characters
    every match of it contains, in order (``[]``: none known); None when the pattern's
    groups do not balance."""
    alternatives = _split_alternatives(pattern)
    if alternatives is None:
        return None
    return [_runs(alternative) for alternative in alternatives]


def _structure(pattern: str, i: int = 0) -> Iterator[tuple[int, str]]:
    """The ``(``, ``)`` and ``|`` of ``pattern`` from ``i`` on, with their indexes.

    Escaped characters and character classes are skipped; a class that never
    closes raises :class:`ValueError`.
    """
    n = len(pattern)
    for start, end in tokens(pattern, i):
        c = pattern[start]
        if c == "[" and end > n:
            raise ValueError("a character class that never closes")
        if c in "()|":
            yield start, c


def _split_alternatives(pattern: str) -> list[str] | None:
    """``pattern`` cut at its top-level ``|``; None when its groups do not balance."""
    parts, start, depth = [], 0, 0
    try:
        for i, c in _structure(pattern):
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth < 0:
                    return None
            elif depth == 0:
                parts.append(pattern[start:i])
                start = i + 1
    except ValueError:
        return None
    if depth:
        return None
    parts.append(pattern[start:])
    return parts


def _group_end(pattern: str, i: int) -> int | None:
    """The index just past the group opening at ``i``."""
    depth = 0
    try:
        for j, c in _structure(pattern, i):
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    return j + 1
    except ValueError:
        return None
    return None


def _repeat_end(pattern: str, i: int) -> int | None:
    """The index just past ``{n}``, ``{n,}`` or ``{n,m}`` at ``i``; None if it is not one."""
    close = pattern.find("}", i)
    if close < 0:
        return None
    low, _, high = pattern[i + 1 : close].partition(",")
    if not low.isdigit() or not low.isascii() or (high and not high.isdigit()):
        return None
    return close + 1


def _runs(alternative: str) -> list[str]:
    """The texts ``alternative`` matches character for character, each in a row.

    Anything not understood ends the scan (what follows it is not read):
    the runs found so far are still required.
    """
    runs: list[str] = []
    run: list[str] = []
    i, n = 0, len(alternative)

    def cut() -> None:
        if run:
            runs.append("".join(run))
            run.clear()

    while i < n:
        c = alternative[i]
        if c == "\\":
            escaped = alternative[i + 1 : i + 2]
            if escaped in _ZERO_WIDTH_ESCAPES and escaped:
                i += 2
                continue
            if not escaped or escaped.isalnum() or not escaped.isascii() or escaped == " ":
                break  # a class (\d), a code (\x41), a quote (\Q): its length is unknown here
            run.append(escaped)
            i += 2
        elif c in "^$":
            i += 1  # assertions
        elif c in _QUANTIFIERS or c == "{":
            end = i + 1 if c != "{" else _repeat_end(alternative, i)
            if end is None:
                break
            if run:
                run.pop()  # the atom before may repeat or be absent
            cut()
            i = end
        elif c == "(":
            if alternative.startswith("(?", i) and not alternative.startswith(("(?:", "(?P<"), i):
                return []  # flags ((?i) and the like) change how what follows matches
            end = _group_end(alternative, i)
            if end is None:
                break
            cut()
            i = end
        elif c == "[":
            end = class_end(alternative, i)
            if end is None:
                break
            cut()
            i = end
        elif c in ".)|":
            cut()
            i += 1
        else:
            run.append(c)
            i += 1
    cut()
    return runs


def _tool_may_match(spec: str, tool_name: str) -> bool:
    """Whether ``spec`` may name ``tool_name``: a glob is taken to name every tool."""
    for part in spec.split("|"):
        part = part.strip()
        if part and (part == tool_name or not _GLOB.isdisjoint(part)):
            return True
    return False


def _texts_hit(texts: Sequence[str] | None, haystacks: Iterable[str]) -> bool:
    if texts is None:
        return True
    return any(text in haystack for haystack in haystacks for text in texts)


def gate_of(rules: Sequence[Mapping[str, Any]]) -> Gate:
    """What :func:`may_fire_by` reads of ``rules`` (as cached: ``tool``, ``match`` or
    ``command``): ``[tool, "command" | "match", texts]`` for each, texts as
    :func:`required_texts` gives them (None: unknown). The rule cache keeps it beside
    the rules (:func:`memdir.enforcement.rule_cache.header_gate`), so that a call derives no
    pattern's texts."""
    gate: Gate = []
    for rule in rules:
        tool = rule.get("tool")
        if not isinstance(tool, str):
            continue
        name = rule.get("command")
        if isinstance(name, str) and name:
            texts = required_texts(name)
            gate.append([tool, "command", None if texts is None else list(texts)])
            continue
        match = rule.get("match")
        texts = required_texts(match) if isinstance(match, str) else None
        gate.append([tool, "match", None if texts is None else list(texts)])
    return gate


def may_fire(
    rules: Sequence[Mapping[str, Any]], tool_name: str, tool_input: Mapping[str, Any]
) -> bool:
    """Whether any of ``rules`` (as cached: ``tool``, ``match`` or ``command``) might fire.

    False only when none can: the call then needs no rule engine at all.
    """
    return may_fire_by(gate_of(rules), tool_name, tool_input)


def may_fire_by(gate: Gate, tool_name: str, tool_input: Mapping[str, Any]) -> bool:
    """:func:`may_fire`, from the rules' :func:`gate_of`."""
    candidates = [entry for entry in gate if _tool_may_match(entry[0], tool_name)]
    if not candidates:
        return False
    if unchecked(tool_name, tool_input):
        return True  # too long to read: the rules hand it to the user
    command = tool_input.get("command") if tool_name == "Bash" else None
    if isinstance(command, str):
        texts, commands = bash_subjects(command)
        words = [word for words in commands for word in words]
    else:
        texts, words = subjects(tool_name, tool_input), []
    for _, kind, needed in candidates:
        if _texts_hit(needed, words if kind == "command" else texts):
            return True
    return False
