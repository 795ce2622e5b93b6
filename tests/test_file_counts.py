"""The per-folder file counts behind ``max_files``: exact for memdir, O(1) per write."""

from __future__ import annotations

import json
import os
import stat as stat_mode
from pathlib import Path

import pytest

from memdir.api import Memdir
from memdir.errors import LimitExceeded
from memdir.storage.file_counts import FOLDERS_PER_COUNT, FileCounts


def _scope(root: Path, folders: int, each: int = 2) -> None:
    for f in range(folders):
        folder = root / f"f{f:03d}"
        folder.mkdir(parents=True)
        for i in range(each):
            (folder / f"m{i}.md").write_text("---\nname: x\n---\n")


def _stats_of_folders(monkeypatch: pytest.MonkeyPatch, root: Path) -> list[str]:
    """Record every ``os.stat`` of a folder under ``root`` from here on."""
    seen: list[str] = []
    real = os.stat

    def fake_stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        result = real(path, *args, **kwargs)  # type: ignore[arg-type]
        text = os.fspath(path)  # type: ignore[call-overload]
        if (
            isinstance(text, str)
            and text.startswith(str(root))
            and stat_mode.S_ISDIR(result.st_mode)
        ):
            seen.append(text)
        return result

    monkeypatch.setattr(os, "stat", fake_stat)
    return seen


def test_far_from_the_limit_a_count_compares_a_few_folders_not_every_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "scope"
    _scope(root, folders=60)
    counts = FileCounts(root, tmp_path / "counts.json", frozenset())
    assert counts.total(100_000) == 120  # the first count lists everything
    counts.forget()
    seen = _stats_of_folders(monkeypatch, root)
    assert counts.total(100_000) == 120
    assert str(root) in seen and len(seen) <= FOLDERS_PER_COUNT


def test_a_file_added_by_hand_far_from_the_limit_is_counted_once_its_folder_comes_up(
    tmp_path: Path,
) -> None:
    root = tmp_path / "scope"
    _scope(root, folders=40)
    counts = FileCounts(root, tmp_path / "counts.json", frozenset())
    assert counts.total(100_000) == 80
    (root / "f017" / "by-hand.md").write_text("x\n")
    os.utime(root / "f017", ns=(1, 1))  # another clock tick than the count's
    totals = []
    for _ in range(200):  # each count starts at a random folder
        counts.forget()
        totals.append(counts.total(100_000))
    assert totals[-1] == 81 and set(totals) <= {80, 81}


def test_near_the_limit_every_folder_is_compared(tmp_path: Path) -> None:
    root = tmp_path / "scope"
    _scope(root, folders=40)
    counts = FileCounts(root, tmp_path / "counts.json", frozenset())
    assert counts.total(85) == 80  # 80 >= 0.9 * 85: near the limit
    (root / "f033" / "by-hand.md").write_text("x\n")
    os.utime(root / "f033", ns=(1, 1))
    counts.forget()
    assert counts.total(85) == 81


def test_the_state_is_read_once_per_locked_section(tmp_path: Path) -> None:
    root = tmp_path / "scope"
    _scope(root, folders=3)
    state = tmp_path / "counts.json"
    counts = FileCounts(root, state, frozenset())
    assert counts.total(100) == 6
    before = counts.mtimes("f000/new.md")
    (root / "f000" / "new.md").write_text("---\nname: n\n---\n")
    # Another holder's edit between the two calls of this section is not seen...
    state.write_text(json.dumps({"folders": {}}))
    counts.record(before, ("f000/new.md", 1))
    assert json.loads(state.read_text())["folders"]["f000"][1] == 3
    # ...and the next section reads the state again.
    counts.forget()
    state.write_text("not json")
    assert counts.total(100) == 7


def test_a_damaged_state_file_is_counted_again(tmp_path: Path) -> None:
    root = tmp_path / "scope"
    _scope(root, folders=2)
    state = tmp_path / "counts.json"
    state.write_text(json.dumps({"folders": {"": [1, "many"], "f000": "x"}}))
    assert FileCounts(root, state, frozenset()).total(100) == 4


def test_writes_far_from_the_limit_still_refuse_at_it(project: Path) -> None:
    mem = Memdir.open(project, max_files=30)
    for f in range(12):  # more folders than a count compares at once
        mem.write(name=f"m{f}", description="d", type="project")
        mem.private.rename(f"m{f}.md", f"f{f}/m{f}.md")
    for i in range(18):
        mem.write(name=f"n{i}", description="d", type="project")
    with pytest.raises(LimitExceeded):
        mem.write(name="one too many", description="d", type="project")


def test_a_state_file_that_is_a_link_is_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "scope"
    _scope(root, folders=2)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"folders": {"": [1, 500]}}))
    state = tmp_path / "counts.json"
    state.symlink_to(elsewhere)
    assert FileCounts(root, state, frozenset()).total(100) == 4
    assert json.loads(elsewhere.read_text()) == {"folders": {"": [1, 500]}}
