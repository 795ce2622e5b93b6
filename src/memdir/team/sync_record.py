"""The outcome of the last team syncs, kept so ``memdir doctor`` can report it.

One small JSON file under the project's state folder
(``<state>/team-sync.json``): when the last sync succeeded, and when the
last one failed with the error's message, hint and git's whole error output
(``detail``, credentials hidden). A sync that fails leaves the record of the
last success in place, so doctor can say "failing since ...". The record is
a report, never an input to a sync: a damaged or unwritable one is ignored.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memdir.errors import MemdirError
from memdir.storage.fs import atomic_write, ensure_dir

if TYPE_CHECKING:
    from memdir.storage.paths import Layout

__all__ = ["RECORD_NAME", "SyncRecord", "read_record", "recorded"]

RECORD_NAME = "team-sync.json"


@dataclass(frozen=True, kw_only=True)
class SyncRecord:
    """The last success and the last failure (times are Unix seconds, or None)."""

    last_success: float | None = None
    last_failure: float | None = None
    message: str = ""
    hint: str = ""
    detail: str = ""

    @property
    def failing(self) -> bool:
        """Whether the most recent sync failed."""
        if self.last_failure is None:
            return False
        return self.last_success is None or self.last_failure > self.last_success


def _path(layout: Layout, path: Path | None = None) -> Path:
    return path if path is not None else layout.state_dir / RECORD_NAME


def read_record(layout: Layout, path: Path | None = None) -> SyncRecord:
    """The record (an empty one when there is none or it is damaged).

    ``path``: another sync's record (private sync keeps its own); team sync's by default.
    """
    try:
        data = json.loads(_path(layout, path).read_text("utf-8"))
    except (OSError, ValueError):
        return SyncRecord()
    if not isinstance(data, dict):
        return SyncRecord()
    fields: dict[str, Any] = {}
    for key in ("last_success", "last_failure"):
        value = data.get(key)
        fields[key] = float(value) if isinstance(value, int | float) else None
    for key in ("message", "hint", "detail"):
        value = data.get(key)
        fields[key] = value if isinstance(value, str) else ""
    return SyncRecord(**fields)


def _write(layout: Layout, record: SyncRecord, path: Path | None) -> None:
    target = _path(layout, path)
    with suppress(OSError):  # a report only: a read-only state folder costs the report
        ensure_dir(target.parent)
        atomic_write(target, json.dumps(asdict(record), indent=1) + "\n")


@contextmanager
def recorded(layout: Layout, path: Path | None = None) -> Iterator[None]:
    """Record the block's outcome: success, or the MemdirError it raised (re-raised)."""
    try:
        yield
    except MemdirError as exc:
        before = read_record(layout, path)
        detail = getattr(exc, "detail", "")
        _write(
            layout,
            SyncRecord(
                last_success=before.last_success,
                last_failure=time.time(),
                message=exc.message,
                hint=exc.hint or "",
                detail=detail if isinstance(detail, str) else "",
            ),
            path,
        )
        raise
    _write(layout, SyncRecord(last_success=time.time()), path)
