"""The history's retention: old versions, the blobs only they held, old trash folders.

Versions older than ``history_retention_days`` go on :meth:`Retention.prune` (run
once a day by the first write, :meth:`Retention.prune_if_due`, and by ``memdir
history --prune``), except the newest version of a memory that still exists (its
provenance); change sets nothing points at any more, the blobs only they held and
the trash's dated folders past the same age go with them. :class:`Retention` is a
base of :class:`~memdir.history.versions.History`, as
:class:`~memdir.history.intents.Intents` is.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.history.intents import Intents
from memdir.utils.records import record

if TYPE_CHECKING:
    import sqlite3

__all__ = ["PruneReport", "Retention"]

_DAY = 86_400.0


@record
class PruneReport:
    """What a prune removed."""

    versions: int
    blobs: int
    trash_folders: int
    cutoff: float


class Retention(Intents):
    """Pruning of a history (its ``retention_days`` and ``trash_dir``: set by History)."""

    retention_days: float
    trash_dir: Path | None

    def prune_if_due(self) -> PruneReport | None:
        """Prune when the last prune is over a day old (the first write of a process asks)."""
        row = self._conn().execute("SELECT value FROM meta WHERE key = 'pruned_at'").fetchone()
        if row is not None and time.time() - float(row[0]) < _DAY:
            return None
        return self.prune()

    def prune(self, *, now: float | None = None) -> PruneReport:
        """Drop versions (and trash folders) older than the retention, and orphan blobs.

        The newest version of a file that still exists stays: it is the
        memory's provenance, not an old version.
        """
        now = time.time() if now is None else now
        cutoff = now - self.retention_days * _DAY
        with self._transaction() as conn:
            gone = conn.execute(
                "DELETE FROM versions WHERE time < ? AND coalesce(status, '') != 'pending' "
                "AND NOT (after IS NOT NULL AND id IN (SELECT max(id) FROM versions "
                "WHERE status IS NULL GROUP BY scope, file))",
                (cutoff,),
            ).rowcount
            conn.execute(
                "DELETE FROM changes WHERE time < ? AND id NOT IN (SELECT change FROM versions) "
                "AND id NOT IN (SELECT made FROM intents WHERE made IS NOT NULL) "
                "AND id NOT IN (SELECT target FROM intents WHERE kind = 'undo')",
                (cutoff,),
            )
            conn.execute("DELETE FROM snapshots WHERE change NOT IN (SELECT id FROM changes)")
            blobs = self._drop_orphans(conn)
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('pruned_at', ?)", (str(now),)
            )
        return PruneReport(
            versions=gone, blobs=blobs, trash_folders=self._prune_trash(cutoff), cutoff=cutoff
        )

    @staticmethod
    def _drop_orphans(conn: sqlite3.Connection) -> int:
        return int(
            conn.execute(
                "DELETE FROM blobs WHERE hash NOT IN ("
                "SELECT before FROM versions WHERE before IS NOT NULL "
                "UNION SELECT after FROM versions WHERE after IS NOT NULL "
                "UNION SELECT meta_before FROM versions WHERE meta_before IS NOT NULL "
                "UNION SELECT meta_after FROM versions WHERE meta_after IS NOT NULL "
                "UNION SELECT hash FROM snapshots)"
            ).rowcount
        )

    def _prune_trash(self, cutoff: float) -> int:
        """Remove the trash's dated folders older than the cutoff."""
        if self.trash_dir is None or not self.trash_dir.is_dir():
            return 0
        day = dt.date.fromtimestamp(cutoff).isoformat()
        removed = 0
        for entry in os.scandir(self.trash_dir):
            if entry.is_dir(follow_symlinks=False) and entry.name < day:
                import shutil

                shutil.rmtree(entry.path, ignore_errors=True)
                removed += 1
        return removed
