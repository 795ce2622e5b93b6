"""Dates a query names, read as ranges of days, and the lift of documents dated in them."""

from __future__ import annotations

import datetime as dt

import pytest

from memdir.search.date_ranges import DayRange, date_ranges
from memdir.search.engine import Document, RankingOptions, TextIndex

D = dt.date


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("what happened on 13 October 2023?", [DayRange(D(2023, 10, 13), D(2023, 10, 13))]),
        ("on October 13th, 2023", [DayRange(D(2023, 10, 13), D(2023, 10, 13))]),
        ("the 3rd of March 2022", [DayRange(D(2022, 3, 3), D(2022, 3, 3))]),
        ("deployed 2024-02-03", [DayRange(D(2024, 2, 3), D(2024, 2, 3))]),
        ("the outage in Feb 2024", [DayRange(D(2024, 2, 1), D(2024, 2, 29))]),
        ("anything from 2021", [DayRange(D(2021, 1, 1), D(2021, 12, 31))]),
        ("camping in June", [DayRange(None, None, 6)]),
        # A bare month name is mostly a verb or a name: "May I ask", "April said".
        ("May I ask what April said?", []),
        # 30 February names no day; the year alone is still a range.
        ("2024-02-30", [DayRange(D(2024, 1, 1), D(2024, 12, 31))]),
        ("version 3000 of the port 8080 config", []),
    ],
)
def test_the_dates_a_query_names_are_read_as_ranges(text: str, expected: list[DayRange]) -> None:
    assert list(date_ranges(text)) == expected


def test_a_precise_date_is_not_read_again_as_its_month_or_year() -> None:
    assert date_ranges("on 1 May 2023, not in 2022") == (
        DayRange(D(2023, 5, 1), D(2023, 5, 1)),
        DayRange(D(2022, 1, 1), D(2022, 12, 31)),
    )


def test_a_range_holds_the_days_after_it_up_to_the_slack() -> None:
    day = DayRange(D(2023, 10, 13), D(2023, 10, 13))
    assert day.holds(D(2023, 10, 13), 3) and day.holds(D(2023, 10, 16), 3)
    assert not day.holds(D(2023, 10, 17), 3) and not day.holds(D(2023, 10, 12), 3)
    june = DayRange(None, None, 6)
    assert june.holds(D(2019, 6, 30), 3) and june.holds(D(2023, 7, 2), 3)
    assert not june.holds(D(2023, 7, 5), 3)


def _index(share: float) -> TextIndex:
    index = TextIndex(options=RankingOptions(date_share=share))
    index.add(
        Document(
            id=f"{day}.md",
            kind="memory",
            title=str(day),
            fields={"body": "the release checklist was signed off"},
            date=day,
        )
        for day in (D(2023, 3, 14), D(2023, 10, 13), D(2024, 10, 13))
    )
    # Other memories, so the query's words are rare enough to score.
    index.add(
        Document(id=f"other{i}.md", kind="memory", title="other", fields={"body": f"note {i}"})
        for i in range(20)
    )
    return index


def test_a_document_dated_in_the_range_the_query_names_is_lifted() -> None:
    query = "release checklist on 13 October 2023"
    plain, lifted = dict(_index(0.0).rank(query)), dict(_index(0.5).rank(query))
    # The three memories say the same words; only one is dated that day (a year
    # later shares the words "13 October" of its date).
    assert lifted["2023-10-13.md"] == pytest.approx(plain["2023-10-13.md"] * 1.5, rel=1e-3)
    assert lifted["2024-10-13.md"] == plain["2024-10-13.md"]
    assert max(lifted, key=lambda ref: lifted[ref]) == "2023-10-13.md"


def test_a_query_naming_no_date_is_ranked_as_without_the_lift() -> None:
    assert dict(_index(0.5).rank("release checklist")) == dict(
        _index(0.0).rank("release checklist")
    )
