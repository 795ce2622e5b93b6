"""Small file-system helpers shared by the stores of resumable state."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memdir.storage.fs import atomic_write, read_json_object


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, None),
        ("{not json", None),
        ("[1, 2]", None),
        ('"text"', None),
        ('{"cursor": 3}', {"cursor": 3}),
    ],
)
def test_a_state_file_reads_as_an_object_or_as_nothing(
    tmp_path: Path, content: str | None, expected: dict[str, int] | None
) -> None:
    path = tmp_path / "state.json"
    if content is not None:
        path.write_text(content)
    assert read_json_object(path) == expected


def test_a_write_of_derived_state_is_atomic_without_an_fsync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    target = tmp_path / "state.json"
    atomic_write(target, "{}\n")
    assert len(synced) == 2  # the file, then its folder
    synced.clear()
    atomic_write(target, '{"seen": 1}\n', durable=False)
    atomic_write(target, '{"seen": 2}\n', durable=False, sync_dir=True)
    assert synced == []
    assert target.read_text() == '{"seen": 2}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]  # no temp file left
