"""What a screening check reports: a kind, the field, a short reason; never the text.

A :class:`Finding` names the field it was found in (``name``, ``description``,
``body``, ``field 'x'``, or ``name+body`` for text split across fields), the
1-based character where it starts in that field, the rule that fired and a
reason in a few words. It carries no part of the memory's text, so it can be
stored with a pending version, shown to the person and sent back to the agent
that wrote it without repeating what it tried to plant. A :class:`Hit` is a
rule that fired on one text, before it is placed in a field; :func:`reason_line`
makes findings one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from memdir.utils.records import record

__all__ = ["Finding", "Hit", "Kind", "reason_line"]


class Kind(StrEnum):
    """The three families of findings."""

    INSTRUCTION = "instruction"  # text aimed at the agent: override, exfiltrate, hide...
    HIDDEN = "hidden-unicode"  # invisible or look-alike characters
    FRAME = "frame"  # a role marker, a fence of memdir's own, a forged tool result


_WHAT = {
    Kind.INSTRUCTION: "reads as an instruction to the agent",
    Kind.HIDDEN: "hides characters",
    Kind.FRAME: "forges a frame",
}
_SHOWN = 3  # findings named in one line; the rest are counted


@record
class Finding:
    """One hit of a screening rule in one field of a memory."""

    kind: Kind
    field: str
    rule: str  # the rule's id, e.g. "override.previous-instructions"
    reason: str  # a few words: what the rule saw, not the text it saw it in
    at: int = 0  # 1-based character in the field where it starts (0: not one place)

    def line(self) -> str:
        """``the body reads as an instruction to the agent (overrides ...)``."""
        where = f" at character {self.at}" if self.at else ""
        return f"the {self.field} {_WHAT[self.kind]} ({self.reason}){where}"


@record
class Hit:
    """A rule that fired on a text: where (``start``/``end`` index the text as written)."""

    kind: Kind
    rule: str
    reason: str
    start: int
    end: int


def reason_line(findings: Sequence[Finding]) -> str:
    """Findings as one line, the first few named: why a write is held."""
    named = "; ".join(f.line() for f in findings[:_SHOWN])
    more = len(findings) - _SHOWN
    return f"screened: {named}" + (f"; and {more} more" if more > 0 else "")
