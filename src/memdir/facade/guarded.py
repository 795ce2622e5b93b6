"""The facade's one rule for failures: no verb raises a bare ``OSError``.

:func:`guarded` wraps a verb of :class:`~memdir.api.Memdir` so that a storage
failure (a full disk, an I/O error) is raised as :class:`~memdir.errors.StorageError`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from memdir.storage.failures import translated

__all__ = ["guarded"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def guarded(method: Callable[_P, _R]) -> Callable[_P, _R]:
    """``method`` with its storage failures (a full disk, an I/O error) raised as
    :class:`~memdir.errors.StorageError`: the API never raises a bare ``OSError``."""

    @functools.wraps(method)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with translated():
            return method(*args, **kwargs)

    return wrapper
