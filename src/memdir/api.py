"""The Memdir facade: one object that opens a project's memory.

``Memdir.open(project=".")`` is a composition root: it reads the settings,
works out the project's layout, claims the project folder, creates the
memory directories (so agents never spend a turn on ``mkdir``), and wires the
private and team stores. Everything else in memdir receives what it needs
from here.

The model verbs (:meth:`Memdir.extract`, :meth:`Memdir.consolidate`,
:meth:`Memdir.host`, :meth:`Memdir.notes`) are thin: each hands this object (a
:class:`~memdir.history.project.ProjectMemory`) and the caller's provider to
the agent that does the work, so a library user needs one object and the
agents never import the facade. The provider is always the caller's: memdir
never picks a model behind a library call.
"""

from __future__ import annotations

import builtins
import datetime as dt
import functools
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, TypeVar

from memdir.config import Settings, load_settings
from memdir.errors import MemdirError, StorageError
from memdir.history.project import ProjectMemory
from memdir.model import Memory, MemoryType, Scope
from memdir.storage.failures import translated
from memdir.storage.journal import JOURNAL_NAME, journal_or_warning
from memdir.storage.paths import ROOT_RECORD, Layout, make_layout
from memdir.storage.store import WriteGuard

# The layers above storage load on first use: `import memdir` and every CLI
# start stay free of the catalog, the model layer and numpy.
if TYPE_CHECKING:
    from memdir.agents.consolidate.run import ConsolidationPreview, ConsolidationReport
    from memdir.agents.extract import ExtractionReport
    from memdir.agents.host import MemoryHost, Messages
    from memdir.agents.session.notes import SessionNotes
    from memdir.history.pending import Pending
    from memdir.history.tombstones import Embeds, Tombstone
    from memdir.history.undo import RedactReport, UndoReport, Why
    from memdir.history.used import SessionUse
    from memdir.history.versions import PruneReport, Version
    from memdir.llm.base import Provider
    from memdir.model import MemoryRecord
    from memdir.recall.drift import DriftChecker
    from memdir.recall.manifest import Manifest
    from memdir.recall.prompt import PromptMode, PromptTools
    from memdir.recall.relevant import RecallResult, Selector
    from memdir.search.catalog import Catalog, Hit, Progress, RefreshStats
    from memdir.search.embeddings import Embedder
    from memdir.search.query import GrepHit
    from memdir.storage.store import WriteResult
    from memdir.sync.run import PrivateInit, PrivateStatus, PrivateSyncReport

__all__ = ["Memdir"]


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _guarded(method: Callable[_P, _R]) -> Callable[_P, _R]:
    """``method`` with its storage failures (a full disk, an I/O error) raised as
    :class:`~memdir.errors.StorageError`: the API never raises a bare ``OSError``."""

    @functools.wraps(method)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with translated():
            return method(*args, **kwargs)

    return wrapper


