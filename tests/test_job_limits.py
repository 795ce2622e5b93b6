"""A background job's limits: the record's checks, each job's defaults, and where they reach."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from background.helpers import chat
from consolidation.helpers import NOW
from memdir.agents.consolidate.proposal import propose_report
from memdir.agents.consolidate.run import (
    ConsolidationReport,
    consolidate,
    preview_consolidation,
)
from memdir.agents.extract import MemoryExtractor
from memdir.agents.limits import (
    CONSOLIDATION_LIMITS,
    EXTRACTION_LIMITS,
    SESSION_NOTES_LIMITS,
    JobLimits,
)
from memdir.agents.runner import AgentStop
from memdir.agents.session.notes import SessionNotes
from memdir.api import Memdir
from memdir.testing import ScriptedProvider, tool_use

# --- the record ------------------------------------------------------------------------


def test_each_job_keeps_its_own_defaults() -> None:
    def limits(job: JobLimits) -> tuple[int, int | None, int]:
        return job.max_turns, job.token_budget, job.max_tokens

    assert limits(EXTRACTION_LIMITS) == (5, 150_000, 4096)
    assert limits(SESSION_NOTES_LIMITS) == (8, 200_000, 4096)
    assert limits(CONSOLIDATION_LIMITS) == (30, 400_000, 8192)


def test_limits_given_only_a_turn_count_have_no_budget_and_2048_token_answers() -> None:
    limits = JobLimits(max_turns=3)
    assert (limits.max_turns, limits.token_budget, limits.max_tokens) == (3, None, 2048)


def test_the_turn_count_must_be_given() -> None:
    with pytest.raises(TypeError, match="max_turns"):
        JobLimits()  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("name", "value"),
    [("max_turns", 0), ("max_turns", -2), ("token_budget", 0), ("max_tokens", 0)],
)
def test_a_limit_below_one_is_refused_by_name(name: str, value: int) -> None:
    with pytest.raises(ValueError, match=f"^{name} must be positive, got {value}$"):
        replace(EXTRACTION_LIMITS, **{name: value})


@pytest.mark.parametrize(
    ("name", "value"),
    [("max_turns", True), ("max_tokens", "4096"), ("token_budget", 1.5)],
)
def test_a_limit_that_is_not_an_integer_is_refused_by_name(name: str, value: Any) -> None:
    with pytest.raises(TypeError, match=f"^{name} must be an integer, got {value!r}$"):
        replace(EXTRACTION_LIMITS, **{name: value})


def test_limits_cannot_be_changed_in_place() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        EXTRACTION_LIMITS.max_turns = 50  # type: ignore[misc]
    assert EXTRACTION_LIMITS.max_turns == 5


# --- where they reach ------------------------------------------------------------------


def test_extraction_asks_the_model_within_its_default_limits(mem: Memdir) -> None:
    provider = ScriptedProvider("nothing to save")
    MemoryExtractor(mem, provider, "s1").extract(chat("q", "a"))
    assert [r.max_tokens for r in provider.requests] == [4096]


def test_extraction_given_limits_stops_at_their_turn_count(mem: Memdir) -> None:
    provider = ScriptedProvider(tool_use("list_memories", {}), "done")
    limits = JobLimits(max_turns=1, max_tokens=77)
    report = MemoryExtractor(mem, provider, "s1", limits=limits).extract(chat("q", "a"))
    assert report.run is not None and report.run.stop_reason is AgentStop.MAX_TURNS
    assert [r.max_tokens for r in provider.requests] == [77]


def test_session_notes_ask_within_their_default_or_given_limits(mem: Memdir) -> None:
    for limits, expected in ((None, 4096), (JobLimits(max_turns=2, max_tokens=99), 99)):
        provider = ScriptedProvider("done")
        options = {} if limits is None else {"limits": limits}
        notes = SessionNotes.for_session(
            layout=mem.layout,
            settings=mem.settings,
            provider=provider,
            session_id=f"s{expected}",
            **options,
        )
        notes.update(chat("q", "a"))
        assert [r.max_tokens for r in provider.requests] == [expected]


def test_consolidation_asks_within_its_default_limits(mem: Memdir) -> None:
    provider = ScriptedProvider("nothing to change")
    consolidate(mem, provider, now=NOW, force=True)
    assert [r.max_tokens for r in provider.requests] == [8192]


def test_every_consolidation_entry_point_passes_its_limits_to_the_run(mem: Memdir) -> None:
    limits = JobLimits(max_turns=1, max_tokens=123)
    runs: dict[str, Callable[[ScriptedProvider], ConsolidationReport]] = {
        "consolidate": lambda p: consolidate(mem, p, now=NOW, force=True, limits=limits),
        "preview": lambda p: preview_consolidation(mem, p, now=NOW, limits=limits).report,
        "propose": lambda p: propose_report(mem, p, now=NOW, limits=limits),
    }
    for name, run in runs.items():
        provider = ScriptedProvider(tool_use("read_memory", {"file": "x.md"}), "done")
        report = run(provider)
        assert report.run is not None, name
        assert report.run.stop_reason is AgentStop.MAX_TURNS, name
        assert [r.max_tokens for r in provider.requests] == [123], name
