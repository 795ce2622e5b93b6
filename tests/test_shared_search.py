"""Search by meaning in a long-lived process: one model and one vector index for every
thread and facade, embedding passes that take turns, catch-ups that take turns."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from embedutil import TopicEmbedder, needs_embeddings_extra
from memdir.api import Memdir
from memdir.search.catalog import EMBED_LOCK, Catalog
from memdir.utils.coalesce import Coalescer


class Recording(TopicEmbedder):
    """Keeps every text it is asked to embed."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return super().embed(texts)


def save(mem: Memdir) -> None:
    mem.write(
        name="Kickboxing", description="Anna trains kickboxing on Tuesdays", type="user", body="x"
    )
    mem.write(name="Soup", description="Ben's recipe for Fridays", type="user", body="y")


@needs_embeddings_extra
def test_threads_and_facades_of_one_process_share_one_model_and_one_vector_index(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memdir.search.vectors import bert_encoder

    monkeypatch.delenv("MEMDIR_EMBEDDINGS")  # the suite turns it off; the default is hybrid
    loads: list[object] = []
    real = bert_encoder.BertEncoder.__init__

    def counted(self: bert_encoder.BertEncoder, *args: Any, **kwargs: Any) -> None:
        loads.append(self)
        real(self, *args, **kwargs)

    monkeypatch.setattr(bert_encoder.BertEncoder, "__init__", counted)
    facades = [Memdir.open(project), Memdir.open(project)]
    save(facades[0])
    facades[0].embed()
    start = threading.Barrier(6)
    indexes: list[object] = []
    found: list[list[str]] = []

    def first_search(mem: Memdir) -> None:
        start.wait(30)  # every thread's first search at once: none finds the model loaded
        hits = mem.search("which martial art does she practise?", kinds=["memory"])
        found.append([hit.ref for hit in hits])
        indexes.append(mem._catalog().index.vector_index())

    threads = [threading.Thread(target=first_search, args=(facades[n % 2],)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert found == [["kickboxing.md"]] * 6
    assert len(loads) <= 1  # none when an earlier test of this process loaded it
    assert len({id(index) for index in indexes}) == 1  # one vector index for all of them


class Waiters(threading.Condition):
    """A condition that tells when ``count`` threads have waited on it."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count
        self.all_in = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        self.count -= 1
        if self.count <= 0:
            self.all_in.set()
        return super().wait(timeout)


def test_concurrent_calls_are_run_as_one_batch_and_each_gets_its_own_results() -> None:
    release, running = threading.Event(), threading.Event()
    batches: list[list[int]] = []

    def double(items: list[int]) -> list[int]:
        batches.append(items)
        running.set()
        assert release.wait(30)
        return [2 * item for item in items]

    shared: Coalescer[int, int] = Coalescer(double)
    queued = Waiters(3)
    shared._turn = queued  # tells when the three callers below wait in the queue
    results: dict[int, list[int]] = {}
    first = threading.Thread(target=lambda: results.__setitem__(0, shared([0])))
    first.start()
    assert running.wait(30)  # the first batch runs; the next callers queue behind it
    others = [
        threading.Thread(target=lambda n=n: results.__setitem__(n, shared([n, n + 10])))
        for n in (1, 2, 3)
    ]
    for thread in others:
        thread.start()
    assert queued.all_in.wait(30)
    release.set()
    for thread in (first, *others):
        thread.join(30)
    assert results == {0: [0], 1: [2, 22], 2: [4, 24], 3: [6, 26]}
    assert len(batches) == 2 and sorted(batches[1]) == [1, 2, 3, 11, 12, 13]


def test_a_failed_batch_is_raised_in_every_caller_whose_items_it_held() -> None:
    def broken(items: list[int]) -> list[int]:
        raise RuntimeError("the model failed")

    shared: Coalescer[int, int] = Coalescer(broken)
    with pytest.raises(RuntimeError, match="the model failed"):
        shared([1])
    with pytest.raises(RuntimeError):
        shared([2])  # and the next call runs a batch of its own


@contextlib.contextmanager
def pass_of_another_process(mem: Memdir) -> Iterator[None]:
    """Another process holding the embedding pass's lock, as ``memdir index embed`` does."""
    holder = (
        "import fcntl, os, sys\n"
        "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        "sys.stdin.read()\n"
    )
    mem.layout.lock_dir.mkdir(parents=True, exist_ok=True)
    child = subprocess.Popen(
        [sys.executable, "-c", holder, str(mem.layout.lock_dir / EMBED_LOCK)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "held\n"
        yield
    finally:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.close()
        child.wait(30)
        child.stdout.close()


def test_a_search_during_another_process_embedding_pass_embeds_nothing_and_ranks_by_words(
    project: Path,
) -> None:
    mem = Memdir.open(project, search_embeddings="test-model")
    recording = Recording()
    mem._search_embedder = recording
    save(mem)
    with pass_of_another_process(mem):
        hits = mem.search("kickboxing", kinds=["memory"])
        assert [hit.ref for hit in hits] == ["kickboxing.md"]  # by its words
        assert recording.texts == []  # neither the documents nor, ranking by words, the query
        assert mem.search("which martial art?", kinds=["memory"]) == []
    # The pass over, the next search embeds within its budget, and ranks by meaning.
    hits = mem.search("which martial art?", kinds=["memory"])
    assert [hit.ref for hit in hits] == ["kickboxing.md"]
    assert len(recording.texts) == 3  # the two memories, then the query


def test_an_explicit_embedding_pass_waits_for_another_and_then_does_what_is_left(
    project: Path,
) -> None:
    mem = Memdir.open(project, search_embeddings="test-model")
    mem._search_embedder = Recording()
    save(mem)
    embedded: list[int] = []
    with pass_of_another_process(mem):
        worker = threading.Thread(target=lambda: embedded.append(mem.embed()))
        worker.start()
        worker.join(0.5)  # not a measure: it may not end while the other pass runs
        assert embedded == []
    worker.join(60)
    assert embedded == [2]


def test_a_recall_right_after_the_background_pass_starts_finds_a_memory_just_saved(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = Memdir.open(project, search_embeddings="test-model")
    mem._search_embedder = TopicEmbedder()
    mem.write(name="Soup", description="Ben's recipe for Fridays", type="user", body="y")
    mem.embed()  # the catalog as a server that ran before leaves it
    mem.write(
        name="Kickboxing",
        description="Anna trains kickboxing on Tuesdays",
        type="user",
        body="Her club meets at the gym on Tuesdays.\n",
    )
    # The background pass's catch-up, holding the catalog's lock, is held where it checks
    # again what changed, until the recall below has tried its own catch-up (or waited).
    indexing, release = threading.Event(), threading.Event()
    checks: list[str] = []
    real = Catalog._pending

    def held(self: Catalog, extra: set[str]) -> Any:
        name = threading.current_thread().name
        checks.append(name)
        if name == "memdir-embed" and checks.count(name) == 2:  # its second look: locked
            indexing.set()
            assert release.wait(30)
        return real(self, extra)

    monkeypatch.setattr(Catalog, "_pending", held)
    background = mem.embed_in_background()
    assert background is not None and indexing.wait(30)
    answers: list[list[str]] = []
    recall = threading.Thread(
        target=lambda: answers.append(
            [item.ref for item in mem.recall("when does anna go to kickboxing practice").items]
        )
    )
    recall.start()
    recall.join(3)  # a recall that skipped the catch-up is done by now; one that waits is not
    release.set()
    recall.join(60)
    background.join(60)
    assert answers == [["kickboxing.md"]]
