"""The spend ledger and the daily cap: what background model calls cost, per run and day."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from memdir.llm import Completion, Message, Request, Usage
from memdir.llm.spend import (
    CappedProvider,
    DailyCapReached,
    SpendLedger,
    charge_to,
    spend_dir,
    today_summary,
)
from memdir.testing import ScriptedProvider

NOON = dt.datetime(2026, 3, 4, 12, 0, 0)
ASK = Request(messages=(Message.user("hello"),))


def costing(tokens_in: int, tokens_out: int, cost: float = 0.0) -> Completion:
    return Completion(
        text="ok", usage=Usage(input_tokens=tokens_in, output_tokens=tokens_out, cost_usd=cost)
    )


@pytest.fixture
def ledger(tmp_path: Path) -> SpendLedger:
    return SpendLedger(tmp_path / "spend", now=lambda: NOON)


def test_each_call_is_a_line_of_the_days_file_summed_per_run_and_day(
    ledger: SpendLedger,
) -> None:
    model = ScriptedProvider(costing(100, 20, 0.01), costing(50, 5), costing(7, 3))
    first = CappedProvider(model, ledger, cap=0, project="/p", run="r1")
    with charge_to("extract"):
        first.complete(ASK)
        first.complete(ASK)
    CappedProvider(model, ledger, cap=0, project="/p", run="r2").complete(ASK)
    day = ledger.day()
    assert (day.input_tokens, day.output_tokens, day.calls) == (157, 28, 3)
    assert day.cost_usd == pytest.approx(0.01)
    assert day.runs == (("r1", 175), ("r2", 10))
    lines = [json.loads(line) for line in ledger.path(NOON.date()).read_text().splitlines()]
    assert [line["job"] for line in lines] == ["extract", "extract", "background"]
    assert lines[0]["at"] == "2026-03-04T12:00:00"


def test_the_cap_lets_the_crossing_call_finish_then_refuses_the_rest_of_the_day(
    ledger: SpendLedger,
) -> None:
    model = ScriptedProvider(costing(80, 10), costing(80, 10), costing(1, 1))
    capped = CappedProvider(model, ledger, cap=150, project="/p", run="r1")
    capped.complete(ASK)
    capped.complete(ASK)  # 90 spent when it starts: allowed; 180 after it
    with pytest.raises(DailyCapReached, match=r"\(150 tokens\) is reached: 180 spent today"):
        capped.complete(ASK)
    assert model.pending == 1  # refused before the model was asked
    assert capped.stopped is not None and "resumes tomorrow" in capped.stopped
    tomorrow = SpendLedger(ledger.folder, now=lambda: NOON + dt.timedelta(days=1))
    assert CappedProvider(model, tomorrow, cap=150, project="/p", run="r2").reached() is None


def test_the_first_stop_of_a_day_is_announced_and_the_later_ones_are_not(
    ledger: SpendLedger,
) -> None:
    assert ledger.mark_capped(cap=10, spent=12, project="/p", run="r1") is True
    assert ledger.mark_capped(cap=10, spent=12, project="/p", run="r2") is False
    day = ledger.day()
    assert (day.capped_at, day.capped_jobs, day.calls) == ("12:00", 2, 0)
    assert day.describe(10).endswith("the cap stopped background work at 12:00")


def test_days_older_than_a_month_are_removed(ledger: SpendLedger) -> None:
    ledger.folder.mkdir(parents=True)
    old, recent = ledger.path(dt.date(2026, 1, 1)), ledger.path(dt.date(2026, 3, 1))
    old.write_text("{}\n")
    recent.write_text("{}\n")
    assert ledger.prune() == 1
    assert not old.exists() and recent.exists()


def test_a_damaged_line_does_not_hide_the_rest(ledger: SpendLedger) -> None:
    ledger.record(Usage(input_tokens=5, output_tokens=5), project="/p", run="r", model="m")
    with ledger.path(NOON.date()).open("a") as handle:
        handle.write('{"input": 9, "out')  # a crash mid-line
    ledger.record(Usage(input_tokens=1, output_tokens=1), project="/p", run="r", model="m")
    assert ledger.day().tokens == 12


def test_doctor_and_the_page_hear_of_spend_only_when_there_is_any_or_a_provider(
    tmp_path: Path,
) -> None:
    env = {"MEMDIR_HOME": str(tmp_path)}
    assert spend_dir(env) == tmp_path / "state" / "spend"
    assert today_summary(env, cap=200_000, configured=False) is None
    assert today_summary(env, cap=200_000, configured=True) == (
        "background model use today: 0 tokens, of the daily cap of 200,000"
    )
    SpendLedger.for_env(env).record(
        Usage(input_tokens=1200, output_tokens=34, cost_usd=0.0123), project="/p", run="r1",
        model="haiku",
    )  # fmt: skip
    assert today_summary(env, cap=0, configured=False) == (
        "background model use today: 1,234 tokens ($0.01) in 1 run, (no daily cap)"
    )
