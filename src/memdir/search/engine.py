"""TextIndex: the one ranking engine, over arbitrary documents, in SQLite FTS5.

Documents (id, weighted fields, date, metadata) are analysed by
:mod:`memdir.search.terms` (Snowball stems, stop words dropped) and the terms are
stored in an FTS5 table whose columns carry BM25 field weights, one table for
every caller (:data:`DEFAULT_WEIGHTS`: name above description above body;
the date as words lowest). A document's neighbours' text (a turn's context)
goes in a second FTS5 table beside its own text and dates, scored apart and
blended by ``RankingOptions.context_share``: FTS5's ``bm25()`` normalises a row
by its whole length, so a short turn sharing one row with two long replies
was scored as a long document. Search, the manifest
and recall all rank here: through a project's catalog
(:mod:`memdir.search.catalog` keeps one in step with its files), or through an
in-memory index for a small store without one. A query is one
:class:`SearchQuery` value. A search is BM25 over the quoted query terms,
then: optional pseudo-relevance feedback, a lift for documents whose group (a
transcript) matches the query as a whole, and, when an embedder is configured,
fusion with cosine similarity over float32 vectors stored beside the text (the
nearest taken from the vector index beside the catalog,
:mod:`memdir.search.vectors.vector_index`, its product with the query begun in a thread of
its own before BM25 runs, or by a scan of the vectors table where it cannot
answer); then
a lift for documents whose name (a turn's speaker, taken from a field of the
transcript record, never from its text) the query mentions, last of the
lifts so that it multiplies the whole score (the group's share and the
cosine's too); last, a smoothing that lends each document part of its best
neighbour's score (the turns of one transcript).

The BM25 pass itself (both tables, the scan limit, filters) is
:mod:`memdir.search.lexical`, the stages after it (lift, feedback, fusion,
smoothing) :mod:`memdir.search.reranking`, the group prior
:mod:`memdir.search.group_prior`; the tables and the connection
:mod:`memdir.search.schema`, the ranked rows read back as hits
:mod:`memdir.search.hits`. Everything after BM25 works on the
``candidates`` it kept (200), and the returned hits are read, with their
snippets, in one query.

The defaults were measured on LoCoMo's DEV split (``benchmarks/locomo.py``,
paired bootstrap): each of the date words (0.5), the neighbours' context
(0.3), the speaker lift (0.3) and the smoothing (0.2) is kept because
removing it lowers turn recall@10 with a 95 % interval that excludes zero;
feedback is off because its gain was inside the interval. LoCoMo has no
memory names or descriptions, so the name and description weights (3 and 2)
are checked by the memory ranking tests instead, and ``tests/test_ranking.py``
checks the defaults on coding-session transcripts, a second text shape. The
context table and its share (0.9) were measured on both LoCoMo DEV and the
coding-session corpus of ``benchmarks/coding_sessions.py`` (long replies,
short user turns): on the second, turn recall@1/@5/@10 went from 32.7 / 49.0 /
75.5 to 66.7 / 86.4 / 95.2 (plain BM25: 66.0 / 76.2 / 93.9), on LoCoMo DEV
@10 -0.7 [-1.7, +0.2], @5 +0.1 [-0.7, +0.9] (paired bootstrap, 95 %); a share
of 0.7 lost LoCoMo @10 1.6 [-2.7, -0.6]. Then the window lending
(``window_share`` 0.5) with the share lowered to 0.75, against the defaults
before (window off, share 0.9): LoCoMo DEV @10 +1.9 [+0.8, +3.0], @5 +0.5
[-0.6, +1.6], @1 -0.1 [-0.9, +0.7]; coding sessions @1 +4.1 [+1.4, +7.5], @5
+2.7 [+0.7, +5.4], @10 +1.4 [0.0, +3.4] (now 70.7 / 89.1 / 96.6). Without the
lending LoCoMo loses @10 2.5 [-3.8, -1.3]; with it but the share at 0.9 the
coding sessions lose 3.4 at every k. Long texts as passages were measured
and not kept (``benchmarks/coding_sessions.py``). The group prior (0.2) is
measured in ``benchmarks/locomo.py``: LoCoMo DEV @10 +0.9 [+0.2, +1.8].
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_WEIGHTS",
    "FIELDS",
    "Document",
    "Hit",
    "Prepared",
    "RankingOptions",
    "SearchQuery",
    "TextIndex",
    "date_words",
    "prepare",
]

import contextlib
import sqlite3
from pathlib import Path

from memdir.search import terms as textproc
from memdir.search.document import FIELDS, Document, Prepared, date_prefix, date_words, prepare
from memdir.search.group_prior import GroupCount, lift_by_group
from memdir.search.hits import read_hits
from memdir.search.lexical import MATERIALIZED, bm25, broad
from memdir.search.ranking_options import DEFAULT_WEIGHTS, RankingOptions
from memdir.search.relevance import Relevance, relevance
from memdir.search.reranking import (
    dense_candidates,
    feedback_terms,
    fuse_dense,
    lift_named,
    nearest_rows,
    smooth_neighbours,
)
from memdir.search.schema import connect, create_tables, remake_text_tables, vector_path
from memdir.search.search_query import Hit, SearchQuery
from memdir.search.sql_in import rows_in
from memdir.search.vectors.vector_table import empty_vectors, marks, missing_vectors
from memdir.utils.records import replace

# Not typing.TYPE_CHECKING: recall ranks before every prompt, in a fresh process; the
# embeddings module (and typing) load only for a catalog that has an embedder.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
    from typing import Any

    from memdir.search.vectors.embeddings import Embedder
    from memdir.search.vectors.scoring import Product
    from memdir.search.vectors.vector_index import VectorIndex


_INSERT_DOC = (
    "INSERT INTO docs (id, source, kind, title, text, date, scope, type, grp, seq, meta, name)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
)


class TextIndex:
    """Documents in an FTS5 table, ranked by weighted BM25 (plus the extras above).

    Usable on its own (``TextIndex(":memory:")``) for any documents; the
    :class:`Catalog` builds one over a project's files.
    """

    def __init__(
        self,
        path: Path | str = ":memory:",
        *,
        options: RankingOptions | None = None,
        embedder: Embedder | None = None,
        conn: sqlite3.Connection | None = None,
    ) -> None:
        self.conn = conn if conn is not None else connect(path)
        create_tables(self.conn)
        self.options = options or RankingOptions()
        self.embedder = embedder
        # Called as (done, total) while documents are embedded: the first hybrid search
        # of a large store embeds all of it (see Memdir.search).
        self.embed_progress: Callable[[int, int], None] | None = None
        self._vectors_missing: int | None = None  # None: not counted since the last write
        self._counted_at: tuple[object, ...] | None = None  # the catalog's marks then
        self.embedded = 0  # documents this object has embedded
        self._groups = GroupCount()
        # The vector index's file beside the database (None: kept in memory), and the
        # most rows one of its pages holds (None: the index's default; tests make it small).
        self.vector_path = vector_path(path)
        self.vector_page_rows: int | None = None
        self._vector_index: VectorIndex | None = None
        self._no_vector_index = False  # numpy is missing: the vectors table is scanned
        # A hybrid search's vector product runs in a thread of its own while BM25 runs
        # (False: after it, in the search's thread; the same results, one core's time).
        self.overlap = True

    def close(self) -> None:
        """Close the database connection (and let go of the vector index)."""
        if self._vector_index is not None:
            from memdir.search.vectors.vector_index import close_index

            close_index(self._vector_index)
            self._vector_index = None
        self.conn.close()

    # --- writing ------------------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction for the block (joins the caller's when one is open)."""
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            # SQLite ends some transactions itself (a full disk): the error that
            # did is the one to raise, not "cannot rollback".
            with contextlib.suppress(sqlite3.OperationalError):
                self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def add(self, docs: Iterable[Document], *, source: int | None = None) -> int:
        """Insert or replace documents; returns how many were written."""
        return self.add_prepared([prepare(doc) for doc in docs], source=source)

    def add_prepared(self, rows: Iterable[Prepared], *, source: int | None = None) -> int:
        """Insert or replace documents made ready by :func:`prepare` (maybe in another process)."""
        self._vectors_missing = None
        count = 0
        with self.transaction():
            for values, columns in rows:
                row = (values[0], source, *values[1:])
                try:
                    cur = self.conn.execute(_INSERT_DOC, row)
                except sqlite3.IntegrityError:
                    # Replacing a document: rarer than adding one, so not looked up first.
                    self.remove([values[0]])
                    cur = self.conn.execute(_INSERT_DOC, row)
                name, description, body, context, dates = columns
                self.conn.execute(
                    "INSERT INTO fts (rowid, name, description, body, dates) VALUES (?,?,?,?,?)",
                    (cur.lastrowid, name, description, body, dates),
                )
                if context:
                    self.conn.execute(
                        "INSERT INTO ctx (rowid, body, context, dates) VALUES (?,?,?,?)",
                        (cur.lastrowid, body, context, dates),
                    )
                count += 1
        return count

    def clear(self) -> None:
        """Delete every document (in the caller's transaction when one is open)."""
        self._vectors_missing = None
        with self.transaction():
            self.conn.execute("DELETE FROM docs")
            empty_vectors(self.conn)
            remake_text_tables(self.conn)

    def remove(self, ids: Iterable[str]) -> None:
        """Delete documents by id (unknown ids are ignored)."""
        for doc_id in ids:
            row = self.conn.execute("SELECT rowid FROM docs WHERE id = ?", (doc_id,)).fetchone()
            if row is not None:
                self._delete_rows([row[0]])

    def remove_source(self, source: int) -> None:
        """Delete every document that came from one source file."""
        rows = [
            r[0] for r in self.conn.execute("SELECT rowid FROM docs WHERE source = ?", (source,))
        ]
        self._delete_rows(rows)

    def _delete_rows(self, rows: Sequence[int]) -> None:
        self._vectors_missing = None
        for table in ("docs", "fts", "ctx", "vectors"):
            self.conn.executemany(f"DELETE FROM {table} WHERE rowid = ?", [(r,) for r in rows])

    def embed_missing(self, batch: int = 64, *, budget: float | None = None) -> int:
        """Compute vectors for documents that have none; returns how many were embedded.

        ``budget`` seconds bounds the pass (see :mod:`memdir.search.vectors.vector_table`);
        :attr:`embed_progress` is told how it goes.
        """
        if self.embedder is None or (budget != 0 and self.vectors_missing() == 0):
            return 0
        from memdir.search.vectors.vector_table import embed_missing

        done = embed_missing(
            self.conn,
            self.embedder,
            self.vector_model,
            self._embedded_text,
            transaction=self.transaction,
            batch=batch,
            budget=budget,
            progress=self.embed_progress,
        )
        # Counted again when next asked (two index counts): a vector the pass made is
        # not kept when its document changed meanwhile, in this process or another.
        self._vectors_missing = None
        self.embedded += done.embedded
        return done.embedded

    def _embedded_text(self, row: Sequence[Any]) -> str:
        from memdir.search.vectors.embeddings import embedded_text, memory_text

        _, text, date, previous, name, kind, title, meta = row
        if kind == "memory":
            return memory_text(text, name=title if self.options.embed_name else None, meta=meta)
        return embedded_text(
            text,
            dated=date_prefix(date),
            name=name if self.options.embed_name else None,
            previous=previous if self.options.embed_previous else None,
        )

    def vectors_missing(self) -> int:
        """Documents without a vector of this index's model (0 without an embedder).

        Every search asks (hybrid ranking waits for all): a count of none is trusted
        while the catalog's marks stay as they were
        (:func:`~.vectors.vector_table.marks`, two lookups), whatever process writes;
        any other count is made again.
        """
        if self.embedder is None:
            return 0
        now = (*marks(self.conn), self.vector_model)
        if self._vectors_missing == 0 and self._counted_at == now:
            return 0
        self._vectors_missing = missing_vectors(self.conn, self.vector_model)
        self._counted_at = now
        return self._vectors_missing

    @property
    def vector_model(self) -> str:
        """The key vectors are kept under (:func:`~memdir.search.vectors.embeddings.vector_key`)."""
        from memdir.search.vectors.embeddings import vector_key

        name = self.embedder.name if self.embedder is not None else ""
        opts = self.options
        return vector_key(name, with_name=opts.embed_name, with_previous=opts.embed_previous)

    def __len__(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM docs").fetchone()[0])

    # --- searching ----------------------------------------------------------------

    def search(self, query: SearchQuery | str) -> list[Hit]:
        """The best ``query.limit`` documents for ``query``; never raises on query text."""
        q = SearchQuery.of(query)
        return read_hits(self.conn, self._ranked(q), textproc.query_terms(q.query))

    def rank(self, query: SearchQuery | str) -> list[tuple[str, float]]:
        """Like :meth:`search`, but only the ids and scores (no snippets: cheaper)."""
        ranked = self._ranked(SearchQuery.of(query))
        if not ranked:
            return []
        sql = "SELECT rowid, id FROM docs WHERE rowid IN ({in})"
        ids = dict(rows_in(self.conn, sql, [r for r, _ in ranked]))
        return [(ids[r], round(score, 6)) for r, score in ranked if r in ids]

    def relevance(self, query: SearchQuery | str, ids: Sequence[str]) -> dict[str, Relevance]:
        """How strongly each of the documents ``ids`` answers ``query`` (see :mod:`.relevance`).

        The statistics are those of the documents the query's filters keep
        (``exclude`` aside: what a caller has shown still makes a word common).
        """
        q = SearchQuery.of(query)
        if not ids:
            return {}
        where, params = _filters(replace(q, exclude=frozenset()))
        rowids = dict(rows_in(self.conn, "SELECT rowid, id FROM docs WHERE id IN ({in})", ids))
        found = relevance(self.conn, q.query, rowids, where=where, params=params)
        return {rowids[r]: match for r, match in found.items()}

    def _ranked(self, q: SearchQuery) -> list[tuple[int, float]]:
        where, params = _filters(q)
        wanted = textproc.query_terms(q.query)
        dense = self._dense_started(q)
        scores = self._lifted(q, wanted, where, params)  # meanwhile, the vectors' product
        opts = self.options
        if dense is not None:
            vector, started = dense
            known, nearest = dense_candidates(
                self.conn,
                self.vector_index(),
                self.vector_model,
                vector,
                scores,
                kinds=_kind_names(q.kinds),
                rest=_filters(replace(q, kinds=None)),
                where=(where, params),
                k=opts.candidates,
                started=started,
            )
            scores = fuse_dense(
                scores,
                known,
                nearest,
                fusion=opts.fusion,
                dense_weight=opts.dense_weight,
                dense_floor=opts.dense_floor,
                rrf_k=opts.rrf_k,
                candidates=opts.candidates,
            )
        if opts.name_boost and scores:
            # After the prior and the fusion: a turn found by its meaning alone, or
            # lifted by its session, is as much the named speaker's as one BM25 found.
            scores = lift_named(self.conn, scores, wanted, opts.name_boost)
        if opts.neighbour_weight and scores:
            scores = smooth_neighbours(self.conn, scores, opts.neighbour_weight)
        return sorted(scores.items(), key=lambda kv: -kv[1])[: q.limit]

    def _dense_started(self, q: SearchQuery) -> tuple[list[float], Product | None] | None:
        """The query's vector, and its product with the vector index begun in another thread;
        None for BM25 alone.

        Until every document has a vector, BM25 alone: a cosine for only some documents
        would favour them (the embedding pass catches up over searches). The product
        (17 ms over 100,000 memories, more on a busy machine) runs while this thread
        runs BM25, unless :attr:`overlap` is off; the ranking is the same either way.
        """
        if self.embedder is None or not q.query.strip() or self.vectors_missing():
            return None
        [vector] = self.embedder.embed([q.query])
        index = self.vector_index() if self.overlap else None
        if index is None:
            return vector, None
        from memdir.search.vectors.scoring import Unavailable

        try:
            return vector, index.start(self.conn, self.vector_model, vector, _kind_names(q.kinds))
        except Unavailable:  # dense_candidates asks again, then scans the vectors table
            return vector, None

    def vector_index(self) -> VectorIndex | None:
        """The vector index of this catalog (opened on first use); None without numpy."""
        if self._vector_index is None and not self._no_vector_index:
            try:
                from memdir.search.vectors.embeddings import load_numpy

                load_numpy()  # before the index imports it: one BLAS thread
                from memdir.search.vectors.vector_index import open_index
            except ImportError:
                self._no_vector_index = True
                return None
            rows = {} if self.vector_page_rows is None else {"page_rows": self.vector_page_rows}
            self._vector_index = open_index(self.vector_path, **rows)
        return self._vector_index

    def nearest(
        self,
        vector: Sequence[float],
        k: int | None = None,
        *,
        kinds: Collection[str] | None = None,
        exclude: Collection[str] = (),
    ) -> list[tuple[str, float]]:
        """The documents nearest ``vector`` by cosine, best first: ``(id, cosine)``.

        For a caller that has embedded its text already, with this index's embedder
        (per-prompt recall ranks memories by meaning): at most ``k`` (None: every
        one), of ``kinds`` (None: all), none of the ids in ``exclude``. Only documents
        with a vector under :attr:`vector_model` take part (:meth:`embed_missing`
        makes the missing ones); without an embedder there are none.
        """
        if self.embedder is None:
            return []
        sql = "SELECT rowid FROM docs WHERE id IN ({in})"
        skip = [rowid for (rowid,) in rows_in(self.conn, sql, exclude)]
        pairs = nearest_rows(
            self.conn,
            self.vector_index(),
            self.vector_model,
            vector,
            len(self) if k is None else k,
            kinds=_kind_names(kinds),
            skip=skip,
        )
        sql = "SELECT rowid, id FROM docs WHERE rowid IN ({in})"
        ids = dict(rows_in(self.conn, sql, [rowid for rowid, _ in pairs]))
        return [(ids[rowid], cosine) for rowid, cosine in pairs if rowid in ids]

    def _lifted(
        self, q: SearchQuery, wanted: list[str], where: str, params: list[Any]
    ) -> dict[int, float]:
        """BM25's candidates, lifted by their group and (when asked) their dates."""
        scores = self._lexical(wanted, where, params, pool=max(self.options.candidates, q.limit))
        opts = self.options
        if opts.group_share and scores:
            scores = lift_by_group(
                self.conn,
                scores,
                wanted,
                share=opts.group_share,
                scan_limit=opts.scan_limit,
                count=self._groups,
            )
        if opts.date_share and scores:
            # Off by default: the parser (and calendar, re) load only when asked for.
            from memdir.search.date_ranges import lift_dated

            scores = lift_dated(
                self.conn, scores, q.query, share=opts.date_share, slack=opts.date_slack
            )
        return scores

    def _lexical(
        self, wanted: list[str], where: str, params: list[Any], *, pool: int
    ) -> dict[int, float]:
        # A caller asking for more than the candidate pool gets a pool that large.
        opts = self.options
        # A filter is answered from a list of the rows it keeps, made once per query,
        # unless it keeps most rows: then each match visited is looked up (making a
        # list of 100,000 rows costs 0.3 s a query).
        gather = bool(where and wanted) and MATERIALIZED and not broad(self.conn, where, params)
        scores = self._bm25(wanted, where, params, pool, gather)
        if opts.feedback_terms and scores:
            extra = feedback_terms(
                self.conn, scores, wanted, docs=opts.feedback_docs, limit=opts.feedback_terms
            )
            if extra:
                more = self._bm25([t for t, _ in extra], where, params, pool, gather)
                top, top_more = max(scores.values()), max(more.values(), default=1.0)
                for rowid, value in more.items():
                    share = opts.feedback_weight * value / top_more * top
                    scores[rowid] = scores.get(rowid, 0.0) + share
        return scores

    def _bm25(
        self, wanted: list[str], where: str, params: list[Any], limit: int, gather: bool
    ) -> dict[int, float]:
        return bm25(self.conn, wanted, where, params, limit=limit, gather=gather, opts=self.options)


def _kind_names(kinds: Iterable[object] | None) -> frozenset[str] | None:
    return None if kinds is None else frozenset(str(getattr(k, "value", k)) for k in kinds)


def _filters(q: SearchQuery) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    for column, values in (("d.kind", q.kinds), ("d.type", q.types)):
        if values is not None:
            items = [str(getattr(v, "value", v)) for v in values]
            clauses.append(f"{column} IN ({','.join('?' * len(items))})" if items else "0")
            params.extend(items)
    if q.exclude:
        clauses.append(f"d.id NOT IN ({','.join('?' * len(q.exclude))})")
        params.extend(sorted(q.exclude))
    if q.scope is not None:
        clauses.append("d.scope = ?")
        params.append(q.scope.value)
    if q.since is not None:
        clauses.append("substr(d.date, 1, 10) >= ?")
        params.append(q.since.isoformat())
    if q.until is not None:
        clauses.append("substr(d.date, 1, 10) <= ?")
        params.append(q.until.isoformat())
    return "".join(f" AND {c}" for c in clauses), params
