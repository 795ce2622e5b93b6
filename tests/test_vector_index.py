"""The vector index beside the catalog: as exact as the scan it replaces, kept current with
the memory files, made anew when its file is missing or damaged, shared by processes."""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import random
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedutil import WordsEmbedder, needs_numpy
from memdir.api import Memdir
from memdir.search.catalog import Catalog
from memdir.search.engine import Document, TextIndex
from memdir.search.ranking_options import RankingOptions
from memdir.search.search_query import SearchQuery
from memdir.storage.derived import SET_ASIDE_DIR

pytestmark = needs_numpy

WORDS = (
    "deploy staging database migration review release branch token cache index query "
    "latency budget incident rollback feature flag owner team policy schema backup restore "
    "queue worker retry timeout alert dashboard metric billing invoice customer upload"
).split()


def brute_force(
    index: TextIndex, vector: Sequence[float], kinds: set[str] | None = None
) -> list[tuple[str, float]]:
    """Every document's cosine with ``vector``, read from the vectors table, best first."""
    rows = index.conn.execute(
        "SELECT d.id, d.kind, d.rowid, v.vec FROM vectors v JOIN docs d USING (rowid)"
        " WHERE v.model = ?",
        (index.vector_model,),
    ).fetchall()
    from memdir.search.vectors.embeddings import unpack_vector

    scored = []
    for ref, kind, rowid, blob in rows:
        if kinds is None or kind in kinds:
            vec = unpack_vector(blob)
            norm = math.sqrt(sum(x * x for x in vec)) * math.sqrt(sum(x * x for x in vector))
            cosine = sum(a * b for a, b in zip(vec, vector, strict=True)) / (norm or 1.0)
            scored.append((-cosine, rowid, ref, cosine))
    return [(ref, cosine) for _, _, ref, cosine in sorted(scored)]


