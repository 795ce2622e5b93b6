"""The vector index's file: normalised float32 vectors in pages, one kind of document a page.

Layout (little-endian)::

    header   4 KiB: magic, format, dimension, page size (rows), page count, bytes
             in use, the catalog state the file matches (the catalog's token and the
             last entry of its vector log), a JSON block (the model key, the kinds'
             names) and a CRC-32 of the header
    pages    from 4 KiB on, each a 64-byte page header (kind, capacity, rows used,
             CRC-32s of the used vectors, of the used rowids and of the page
             header), then ``capacity`` vectors and ``capacity`` catalog rowids
             (int64; -1: a row removed since it was written)

A page holds documents of one kind, so a search among memories reads the memory
pages alone, however many transcript turns the catalog holds. A kind's pages grow
from 64 rows by doubling up to the page size (16,384 rows, 24 MiB at 384
dimensions), and a file written anew ends each kind with a page its rows fill
at least half of, so a small store makes a small file.

Written vectors are never written over: the file changes by rowids set to -1, rows
added past a page's used rows, pages added at its end and its header; or it is
replaced whole, by a rename. So a reader may read a page's used vectors whenever it
needs them, without a lock, checked against the CRC read with the rowids, as long as
the file is the one (the inode) it read those from. Read with ``pread``, never
mapped: a mapped file cut short kills the process that reads past its end (SIGBUS).

Whatever does not check out (magic, a size, a CRC, a file cut short) raises
:class:`Damaged`; :mod:`memdir.search.vectors.vector_index` then writes the file anew from
the catalog's ``vectors`` table.
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from memdir.errors import StorageError
from memdir.storage.fs import FILE_MODE
from memdir.utils.records import record

__all__ = [
    "HEADER",
    "MIN_CAPACITY",
    "PAGE_ROWS",
    "Damaged",
    "FileHeader",
    "Page",
    "Replaced",
    "page_size",
    "read_file",
    "write_changes",
    "write_file",
]

Vectors = npt.NDArray[np.float32]
Rowids = npt.NDArray[np.int64]

MAGIC = b"memdirVX"
FORMAT = 1
HEADER = 4096
PAGE_HEAD = 64
PAGE_MAGIC = b"PAGE"
# Trigger: a product over many small pages costs more than over one matrix. Outcome: large
# pages; 100,000 x 384 on one core took 9.9 ms in pages of 4,096 rows, 7.3 of 8,192, 7.7
# of 16,384 and 7.5 as one matrix (one run).
PAGE_ROWS = 16384
"""Rows a page holds at most (a parameter of the index: tests use small pages)."""
MIN_CAPACITY = 64
_HEAD = struct.Struct("<8sIIIIQq16sI")  # magic, format, dim, page rows, pages, end, seq, token
_PAGE = struct.Struct("<4sIIIII")  # magic, kind, capacity, used, vector CRC, rowid CRC
_CRC = struct.Struct("<I")


class Damaged(StorageError):
    """The vector index's file does not check out: it is written anew from the catalog."""


class Replaced(Damaged):
    """The file a page was read from was replaced since (by another process): read it again."""


@record
class FileHeader:
    """What the file says of itself: its shape and the catalog state it matches."""

    dim: int
    page_rows: int
    seq: int
    token: str
    model: str
    kinds: tuple[str, ...]


