"""The notes-and-logs retrieval corpus: the committed file is what its generator writes."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _generated() -> list[dict[str, Any]]:
    sys.path.insert(0, str(BENCHMARKS))
    try:  # it imports its sibling benchmark modules by name
        notes_logs = importlib.import_module("notes_logs")
    finally:
        sys.path.remove(str(BENCHMARKS))
    corpus: list[dict[str, Any]] = notes_logs.generate()
    return corpus


def test_the_committed_corpus_is_the_generators() -> None:
    committed = json.loads((BENCHMARKS / "data" / "notes_logs.json").read_text("utf-8"))
    assert committed == _generated()


def test_no_workspace_holds_two_notes_of_one_name() -> None:
    # memdir's store keeps one file per name: a repeated name would lose a note's evidence.
    for sample in _generated():
        names = [note["name"].lower() for note in sample["conversation"]["session_1"]]
        assert len(names) == len(set(names)), sample["sample_id"]
