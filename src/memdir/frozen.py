"""A base for the few frozen values on the per-call hooks' import path.

``import dataclasses`` (and the code generation each dataclass runs) costs a
hook process more than its whole answer, so the values the pre-tool-use hook
builds (:class:`~memdir.storage.rules.Rule` and the rule sets around it)
derive from :class:`Frozen` instead: equality, hashing and ``repr`` over the
``__slots__``, and no assignment after ``__init__``. Subclasses write their
own keyword-only ``__init__`` (so type checkers see the fields) and set each
field with :meth:`Frozen._set`.
"""

from __future__ import annotations

__all__ = ["Frozen"]


class Frozen:
    """Slots-based frozen value: compared, hashed and shown by its fields, in slot order."""

    __slots__: tuple[str, ...] = ()

    def _set(self, **fields: object) -> None:
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Frozen)  # for the type checker: same class as self
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._fields()))

    def __reduce__(self) -> tuple[object, ...]:
        # copy, deepcopy and pickle rebuild through __init__ (their default would set
        # the slots one by one, which a frozen value refuses).
        return (_rebuild, (type(self), dict(zip(self.__slots__, self._fields(), strict=True))))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({shown})"


def _rebuild(cls: type[Frozen], fields: dict[str, object]) -> Frozen:
    return cls(**fields)
