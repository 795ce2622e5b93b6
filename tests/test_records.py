"""Recall's records: frozen, keyword-only value types defined without compiling code."""

from __future__ import annotations

import pytest

from memdir.utils.records import field, record, record_fields, replace


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


@record
class Bag:
    """A record with a fresh default, a normalising step and its own hash."""

    name: str
    items: list[str] = field(default_factory=list)
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self.name.strip())
        object.__setattr__(self, "tags", tuple(self.tags))

    def __hash__(self) -> int:
        return hash(self.name)


def test_a_default_factory_gives_each_record_its_own_value() -> None:
    first, second = Bag(name="a"), Bag(name="b")
    first.items.append("x")
    assert second.items == []
    assert Bag(name="c", items=["y"]).items == ["y"]
    assert "items" not in vars(Bag)  # no shared class attribute left behind


def test_post_init_normalises_and_replace_runs_it_again() -> None:
    bag = Bag(name="  a  ", tags=["t"])  # type: ignore[arg-type]
    assert (bag.name, bag.tags) == ("a", ("t",))
    changed = replace(bag, name=" b ", items=["z"])
    assert (changed.name, changed.items, changed.tags) == ("b", ["z"], ("t",))
    assert bag.name == "a"  # the original is untouched
    with pytest.raises(TypeError, match="'colour'"):
        replace(bag, colour="red")


def test_a_class_keeps_its_own_hash() -> None:
    assert hash(Bag(name="a", items=["1"])) == hash("a")
    assert Bag(name="a") != Bag(name="a", items=["1"])
