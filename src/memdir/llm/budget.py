"""A token budget around any provider: count what a job spends, stop at its limit.

Background jobs (session notes, extraction, consolidation) each wrap their provider
in a :class:`MeteredProvider` and report ``usage`` when done. Past the budget the
next call raises :class:`LimitExceeded` instead of spending more; the call that
crosses the line still completes, since its cost is only known afterwards.
"""

from __future__ import annotations

import threading

from memdir.errors import LimitExceeded
from memdir.llm.base import Completion, Provider, Request, Usage

__all__ = ["MeteredProvider"]


class MeteredProvider:
    """Wrap ``inner``; sum its reported usage; refuse calls once ``budget`` tokens are spent."""

    def __init__(self, inner: Provider, *, budget: int | None = None) -> None:
        if budget is not None and budget < 1:
            raise ValueError(f"budget must be positive, got {budget}")
        self.inner = inner
        self.budget = budget
        self.usage = Usage()
        self.calls = 0
        self._lock = threading.Lock()

    @property
    def remaining(self) -> int | None:
        """Tokens left before the budget stops calls (``None``: no budget)."""
        if self.budget is None:
            return None
        return max(self.budget - self.usage.total, 0)

    def complete(self, request: Request) -> Completion:
        """Forward ``request`` unless the budget is spent; count what it cost."""
        if self.remaining == 0:
            raise LimitExceeded(
                f"token budget of {self.budget} spent ({self.usage.total} tokens "
                f"in {self.calls} calls)",
                hint="raise the job's token budget in the settings, or let the next run continue",
            )
        completion = self.inner.complete(request)
        with self._lock:
            self.usage = self.usage + completion.usage
            self.calls += 1
        return completion
