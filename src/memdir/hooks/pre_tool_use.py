"""The PreToolUse answer: which feedback rules a tool call breaks, in the host's shape.

Claude Code runs the PreToolUse hook with ``{"tool_name": ..., "tool_input":
{...}, "cwd": ..., ...}`` on stdin before every tool call; Codex CLI sends the
same, and Gemini CLI's BeforeTool hook the same fields under its own tool names.
:func:`decide` finds the rules that fire (see :mod:`memdir.enforcement.rules`);
the strongest action wins (deny over ask over warn); :func:`decide_calls` does
so over the several calls one host call may stand for (a Codex patch of several
files, a Gemini tool and the Claude Code tool it stands for:
:mod:`memdir.hooks.dialects`). :func:`pre_tool_use_output` answers:

- deny / ask: ``{"hookSpecificOutput": {"hookEventName": "PreToolUse",
  "permissionDecision": "deny" | "ask", "permissionDecisionReason": ...}}``, or
  for a host that reads a top-level decision (Gemini) ``{"decision": "deny",
  "reason": ...}``; the reason names each memory and quotes its **Why** line, so
  the agent corrects course (the host hands the agent the reason) instead of
  retrying;
- warn: no permission decision at all (the call goes on through the normal
  permission flow), the reason as ``additionalContext`` for the agent and as
  ``systemMessage`` for the user; Gemini gives the agent a warning only with the
  call's result, so its AfterTool hook answers the warning again there;
- nothing fired: no output.

memdir never answers ``allow``: a memory can hold a call back, it can never
let one through that the user's own settings would stop. A host whose hooks
cannot ask (Codex, Gemini) gets a deny where a rule asks, its reason saying why
(:attr:`~memdir.hooks.dialects.Dialect.can_ask`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memdir.enforcement.enforced import EnforcedRule
from memdir.enforcement.rules import (
    Action,
    bash_subjects,
    fired_rules,
    stronger,
    subjects,
    tool_matches,
    unchecked,
)
from memdir.enforcement.shell_words import MAX_CHARS
from memdir.hooks.dialects import AFTER_TOOL, DEFAULT_HOST, DIALECTS, Dialect
from memdir.hooks.permission import permission_json
from memdir.utils.json_text import dumps
from memdir.utils.records import record

TYPE_CHECKING = False  # the pre-tool-use hook loads this module: no typing at run time
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Decision", "decide", "decide_calls", "pre_tool_use_output", "reason_text"]

_MAX_REASON_CHARS = 2000


@record
class Decision:
    """What the rules say about one tool call: the action (None: nothing fired) and why."""

    tool_name: str
    action: Action | None
    fired: tuple[EnforcedRule, ...]
    unchecked: int = 0  # the length of an input too long for the rules to read, or 0

    @property
    def reason(self) -> str:
        """The text the agent (and the user, for ask) reads."""
        text = reason_text(self.fired, self.action)
        if self.unchecked and text:
            text = (
                f"This command is {self.unchecked:,} characters long, past the {MAX_CHARS:,} "
                f"memdir's rules read, so they could not check it. {text}"
            )
        return text


def decide(
    rules: Sequence[EnforcedRule], tool_name: str, tool_input: Mapping[str, Any]
) -> Decision:
    """The rules among ``rules`` that fire for this call, and the strongest action."""
    command = tool_input.get("command") if tool_name == "Bash" else None
    commands: list[list[str]] = []
    if isinstance(command, str):
        texts, commands = bash_subjects(command)
    else:
        texts = subjects(tool_name, tool_input)
    hits = fired_rules([r.rule for r in rules], tool_name, texts, commands)
    fired = tuple(rules[i] for i in hits)
    action: Action | None = None
    for found in fired:
        action = found.rule.action if action is None else stronger(action, found.rule.action)
    too_long = unchecked(tool_name, tool_input)
    if too_long and action != "deny":
        # Past what the rules read: never let it through unread when a rule covers the tool.
        covering = tuple(r for r in rules if tool_matches(r.rule.tool, tool_name))
        if covering:
            held = any(r.rule.action != "warn" for r in covering)
            action = "ask" if held else "warn"
            fired = fired or covering
    return Decision(tool_name=tool_name, action=action, fired=fired, unchecked=too_long)


def decide_calls(
    rules: Sequence[EnforcedRule], calls: Sequence[tuple[str, Mapping[str, Any]]]
) -> Decision:
    """:func:`decide` over ``calls``, the first of them the host's own: the strongest
    action of any, each fired rule named once, in the order found."""
    decisions = [decide(rules, name, tool_input) for name, tool_input in calls]
    first = decisions[0]
    if len(decisions) == 1:
        return first
    action: Action | None = None
    fired: list[EnforcedRule] = []
    for decision in decisions:
        if decision.action is not None:
            action = decision.action if action is None else stronger(action, decision.action)
        fired += [found for found in decision.fired if found not in fired]
    unread = max(decision.unchecked for decision in decisions)
    return Decision(tool_name=first.tool_name, action=action, fired=tuple(fired), unchecked=unread)


# What each rule does, in its own words: a call several rules catch is named once per
# rule, each with its own action, whichever action won.
_DOES = {"deny": "forbids this", "ask": "asks before this", "warn": "warns about this"}


def _one(found: EnforcedRule) -> str:
    # The name and Why line are the memory's words (a teammate's, perhaps): quoted, so
    # they read as what the memory says, never as memdir's own instruction.
    # The quoted words end the sentence when they end in a stop of their own.
    stop = "" if found.why.rstrip().endswith((".", "!", "?")) else "."
    why = f" The memory's words on why: {_quoted(found.why)}{stop}" if found.why else ""
    return (
        f"feedback memory {_quoted(found.name)} ({found.ref}, {found.scope.value}) "
        f"{_DOES[found.rule.action]} ({found.rule.summary}).{why}"
    )


def _quoted(text: str) -> str:
    """``text`` in double quotes that nothing inside it can end."""
    return '"' + text.replace('"', "'").replace("<", "&lt;") + '"'


def reason_text(fired: Sequence[EnforcedRule], action: Action | None) -> str:
    """The reason for ``action``: each fired memory's name and Why line, then what to do."""
    if not fired or action is None:
        return ""
    lead = {
        "deny": "memdir blocked this call:",
        "ask": "memdir asks before this call:",
        "warn": "memdir warning about this call:",
    }[action]
    advice = {
        "deny": "Do not retry it: follow the memory instead, or ask the user to change it.",
        "ask": "The user decides; prefer what the memory says.",
        "warn": "Prefer what the memory says unless the user asked for this.",
    }[action]
    body = " ".join(_one(found) for found in fired)
    text = f"{lead} {body} {advice}"
    if len(text) > _MAX_REASON_CHARS:
        text = text[: _MAX_REASON_CHARS - 1].rstrip() + "…"
    return text


