"""The facade's forgetting verbs: delete a memory and leave a tombstone, or lift one.

A tombstone (:mod:`memdir.history.tombstones`) keeps what was forgotten in words
and, when search has an embedding model, as a vector, so that no agent learns it
again without a person's review; :class:`ForgetVerbs` finds what a query names
through search, hence builds on :class:`~memdir.facade.searching.SearchVerbs`.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

from memdir.errors import MemdirError
from memdir.facade.guarded import guarded
from memdir.facade.searching import SearchVerbs
from memdir.model import Memory, Scope

if TYPE_CHECKING:
    from memdir.history.tombstones import Embeds, Tombstone
    from memdir.model import MemoryRecord

__all__ = ["ForgetVerbs"]


class ForgetVerbs(SearchVerbs):
    """Forgetting with a tombstone, and taking it back (a part of Memdir)."""

    @guarded
    def forget(
        self, ref: str, *, scope: Scope | str | None = None, reason: str | None = None
    ) -> Tombstone:
        """Delete memory ``ref`` (kept in the history: ``restore`` brings it back) and leave
        a tombstone, so that no agent learns it again without a person's review."""
        from memdir.history.provenance import current, local_identity
        from memdir.history.tombstones import tombstone_of

        record = self.get(ref, scope=scope)
        vector, model = self._meaning_of(record.memory)
        tombstone = tombstone_of(
            record.memory,
            file=record.file,
            scope=record.scope,
            by=current().user or local_identity()[0],
            reason=reason,
            vector=vector,
            model=model,
        )
        store, tombstones = self.store(record.scope), self.forgotten[record.scope]
        with store.lock():
            tombstones.add(tombstone)
        try:
            store.delete(record.file, expected_version=record.version)
        except BaseException:
            with store.lock():  # nothing was forgotten: no tombstone stays
                tombstones.remove(tombstone.id)
            raise
        return tombstone

    def _meaning_of(self, memory: Memory) -> tuple[builtins.list[float] | None, str | None]:
        """The vector a tombstone keeps of ``memory`` and its model (None: no model here)."""
        from memdir.history.tombstones import meaning_text

        embedder = self.meaning()
        if embedder is None:
            return None, None
        try:
            (vector,) = embedder.embed([meaning_text(memory)])
        except (MemdirError, OSError, ImportError, RuntimeError, ValueError):
            return None, None  # the terms still recognise the same words
        return list(vector), embedder.name

    def meaning(self) -> Embeds | None:
        """Search's embedder, which a tombstone is matched by meaning with (None: none)."""
        try:
            return self._embedder()
        except MemdirError:  # a model the settings name but this machine lacks: terms alone
            return None

    @guarded
    def forget_matches(
        self, query: str, *, scope: Scope | str | None = None, limit: int = 10
    ) -> builtins.list[MemoryRecord]:
        """The memories ``query`` names (in ``scope``): the one of that name or file, else
        search's best."""
        stores = [self.store(scope)] if scope is not None else [self.private, self.team]
        found = next((r for r in (s.find(query) for s in stores) if r is not None), None)
        if found is not None:
            return [found]
        records = []
        wanted = None if scope is None else Scope(scope)
        for hit in self.search(query, kinds=["memory"], scope=wanted, limit=limit):
            team = hit.ref.startswith("team/")
            store = self.team if team else self.private
            record = store.find(hit.ref.removeprefix("team/") if team else hit.ref)
            if record is not None and record not in records:
                records.append(record)
        return records

    @guarded
    def unforget(self, ref: str, *, scope: Scope | str | None = None) -> builtins.list[Tombstone]:
        """Remove the tombstones ``ref`` names (id, name or file): agents may learn it again."""
        scopes = [Scope(scope)] if scope is not None else [Scope.PRIVATE, Scope.TEAM]
        removed = []
        for each in scopes:
            with self.store(each).lock():
                removed += self.forgotten[each].remove(ref)
        return removed
