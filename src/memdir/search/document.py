"""One searchable unit (:class:`Document`) and the row it becomes in the index.

:func:`prepare` is a pure function of a document, so a bulk build analyses the
documents of many files in other processes before one transaction stores them.
"""

from __future__ import annotations

import datetime as dt
import functools
import json

from memdir.kinds import MemoryType, Scope
from memdir.search import terms as textproc
from memdir.utils.records import field, record

TYPE_CHECKING = False  # not typing's: recall indexes before every prompt
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, TypeAlias

__all__ = ["FIELDS", "Document", "Prepared", "date_prefix", "date_words", "prepare"]

FIELDS = ("name", "description", "body", "context", "dates")


@record
class Document:
    """One searchable unit: its id (the hit's ref), weighted fields and metadata.

    ``fields`` maps names from :data:`FIELDS` to text; ``text`` is what
    snippets are cut from (the body when omitted). ``group`` and ``seq`` place
    a document among its neighbours (a transcript and a turn index). ``meta``
    is stored as it is, for readers that list documents without their files
    (a memory's description and dates).
    """

    id: str
    kind: str
    title: str
    fields: Mapping[str, str]
    date: dt.datetime | dt.date | None = None
    text: str | None = None
    scope: Scope | None = None
    type: MemoryType | None = None
    group: str | None = None
    seq: int | None = None
    meta: Mapping[str, str | None] = field(default_factory=dict)


def date_words(value: dt.datetime | dt.date | None) -> str:
    """A date as words a question may use: ``"8 May 2023 Monday"``."""
    if value is None:
        return ""
    return f"{value.day} {value:%B} {value.year} {value:%A}"


_DATES = FIELDS.index("dates")


if TYPE_CHECKING:
    Prepared: TypeAlias = tuple[tuple[Any, ...], tuple[str, ...]]
else:
    Prepared = "tuple[tuple[Any, ...], tuple[str, ...]]"  # for annotations only
"""A document as :meth:`TextIndex.add_prepared` stores it: its row, and its FTS columns."""


def prepare(doc: Document) -> Prepared:
    """What storing ``doc`` takes apart from SQLite: its row values and analysed terms.

    A pure function of the document, so a bulk build can run it in other processes.
    """
    values = (
        doc.id,
        doc.kind,
        doc.title,
        doc.text if doc.text is not None else doc.fields.get("body", ""),
        _iso(doc.date),
        doc.scope.value if doc.scope else None,
        doc.type.value if doc.type else None,
        doc.group,
        doc.seq,
        json.dumps(dict(doc.meta)) if doc.meta else None,
        doc.fields.get("name") or None,
    )
    columns = [" ".join(textproc.terms(doc.fields.get(f, ""))) for f in FIELDS]
    columns[_DATES] += " " + _date_terms(_day(doc.date))
    return values, tuple(columns)


def _day(value: dt.datetime | dt.date | None) -> dt.date | None:
    return value.date() if isinstance(value, dt.datetime) else value


@functools.lru_cache(maxsize=4096)
def _date_terms(day: dt.date | None) -> str:
    """The index terms of a day's date words (documents of one day share them: cached)."""
    return " ".join(textproc.terms(date_words(day)))


def _iso(value: dt.datetime | dt.date | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone().replace(tzinfo=None)
        return value.isoformat(timespec="seconds")
    return dt.datetime.combine(value, dt.time()).isoformat(timespec="seconds")


def date_prefix(iso: str | None) -> str:
    """A date (ISO) as the words embedded before a document's text: ``"[8 May 2023 Monday] "``."""
    return f"[{date_words(dt.datetime.fromisoformat(iso))}] " if iso else ""
