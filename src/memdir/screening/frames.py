"""Forged frames: text that poses as the structure around it rather than as content.

A recalled memory reaches the model inside memdir's ``<memory …>`` fence, in a
prompt that has turns, a system part and tool results. Text that writes one of
those frames can end the memory early and speak as someone else. These rules
look, in the folded text (:func:`~memdir.screening.normalize.fold`, line breaks
kept: zero-width characters and fullwidth brackets do not hide a tag), for:

- memdir's own markers: a ``<memory`` or ``</memory`` tag, the recall heading,
  an ``AGENTS.md`` section marker;
- chat frames: ``<system>``-like tags, a model's special tokens (``<|im_start|>``,
  ``[INST]``, ``<<SYS>>``), a heading or label that names a role (``### System:``,
  ``SYSTEM NOTE:``), turn markers (``Human:`` / ``Assistant:`` lines);
- a forged tool result (``<function_results>``, ``"type": "tool_result"``,
  ``[tool output]``) or a line announcing the end of the content.

An angle-bracket placeholder (``<service>``, ``<env>``) is none of these, nor is
a single ``System:`` or ``Assistant:`` label (a machine's OS, a person's
assistant): turns take a ``Human:`` or two roles. A chat frame quoted in a text
that discusses such frames (:func:`~memdir.screening.context.is_mention`) is a
mention; memdir's own fences are held even then.

The patterns run on RE2, so their time is linear in the text whatever it holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from memdir.screening.context import is_mention
from memdir.screening.findings import Hit, Kind
from memdir.screening.normalize import Folded, fold

__all__ = ["FRAME_RULES", "frame_hits"]

_ROLE = r"(?:system|assistant|human|user|developer)"
FRAME_RULES: tuple[tuple[str, str, str], ...] = (
    ("frame.memory-fence", "a memdir memory fence", r"<\s*/?\s*memory\b"),
    ("frame.memdir-marker", "a memdir section marker", r"<!--\s*memdir\s*:"),
    ("frame.recall-heading", "memdir's recall heading", r"memories recalled for this request"),
    (
        "frame.role-tag",
        "a chat role tag",
        r"<\s*/?\s*(?:system(?:[-_ ]?(?:prompt|message|reminder|instructions?))?|instructions"
        r"|im_start|im_end|human|assistant|developer(?:_message)?"
        r"|user_(?:input|message|query|instructions))\s*(?:\s[^<>\n]{0,80})?>",
    ),
    (
        "frame.tool-result",
        "a forged tool result",
        r"<\s*/?\s*(?:function_results|function_calls|tool_results?|tool_use|tool_calls?"
        r"|invoke|antml:[a-z_]+)\b|\"type\"\s*:\s*\"tool_(?:result|use)\""
        r"|(?m:^)\s*\[?\s*(?:tool|function)[ _-]?(?:result|output|response)s?\s*\]?\s*:"
        r"|\[\s*(?:tool|function)[ _-]?(?:result|output|response)s?\s*\]",
    ),
    ("frame.special-token", "a model's special token", r"<\|[a-z_]{2,30}\|>|\[/?inst\]|<</?sys>>"),
    (
        "frame.role-label",
        "a label that names a role",
        r"\[\s*(?:system|sys|developer|assistant)(?:\s+(?:note|message|notice|prompt|override"
        r"|instructions?|update|alert))?\s*\]"
        r"|(?m:^)\s*(?:system|developer|admin|administrator)\s+(?:message|note|notice|prompt"
        r"|override|instructions?|update|alert)s?\s*:",
    ),
    (
        "frame.role-heading",
        "a heading that names a role",
        rf"(?m:^)\s{{0,3}}#{{1,6}}\s*{_ROLE}(?:\s+(?:prompt|message|note|notice|instructions?"
        rf"|override|turn))?\s*:|(?m:^)\s{{0,3}}#{{1,6}}\s*{_ROLE}\s+(?:prompt|message"
        rf"|instructions|override|turn)[ \t]*(?m:$)",
    ),
    (
        "frame.end-marker",
        "a line that announces the end of the content",
        r"(?m:^)[\s\-=#*\[<>(]*(?:end|start|beginning)\s+of\s+(?:the\s+)?(?:memory|memories"
        r"|memdir|document|context|untrusted\s+\w+|tool\s+(?:output|result)|user\s+(?:data"
        r"|input|content)|data|system\s+prompt|conversation)\b[ \t\-=#*\]>)]*(?m:$)",
    ),
)
# A chat frame quoted in a note about such frames ("the sanitizer escapes '<system>'") is
# a mention; memdir's own fences and headings are never quoted harmlessly.
_MENTIONABLE = frozenset(
    {"frame.role-tag", "frame.tool-result", "frame.special-token", "frame.role-label"}
)
_TRIES = 32
_TURN = r"(?m:^)\s*(human|assistant|user|ai|system)\s*:"
_SHOUTED = (
    r"(?m:^)\s*(?:SYSTEM|ADMIN|DEVELOPER|ASSISTANT)(?:\s+(?:MESSAGE|NOTE|NOTICE|PROMPT"
    r"|OVERRIDE|INSTRUCTIONS?|UPDATE|ALERT))?\s*:"
)


@cache
def _compiled() -> tuple[list[tuple[str, str, Any]], Any, Any]:
    import re2

    rules = [(rule, reason, re2.compile(pattern)) for rule, reason, pattern in FRAME_RULES]
    return rules, re2.compile(_TURN), re2.compile(_SHOUTED)


def _hit(rule: str, reason: str, folded: Folded, start: int, end: int) -> Hit:
    """A hit placed back in the text as written."""
    first = folded.origin(start)
    last = folded.origin(max(start, end - 1))
    return Hit(kind=Kind.FRAME, rule=rule, reason=reason, start=first, end=last + 1)


def frame_hits(text: str) -> Iterator[Hit]:
    """The forged frames in ``text`` (each rule once)."""
    rules, turn, shouted = _compiled()
    folded = fold(text, flat=False)
    for rule, reason, pattern in rules:
        for tries, match in enumerate(pattern.finditer(folded.text)):
            start, end = match.start(), match.end()
            quoted = rule in _MENTIONABLE and tries < _TRIES
            if quoted and is_mention(folded.text, start, end):
                continue
            yield _hit(rule, reason, folded, start, end)
            break
    roles = [(m.start(), m.end(), m.group(1)) for m in turn.finditer(folded.text)]
    names = {name for _, _, name in roles}
    if "human" in names or ("assistant" in names and len(names) > 1):
        start, end, _ = roles[0]
        yield _hit("frame.turns", "chat turn markers", folded, start, end)
    loud = shouted.search(text)
    if loud is not None:
        reason = "an all-capitals role label"
        yield Hit(kind=Kind.FRAME, rule="frame.shouted-role", reason=reason,
                  start=loud.start(), end=loud.end())  # fmt: skip