class Page:
    """One page: where it is, its kind and capacity, its rowids and (once read) vectors.

    Treated as a value: a change makes a new page (:mod:`.vector_index`), so a search
    running in another thread keeps the page it started with.
    """

    __slots__ = ("_vectors", "capacity", "kind", "live", "offset", "rowids", "vec_crc")

    def __init__(
        self,
        *,
        offset: int,
        kind: str,
        capacity: int,
        rowids: Rowids,
        vec_crc: int,
        vectors: Vectors | None = None,
    ) -> None:
        self.offset = offset
        self.kind = kind
        self.capacity = capacity
        self.rowids = rowids
        self.vec_crc = vec_crc
        self.live = int(np.count_nonzero(rowids >= 0))
        self._vectors = vectors

    @property
    def used(self) -> int:
        return len(self.rowids)

    @property
    def loaded(self) -> Vectors | None:
        """The vectors, if this process has read (or made) them."""
        return self._vectors

    def vectors(self, source: Path | None, inode: int | None, dim: int) -> Vectors:
        """The used rows' vectors, read the first time from the file ``source`` (if it is
        still the file ``inode``: else :class:`Replaced`); :class:`Damaged` if they do not
        check out."""
        if self._vectors is None:
            if source is None:
                raise Damaged("a page of the vector index was never read")
            size = self.used * dim * 4
            try:
                with open(source, "rb", buffering=0) as handle:
                    if os.fstat(handle.fileno()).st_ino != inode:
                        raise Replaced(f"{source} was written anew", path=source)
                    raw = os.pread(handle.fileno(), size, self.offset + PAGE_HEAD)
            except FileNotFoundError as exc:
                raise Replaced(f"{source} was removed", path=source) from exc
            if len(raw) != size or zlib.crc32(raw) != self.vec_crc:
                raise Damaged("a page of the vector index does not check out", path=source)
            self._vectors = np.frombuffer(raw, dtype="<f4").reshape(self.used, dim)
        return self._vectors


