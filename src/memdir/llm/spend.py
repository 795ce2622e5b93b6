"""What background model work spent, per run and per day, and the daily cap on it.

Every model call of a background job (the hooks' session notes and extraction) goes
through a :class:`CappedProvider`. Before the call it reads what today has cost and,
once the cap is reached, refuses (:class:`DailyCapReached`) instead of spending; after
it, it appends what the call used to today's ledger. The call that crosses the cap
still completes, as its cost is only known afterwards.

The ledger is one JSONL file a day, ``<memdir home>/state/spend/YYYY-MM-DD.jsonl``
(the local date: the user's day), shared by every project, as the cap is. A line per
call: time, project, run, job, model, input and output tokens, and the price when the
provider says (the Claude Code CLI does). The first time in a day the cap stops a job,
one ``capped`` line records it (:meth:`SpendLedger.mark_capped` says whether this was
the first), so the jobs stopped after it stay quiet. Lines are appended under a file
lock; days older than :data:`KEEP_DAYS` are removed.

The job a call is charged to is a context variable (:func:`charge_to`), set by the
agent runner around each run, so one provider serves every job of a background run.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdir.config import memdir_home
from memdir.errors import LimitExceeded
from memdir.llm.base import Completion, Provider, Request, Usage
from memdir.storage.fs import FILE_MODE, ensure_dir, file_lock

__all__ = [
    "KEEP_DAYS",
    "CappedProvider",
    "DailyCapReached",
    "DaySpend",
    "SpendLedger",
    "cap_reason",
    "charge_to",
    "spend_dir",
    "today_summary",
]

KEEP_DAYS = 31
_CAPPED = "capped"

_job: contextvars.ContextVar[str] = contextvars.ContextVar("memdir_spend_job", default="")


@contextlib.contextmanager
def charge_to(job: str) -> Iterator[None]:
    """Within the block, model calls are recorded as ``job``'s."""
    token = _job.set(job)
    try:
        yield
    finally:
        _job.reset(token)


def spend_dir(env: Mapping[str, str]) -> Path:
    """Where the ledger lives: ``<memdir home>/state/spend``."""
    return memdir_home(env) / "state" / "spend"


def today_summary(env: Mapping[str, str], *, cap: int, configured: bool) -> str | None:
    """Today's background spend against ``cap``, as one line for ``doctor`` and the page.

    ``None`` when nothing was spent today and no provider is ``configured`` for
    background work (there is nothing to say).
    """
    day = SpendLedger.for_env(env).day()
    if not configured and not day.calls and day.capped_at is None:
        return None
    return day.describe(cap)


class DailyCapReached(LimitExceeded):
    """Background work spent the day's token cap; it resumes the next day."""


def cap_reason(cap: int, spent: int) -> str:
    """The one line that says the cap stopped background work."""
    return (
        f"the daily token cap for background work ({cap:,} tokens) is reached: "
        f"{spent:,} spent today; background learning resumes tomorrow"
    )


@dataclass(frozen=True, kw_only=True)
class DaySpend:
    """One day's background spend: totals, and tokens per run (oldest first)."""

    day: dt.date
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    runs: tuple[tuple[str, int], ...] = ()
    capped_at: str | None = None  # when the cap first stopped a job, as HH:MM
    capped_jobs: int = field(default=0)

    @property
    def tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    def describe(self, cap: int) -> str:
        """One line for people: today's spend, the cap, and whether it stopped a job."""
        price = f" (${self.cost_usd:.2f})" if self.cost_usd else ""
        limit = f"of the daily cap of {cap:,}" if cap else "(no daily cap)"
        runs = f" in {len(self.runs)} run{'s' if len(self.runs) != 1 else ''}" if self.runs else ""
        line = f"background model use today: {self.tokens:,} tokens{price}{runs}, {limit}"
        if self.capped_at is not None:
            line += f"; the cap stopped background work at {self.capped_at}"
        return line


