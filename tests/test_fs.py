"""Small file-system helpers shared by the stores of resumable state."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdir.storage.fs import read_json_object


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
