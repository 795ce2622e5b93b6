"""Memory ages and staleness notes, against a frozen calendar."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdir.model import Memory, MemoryType
from memdir.recall.age import age_label, age_of, memory_age, memory_date, staleness_note

TODAY = dt.date(2026, 3, 10)


def local_timestamp(year: int, month: int, day: int, hour: int, minute: int, second: int) -> float:
    """A POSIX time for a local wall-clock moment (ages count local calendar days)."""
    return dt.datetime(year, month, day, hour, minute, second).timestamp()


@pytest.mark.parametrize(
    ("days", "label"),
    [(0, "today"), (1, "yesterday"), (2, "2 days ago"), (365, "365 days ago")],
)
def test_age_labels_read_today_yesterday_and_n_days_ago(days: int, label: str) -> None:
    assert age_label(days) == label


def test_a_date_in_the_future_counts_as_today() -> None:
    age = memory_age(today=TODAY, mtime=0.0, updated=TODAY + dt.timedelta(days=3))
    assert age.days == 0
    assert age.label == "today"
    assert age.note is None


def test_no_staleness_note_up_to_one_day_old() -> None:
    assert staleness_note(0) is None
    assert staleness_note(1) is None


def test_a_memory_two_days_old_gets_the_staleness_note_with_its_age() -> None:
    note = staleness_note(2)
    assert note is not None
    assert note.startswith("This memory is 2 days old.")
    assert "point-in-time observation, not live state" in note
    assert "verify claims about code (files, functions, flags)" in note


@given(st.integers(min_value=2, max_value=100_000))
def test_every_age_over_a_day_names_its_days_in_label_and_note(days: int) -> None:
    assert age_label(days) == f"{days} days ago"
    assert f"This memory is {days} days old." in (staleness_note(days) or "")


def test_mtime_one_second_before_midnight_is_yesterday() -> None:
    mtime = local_timestamp(2026, 3, 9, 23, 59, 59)
    age = memory_age(today=TODAY, mtime=mtime)
    assert (age.days, age.label, age.source) == (1, "yesterday", "mtime")
    assert age.note is None


def test_mtime_at_midnight_is_today() -> None:
    age = memory_age(today=TODAY, mtime=local_timestamp(2026, 3, 10, 0, 0, 0))
    assert (age.days, age.label) == (0, "today")


def test_mtime_two_days_back_at_the_last_second_gets_the_note() -> None:
    age = memory_age(today=TODAY, mtime=local_timestamp(2026, 3, 8, 23, 59, 59))
    assert age.label == "2 days ago"
    assert age.note is not None and "2 days old" in age.note


def test_verified_wins_over_updated_and_mtime() -> None:
    age = memory_age(
        today=TODAY,
        mtime=local_timestamp(2026, 3, 10, 12, 0, 0),
        verified=dt.date(2026, 3, 9),
        updated=dt.date(2026, 2, 1),
    )
    assert (age.source, age.date, age.label) == ("verified", dt.date(2026, 3, 9), "yesterday")


def test_updated_wins_over_mtime_when_nothing_was_verified() -> None:
    age = memory_age(
        today=TODAY, mtime=local_timestamp(2026, 3, 10, 12, 0, 0), updated=dt.date(2026, 3, 1)
    )
    assert (age.source, age.days) == ("updated", 9)


def test_an_update_after_the_last_verification_dates_the_memory() -> None:
    # The store stamps `updated` on every rewrite and leaves `verified` alone.
    date, source = memory_date(verified=dt.date(2025, 1, 1), updated=dt.date(2026, 3, 9), mtime=0.0)
    assert (date, source) == (dt.date(2026, 3, 9), "updated")


def test_verified_and_updated_on_the_same_day_count_as_verified() -> None:
    _, source = memory_date(verified=TODAY, updated=TODAY, mtime=0.0)
    assert source == "verified"


def test_age_of_reads_the_dates_of_a_parsed_memory() -> None:
    memory = Memory(
        name="Deploy freeze",
        description="release branch frozen",
        type=MemoryType.PROJECT,
        updated=dt.date(2026, 3, 3),
    )
    age = age_of(memory, mtime=local_timestamp(2026, 3, 10, 8, 0, 0), today=TODAY)
    assert (age.days, age.label, age.source) == (7, "7 days ago", "updated")