class SpendLedger:
    """The per-day JSONL files of one user's background spend, in ``folder``."""

    def __init__(self, folder: Path, *, now: Callable[[], dt.datetime] = dt.datetime.now) -> None:
        self.folder = folder
        self._now = now

    @classmethod
    def for_env(cls, env: Mapping[str, str]) -> SpendLedger:
        """The ledger of the memdir home ``env`` names."""
        return cls(spend_dir(env))

    def path(self, day: dt.date) -> Path:
        """The file of ``day``."""
        return self.folder / f"{day.isoformat()}.jsonl"

    def record(self, usage: Usage, *, project: str, run: str, model: str) -> None:
        """Append one call's usage to today's file (charged to the current job)."""
        self._append(
            {
                "input": usage.input_tokens,
                "output": usage.output_tokens,
                "cost_usd": round(usage.cost_usd, 6),
                "project": project,
                "run": run,
                "job": _job.get() or "background",
                "model": model,
            }
        )

    def mark_capped(self, *, cap: int, spent: int, project: str, run: str) -> bool:
        """Record that the cap stopped a job; True the first time today (announce it)."""
        with file_lock(self._lock_path(), timeout=30):
            first = self.day().capped_at is None
            self._write_line({"event": _CAPPED, "cap": cap, "spent": spent, "project": project,
                              "run": run})  # fmt: skip
        return first

    def day(self, day: dt.date | None = None) -> DaySpend:
        """What ``day`` (default today) spent, from its file."""
        day = day or self._now().date()
        totals: dict[str, Any] = {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0}
        runs: dict[str, int] = {}
        calls = capped_jobs = 0
        capped_at: str | None = None
        for line in self._lines(day):
            if line.get("event") == _CAPPED:
                capped_jobs += 1
                capped_at = capped_at or str(line.get("at", ""))[11:16] or "?"
                continue
            used_in, used_out = _count(line.get("input")), _count(line.get("output"))
            totals["input_tokens"] += used_in
            totals["output_tokens"] += used_out
            cost = line.get("cost_usd")
            totals["cost_usd"] += float(cost) if isinstance(cost, int | float) else 0.0
            run = str(line.get("run") or "")
            runs[run] = runs.get(run, 0) + used_in + used_out
            calls += 1
        return DaySpend(
            day=day, calls=calls, runs=tuple(runs.items()), capped_at=capped_at,
            capped_jobs=capped_jobs, **totals,
        )  # fmt: skip

    def prune(self, *, keep_days: int = KEEP_DAYS) -> int:
        """Remove the files of days older than ``keep_days``; how many went."""
        oldest = self._now().date() - dt.timedelta(days=keep_days)
        gone = 0
        for path in self.folder.glob("*.jsonl") if self.folder.is_dir() else ():
            try:
                day = dt.date.fromisoformat(path.stem)
            except ValueError:
                continue
            if day < oldest:
                path.unlink(missing_ok=True)
                gone += 1
        return gone

    def _append(self, fields: Mapping[str, Any]) -> None:
        with file_lock(self._lock_path(), timeout=30):
            self._write_line(fields)

    def _write_line(self, fields: Mapping[str, Any]) -> None:
        now = self._now()
        line = json.dumps({"at": now.isoformat(timespec="seconds"), **fields}) + "\n"
        ensure_dir(self.folder)
        fd = os.open(self.path(now.date()), os.O_RDWR | os.O_CREAT | os.O_APPEND, FILE_MODE)
        with os.fdopen(fd, "r+b") as handle:
            size = handle.seek(0, os.SEEK_END)
            # A line a crash cut short gets its end first, so this one stands alone.
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = "\n" + line
            handle.write(line.encode("utf-8"))

    def _lock_path(self) -> Path:
        return self.folder / ".lock"

    def _lines(self, day: dt.date) -> Iterator[dict[str, Any]]:
        try:
            text = self.path(day).read_text(encoding="utf-8", errors="replace")
        except (FileNotFoundError, NotADirectoryError):
            return
        for raw in text.splitlines():
            try:
                line = json.loads(raw)
            except ValueError:
                continue  # a line cut short by a crash: the rest still counts
            if isinstance(line, dict):
                yield line


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


class CappedProvider:
    """``inner`` under the daily cap: each call checked against today's spend, and recorded.

    ``cap`` 0 records without a cap. ``stopped`` holds the reason once the cap refused
    a call.
    """

    def __init__(
        self, inner: Provider, ledger: SpendLedger, *, cap: int, project: str, run: str
    ) -> None:
        self.inner = inner
        self.ledger = ledger
        self.cap = cap
        self.project = project
        self.run = run
        self.stopped: str | None = None
        self.model = str(getattr(inner, "model", "") or type(inner).__name__)

    def reached(self) -> str | None:
        """Why no call may be made today (the cap is spent), or ``None``."""
        if not self.cap:
            return None
        spent = self.ledger.day().tokens
        return cap_reason(self.cap, spent) if spent >= self.cap else None

    def complete(self, request: Request) -> Completion:
        """Refuse past the cap; else forward ``request`` and record what it used."""
        reason = self.reached()
        if reason is not None:
            self.stopped = reason
            raise DailyCapReached(
                reason, hint="raise daily_token_cap in memdir's settings (0: no cap)"
            )
        completion = self.inner.complete(request)
        self.ledger.record(
            completion.usage,
            project=self.project,
            run=self.run,
            model=completion.model or self.model,
        )
        return completion

    def close(self) -> None:
        """Close the inner provider, where it has something to close."""
        close = getattr(self.inner, "close", None)
        if callable(close):
            close()
