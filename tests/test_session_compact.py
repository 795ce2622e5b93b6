"""The compaction helper: which messages to keep, and the summary built from the notes."""

from __future__ import annotations

from pathlib import Path

import pytest

from background.helpers import chat, turn
from memdir.agents.session.notes import compact, summary_message
from memdir.agents.session.template import DEFAULT_TEMPLATE
from memdir.transcripts.turns import Turn


def tokens(text: str) -> int:
    return len(text)  # one character, one token: sizes in these tests are exact


def long_chat(n: int, size: int) -> list[Turn]:
    return chat(*(f"{i:03d}" + "x" * (size - 3) for i in range(n)))


@pytest.mark.parametrize(
    ("cursor", "limits", "start", "kept_tokens"),
    [
        pytest.param("u9", (500, 5, 4000), 10, 1000,
                     id="the_messages_after_the_cursor_are_kept_when_they_meet_the_minimums"),
        pytest.param("u17", (500, 2, 4000), 15, 500,
                     id="the_kept_messages_extend_back_to_the_token_minimum"),
        pytest.param("u17", (10, 5, 4000), 15, None,
                     id="the_kept_messages_extend_back_to_five_text_messages"),
        pytest.param("u18", (5000, 5, 350), 17, 300,
                     id="extending_back_stops_at_the_token_maximum"),
        pytest.param("gone", (300, 1, 4000), 17, None,
                     id="an_unknown_cursor_keeps_only_the_recent_minimum"),
    ],
)  # fmt: skip
def test_the_kept_messages_of_twenty_turns_of_a_hundred_tokens(
    cursor: str, limits: tuple[int, int, int], start: int, kept_tokens: int | None
) -> None:
    """``limits``: the token minimum, the text-message minimum, the token maximum."""
    min_tokens, min_text_messages, max_tokens = limits
    kept = compact(long_chat(20, 100), DEFAULT_TEMPLATE, cursor, count=tokens,
                   min_tokens=min_tokens, min_text_messages=min_text_messages,
                   max_tokens=max_tokens)  # fmt: skip
    assert kept.start == start
    if kept_tokens is not None:
        assert kept.kept_tokens == kept_tokens


def test_the_default_limits_are_ten_thousand_five_and_forty_thousand() -> None:
    turns = long_chat(100, 4000)  # 1,000 estimated tokens each
    kept = compact(turns, DEFAULT_TEMPLATE, "u98")
    assert kept.start == 90 and kept.kept_tokens == 10_000
    kept = compact(long_chat(100, 2000), DEFAULT_TEMPLATE, "u98")  # 500 tokens each
    assert kept.start == 80 and kept.kept_tokens == 10_000
    kept = compact(long_chat(100, 40_000), DEFAULT_TEMPLATE, "u98")  # 10,000 tokens each
    assert kept.start == 96 and kept.kept_tokens == 40_000


def test_a_tool_result_is_never_kept_without_its_call() -> None:
    turns = [
        *long_chat(6, 100),
        turn(6, "assistant", "x" * 100, calls=("c1", "c2")),
        turn(7, "tool", "r" * 100, results=("c1",)),
        turn(8, "tool", "r" * 100, results=("c2",)),
        turn(9, "assistant", "y" * 100),
    ]
    kept = compact(turns, DEFAULT_TEMPLATE, "u9", count=tokens, min_tokens=200,
                   min_text_messages=1, max_tokens=10_000)  # fmt: skip
    assert kept.start == 6
    assert kept.kept[0].tool_calls and kept.kept_tokens == 400


def test_the_tool_pair_rule_holds_even_past_the_token_maximum() -> None:
    turns = [
        turn(0, "user", "u" * 100),
        turn(1, "assistant", "a" * 100, calls=("c1",)),
        turn(2, "tool", "r" * 100, results=("c1",)),
        turn(3, "assistant", "done"),
    ]
    kept = compact(turns, DEFAULT_TEMPLATE, "u1", count=tokens, min_tokens=10_000,
                   min_text_messages=5, max_tokens=110)  # fmt: skip
    assert kept.start == 1


def test_the_summary_carries_the_filled_sections_and_the_notes_path(tmp_path: Path) -> None:
    lines = DEFAULT_TEMPLATE.splitlines()
    at = lines.index("# Current State") + 2
    notes = "\n".join([*lines[:at], "Refactoring auth.py", *lines[at:]])
    text = summary_message(notes, notes_path=tmp_path / "summary.md")
    assert "# Current State\nRefactoring auth.py" in text
    assert "# Worklog" not in text  # empty sections are left out
    assert str(tmp_path / "summary.md") in text
    assert text.startswith("This session continues an earlier conversation")


def test_an_oversized_section_is_shortened_in_the_summary() -> None:
    notes = "# Worklog\n_steps_\n" + "- a step\n" * 2000
    text = summary_message(notes, max_section_tokens=100)
    assert "[… section shortened]" in text and len(text) < 1000


def test_compact_returns_the_summary_of_the_notes() -> None:
    kept = compact(chat("q", "a"), "# Current State\n_now_\nworking\n", "u1")
    assert "working" in kept.summary and kept.kept == tuple(chat("q", "a"))
