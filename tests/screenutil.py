"""Helpers for the screening tests that hold an order and its twin to a rule.

A table maps a rule id to pairs: an order the rule must hold, and a twin in the same
words that asks nothing of the agent and that no rule may hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memdir.screening.instructions import instruction_hits
from memdir.screening.screen import rule_findings

__all__ = ["check_pair", "pairs", "rules_fired"]


def pairs(cases: Mapping[str, Sequence[tuple[str, str]]]) -> list[tuple[str, str, str]]:
    """The table as ``(rule, order, twin)`` rows, for ``pytest.mark.parametrize``."""
    return [(rule, order, twin) for rule, rows in cases.items() for order, twin in rows]


def rules_fired(text: str) -> set[str]:
    """The ids of the instruction rules that fire on ``text``."""
    return {hit.rule for hit in instruction_hits(text)}


def check_pair(rule: str, order: str, twin: str) -> None:
    """``rule`` holds ``order``; no rule holds ``twin``."""
    assert rule in rules_fired(order), order
    assert rule_findings([("body", twin)]) == [], twin