def pre_tool_use_output(
    decision: Decision, dialect: Dialect | None = None, event: object = None
) -> str:
    """The JSON to print for ``decision`` in ``dialect`` (default Claude Code's), or ``""``
    when no rule fired. ``event`` is the host's name of the hook's event: after the
    call (Gemini's :data:`~memdir.hooks.dialects.AFTER_TOOL`) only a warning is
    answered, for the model."""
    if decision.action is None:
        return ""
    dialect = dialect or DIALECTS[DEFAULT_HOST]
    reason = decision.reason
    action = decision.action
    if event == AFTER_TOOL:
        if action != "warn":
            return ""  # held before the call; a call that ran anyway is not undone by words
        context = {"hookEventName": AFTER_TOOL, "additionalContext": reason}
        return dumps({"hookSpecificOutput": context}, ensure_ascii=False)
    if action == "ask" and not dialect.can_ask:
        action = "deny"
        reason = (
            f"{reason} {dialect.label}'s hooks cannot ask the user, so memdir held this call: "
            "tell the user what you meant to run and why; they can run it themselves, or "
            "change the memory."
        )
    if action == "warn":
        output = {
            "systemMessage": reason,
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": reason},
        }
        return dumps(output, ensure_ascii=False)
    return permission_json(dialect, action, reason)