def page_size(capacity: int, dim: int) -> int:
    """Bytes a page of ``capacity`` rows takes (a multiple of 64)."""
    size = PAGE_HEAD + capacity * (dim * 4 + 8)
    return -(-size // 64) * 64


def read_file(source: BinaryIO, *, page_rows: int) -> tuple[FileHeader, list[Page]]:
    """The header and pages of an open file (rowids read, vectors left for later)."""
    fd = source.fileno()
    raw = os.pread(fd, HEADER, 0)
    if len(raw) != HEADER or zlib.crc32(raw[:-4]) != _CRC.unpack_from(raw, HEADER - 4)[0]:
        raise Damaged("the vector index's header is cut short or does not check out")
    magic, fmt, dim, rows, count, end, seq, token, size = _HEAD.unpack_from(raw)
    if magic != MAGIC or fmt != FORMAT or rows != page_rows:
        raise Damaged("the vector index is of another format or page size")
    try:
        meta = json.loads(raw[_HEAD.size : _HEAD.size + size])
        header = FileHeader(
            dim=dim,
            page_rows=rows,
            seq=seq,
            token=token.decode("ascii"),
            model=str(meta["model"]),
            kinds=tuple(str(k) for k in meta["kinds"]),
        )
    except (ValueError, KeyError, TypeError) as exc:  # UnicodeDecodeError is a ValueError
        raise Damaged(f"the vector index's header does not read: {exc}") from exc
    if os.fstat(fd).st_size < end:
        raise Damaged("the vector index is cut short")
    pages, offset = [], HEADER
    for _ in range(count):
        page = _read_page(fd, offset, header)
        pages.append(page)
        offset += page_size(page.capacity, dim)
    if offset != end:
        raise Damaged("the vector index's pages do not end where its header says")
    return header, pages


def _read_page(fd: int, offset: int, header: FileHeader) -> Page:
    raw = os.pread(fd, PAGE_HEAD, offset)
    if (
        len(raw) != PAGE_HEAD
        or zlib.crc32(raw[: _PAGE.size]) != _CRC.unpack_from(raw, _PAGE.size)[0]
    ):
        raise Damaged("a page header of the vector index does not check out")
    magic, kind, capacity, used, vec_crc, id_crc = _PAGE.unpack_from(raw)
    if magic != PAGE_MAGIC or kind >= len(header.kinds) or not used <= capacity <= header.page_rows:
        raise Damaged("a page header of the vector index does not check out")
    ids = os.pread(fd, used * 8, offset + PAGE_HEAD + capacity * header.dim * 4)
    if len(ids) != used * 8 or zlib.crc32(ids) != id_crc:
        raise Damaged("the rowids of a page of the vector index do not check out")
    return Page(
        offset=offset,
        kind=header.kinds[kind],
        capacity=capacity,
        rowids=np.frombuffer(ids, dtype="<i8"),
        vec_crc=vec_crc,
    )


def _header_bytes(header: FileHeader, pages: Sequence[Page]) -> bytes:
    end = HEADER + sum(page_size(p.capacity, header.dim) for p in pages)
    meta = json.dumps({"model": header.model, "kinds": list(header.kinds)}).encode()
    if _HEAD.size + len(meta) > HEADER - 4:
        raise Damaged("the vector index's model key and kinds do not fit its header")
    token = header.token.encode("ascii")
    head = _HEAD.pack(
        MAGIC, FORMAT, header.dim, header.page_rows, len(pages), end, header.seq, token, len(meta)
    )
    body = (head + meta).ljust(HEADER - 4, b"\0")
    return body + _CRC.pack(zlib.crc32(body))


def _page_head(page: Page, header: FileHeader) -> bytes:
    ids = page.rowids.astype("<i8", copy=False).tobytes()
    head = _PAGE.pack(
        PAGE_MAGIC,
        header.kinds.index(page.kind),
        page.capacity,
        page.used,
        page.vec_crc,
        zlib.crc32(ids),
    )
    return (head + _CRC.pack(zlib.crc32(head))).ljust(PAGE_HEAD, b"\0")


def _whole_page(page: Page, header: FileHeader) -> bytes:
    vectors = page.loaded
    assert vectors is not None, "a page is written whole from memory"
    dim, free = header.dim, page.capacity - page.used
    raw = PAGE_HEAD + page.capacity * (dim * 4 + 8)
    return b"".join(
        (
            _page_head(page, header),
            vectors.astype("<f4", copy=False).tobytes(),
            bytes(free * dim * 4),
            page.rowids.astype("<i8", copy=False).tobytes(),
            bytes(free * 8 + page_size(page.capacity, dim) - raw),
        )
    )


def write_file(path: Path, header: FileHeader, pages: Sequence[Page]) -> int:
    """Write the whole file beside ``path`` and rename it into place; returns its inode.

    Not fsynced: the file is derived, and one a crash cut short is rebuilt.
    """
    temp = path.with_name(f".{path.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
    try:
        with open(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE), "wb") as handle:
            handle.write(_header_bytes(header, pages))
            for page in pages:
                handle.write(_whole_page(page, header))
            inode = os.fstat(handle.fileno()).st_ino
        os.replace(temp, path)
        return inode
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def write_changes(
    target: BinaryIO, header: FileHeader, before: Sequence[Page], after: Sequence[Page]
) -> None:
    """Write what changed from ``before`` to ``after`` into the open file, the header last.

    Pages of ``after`` found in ``before`` (the same object) are left as they are; a
    page at a known offset gets its new rows (past the old used ones), its rowids and
    its header; a page at a new offset is written whole.
    """
    fd = target.fileno()
    known = {page.offset: page for page in before}
    dim = header.dim
    for page in after:
        prior = known.get(page.offset)
        if prior is page:
            continue
        if prior is None:
            os.pwrite(fd, _whole_page(page, header), page.offset)
            continue
        vectors = page.loaded
        if page.used > prior.used:
            assert vectors is not None, "rows are added to a page read into memory"
            added = vectors[prior.used :].astype("<f4", copy=False).tobytes()
            os.pwrite(fd, added, page.offset + PAGE_HEAD + prior.used * dim * 4)
        ids = page.rowids.astype("<i8", copy=False).tobytes()
        os.pwrite(fd, ids, page.offset + PAGE_HEAD + page.capacity * dim * 4)
        os.pwrite(fd, _page_head(page, header), page.offset)
    os.pwrite(fd, _header_bytes(header, after), 0)
