"""Frozen, keyword-only records that cost nothing to define.

The hooks run in a fresh process before every prompt and every tool call
(``memdir hook user-prompt-submit``, ``pre-tool-use``), so what their modules
do at import is paid each time. ``@dataclass(frozen=True)`` compiles six
methods per class with ``exec`` (about 2 ms a class on a busy machine), and
``import dataclasses`` alone costs a tool-call hook more than its answer; the
value types on those paths (recall's, the enforced rules') use :func:`record`.
This module imports neither ``typing`` nor ``inspect`` at run time.

:func:`record` gives the same surface as ``@dataclass(frozen=True,
kw_only=True)`` for the fields a class annotates (its own, no inheritance):
a keyword-only ``__init__`` with the class attributes as defaults, equality
and hashing by field values, a ``repr`` listing the fields, and assignment
refused. The methods are shared closures over the field names, so defining
a class compiles nothing. A field whose default must be fresh for each record
(a dict, a list) says so with :func:`field` (``default_factory``); a class may
define ``__post_init__`` to normalise its fields (through
``object.__setattr__``), and :func:`replace` makes a changed copy, as their
``dataclasses`` namesakes do. ``typing.dataclass_transform`` tells type checkers
about the synthesized ``__init__``. Records also answer ``json_fields()``
(their fields by name), which is how the CLI turns them into JSON; a class
may define its own.
"""

from __future__ import annotations

TYPE_CHECKING = False  # type checkers treat the name as true; typing is not imported
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    _T = TypeVar("_T")
    _V = TypeVar("_V")
else:

    def dataclass_transform(**_options: object) -> object:
        """At run time a no-op: the marker only matters to type checkers."""
        return lambda function: function


__all__ = ["field", "record", "record_fields", "replace"]

_FIELDS = "__record_fields__"


class _Factory:
    """A field's default made fresh for each record (see :func:`field`)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], object]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], _V]) -> _V:
    """A field default made by ``default_factory()`` for each record that is not given one."""
    made: _V = _Factory(default_factory)  # type: ignore[assignment]
    return made  # the field's own type, to type checkers (``field_specifiers``)


def replace(value: _T, **changes: Any) -> _T:
    """A copy of the record ``value`` with ``changes`` (``__post_init__`` runs again)."""
    names = record_fields(value)
    state = vars(value)
    made: _T = value.__class__(**{**{name: state[name] for name in names}, **changes})
    return made


def record_fields(value: object) -> tuple[str, ...]:
    """The field names of a record class or instance, in declaration order."""
    fields: tuple[str, ...] = getattr(value, _FIELDS)
    return fields


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field,))
def record(cls: type[_T]) -> type[_T]:
    """Make ``cls`` a frozen, keyword-only record of its annotated fields."""
    # The class's own annotations (since 3.10 a class never sees its bases' here).
    names = tuple(getattr(cls, "__annotations__", {}))
    given = {name: cls.__dict__[name] for name in names if name in cls.__dict__}
    factories = {name: d.make for name, d in given.items() if isinstance(d, _Factory)}
    defaults = {name: d for name, d in given.items() if name not in factories}
    for name in factories:
        delattr(cls, name)  # a class attribute would be one shared value
    required = frozenset(names) - given.keys()
    allowed = frozenset(names)
    title = cls.__name__
    post_init = getattr(cls, "__post_init__", None)

    def __init__(self: Any, **values: Any) -> None:
        if not required <= values.keys() or not values.keys() <= allowed:
            _refuse(title, required - values.keys(), values.keys() - allowed)
        state = self.__dict__
        state.update(defaults)
        for name, make in factories.items():
            if name not in values:
                state[name] = make()
        state.update(values)
        if post_init is not None:
            post_init(self)

    def _values(self: Any) -> tuple[Any, ...]:
        state = self.__dict__
        return tuple(state[name] for name in names)

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_values(self) == _values(other))

    def __hash__(self: Any) -> int:
        return hash(_values(self))

    def __repr__(self: Any) -> str:
        pairs = zip(names, _values(self), strict=True)
        shown = ", ".join(f"{name}={value!r}" for name, value in pairs)
        return f"{self.__class__.__qualname__}({shown})"

    def __setattr__(self: Any, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen {title}")

    def __delattr__(self: Any, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen {title}")

    def json_fields(self: Any) -> dict[str, Any]:
        """The record's fields by name (what ``--json`` prints)."""
        return dict(zip(names, _values(self), strict=True))

    methods: dict[str, Callable[..., Any]] = {
        "__init__": __init__,
        "__eq__": __eq__,
        "__hash__": __hash__,
        "__repr__": __repr__,
        "__setattr__": __setattr__,
        "__delattr__": __delattr__,
    }
    methods["json_fields"] = json_fields
    for name in ("__hash__", "__repr__", "json_fields"):
        if cls.__dict__.get(name) is not None:
            del methods[name]  # the class's own
    for name, method in methods.items():
        method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)
    setattr(cls, _FIELDS, names)
    return cls


def _refuse(title: str, missing: frozenset[str], unknown: frozenset[str] | Any) -> None:
    if missing:
        listed = ", ".join(repr(name) for name in sorted(missing))
        raise TypeError(f"{title}() missing keyword argument(s): {listed}")
    listed = ", ".join(repr(name) for name in sorted(unknown))
    raise TypeError(f"{title}() got unexpected keyword argument(s): {listed}")