def same_ranking(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    assert [ref for ref, _ in got] == [ref for ref, _ in want]
    assert [c for _, c in got] == pytest.approx([c for _, c in want], abs=1e-5)


def _texts(seed: int, n: int) -> Iterator[tuple[str, str]]:
    rng = random.Random(seed)
    for i in range(n):
        yield f"m{seed}-{i}", " ".join(rng.sample(WORDS, 5))


def _filled(path: Path | str, *, page_rows: int, n: int = 120) -> TextIndex:
    index = TextIndex(path, options=RankingOptions(dense_floor=0.0), embedder=WordsEmbedder())
    index.vector_page_rows = page_rows
    index.add(
        Document(
            id=ref,
            kind="memory" if i % 3 else "transcript",
            title=ref,
            fields={"body": text},
            group="chat" if i % 3 == 0 else None,
            seq=i if i % 3 == 0 else None,
        )
        for i, (ref, text) in enumerate(_texts(1, n))
    )
    assert index.embed_missing() == n
    return index


@pytest.mark.parametrize("where", ["file", "memory"])
def test_a_query_over_many_pages_returns_what_a_brute_force_cosine_returns(
    tmp_path: Path, where: str
) -> None:
    index = _filled(tmp_path / "index.db" if where == "file" else ":memory:", page_rows=8)
    for query in ("deploy cache rollback", "invoice customer", "queue worker retry alert"):
        [vector] = WordsEmbedder().embed([query])
        same_ranking(index.nearest(vector, 12), brute_force(index, vector)[:12])
        memories = brute_force(index, vector, {"memory"})
        same_ranking(index.nearest(vector, None, kinds={"memory"}), memories)
        left_out = {ref for ref, _ in memories[:3]}
        same_ranking(
            index.nearest(vector, 5, kinds={"memory"}, exclude=left_out),
            [pair for pair in memories if pair[0] not in left_out][:5],
        )
    vectors = index.vector_index()
    assert vectors is not None
    view = vectors.current(index.conn, index.vector_model)
    assert len(view.pages) > 10 and all(page.capacity <= 8 for page in view.pages)
    assert {page.kind for page in view.pages} == {"memory", "transcript"}


def test_hybrid_search_through_the_index_equals_the_scan_of_the_vectors_table(
    tmp_path: Path,
) -> None:
    index = _filled(tmp_path / "index.db", page_rows=8)
    scan = TextIndex(
        tmp_path / "index.db", options=RankingOptions(dense_floor=0.0), embedder=WordsEmbedder()
    )
    scan._no_vector_index = True  # as without numpy: every vector read from SQLite
    for query in (
        SearchQuery(query="deploy cache rollback", limit=30),
        SearchQuery(query="invoice customer", kinds=("memory",), limit=30),
        SearchQuery(query="alert", kinds=("transcript",), limit=30),
        # filters the index cannot apply itself are asked of the rows it ranks best
        SearchQuery(query="queue worker", exclude=frozenset({"m1-1", "m1-2"}), limit=30),
    ):
        got, want = index.search(query), scan.search(query)
        assert [h.ref for h in got] == [h.ref for h in want] and len(got) == 30
        assert [h.score for h in got] == pytest.approx([h.score for h in want], abs=1e-5)
    assert scan.vector_index() is None and index.vector_index() is not None


@pytest.mark.parametrize("where", ["file", "memory"])
def test_hybrid_search_ranks_the_same_with_the_vector_product_in_a_thread_of_its_own_or_not(
    tmp_path: Path, where: str
) -> None:
    path = tmp_path / "index.db" if where == "file" else ":memory:"
    threaded = _filled(path, page_rows=8)
    inline = TextIndex(
        path, options=RankingOptions(dense_floor=0.0), embedder=WordsEmbedder(), conn=threaded.conn
    )
    inline.vector_page_rows, inline.overlap = 8, False
    assert threaded.overlap
    for query in (
        SearchQuery(query="deploy cache rollback", limit=40),
        SearchQuery(query="invoice customer", kinds=("memory",), limit=40),
        SearchQuery(query="alert", kinds=("transcript",), limit=40),
        SearchQuery(query="queue worker", exclude=frozenset({"m1-1", "m1-2"}), limit=40),
        SearchQuery(query="feature flag owner", kinds=(), limit=40),
    ):
        got, want = threaded.search(query), inline.search(query)
        assert got == want
        assert len(got) == (0 if query.kinds == () else 40)
    threads, alone = threaded.vector_index(), inline.vector_index()
    assert threads is not None and alone is not None
    assert threads.started == 5 and (alone is threads or alone.started == 0)


@given(
    ids=st.lists(st.one_of(st.just(-1), st.integers(0, 300), st.integers(0, 2**40)), max_size=60),
    wanted=st.lists(st.one_of(st.integers(0, 300), st.integers(0, 2**40)), max_size=20),
)
def test_the_rows_among_a_query_s_known_or_skipped_rowids_are_those_a_set_holds(
    ids: list[int], wanted: list[int]
) -> None:
    import numpy as np

    from memdir.search.vectors.scoring import among as _among

    found = _among(np.array(ids, dtype=np.int64), np.array(wanted, dtype=np.int64))
    assert found.tolist() == [i in set(wanted) for i in ids]


def _store(project: Path, n: int = 40) -> Memdir:
    mem = Memdir.open(project, search_embeddings="test-model")
    mem._search_embedder = WordsEmbedder()
    for ref, text in _texts(2, n):
        mem.write(name=f"note {ref}", description=text, type="project", body=f"about {text}")
    return mem


def _catalog(mem: Memdir) -> Catalog:
    catalog = mem._catalog()
    vectors = catalog.index.vector_index()
    assert vectors is not None
    return catalog


def _answers(mem: Memdir) -> list[list[str]]:
    queries = ("deploy cache rollback", "invoice customer", "queue worker retry alert")
    return [[h.ref for h in mem.search(q, kinds=["memory"], limit=15)] for q in queries]


def _vector_file(mem: Memdir) -> Path:
    return mem.layout.state_dir / "catalog.vectors"


def _file_matches_the_catalog(mem: Memdir) -> None:
    """The index file reads whole (every checksum) and holds the vectors table's rows."""
    from memdir.search.vectors.embeddings import unpack_vector
    from memdir.search.vectors.vector_file import PAGE_ROWS, read_file

    catalog = _catalog(mem)
    path = _vector_file(mem)
    with open(path, "rb") as handle:
        header, pages = read_file(handle, page_rows=PAGE_ROWS)
        inode = os.fstat(handle.fileno()).st_ino
    held = {
        int(rowid): vector
        for page in pages
        for rowid, vector in zip(
            page.rowids.tolist(), page.vectors(path, inode, header.dim).tolist(), strict=True
        )
        if rowid >= 0
    }
    rows = catalog.index.conn.execute(
        "SELECT rowid, vec FROM vectors WHERE model = ?", (catalog.index.vector_model,)
    ).fetchall()
    assert sorted(held) == sorted(rowid for rowid, _ in rows)
    for rowid, blob in rows:
        vec = list(unpack_vector(blob))
        norm = math.sqrt(sum(x * x for x in vec)) or 1.0
        assert held[rowid] == pytest.approx([x / norm for x in vec], abs=1e-6)
    assert header.model == catalog.index.vector_model


def _damage(path: Path, how: str) -> None:
    if how == "deleted":
        path.unlink()
    elif how == "cut short":
        os.truncate(path, path.stat().st_size // 2)
    elif how == "overwritten with garbage":
        path.write_bytes(random.Random(5).randbytes(path.stat().st_size))
    elif how == "garbage in one page":
        with open(path, "r+b") as handle:
            handle.seek(4096 + 64 + 40)
            handle.write(b"\xff" * 256)
    else:  # a folder in its place
        path.unlink()
        path.mkdir()
        (path / "someone's.txt").write_text("kept\n")


DAMAGE = [
    "deleted",
    "cut short",
    "overwritten with garbage",
    "garbage in one page",
    "a folder in its place",
]


@pytest.mark.parametrize("how", DAMAGE)
def test_a_process_opening_a_damaged_index_makes_it_again_and_answers_the_same(
    project: Path, how: str
) -> None:
    mem = _store(project)
    before = _answers(mem)
    assert _catalog(mem).index.vector_index().rebuilds == 1  # type: ignore[union-attr]
    mem.close()  # as a new process: nothing of the index is held in memory
    _damage(_vector_file(mem), how)
    again = Memdir.open(project, search_embeddings="test-model")
    again._search_embedder = WordsEmbedder()
    assert _answers(again) == before
    assert _catalog(again).index.vector_index().rebuilds == 1  # type: ignore[union-attr]
    _file_matches_the_catalog(again)
    if how == "a folder in its place":
        [kept] = (mem.layout.state_dir / SET_ASIDE_DIR).iterdir()
        assert (kept / "someone's.txt").read_text() == "kept\n"


# Garbage in the vectors of a page this process holds in memory already is met by the
# next process that reads them (above), not by this one.
@pytest.mark.parametrize("how", [how for how in DAMAGE if how != "garbage in one page"])
def test_a_damaged_index_is_made_again_when_a_write_brings_it_up_to_date(
    project: Path, how: str
) -> None:
    mem = _store(project)
    _answers(mem)
    _damage(_vector_file(mem), how)
    mem.write(name="Later note", description="rollback cache deploy", type="project", body="x")
    assert _answers(mem)[0][0] == "later_note.md"
    assert _catalog(mem).index.vector_index().rebuilds == 2  # type: ignore[union-attr]
    _file_matches_the_catalog(mem)


def test_the_index_follows_a_write_a_rename_a_delete_and_a_hand_edit(project: Path) -> None:
    mem = _store(project)
    catalog = _catalog(mem)
    vectors = catalog.index.vector_index()
    assert vectors is not None
    [vector] = WordsEmbedder().embed(["rollback cache deploy"])

    def check() -> None:
        catalog.refresh()
        assert _answers(mem)  # a search brings the index up to date
        got = catalog.index.nearest(vector, 10, kinds={"memory"})
        same_ranking(got, brute_force(catalog.index, vector, {"memory"})[:10])
        _file_matches_the_catalog(mem)

    check()
    mem.write(name="Cache rollback", description="rollback cache deploy", type="project", body="x")
    check()
    assert catalog.index.nearest(vector, 1)[0][0] == "cache_rollback.md"
    mem.private.rename("cache_rollback.md", "renamed.md")
    check()
    assert catalog.index.nearest(vector, 1)[0][0] == "renamed.md"
    mem.delete("renamed.md")
    check()
    assert "renamed.md" not in dict(catalog.index.nearest(vector, None))
    path = mem.layout.memory_dir / mem.list()[0].file
    path.write_text(path.read_text().replace("about", "rollback cache deploy about"))
    check()
    assert vectors.rebuilds == 1  # each change was added to the file, not made anew


def test_a_catalog_rebuild_makes_the_index_again(project: Path) -> None:
    mem = _store(project, n=10)
    before = _answers(mem)
    vectors = _catalog(mem).index.vector_index()
    assert vectors is not None and vectors.rebuilds == 1
    mem.reindex()  # the vectors table is made again: its token changes
    assert _answers(mem) == before
    assert vectors.rebuilds == 2
    _file_matches_the_catalog(mem)


def test_a_search_while_another_process_holds_the_index_answers_from_the_vectors_table(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memdir.search.vectors import vector_index
    from memdir.search.vectors.vector_table import log_state
    from memdir.storage.fs import file_lock

    mem = _store(project, n=10)
    _answers(mem)
    catalog = _catalog(mem)
    vectors = catalog.index.vector_index()
    assert vectors is not None
    monkeypatch.setattr(vector_index, "LOCK_WAIT", 0.05)
    mem.write(name="Later note", description="rollback cache deploy", type="project", body="x")
    with file_lock(_vector_file(mem).with_name("catalog.vectors.lock")):
        during = _answers(mem)
        behind = vectors._view  # what the index holds: not brought up to date
        assert behind is not None and behind.seq < log_state(catalog.index.conn).seq
    assert during[0][0] == "later_note.md"
    assert _answers(mem) == during  # then from the index, brought up to date
    _file_matches_the_catalog(mem)


def test_the_nearest_documents_are_the_catalogs_refs_after_catching_up(project: Path) -> None:
    mem = _store(project, n=10)
    mem.write(name="Kickoff", description="invoice customer billing", type="project", body="y")
    catalog = _catalog(mem)
    [vector] = WordsEmbedder().embed(["invoice customer billing"])
    nearest = catalog.nearest(vector, 3, kinds=["memory"])
    assert nearest[0][0] == "kickoff.md" and len(nearest) == 3
    assert catalog.nearest(vector, 3, kinds=["transcript"]) == []
    assert "kickoff.md" not in dict(catalog.nearest(vector, exclude=["kickoff.md"]))
    assert TextIndex().nearest(vector) == []  # no embedder: no vectors to compare


def _write_and_search(
    home: str, project: str, worker: int, count: int, ready: Any, done: Any
) -> None:
    mem = Memdir.open(project, home=home, search_embeddings="test-model")
    mem._search_embedder = WordsEmbedder()
    ready.wait(300)  # both processes have started: their writes overlap
    files = []
    for i in range(count):
        text = " ".join(random.Random(worker * 1000 + i).sample(WORDS, 4))
        written = mem.write(name=f"worker {worker} note {i}", description=text, type="project")
        files.append(written.record.file)
        mem.search(text, kinds=["memory"])  # each brings the index file up to date
        if i % 5 == 4:
            mem.delete(files[i - 2])
    vectors = mem._catalog().index.vector_index()
    assert vectors is not None
    done.put((vectors.rebuilds, vectors.updates))
    mem.close()


def test_two_writers_and_a_reader_at_once_leave_a_whole_index(
    project: Path, memdir_home: Path
) -> None:
    mem = _store(project, n=10)
    _answers(mem)
    mem.close()
    ctx = multiprocessing.get_context("spawn")
    ready, done = ctx.Barrier(2), ctx.Queue()
    workers = [
        ctx.Process(
            target=_write_and_search, args=(str(memdir_home), str(project), w, 15, ready, done)
        )
        for w in (1, 2)
    ]
    for worker in workers:
        worker.start()
    reader = Memdir.open(project, search_embeddings="test-model")
    reader._search_embedder = WordsEmbedder()
    reads = 0
    while any(worker.is_alive() for worker in workers) or reads == 0:
        # a third process's searches meanwhile: the store's first notes stay found
        assert "note_m2_0.md" in {h.ref for h in reader.search("m2-0", kinds=["memory"])}
        reads += 1
    reader.close()
    # Each brought the shared file up to date in place, and neither had to make it anew.
    for _ in workers:
        rebuilds, updates = done.get(timeout=300)
        assert rebuilds == 0 and updates > 0
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    after = Memdir.open(project, search_embeddings="test-model")
    after._search_embedder = WordsEmbedder()
    assert len(after.list()) == 10 + 2 * 12
    catalog = _catalog(after)
    after.search("deploy", kinds=["memory"])
    [vector] = WordsEmbedder().embed(["queue worker retry"])
    same_ranking(catalog.index.nearest(vector, 20), brute_force(catalog.index, vector)[:20])
    assert catalog.index.vector_index().rebuilds == 0  # type: ignore[union-attr]
    _file_matches_the_catalog(after)


def test_pages_of_a_kind_grow_from_small_to_the_page_size(tmp_path: Path) -> None:
    index = _filled(tmp_path / "index.db", page_rows=256, n=300)
    vectors = index.vector_index()
    assert vectors is not None
    view = vectors.current(index.conn, index.vector_model)
    assert sorted(page.capacity for page in view.pages if page.kind == "memory") == [256]
    assert sorted(page.capacity for page in view.pages if page.kind == "transcript") == [128]
    index.add(
        Document(id=f"x{i}", kind="transcript", title="x", fields={"body": "deploy"})
        for i in range(40)
    )
    index.embed_missing()
    view = vectors.current(index.conn, index.vector_model)
    assert sorted(page.capacity for page in view.pages if page.kind == "transcript") == [128, 256]
    assert vectors.rebuilds == 1


# --- the file format ---------------------------------------------------------------------

_page_specs = st.lists(
    st.tuples(st.sampled_from(["memory", "transcript", "log"]), st.integers(1, 20)),
    min_size=0,
    max_size=5,
)


def _written(tmp_path: Path, specs: list[tuple[str, int]], dim: int) -> tuple[Path, list[Any]]:
    """A file of pages of ``specs`` (kind, rows), some rows removed; and the pages."""
    import numpy as np

    from memdir.search.vectors.vector_file import FileHeader, Page, page_size, write_file

    rng = np.random.default_rng(len(specs) * 31 + dim)
    pages, offset, rowid = [], 4096, 0
    for kind, rows in specs:
        vectors = rng.standard_normal((rows, dim)).astype(np.float32)
        rowids = np.arange(rowid, rowid + rows, dtype=np.int64)
        rowids[::3] = -1
        capacity = rows + rows % 3
        data = vectors.tobytes()
        pages.append(
            Page(
                offset=offset,
                kind=kind,
                capacity=capacity,
                rowids=rowids,
                vec_crc=zlib.crc32(data),
                vectors=vectors,
            )
        )
        offset += page_size(capacity, dim)
        rowid += rows
    kinds = tuple(dict.fromkeys(kind for kind, _ in specs))
    header = FileHeader(dim=dim, page_rows=32, seq=7, token="ab" * 8, model="m|x", kinds=kinds)
    path = tmp_path / f"index-{os.urandom(4).hex()}.vectors"
    write_file(path, header, pages)
    return path, pages


@given(specs=_page_specs, dim=st.integers(1, 12))
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_written_index_file_reads_back_page_for_page(
    tmp_path: Path, specs: list[tuple[str, int]], dim: int
) -> None:
    from memdir.search.vectors.vector_file import read_file

    path, pages = _written(tmp_path, specs, dim)
    with open(path, "rb") as handle:
        header, read = read_file(handle, page_rows=32)
        inode = os.fstat(handle.fileno()).st_ino
    assert (header.dim, header.seq, header.token, header.model) == (dim, 7, "ab" * 8, "m|x")
    assert [(p.offset, p.kind, p.capacity, p.live) for p in read] == [
        (p.offset, p.kind, p.capacity, p.live) for p in pages
    ]
    for got, want in zip(read, pages, strict=True):
        assert got.rowids.tolist() == want.rowids.tolist()
        assert got.vectors(path, inode, dim).tolist() == want.loaded.tolist()


@given(
    specs=_page_specs.filter(bool),
    cut=st.floats(0, 1),
    flips=st.lists(st.tuples(st.floats(0, 1), st.integers(1, 255)), max_size=3),
)
@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_cut_or_changed_index_file_is_found_damaged_and_never_misread(
    tmp_path: Path, specs: list[tuple[str, int]], cut: float, flips: list[tuple[float, int]]
) -> None:
    from memdir.search.vectors.vector_file import Damaged, read_file

    path, pages = _written(tmp_path, specs, 4)
    data = bytearray(path.read_bytes())
    for at, bits in flips:
        data[int(at * (len(data) - 1))] ^= bits
    path.write_bytes(bytes(data[: max(1, int(cut * len(data)))]) if cut < 1 else bytes(data))
    try:
        with open(path, "rb") as handle:
            _, read = read_file(handle, page_rows=32)
            inode = os.fstat(handle.fileno()).st_ino
        for got, want in zip(read, pages, strict=True):
            # What reads back is what was written, or a page's vectors say they are not.
            assert got.rowids.tolist() == want.rowids.tolist()
            with contextlib.suppress(Damaged):
                assert got.vectors(path, inode, 4).tolist() == want.loaded.tolist()
    except Damaged:
        pass
