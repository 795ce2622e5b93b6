"""A ranked search's question and its answers: :class:`SearchQuery` and :class:`Hit`.

One value carries the text and every filter down the layers (facade, catalog,
index, the stages after BM25); a hit is one ranked document as the caller
shows it (see :class:`~memdir.search.catalog.Catalog` for what its ``ref`` is).
"""

from __future__ import annotations

from memdir.search import terms as textproc
from memdir.utils.records import record

TYPE_CHECKING = False  # not typing's: recall ranks before every prompt, in a fresh process
if TYPE_CHECKING:
    import datetime as dt

    from memdir.kinds import MemoryType, Scope

__all__ = ["Hit", "SearchQuery"]


@record
class Hit:
    """One search result; ``ref`` is the document id (see :class:`Catalog`)."""

    kind: str
    ref: str
    title: str
    snippet: str
    score: float
    date: dt.datetime | None
    scope: Scope | None
    type: MemoryType | None


@record
class SearchQuery:
    """One ranked search: the text and every filter, as one value passed down the layers.

    ``kinds``/``types`` of ``None`` mean any (an empty tuple matches nothing);
    ``scope`` keeps one scope; ``since``/``until`` bound the document's date
    (inclusive days); ``exclude`` drops documents by id before ranking (what a
    caller has already shown), so they cannot crowd the others out of ``limit``.
    Lists given for ``kinds``/``types`` are kept as tuples, so the value stays hashable.
    """

    query: str
    kinds: tuple[str, ...] | None = None
    types: tuple[MemoryType | str, ...] | None = None
    scope: Scope | None = None
    since: dt.date | None = None
    until: dt.date | None = None
    limit: int = 10
    exclude: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        # Frozen, so normalise through object.__setattr__: callers pass lists and strings.
        if self.kinds is not None:
            object.__setattr__(self, "kinds", tuple(self.kinds))
        if self.types is not None:
            object.__setattr__(self, "types", tuple(self.types))
        object.__setattr__(self, "exclude", frozenset(self.exclude))
        object.__setattr__(self, "limit", max(int(self.limit), 0))
        # Any query is ranked on a bounded part of its text (see bounded_query).
        if isinstance(self.query, str):
            object.__setattr__(self, "query", textproc.bounded_query(self.query))

    @classmethod
    def of(cls, query: SearchQuery | str) -> SearchQuery:
        """``query`` itself, or a plain text search with the default filters."""
        return query if isinstance(query, SearchQuery) else cls(query=query)
