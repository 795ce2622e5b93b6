"""The facade's history verbs: versions, undo and redaction, provenance, pins, review.

Each verb of :class:`HistoryVerbs` hands the facade to the module of
:mod:`memdir.history` (or :mod:`memdir.recall.index_budget`, for pins) that does
the work; what a session used of memory is :mod:`memdir.history.used`.
"""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.facade.guarded import guarded
from memdir.history.project import ProjectMemory
from memdir.model import Scope

if TYPE_CHECKING:
    from memdir.history.pending import Pending
    from memdir.history.retention import PruneReport
    from memdir.history.undo import RedactReport, UndoReport, Why
    from memdir.history.used import SessionUse
    from memdir.history.versions import Version
    from memdir.model import MemoryRecord
    from memdir.storage.store import WriteResult

__all__ = ["HistoryVerbs"]


class HistoryVerbs(ProjectMemory):
    """What memdir keeps of each change, and the verbs that use it (a part of Memdir)."""

    @guarded
    def history(
        self,
        ref: str,
        *,
        scope: Scope | str | None = None,
        limit: int | None = None,
        before: int | None = None,
    ) -> builtins.list[Version]:
        """The kept versions of memory ``ref`` (deleted ones too), newest first: ``limit`` of
        them (None: all) with ids below ``before``."""
        from memdir.history.undo import history_of

        return history_of(self, ref, scope=scope, limit=limit, before=before)

    @guarded
    def restore(
        self, ref: str, *, version: int | None = None, scope: Scope | str | None = None
    ) -> WriteResult:
        """Bring back ``version`` of ``ref``, or the text before its last change."""
        from memdir.history.undo import restore

        return restore(self, ref, version=version, scope=scope)

    @guarded
    def undo(self) -> UndoReport:
        """Reverse the last change (a whole consolidation run is one change)."""
        from memdir.history.undo import undo

        return undo(self)

    @guarded
    def redact(self, ref: str, version: int, *, scope: Scope | str | None = None) -> RedactReport:
        """Remove the text a version held (a secret) from every copy memdir keeps: the
        history, the trash, the rule cache, consolidation proposals and the search catalog."""
        from memdir.agents.consolidate.changeset import drop_holding
        from memdir.history.undo import redact
        from memdir.search.catalog import Catalog
        from memdir.utils.records import replace

        def proposals(texts: frozenset[str]) -> list[str]:
            return [f"consolidation proposal {p}, which held it" for p in drop_holding(self, texts)]

        report = redact(self, ref, version, scope=scope, also=proposals)
        with Catalog.open(self.layout) as catalog:
            catalog.forget()
        forgot = "search catalog: the rows of files that changed or are gone"
        return replace(report, removed=(*report.removed, forgot))

    @guarded
    def why(self, ref: str, *, scope: Scope | str | None = None, limit: int | None = None) -> Why:
        """Why memdir holds ``ref``: its provenance, the turns behind it, its ``limit``
        newest versions (by default :data:`~memdir.history.undo.WHY_VERSIONS`)."""
        from memdir.history.undo import WHY_VERSIONS, why

        return why(self, ref, scope=scope, limit=WHY_VERSIONS if limit is None else limit)

    @guarded
    def pin(self, ref: str, *, scope: Scope | str | None = None) -> MemoryRecord:
        """Pin ``ref``: its index line loads at every session start, before any other."""
        from memdir.recall.index_budget import set_pinned

        return set_pinned(self, ref, pinned=True, scope=scope)

    @guarded
    def unpin(self, ref: str, *, scope: Scope | str | None = None) -> MemoryRecord:
        """Unpin ``ref``: its index line competes for the session start's room again."""
        from memdir.recall.index_budget import set_pinned

        return set_pinned(self, ref, pinned=False, scope=scope)

    def used(
        self, session: str | None = None, *, transcript: str | Path | None = None
    ) -> SessionUse | None:
        """What ``session`` (the latest one by default; None: no session is logged) was
        shown of memory and did with it: session start, recalls, reads and writes of
        memory files (from ``transcript``, else the one the session named), rule firings."""
        from memdir.history.used import newest_session, session_use

        chosen = session or newest_session(self.layout)
        if chosen is None:
            return None
        return session_use(self.layout, chosen, env=self.env, transcript=transcript)

    @guarded
    def prune_history(self) -> PruneReport:
        """Drop versions and trash older than ``history_retention_days``."""
        from memdir.history.undo import require_history

        return require_history(self).prune()

    @guarded
    def review(self) -> builtins.list[Pending]:
        """Agents' changes awaiting review (``manual`` mode), oldest first, with diffs."""
        from memdir.history.pending import pending_changes

        return pending_changes(self)

    @guarded
    def approve(self, ref: str | None = None) -> builtins.list[Version]:
        """Apply the pending changes of ``ref`` (every one with None)."""
        from memdir.history.pending import approve

        return approve(self, ref)

    @guarded
    def reject(self, ref: str) -> builtins.list[Version]:
        """Drop the pending changes of ``ref``; they never apply."""
        from memdir.history.pending import reject

        return reject(self, ref)
