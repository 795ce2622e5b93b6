"""Recall's records: frozen, keyword-only value types defined without compiling code."""

from __future__ import annotations

import pytest

from memdir.records import record, record_fields


@record
class Point:
    """A test record."""

    x: int
    y: int = 0
    label: str | None = None


@record
class Other:
    """Another record with the same fields."""

    x: int
    y: int = 0
    label: str | None = None


def test_fields_are_given_by_keyword_and_defaults_fill_the_rest() -> None:
    point = Point(x=3)
    assert (point.x, point.y, point.label) == (3, 0, None)
    assert record_fields(point) == record_fields(Point) == ("x", "y", "label")
    with pytest.raises(TypeError):
        Point(3)  # type: ignore[call-arg]


def test_a_missing_or_unknown_keyword_is_an_error_naming_it() -> None:
    with pytest.raises(TypeError, match=r"missing keyword argument.*'x'"):
        Point(y=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"unexpected keyword argument.*'z'"):
        Point(x=1, z=2)  # type: ignore[call-arg]


def test_a_record_cannot_be_changed() -> None:
    point = Point(x=1)
    with pytest.raises(AttributeError, match="frozen Point"):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del point.y
    assert point.x == 1


def test_equal_fields_make_equal_records_of_one_class_only() -> None:
    assert Point(x=1, label="a") == Point(label="a", x=1)
    assert hash(Point(x=1, label="a")) == hash(Point(label="a", x=1))
    assert Point(x=1) != Point(x=2)
    assert Point(x=1) != Other(x=1)  # type: ignore[comparison-overlap]
    assert len({Point(x=1), Point(x=1), Point(x=1, y=1)}) == 2


def test_repr_and_json_fields_list_the_fields_in_order() -> None:
    point = Point(x=1, label="a")
    assert repr(point) == "Point(x=1, y=0, label='a')"
    assert point.json_fields() == {"x": 1, "y": 0, "label": "a"}  # type: ignore[attr-defined]
