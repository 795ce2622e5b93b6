"""Dates a query names, as ranges of days, and the lift of documents dated in them.

"What did we decide on 13 October 2023?", "the outage in March 2024", "what
changed in June": a document dated in the range the query names (its
timestamp, a transcript turn's or a memory's) is more likely the one meant
than an equal match from another month. BM25 sees only the words ("13",
"October"), each matching other dates too. The forms read are English
calendar dates: a day with its month and year in either order ("13 October
2023", "October 13, 2023", "Oct 13th 2023"), an ISO date (2023-10-13), a month
and year, a year, and a month alone after a word that places it in time ("in
June", "last May": a bare "May" is mostly the verb). A range stretches
``slack`` days past its end, since what a session talks about it often
reports a few days later. Nothing relative to today ("yesterday") is read:
what today is for a stored conversation is unknown.
"""

from __future__ import annotations

__all__ = ["DayRange", "date_ranges", "lift_dated"]

import calendar
import datetime as dt
import functools
import re
import sqlite3
from typing import NamedTuple

from memdir.search.sql_in import rows_in

_MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): n for n, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_PATTERNS = (
    ("dmy", re.compile(rf"\b{_DAY}\s+(?:of\s+)?({_MONTH})\.?,?\s+{_YEAR}\b", re.IGNORECASE)),
    ("mdy", re.compile(rf"\b({_MONTH})\.?\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE)),
    ("iso", re.compile(rf"\b{_YEAR}-(\d\d)-(\d\d)\b")),
    ("my", re.compile(rf"\b({_MONTH})\.?,?\s+(?:of\s+)?{_YEAR}\b", re.IGNORECASE)),
    (
        "m",
        re.compile(
            r"\b(?:in|during|last|this|early|late|mid|since|until|through)\s+("
            + "|".join(calendar.month_name[1:])
            + r")\b",
            re.IGNORECASE,
        ),
    ),
    ("y", re.compile(rf"\b{_YEAR}\b")),
)


class DayRange(NamedTuple):
    """Days from ``first`` to ``last`` (inclusive); ``month`` alone: that month of any year."""

    first: dt.date | None
    last: dt.date | None
    month: int | None = None

    def holds(self, day: dt.date, slack: int) -> bool:
        """Whether ``day`` falls in the range or up to ``slack`` days after its end."""
        if self.month is not None:
            return day.month == self.month or (day - dt.timedelta(days=slack)).month == self.month
        assert self.first is not None and self.last is not None
        return self.first <= day <= self.last + dt.timedelta(days=slack)


@functools.lru_cache(maxsize=256)
def date_ranges(text: str) -> tuple[DayRange, ...]:
    """The ranges of days ``text`` names, most precise form first, none overlapping."""
    found: list[DayRange] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if any(start < m.end() and m.start() < end for start, end in taken):
                continue
            span = _range(kind, m.groups())
            if span is not None:
                taken.append((m.start(), m.end()))
                found.append(span)
    return tuple(found)


def _range(kind: str, g: tuple[str, ...]) -> DayRange | None:
    try:
        if kind in ("dmy", "mdy", "iso"):
            if kind == "dmy":
                day = dt.date(int(g[2]), _MONTHS[g[1].lower()], int(g[0]))
            elif kind == "mdy":
                day = dt.date(int(g[2]), _MONTHS[g[0].lower()], int(g[1]))
            else:
                day = dt.date(int(g[0]), int(g[1]), int(g[2]))
            return DayRange(day, day)
    except ValueError:  # "31 February 2023" names no day
        return None
    if kind == "my":
        year, month = int(g[1]), _MONTHS[g[0].lower()]
        return DayRange(
            dt.date(year, month, 1), dt.date(year, month, calendar.monthrange(year, month)[1])
        )
    if kind == "m":
        return DayRange(None, None, _MONTHS[g[0].lower()])
    year = int(g[0])
    return DayRange(dt.date(year, 1, 1), dt.date(year, 12, 31))


def lift_dated(
    conn: sqlite3.Connection, scores: dict[int, float], query: str, *, share: float, slack: int
) -> dict[int, float]:
    """``scores`` (by rowid) with each document dated in a range ``query`` names times 1 + share."""
    ranges = date_ranges(query)
    if not ranges or not scores or share <= 0:
        return scores
    sql = "SELECT rowid, date FROM docs WHERE rowid IN ({in}) AND date IS NOT NULL"
    factor = 1.0 + share
    out = dict(scores)
    for rowid, iso in rows_in(conn, sql, scores):
        day = dt.date.fromisoformat(iso[:10])
        if any(span.holds(day, slack) for span in ranges):
            out[rowid] = scores[rowid] * factor
    return out
