"""The hooks' JSON reader: a damaged text is a ValueError, whatever the scanner raises."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdir.utils import json_text
from memdir.utils.json_text import loads


def test_a_scanner_failing_with_another_error_is_a_value_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(text: str, start: int) -> object:
        raise SystemError("error return without exception set")

    monkeypatch.setattr(json_text, "_SCAN", broken)
    with pytest.raises(ValueError, match="not JSON"):
        loads('{"entries": {"private:a.md": ')


@given(st.binary(max_size=200))
def test_any_bytes_read_as_a_value_or_a_value_error(data: bytes) -> None:
    with contextlib.suppress(ValueError):  # UnicodeDecodeError, JSONDecodeError: ValueErrors
        loads(data)


@given(st.text(max_size=200))
def test_any_text_cut_anywhere_reads_as_a_value_or_a_value_error(text: str) -> None:
    whole = json_text.dumps({"rules": [text], "n": 1})
    for end in range(len(whole)):
        with contextlib.suppress(ValueError):
            loads(whole[:end])
