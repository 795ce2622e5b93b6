"""The facade's model verbs: extraction, consolidation, session notes, the host.

Each is thin: it hands the facade (a :class:`~memdir.history.project.ProjectMemory`)
and the caller's provider to the agent that does the work, so the agents never
import the facade. The provider is always the caller's: memdir never picks a
model behind a library call.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from memdir.facade.guarded import guarded
from memdir.history.project import ProjectMemory

if TYPE_CHECKING:
    from memdir.agents.consolidate.run import ConsolidationPreview, ConsolidationReport
    from memdir.agents.extract import ExtractionReport
    from memdir.agents.host import MemoryHost, Messages
    from memdir.agents.session.notes import SessionNotes
    from memdir.llm.base import Provider

__all__ = ["ModelVerbs"]


class ModelVerbs(ProjectMemory):
    """The verbs that take the caller's provider (a part of Memdir)."""

    @guarded
    def extract(
        self, provider: Provider, messages: Messages, *, session_id: str = "default"
    ) -> ExtractionReport:
        """Save what ``messages`` teach that future sessions need, as typed memories.

        Runs one extraction now, in this thread (see :mod:`memdir.agents.extract`).
        ``messages`` are :class:`~memdir.transcripts.turns.Turn` values or plain
        ``{"role", "content"}`` dicts. A cursor per ``session_id`` remembers the last
        message considered, so calling again with a longer conversation looks only
        at what is new. Never raises for model or provider errors: the report says.
        """
        from memdir.agents.extract import MemoryExtractor
        from memdir.agents.host import as_turns

        extractor = MemoryExtractor(self, provider, session_id)
        return extractor.extract(as_turns(messages))

    @guarded
    def consolidate(
        self,
        provider: Provider,
        *,
        force: bool = False,
        now: dt.datetime | None = None,
        session_id: str | None = None,
    ) -> ConsolidationReport:
        """Distil daily logs and sessions into tidy topic memories, when the gates allow.

        The gates (24 h since the last run, 5 sessions since, the scan throttle, the
        lock) are in :mod:`memdir.agents.consolidate.gates`; ``force`` skips all but
        the lock. ``session_id`` is the caller's own session, which does not count
        towards the five. Never raises for model or provider errors.
        """
        from memdir.agents.consolidate.run import consolidate

        return consolidate(
            self,
            provider,
            force=force,
            now=now,
            current_session=session_id,
            enabled=self.enabled,
        )

    @guarded
    def preview_consolidation(
        self, provider: Provider, *, now: dt.datetime | None = None
    ) -> ConsolidationPreview:
        """What :meth:`consolidate` would change, as a unified diff; nothing real is written."""
        from memdir.agents.consolidate.run import preview_consolidation

        return preview_consolidation(self, provider, now=now, enabled=self.enabled)

    @guarded
    def notes(self, provider: Provider, session_id: str) -> SessionNotes:
        """The session notes of ``session_id``: ``read()`` them, or ``update(turns)`` them now.

        ``update`` takes :class:`~memdir.transcripts.turns.Turn` values
        (:func:`memdir.agents.host.as_turns` makes them from message dicts); to update
        the notes as a conversation goes, use :meth:`host`, which decides when.
        """
        from memdir.agents.session.notes import SessionNotes

        return SessionNotes.for_session(
            layout=self.layout, settings=self.settings, provider=provider, session_id=session_id
        )

    def host(
        self,
        provider: Provider,
        session_id: str,
        *,
        session_notes: bool = True,
        extraction: bool = True,
    ) -> MemoryHost:
        """The background memory work of one running agent session.

        Call ``after_turn(messages)`` after every model turn; the host updates the
        session notes and extracts memories in background threads when they are due.
        Use it as a context manager (or call ``close()``) so the work finishes.
        """
        from memdir.agents.host import MemoryHost

        return MemoryHost(
            self,
            provider,
            session_id,
            session_notes=session_notes,
            extraction=extraction,
        )
