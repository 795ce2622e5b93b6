"""The facade's search verbs: ranked search, grep, embedding, the catalog's upkeep.

:class:`SearchVerbs` keeps one open catalog per thread (SQLite connections stay in
their thread) and one embedding model per facade, loaded at the first search that
embeds; the ranking itself is :mod:`memdir.search`. The attributes it reads are set
when :class:`memdir.api.Memdir` is made (its ``_after_init``).
"""

from __future__ import annotations

import builtins
import datetime as dt
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.facade.guarded import guarded
from memdir.history.project import ProjectMemory
from memdir.model import MemoryType, Scope

# The layers above storage load on first use: `import memdir` and every CLI
# start stay free of the catalog, the model layer and numpy.
if TYPE_CHECKING:
    from memdir.search.catalog import Catalog, Hit, Progress, RefreshStats
    from memdir.search.query import GrepHit
    from memdir.search.vectors.embeddings import Embedder

__all__ = ["SearchVerbs"]


class SearchVerbs(ProjectMemory):
    """Search over a project's memories, logs, notes and transcripts (a part of Memdir)."""

    _catalogs: dict[int, Catalog]  # one open catalog per thread
    _search_embedder: Embedder | None  # made at the first hybrid search
    _embedding: threading.Thread | None  # embed_in_background's
    _embedding_stop: threading.Event  # set: that thread stops after its batch

    @guarded
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
            from memdir.search.vectors.embeddings import local_embedder

            self._search_embedder = local_embedder(self.settings.search_embeddings)
        return self._search_embedder

    def close(self) -> None:
        """Close what searches opened (the catalog's connections); reopened when needed."""
        for catalog in self._catalogs.values():
            catalog.close()
        self._catalogs.clear()

    @guarded
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

    @guarded
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
        stop = self._embedding_stop
        stop.clear()

        def between_batches(done: int, total: int) -> None:
            if stop.is_set():
                raise _EmbeddingStopped

        def run() -> None:
            try:
                self.embed(progress=between_batches)
            except _EmbeddingStopped:
                pass  # asked to stop: the batches embedded so far are kept
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

    def stop_embedding(self, timeout: float = 10.0) -> None:
        """Ask :meth:`embed_in_background`'s thread to stop after the batch it is on, and
        wait for it (``timeout`` seconds at most). A process that ends while the thread
        is inside the model's native code can abort instead of exiting: a server calls
        this before it returns."""
        thread = self._embedding
        if thread is None:
            return
        self._embedding_stop.set()
        thread.join(timeout)

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

    @guarded
    def reindex(self, *, progress: Progress | None = None) -> RefreshStats:
        """Rebuild the derived search index from the files."""
        from memdir.search.catalog import Catalog

        with Catalog.open(self.layout, embedder=self._embedder()) as catalog:
            return catalog.rebuild(progress=progress)  # vectors again too, when hybrid

    @guarded
    def add_transcripts(
        self, path: str | Path, *, progress: Progress | None = None
    ) -> RefreshStats:
        """Index a transcript file or a folder of ``.jsonl`` transcripts for search."""
        from memdir.search.catalog import Catalog

        with Catalog.open(self.layout) as catalog:
            return catalog.add_transcripts(path, progress=progress)


class _EmbeddingStopped(Exception):
    """Raised between two batches of a background embedding asked to stop."""
