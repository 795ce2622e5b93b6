"""The vector index's pages made over in memory: rows removed, rows added, pages reused.

What :class:`~memdir.search.vectors.vector_index.VectorIndex` does to bring its
pages (:class:`~memdir.search.vectors.vector_file.Page`) up to date with the
catalog: a changed row's slot set to -1 (:func:`without_rows`), rows added to each
kind's last page and then to new pages that double with their kind
(:func:`appended`), vectors normalised as they are placed; the vectors a process
already read carried over to pages read again (:func:`reused`). Nothing here reads
the catalog or writes the file.
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memdir.search.vectors.vector_file import HEADER, MIN_CAPACITY, Page, page_size

__all__ = ["Row", "appended", "dim_of", "reused", "without_rows"]

Row = tuple[int, str, bytes]  # a catalog row: rowid, kind, vector blob


def without_rows(page: Page, changed: npt.NDArray[np.int64]) -> Page:
    """``page`` with the slots of ``changed`` rowids set to -1 (itself if it holds none)."""
    hit = np.isin(page.rowids, changed)
    if not hit.any():
        return page
    rowids = page.rowids.copy()
    rowids[hit] = -1
    return Page(
        offset=page.offset,
        kind=page.kind,
        capacity=page.capacity,
        rowids=rowids,
        vec_crc=page.vec_crc,
        vectors=page.loaded,
    )


def appended(
    pages: list[Page],
    rows: Iterable[Row],
    dim: int,
    page_rows: int,
    source: tuple[Path | None, int | None],
    *,
    grow: bool,
) -> list[Page]:
    """``pages`` with ``rows`` (rowid, kind, blob) added: to each kind's last page, then new ones.

    A new page holds the rows placed in it, to the next power of two; with ``grow``
    (rows added to an index, more to come) at least as many as its kind has, so a
    kind's pages double until they reach the page size. A blob of another length
    than the index's vectors cannot be compared: left out.
    """
    pages = list(pages)
    for kind, group in itertools.groupby(rows, key=lambda row: row[1]):
        for chunk in _chunks(group, page_rows):
            if not dim:
                dim = len(chunk[0][2]) // 4
            fitting = [(rowid, blob) for rowid, _, blob in chunk if len(blob) == dim * 4]
            if fitting and dim:
                pages = _added(pages, kind, fitting, dim, (page_rows, grow), source)
    return pages


def _chunks(rows: Iterable[Row], size: int) -> Iterator[list[Row]]:
    it = iter(rows)
    while chunk := list(itertools.islice(it, size)):
        yield chunk


def _added(
    pages: list[Page],
    kind: str,
    rows: list[tuple[int, bytes]],
    dim: int,
    sizing: tuple[int, bool],
    source: tuple[Path | None, int | None],
) -> list[Page]:
    """``pages`` with ``rows`` of ``kind`` placed: the kind's last page first, then new pages
    (``sizing``: the page size, and whether a new page grows with its kind)."""
    page_rows, grow = sizing
    vectors = np.frombuffer(b"".join(blob for _, blob in rows), dtype="<f4").reshape(-1, dim)
    vectors = (vectors / (np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-12)).astype(
        np.float32
    )
    rowids = np.fromiter((rowid for rowid, _ in rows), dtype=np.int64, count=len(rows))
    last = max((i for i, p in enumerate(pages) if p.kind == kind), default=None)
    if last is not None and pages[last].used < pages[last].capacity:
        page = pages[last]
        room = page.capacity - page.used
        pages[last] = _grown(page, vectors[:room], rowids[:room], page.vectors(*source, dim))
        vectors, rowids = vectors[room:], rowids[room:]
    held = sum(p.used for p in pages if p.kind == kind)
    end = HEADER + sum(page_size(p.capacity, dim) for p in pages)
    while len(rowids):
        wanted = held + len(rowids) if grow else len(rowids)
        capacity = min(page_rows, max(MIN_CAPACITY, _power_of_two(wanted)))
        part, vectors = vectors[:capacity], vectors[capacity:]
        ids, rowids = rowids[:capacity], rowids[capacity:]
        data = np.ascontiguousarray(part, dtype="<f4")
        pages.append(
            Page(
                offset=end,
                kind=kind,
                capacity=capacity,
                rowids=ids,
                vec_crc=zlib.crc32(data.tobytes()),
                vectors=data,
            )
        )
        held += len(ids)
        end += page_size(capacity, dim)
    return pages


def _grown(
    page: Page,
    vectors: npt.NDArray[np.float32],
    rowids: npt.NDArray[np.int64],
    before: npt.NDArray[np.float32],
) -> Page:
    """``page`` with rows added past its used ones (its checksum carried on, not redone)."""
    data = np.ascontiguousarray(vectors, dtype="<f4")
    return Page(
        offset=page.offset,
        kind=page.kind,
        capacity=page.capacity,
        rowids=np.concatenate([page.rowids, rowids]),
        vec_crc=zlib.crc32(data.tobytes(), page.vec_crc),
        vectors=np.concatenate([before, data]),
    )


def _power_of_two(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def reused(pages: list[Page], prior: Sequence[Page]) -> list[Page]:
    """``pages`` read again, keeping the vectors this process already read of each."""
    known = {(p.offset, p.used, p.vec_crc): p.loaded for p in prior if p.loaded is not None}
    out = []
    for page in pages:
        vectors = known.get((page.offset, page.used, page.vec_crc))
        if vectors is not None:
            page = Page(
                offset=page.offset,
                kind=page.kind,
                capacity=page.capacity,
                rowids=page.rowids,
                vec_crc=page.vec_crc,
                vectors=vectors,
            )
        out.append(page)
    return out


def dim_of(pages: Sequence[Page], known: int) -> int:
    """The vectors' dimension: ``known``, or that of the first page made in memory."""
    if known:
        return known
    loaded = [page.loaded for page in pages if page.loaded is not None]
    return int(loaded[0].shape[1]) if loaded else 0
