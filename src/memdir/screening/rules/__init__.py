"""The screening rules by class, and the words they share: :mod:`memdir.screening.rulebook`
puts them together in the order they are tried."""

from __future__ import annotations

__all__: list[str] = []
