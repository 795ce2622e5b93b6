"""Intents: a verb over the history that is under way, written before its first step.

An undo (and a consolidation's rollback, which is an undo of named change
sets) and a review approval each change files and then record that they did.
Recorded before the files change, a kill or a full disk between the steps
leaves the history saying "done" about what is not, and the next undo then
reverts an older, unrelated change; recorded after with nothing written
first, a second run cannot tell a half-done verb from one never started. So
each writes an intent row before its first step: its kind, what it acts on
(the change set undone, the version approved) and its plan, and deletes it in
the same transaction that records the verb done. Each step is recognised as
done by what its file holds (see :mod:`memdir.history.reverse`), so the next
run of the verb finishes an intent it finds, or says exactly what is left.

Trigger: rows in the history's own file rather than a journal file beside it.
Why: the intent must be deleted in the transaction that records the verb,
and only one file gives that. Outcome: an intent and the record it becomes
never disagree, whatever is killed when.

:class:`Intents` is a base of :class:`~memdir.history.versions.History`, as
:class:`~memdir.history.table.HistoryTable` is (no state of its own).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from memdir.history.table import HistoryTable
from memdir.utils.records import record

if TYPE_CHECKING:
    import sqlite3

__all__ = ["APPROVE", "UNDO", "Intent", "Intents"]

UNDO = "undo"
"""An undo under way: ``target`` the change set undone, the intent's id the undo's own."""
APPROVE = "approve"
"""A review approval under way: ``target`` the pending version being applied."""


@record
class Intent:
    """A verb that started and has not been recorded done."""

    id: int
    kind: str
    target: int
    time: float
    plan: str | None  # the verb's own record of its steps (JSON), when it has one
    made: int | None = None  # the change set that will record it (an undo's), once begun


class Intents(HistoryTable):
    """The ``intents`` table of a history: begun, found, ended."""

    def intents(self, kind: str) -> list[Intent]:
        """The open intents of ``kind``, oldest first."""
        rows = self._conn().execute(
            "SELECT id, kind, target, time, plan, made FROM intents WHERE kind = ? ORDER BY id",
            (kind,),
        )
        return [_intent(row) for row in rows]

    def intent(self, kind: str, target: int) -> Intent | None:
        """The open intent of ``kind`` on ``target``, if one is under way."""
        row = (
            self._conn()
            .execute(
                "SELECT id, kind, target, time, plan, made FROM intents "
                "WHERE kind = ? AND target = ? "
                "ORDER BY id LIMIT 1",
                (kind, target),
            )
            .fetchone()
        )
        return None if row is None else _intent(row)

    def has_intents(self) -> bool:
        """Whether any verb is under way (a redaction waits for it: its plan names texts)."""
        return self._conn().execute("SELECT 1 FROM intents LIMIT 1").fetchone() is not None

    @staticmethod
    def _begin_intent(
        conn: sqlite3.Connection,
        kind: str,
        target: int,
        plan: str | None = None,
        *,
        made: int | None = None,
    ) -> int:
        """Write an intent in the caller's transaction; returns its id."""
        cur = conn.execute(
            "INSERT INTO intents (kind, target, time, plan, made) VALUES (?, ?, ?, ?, ?)",
            (kind, target, time.time(), plan, made),
        )
        return int(cur.lastrowid or 0)

    @staticmethod
    def _end_intent(conn: sqlite3.Connection, intent_id: int) -> None:
        """Delete an intent in the transaction that records its verb done."""
        conn.execute("DELETE FROM intents WHERE id = ?", (intent_id,))


def _intent(row: tuple[object, ...]) -> Intent:
    ident, kind, target, when, plan, made = row
    return Intent(
        id=int(ident),  # type: ignore[call-overload]
        kind=str(kind),
        target=int(target),  # type: ignore[call-overload]
        time=float(when),  # type: ignore[arg-type]
        plan=None if plan is None else str(plan),
        made=None if made is None else int(made),  # type: ignore[call-overload]
    )
