"""The labelled recall stores, and the harness that scores recall on them.

``benchmarks/recall_eval.py`` judges per-prompt recall on several stores
(``benchmarks/data/recall/``) and chooses its settings leave-one-store-out.
These tests hold the data to the goals it was written for (sizes, labels that
name real memories, a share of prompts that share no word with the memory
they need, a share that need none) and run the harness on a tiny store
written here; the full run is a benchmark, not a test.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from memdir.search.terms import query_terms, terms

ROOT = Path(__file__).resolve().parents[1]


def _load() -> ModuleType:
    path = ROOT / "benchmarks" / "recall_eval.py"
    spec = importlib.util.spec_from_file_location("recall_eval", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


ev = _load()
STORES: list[Any] = ev.load_stores()
NEW: list[Any] = [s for s in STORES if s.name != ev.TUNED_ON]


def _shares_no_word(prompt: str, memories: list[dict[str, Any]]) -> bool:
    asked = set(query_terms(prompt))
    return all(
        not asked & set(terms(f"{m['name']} {m['description']} {m['body']}")) for m in memories
    )


def _served(store: Any) -> list[Any]:
    return [p for p in store.prompts if p.relevant]


# --- the data -------------------------------------------------------------------------


def test_the_billing_store_is_kept_beside_three_new_stores_of_other_kinds() -> None:
    assert {"billing", "mobile", "assistant", "sre"} <= {s.name for s in STORES}
    assert ev.TUNED_ON == "billing"


def test_every_new_store_holds_25_to_40_memories_of_the_four_types() -> None:
    for store in NEW:
        assert 25 <= len(store.memories) <= 40, store.name
        types = {m["type"] for m in store.memories}
        assert types == {"user", "feedback", "project", "reference"}, store.name


def test_every_feedback_memory_of_a_new_store_says_why_and_how_to_apply() -> None:
    for store in NEW:
        for m in store.memories:
            if m["type"] == "feedback":
                assert "**Why:**" in m["body"] and "**How to apply:**" in m["body"], m["name"]


def test_every_label_names_a_memory_of_its_own_store() -> None:
    for store in STORES:
        names = {m["name"] for m in store.memories}
        for p in store.prompts:
            assert p.relevant <= names, (store.name, p.text)


def test_there_are_300_prompts_and_75_or_more_in_each_new_store() -> None:
    assert sum(len(s.prompts) for s in STORES) >= 300
    for store in NEW:
        assert len(store.prompts) >= 75, store.name


def test_40_percent_of_served_prompts_share_no_content_word_with_the_memories_serving_them() -> (
    None
):
    unshared = served = 0
    for store in STORES:
        by_name = {m["name"]: m for m in store.memories}
        flags = [_shares_no_word(p.text, [by_name[r] for r in p.relevant]) for p in _served(store)]
        if store in NEW:
            assert sum(flags) >= 0.4 * len(flags), store.name
        unshared += sum(flags)
        served += len(flags)
    assert unshared >= 0.4 * served


def test_a_quarter_of_the_prompts_need_no_memory_and_among_them_are_near_misses() -> None:
    for store in STORES:
        quiet = [p for p in store.prompts if not p.relevant]
        assert len(quiet) >= 0.25 * len(store.prompts), store.name
        # A near miss shares a word with some memory it does not need ("sort this list").
        near = [p for p in quiet if not _shares_no_word(p.text, list(store.memories))]
        assert len(near) >= 0.3 * len(quiet), store.name


def test_the_data_check_finds_every_goal_met(capsys: pytest.CaptureFixture[str]) -> None:
    assert ev.check_data(STORES) == 0
    assert "goal missed" not in capsys.readouterr().out


def test_the_data_check_names_the_store_and_the_goal_it_misses() -> None:
    small = ev.store_data(NEW[0])
    fewer = dataclasses.replace(small, prompts=10, no_memory=1, served=9)
    failures = ev.data_failures([fewer])
    assert f"{small.name}: 10 prompts (goal 75)" in failures
    assert any("need no memory" in f for f in failures)


def test_a_label_naming_no_memory_is_refused_with_the_file_named(tmp_path: Path) -> None:
    folder = _tiny_store(tmp_path / "tiny")
    prompts = json.loads((folder / "prompts.json").read_text())
    prompts["prompts"][0]["relevant"] = ["no-such-memory"]
    (folder / "prompts.json").write_text(json.dumps(prompts))
    with pytest.raises(ev.DataError, match=r"prompts\.json: prompt 0 names no memory"):
        ev.load_store(folder)


# --- the harness ----------------------------------------------------------------------


def _tiny_store(folder: Path) -> Path:
    folder.mkdir(parents=True)
    memories = [
        {
            "name": "deploy-runbook",
            "type": "reference",
            "description": "The deploy runbook for the payments service lives in the ops wiki",
            "body": "Rollback steps are at the end of the page.",
        },
        {
            "name": "secrets-in-vault",
            "type": "feedback",
            "description": "Database passwords and API keys come from Vault, never from .env files",
            "body": "**Why:** a key once leaked.\n**How to apply:** read kv/<env>/<service>.",
        },
        {
            "name": "user-profile",
            "type": "user",
            "description": "Ana, backend engineer, writes Go and reads Python",
            "body": "Prefers short answers.",
        },
    ]
    prompts = [
        {
            "id": 0,
            "prompt": "where does the deploy runbook for payments live?",
            "relevant": ["deploy-runbook"],
        },
        {"id": 1, "prompt": "thanks, that works", "relevant": []},
        {"id": 2, "prompt": "what is the capital of peru", "relevant": []},
        {
            "id": 3,
            "prompt": "the database password for vault rotated",
            "relevant": ["secrets-in-vault"],
        },
        {"id": 4, "prompt": "how do i revert a broken release", "relevant": ["deploy-runbook"]},
    ]
    (folder / "memories.json").write_text(json.dumps({"today": "2025-03-01", "memories": memories}))
    (folder / "prompts.json").write_text(json.dumps({"prompts": prompts}))
    return folder


def test_the_harness_scores_recall_on_a_tiny_store_under_each_setting(tmp_path: Path) -> None:
    _tiny_store(tmp_path / "data" / "tiny")
    stores = ev.load_stores(tmp_path / "data")
    strict = (("min_strength", 50.0), ("min_coverage", 1.0))
    with ev.bench(stores, workers=1) as run:
        scores = run.score([(), strict])
        answers = run.answers([()])
    defaults = scores["tiny"][()]
    assert defaults.prompts == 5 and defaults.quiet == 2
    assert defaults.silence == 1.0  # chat and a general question recall nothing
    assert answers["tiny"][()][0] == ["deploy-runbook"]
    assert defaults.precision == 1.0 and defaults.recall == 2 / 3
    assert scores["tiny"][strict].prompts == 5
    assert run.recalls == 3 * 5


def test_recall_is_also_told_apart_on_prompts_that_share_no_word_with_their_memory(
    tmp_path: Path,
) -> None:
    _tiny_store(tmp_path / "data" / "tiny")
    [store] = ev.load_stores(tmp_path / "data")
    assert [p.unshared for p in store.prompts] == [False, False, False, False, True]
    with ev.bench([store], workers=1) as run:
        defaults = run.score([()])["tiny"][()]
    # "revert a broken release" shares no word with the deploy runbook: words cannot find it.
    assert defaults.recall_shared == 1.0
    assert defaults.recall_unshared == 0.0


def test_a_knob_the_lexical_recaller_does_not_know_is_refused() -> None:
    assert ev.relevance_floor((("min_strength", 2.0),)).min_strength == 2.0
    with pytest.raises(ev.KnobError, match="cosine_floor"):
        ev.relevance_floor((("cosine_floor", 0.3),))


def _tally(hits: int, returned: int, silent: int = 10) -> Any:
    return ev.Tally(returned=returned, hits=hits, wanted=10, quiet=10, silent=silent, prompts=20)


def test_leave_one_store_out_chooses_each_setting_on_the_other_stores_only() -> None:
    a, b = (("min_strength", 1.0),), (("min_strength", 2.0),)
    matrix = {
        "x": {a: _tally(10, 10), b: _tally(0, 10)},
        "y": {a: _tally(2, 10), b: _tally(9, 10)},
        "z": {a: _tally(3, 10), b: _tally(8, 10)},
    }
    # Held out x: y and z pooled favour b (17 of 20 hits), whatever x says; held out
    # y: x and z pooled favour a (13 to 8); held out z: x and y favour a (12 to 9).
    assert ev.leave_one_out(matrix) == {"x": b, "y": a, "z": a}


def test_a_setting_that_breaks_silence_is_not_chosen_however_well_it_recalls() -> None:
    quiet, loud = (("min_strength", 1.0),), (("min_strength", 0.5),)
    results = {quiet: _tally(5, 10), loud: _tally(10, 10, silent=5)}
    assert ev.choose(results) == quiet


def test_equal_settings_go_to_the_lowest_knobs() -> None:
    low, high = (("min_strength", 1.0),), (("min_strength", 2.0),)
    assert ev.choose({high: _tally(5, 10), low: _tally(5, 10)}) == low


def test_the_grid_varies_the_first_knob_slowest() -> None:
    grid = ev.settings_grid({"min_strength": (1.0, 2.0), "min_coverage": (0.1, 0.2)})
    assert grid[:2] == [
        (("min_strength", 1.0), ("min_coverage", 0.1)),
        (("min_strength", 1.0), ("min_coverage", 0.2)),
    ]
    assert len(grid) == 4