class Memdir(ProjectMemory):
    """A project's memory, and every verb memdir has for it.

    The stores and routing verbs (``write``, ``get``, ``list``, ``delete``)
    come from :class:`~memdir.history.project.ProjectMemory`; this class adds
    what composes the layers above storage: prompt, recall, search, logs,
    extraction, consolidation and the in-process host.
    """

    def __init__(
        self,
        *,
        layout: Layout,
        settings: Settings,
        env: Mapping[str, str] | None = None,
        team_guard: WriteGuard | None = None,
        private_guard: WriteGuard | None = None,
    ) -> None:
        super().__init__(
            layout=layout,
            settings=settings,
            env=env,
            team_guard=team_guard,
            private_guard=private_guard,
        )
        self._drift_checker: DriftChecker | None = None
        # One open catalog per thread (SQLite connections stay in their thread).
        self._catalogs: dict[int, Catalog] = {}
        self._search_embedder: Embedder | None = None  # made at the first hybrid search
        self._embedding: threading.Thread | None = None  # embed_in_background's

    @classmethod
    def open(
        cls,
        project: str | Path = ".",
        *,
        home: str | Path | None = None,
        profile: str | None = None,
        env: Mapping[str, str] | None = None,
        check_root: bool = True,
        **settings: Any,
    ) -> Memdir:
        """Open (creating its folders) the memory of the project containing ``project``.

        ``check_root=False`` opens it even when its folder's root record
        (``.memdir-root``) is damaged: for doctor, which reports and repairs it.
        A storage failure (a full disk) is a :class:`~memdir.errors.StorageError`.
        """
        env = os.environ if env is None else env
        loaded = load_settings(env, home=home, profile=profile, **settings)
        layout = make_layout(loaded.home, project, profile=loaded.profile, env=env)
        with translated(layout.project_dir):
            return cls._opened(layout, loaded, env, check_root=check_root)

    @classmethod
    def _opened(
        cls, layout: Layout, loaded: Settings, env: Mapping[str, str], *, check_root: bool
    ) -> Memdir:
        try:
            layout.claim()
        except StorageError as exc:
            # Only a damaged root record is passed over (doctor repairs it).
            if check_root or exc.path != str(layout.project_dir / ROOT_RECORD):
                raise
        memdir = cls(
            layout=layout,
            settings=loaded,
            env=env,
            team_guard=_team_guard(),
            private_guard=_private_guard(),
        )
        memdir.private.ensure()
        memdir.team.ensure()
        return memdir

    @_guarded
    def prompt(
        self,
        *,
        mode: PromptMode | Literal["auto"] = "auto",
        skip_index: bool = False,
        tools: PromptTools = "files",
        extra_guidelines: Sequence[str] = (),
        today: dt.date | None = None,
        host_paths: bool = True,
    ) -> str | None:
        """The memory section of an agent's system prompt, or None when memory is off.

        ``host_paths=False`` (with ``tools='memdir'``) names no path of this machine.
        """
        if not self.enabled:
            return None
        from memdir.recall.freshness import recheck_note
        from memdir.recall.prompt import load_prompt, resolve_mode

        resolved = resolve_mode(
            mode, team_enabled=self.team_enabled, daily_log_active=self.settings.daily_log
        )
        recheck = recheck_note(
            self.layout.state_dir, now=time.time(), max_age_days=self.settings.freshness_days
        )
        return load_prompt(
            mode=resolved,
            memory_dir=self.layout.memory_dir,
            team_dir=self.layout.team_dir if resolved == "combined" else None,
            skip_index=skip_index,
            extra_guidelines=(*extra_guidelines, *self.settings.extra_guidelines),
            tools=tools,
            today=today,
            max_index_lines=self.settings.max_index_lines,
            max_index_chars=self.settings.max_index_chars,
            host_paths=host_paths,
            recheck=recheck,
        )

    @_guarded
    def recall(
        self,
        query: str,
        *,
        session: str | None = None,
        selector: Selector | None = None,
        today: dt.date | None = None,
    ) -> RecallResult:
        """The few memories that may help with ``query`` (see ``memdir.recall.relevant.recall``)."""
        from memdir.recall.drift import DriftChecker
        from memdir.recall.relevant import recall

        if self._drift_checker is None:
            # One scan of the project's files per Memdir, shared by every recall.
            self._drift_checker = DriftChecker(self.layout.project_root)
        result = recall(
            self,
            query,
            session=session,
            selector=selector,
            today=today,
            enabled=self.enabled,
            checker=self._drift_checker,
            embedder=self._embedder(),
        )
        return result

    @_guarded
    def manifest(self, *, query: str | None = None, limit: int | None = None) -> Manifest:
        """One line per memory: newest first, or ranked for ``query``."""
        from memdir.recall.manifest import build_manifest

        return build_manifest(self, query=query, limit=limit)

    @_guarded
    def search(
        self,
        query: str,
        *,
        kinds: Sequence[str] | None = None,
        limit: int = 10,
        types: Sequence[MemoryType | str] | None = None,
        scope: Scope | str | None = None,
        since: dt.date | None = None,
        until: dt.date | None = None,
        progress: Progress | None = None,
    ) -> builtins.list[Hit]:
        """Ranked search over memories, logs, session notes and added transcripts.

        Hybrid when ``search_embeddings`` names a model (by default, the bundled
        one when the embeddings extra is installed): documents without a vector
        are embedded first, for 10 s at most (``progress(done, total)`` is told),
        and until all have one the ranking is BM25 alone; :meth:`embed` does
        them all at once.
        """
        from memdir.search.query import SearchQuery

        wanted = SearchQuery(
            query=query,
            kinds=None if kinds is None else tuple(kinds),
            limit=limit,
            types=None if types is None else tuple(types),
            scope=None if scope is None else Scope(scope),
            since=since,
            until=until,
        )
        catalog = self._catalog()
        # While a background pass embeds, a search leaves that work to it.
        budget = 0.0 if self.embedding_in_background else catalog.embed_budget
        with catalog.embedding(budget=budget, progress=progress):
            return catalog.search(wanted)

    def _catalog(self) -> Catalog:
        """This thread's open catalog (opened on first use, kept for the next search)."""
        from memdir.search.catalog import Catalog

        thread = threading.get_ident()
        catalog = self._catalogs.get(thread)
        if catalog is None:
            catalog = Catalog.open(self.layout, embedder=self._embedder())
            self._catalogs[thread] = catalog
        return catalog

    @property
    def by_meaning(self) -> bool:
        """Whether search and recall judge by meaning here: ``search_embeddings`` names a
        model this installation has (the embeddings extra, by default)."""
        return self._embedder() is not None

    def _embedder(self) -> Embedder | None:
        """The embedding model ``search_embeddings`` names (one per facade, shared by the
        threads' catalogs: the model loads once, at the first search that embeds)."""
        if self._search_embedder is None and self.settings.search_embeddings:
            from memdir.search.embeddings import local_embedder

            self._search_embedder = local_embedder(self.settings.search_embeddings)
        return self._search_embedder

    def close(self) -> None:
        """Close what searches opened (the catalog's connections); reopened when needed."""
        for catalog in self._catalogs.values():
            catalog.close()
        self._catalogs.clear()

    @_guarded
    def grep(
        self,
        pattern: str,
        *,
        regex: bool = False,
        ignore_case: bool = False,
        transcripts: str | Path | None = None,
    ) -> builtins.list[GrepHit]:
        """Lines of memory files (and transcript turns) matching ``pattern``, like grep -rn."""
        from memdir.search.query import grep

        return grep(
            self.layout.memory_dir,
            pattern,
            regex=regex,
            ignore_case=ignore_case,
            include_transcripts_dir=transcripts,
        )

    @property
    def hybrid_search(self) -> bool:
        """True when :meth:`search` fuses an embedding model with BM25 (``search_embeddings``)."""
        return self._embedder() is not None

    @_guarded
    def embed(self, *, progress: Progress | None = None) -> int:
        """Embed every document the search index holds without a vector; returns how many.

        A search embeds for a few seconds at most and ranks by BM25 alone until
        every document has a vector: this finishes the work at once (with
        ``progress(done, total)``). Nothing to do without ``search_embeddings``.
        """
        return self._catalog().embed(progress=progress)

    def embed_in_background(self) -> threading.Thread | None:
        """Start :meth:`embed` in a daemon thread (a long-lived server's first search is
        then hybrid sooner, and never waits on embedding); None when search is lexical.

        Searches meanwhile embed nothing themselves and rank by BM25 until it ends.
        A failure is logged, not raised: search stays lexical, as without the extra.
        """
        if not self.hybrid_search or self.embedding_in_background:
            return None

        def run() -> None:
            try:
                self.embed()
            except Exception as exc:  # a thread has no caller to raise to
                import logging  # here: the hooks import this module on every call

                log = logging.getLogger("memdir.search")
                log.warning("embedding for hybrid search failed: %s", exc)
            finally:
                catalog = self._catalogs.pop(threading.get_ident(), None)
                if catalog is not None:
                    catalog.close()

        self._embedding = threading.Thread(target=run, name="memdir-embed", daemon=True)
        self._embedding.start()
        return self._embedding

    def vectors_missing(self) -> int:
        """Documents the search index holds without a vector (0 when search is lexical)."""
        if not self.hybrid_search:
            return 0
        catalog = self._catalog()
        with catalog.embedding(budget=0.0, progress=None):  # catch up, embed nothing
            catalog.refresh_if_due()
        return catalog.index.vectors_missing()

    @property
    def embedding_in_background(self) -> bool:
        """True while :meth:`embed_in_background`'s thread runs."""
        return self._embedding is not None and self._embedding.is_alive()

    @_guarded
    def reindex(self, *, progress: Progress | None = None) -> RefreshStats:
        """Rebuild the derived search index from the files."""
        from memdir.search.catalog import Catalog

        with Catalog.open(self.layout, embedder=self._embedder()) as catalog:
            return catalog.rebuild(progress=progress)  # vectors again too, when hybrid

    @_guarded
    def add_transcripts(
        self, path: str | Path, *, progress: Progress | None = None
    ) -> RefreshStats:
        """Index a transcript file or a folder of ``.jsonl`` transcripts for search."""
        from memdir.search.catalog import Catalog

        with Catalog.open(self.layout) as catalog:
            return catalog.add_transcripts(path, progress=progress)

    def log(self, text: str, *, now: dt.datetime | None = None) -> Path:
        """Append a timestamped entry to today's daily log; returns the log file."""
        from memdir.storage.dailylog import append_log

        with translated(self.layout.logs_dir):
            path = append_log(self.layout.logs_dir, text, now=now, lock_dir=self.layout.lock_dir)
        journal_or_warning(self.layout.state_dir / JOURNAL_NAME, [path])  # derived: never fails
        return path

    # -- history and provenance (see memdir.history.undo) -------------------------------

    @_guarded
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

    @_guarded
    def restore(
        self, ref: str, *, version: int | None = None, scope: Scope | str | None = None
    ) -> WriteResult:
        """Bring back ``version`` of ``ref``, or the text before its last change."""
        from memdir.history.undo import restore

        return restore(self, ref, version=version, scope=scope)

    @_guarded
    def undo(self) -> UndoReport:
        """Reverse the last change (a whole consolidation run is one change)."""
        from memdir.history.undo import undo

        return undo(self)

    @_guarded
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

    @_guarded
    def why(self, ref: str, *, scope: Scope | str | None = None, limit: int | None = None) -> Why:
        """Why memdir holds ``ref``: its provenance, the turns behind it, its ``limit``
        newest versions (by default :data:`~memdir.history.undo.WHY_VERSIONS`)."""
        from memdir.history.undo import WHY_VERSIONS, why

        return why(self, ref, scope=scope, limit=WHY_VERSIONS if limit is None else limit)

    @_guarded
    def pin(self, ref: str, *, scope: Scope | str | None = None) -> MemoryRecord:
        """Pin ``ref``: its index line loads at every session start, before any other."""
        from memdir.recall.index_budget import set_pinned

        return set_pinned(self, ref, pinned=True, scope=scope)

    @_guarded
    def unpin(self, ref: str, *, scope: Scope | str | None = None) -> MemoryRecord:
        """Unpin ``ref``: its index line competes for the session start's room again."""
        from memdir.recall.index_budget import set_pinned

        return set_pinned(self, ref, pinned=False, scope=scope)

    # -- forgetting (see memdir.history.tombstones) ------------------------------------

    @_guarded
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

    @_guarded
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

    @_guarded
    def unforget(self, ref: str, *, scope: Scope | str | None = None) -> builtins.list[Tombstone]:
        """Remove the tombstones ``ref`` names (id, name or file): agents may learn it again."""
        scopes = [Scope(scope)] if scope is not None else [Scope.PRIVATE, Scope.TEAM]
        removed = []
        for each in scopes:
            with self.store(each).lock():
                removed += self.forgotten[each].remove(ref)
        return removed

    @_guarded
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

    @_guarded
    def init_private_sync(self, remote: str, *, allow_secrets: bool = False) -> PrivateInit:
        """Sync private memory through ``remote``, a git repository only its owner uses.

        The first machine publishes its memories, the next ones merge theirs with
        what is there; a remote that is the team's is refused (:mod:`memdir.sync`).
        """
        from memdir.sync.run import init_private

        return init_private(self, remote, allow_secrets=allow_secrets)

    @_guarded
    def sync_private(self, *, allow_secrets: bool = False) -> PrivateSyncReport:
        """Commit private memory here, merge the remote's, push; conflicts become copies.

        A likely secret stops the sync before anything leaves the machine unless
        ``allow_secrets`` (for this sync only).
        """
        from memdir.sync.run import sync_private

        return sync_private(self, allow_secrets=allow_secrets)

    @_guarded
    def private_sync_status(self, *, fetch: bool = True) -> PrivateStatus:
        """Where private memory stands against its remote: ahead, behind, copies to settle."""
        from memdir.sync.run import private_status

        return private_status(self, fetch=fetch)

    @_guarded
    def prune_history(self) -> PruneReport:
        """Drop versions and trash older than ``history_retention_days``."""
        from memdir.history.undo import require_history

        return require_history(self).prune()

    @_guarded
    def review(self) -> builtins.list[Pending]:
        """Agents' changes awaiting review (``manual`` mode), oldest first, with diffs."""
        from memdir.history.pending import pending_changes

        return pending_changes(self)

    @_guarded
    def approve(self, ref: str | None = None) -> builtins.list[Version]:
        """Apply the pending changes of ``ref`` (every one with None)."""
        from memdir.history.pending import approve

        return approve(self, ref)

    @_guarded
    def reject(self, ref: str) -> builtins.list[Version]:
        """Drop the pending changes of ``ref``; they never apply."""
        from memdir.history.pending import reject

        return reject(self, ref)

    # -- model verbs: each takes the caller's provider ---------------------------------

    @_guarded
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

    @_guarded
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

    @_guarded
    def preview_consolidation(
        self, provider: Provider, *, now: dt.datetime | None = None
    ) -> ConsolidationPreview:
        """What :meth:`consolidate` would change, as a unified diff; nothing real is written."""
        from memdir.agents.consolidate.run import preview_consolidation

        return preview_consolidation(self, provider, now=now, enabled=self.enabled)

    @_guarded
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


def _team_guard() -> WriteGuard:
    def refuse_secrets(text: str, file: str) -> list[str]:
        from memdir.team.secrets import ensure_no_secrets

        ensure_no_secrets(text, path=f"team/{file}")
        return []

    return refuse_secrets


def _private_guard() -> WriteGuard:
    def warn_on_secrets(text: str, file: str) -> list[str]:
        from memdir.team.secrets import scan_text

        return [
            f"{file}:{f.line}: likely {f.label} ({f.rule_id}); private memory stays on this "
            "machine, but a secret is better kept in a secret manager"
            for f in scan_text(text)
        ]

    return warn_on_secrets
