"""The catalog's journal: where writers list the files they changed.

Every store write appends the absolute paths it touched, so the next search
reads them instead of looking for changes (see :mod:`memdir.search.refresh`).
The journal is derived state: a write whose journal line cannot be written
(a folder in its place, a full disk) is already made, so that is a warning
(:func:`journal_or_warning`), never a failed write.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from contextlib import AbstractContextManager
from pathlib import Path

from memdir.errors import MemdirError
from memdir.storage.fs import FILE_MODE, file_lock

__all__ = ["JOURNAL_NAME", "append_journal", "journal_lock", "journal_or_warning"]


JOURNAL_NAME = "catalog.journal"
"""The file (in a project's state folder) where writers list the files they changed."""


def journal_lock(journal: Path) -> AbstractContextManager[None]:
    """The lock held while the journal is appended to or emptied."""
    return file_lock(Path(f"{journal}.lock"))


def append_journal(journal: Path, paths: Iterable[Path]) -> None:
    """List ``paths`` (absolute, one a line) in the catalog's journal.

    One ``O_APPEND`` write under the journal's lock. Not fsynced: the journal
    only tells the catalog where to look first; what a crash loses there the
    catalog's own checks (folder mtimes, rotating stat) still find.
    """
    data = "".join(f"{path}\n" for path in paths).encode("utf-8", "surrogateescape")
    if not data:
        return
    with journal_lock(journal):
        fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)


def journal_or_warning(journal: Path, paths: Iterable[Path]) -> tuple[str, ...]:
    """:func:`append_journal`, a failure said as a warning (and logged), never raised.

    The journal only tells the catalog where to look first: a change it cannot
    announce (a folder in its place, a full disk) is already made, and the
    catalog's walks find it anyway.
    """
    try:
        append_journal(journal, paths)
    except (OSError, MemdirError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        warning = (
            f"saved, but the search catalog's journal {journal} could not be written "
            f"({reason}); search finds the change on its next walk, and `memdir doctor "
            "--fix` repairs the journal"
        )
        import logging  # here: recall and the hooks load this module, and rarely log

        logging.getLogger("memdir.storage").info("%s", warning)
        return (warning,)
    return ()
