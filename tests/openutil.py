"""Which files a block of code opens, seen through a Python audit hook (no mocks)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

__all__ = ["files_opened"]

_RECORDING: list[list[str]] = []


def _record_opens(event: str, args: tuple[object, ...]) -> None:
    # An audit hook sees every file the process opens (open(), os.open), SQLite's aside.
    if _RECORDING and event == "open" and isinstance(args[0], str | bytes | os.PathLike):
        _RECORDING[-1].append(os.path.realpath(os.fsdecode(args[0])))


sys.addaudithook(_record_opens)  # audit hooks stay for the process: it records only on demand


@contextlib.contextmanager
def files_opened() -> Iterator[list[str]]:
    """The real paths of every file opened inside the block."""
    _RECORDING.append([])
    try:
        yield _RECORDING[-1]
    finally:
        _RECORDING.pop()
