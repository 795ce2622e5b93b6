"""The limits of a background job's run, and each job's defaults side by side.

Every background job (session notes, extraction, consolidation) is one run of
:func:`memdir.agents.runner.run_agent`, held to three limits: how many model
calls it may make, how many tokens it may spend in all, and how long one answer
may be. A :class:`JobLimits` carries the three from a job's entry point to the
run, so an entry point takes one ``limits=`` argument instead of three, and a
bad value is refused where the record is made, naming the limit.

The defaults of each job are here rather than in the job's module, so they can
be read against each other: extraction is a short job (read, then write),
session notes a few edits of one file, consolidation a long walk over the
whole memory.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CONSOLIDATION_LIMITS",
    "EXTRACTION_LIMITS",
    "SESSION_NOTES_LIMITS",
    "JobLimits",
]


@dataclass(frozen=True, kw_only=True)
class JobLimits:
    """How far one run of a background job may go.

    ``max_turns`` is the most model calls the run makes; ``token_budget`` the
    tokens (input and output, every call together) it may spend, ``None`` for
    no budget; ``max_tokens`` the longest answer one call may give. Each must
    be a positive integer: anything else raises ``ValueError`` (``TypeError``
    for a value that is not an integer) naming the limit. Change one limit of
    a job's defaults with :func:`dataclasses.replace`, e.g.
    ``replace(EXTRACTION_LIMITS, max_turns=2)``.
    """

    max_turns: int
    token_budget: int | None = None
    max_tokens: int = 2048

    def __post_init__(self) -> None:
        _check_positive("max_turns", self.max_turns)
        if self.token_budget is not None:
            _check_positive("token_budget", self.token_budget)
        _check_positive("max_tokens", self.max_tokens)


def _check_positive(name: str, value: object) -> None:
    # bool is an int to Python, but `max_turns=True` is a mistake, not one turn.
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be positive, got {value}")


EXTRACTION_LIMITS = JobLimits(max_turns=5, token_budget=150_000, max_tokens=4096)
SESSION_NOTES_LIMITS = JobLimits(max_turns=8, token_budget=200_000, max_tokens=4096)
CONSOLIDATION_LIMITS = JobLimits(max_turns=30, token_budget=400_000, max_tokens=8192)
