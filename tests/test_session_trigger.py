"""The session-notes trigger: exactly the original design's shouldExtractMemory."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from background.helpers import chat, turn
from memdir.agents.session.notes import (
    SessionState,
    TriggerConfig,
    conversation_tokens,
    should_update,
)
from memdir.config import Settings
from memdir.transcripts.turns import Turn

CONFIG = TriggerConfig(min_tokens_to_init=100, min_tokens_between_updates=50,
                       tool_calls_between_updates=3)  # fmt: skip


def chars(text: str) -> int:
    return len(text)


def conversation(total_tokens: int, *, last_has_tools: bool) -> list[Turn]:
    """user text of ``total_tokens`` chars; an assistant turn with 3 tool calls; the last one."""
    return [
        turn(0, "user", "x" * total_tokens, uuid="t0"),
        turn(1, "assistant", calls=("c1", "c2", "c3"), uuid="t1"),
        turn(2, "tool", results=("c1", "c2", "c3"), uuid="t2"),
        turn(3, "assistant", calls=("c4",) if last_has_tools else (), uuid="t3"),
    ]


ROWS = list(itertools.product([False, True], repeat=5))


@pytest.mark.parametrize(
    ("initialized", "init_met", "tokens_met", "tools_met", "last_has_tools"), ROWS
)
def test_trigger_over_every_combination_of_the_seed_conditions(
    initialized: bool, init_met: bool, tokens_met: bool, tools_met: bool, last_has_tools: bool
) -> None:
    total = 120 if init_met else 80
    state = SessionState(
        initialized=initialized,
        tokens_at_last_update=0 if tokens_met else total - 10,
        # From t1 on, only the last turn's call counts: 0 or 1 < 3.
        trigger_cursor=None if tools_met else "t1",
    )
    turns = conversation(total, last_has_tools=last_has_tools)

    due, after = should_update(turns, state, CONFIG, chars)

    if not initialized and not init_met:
        expected = False
    else:
        expected = (tokens_met and tools_met) or (tokens_met and not last_has_tools)
    assert due is expected
    assert after.initialized is (initialized or init_met)
    assert after.trigger_cursor == ("t3" if expected else state.trigger_cursor)
    assert after.summarized_cursor is None  # only a successful update moves that one


def test_the_defaults_come_from_settings_and_are_the_seed_numbers(tmp_path: Path) -> None:
    config = TriggerConfig.from_settings(Settings(home=tmp_path))
    assert config == TriggerConfig(
        min_tokens_to_init=4000, min_tokens_between_updates=2000, tool_calls_between_updates=5
    )
    tuned = TriggerConfig.from_settings(Settings(home=tmp_path, session_min_tokens_to_init=10))
    assert tuned.min_tokens_to_init == 10


def test_nothing_happens_below_four_thousand_estimated_tokens_by_default() -> None:
    config = TriggerConfig()
    small = chat("a" * 15_990)  # 3,998 tokens at four characters each
    due, state = should_update(small, SessionState(), config)
    assert not due and not state.initialized
    due, state = should_update(chat("a" * 16_000), SessionState(), config)
    assert due and state.initialized


def test_the_token_estimate_is_pluggable() -> None:
    words = chat(" ".join(["word"] * 150))  # 150 words, 749 characters

    def count_words(text: str) -> int:
        return len(text.split())

    assert conversation_tokens(words) == 188
    assert conversation_tokens(words, count_words) == 150
    due, _ = should_update(words, SessionState(), CONFIG, count_words)
    assert due
    due, _ = should_update(
        words, SessionState(), TriggerConfig(min_tokens_to_init=200), count_words
    )
    assert not due


def test_tool_calls_are_counted_from_the_last_trigger_not_from_the_start() -> None:
    turns = conversation(120, last_has_tools=True)
    due, state = should_update(turns, SessionState(initialized=True), CONFIG, chars)
    assert due and state.trigger_cursor == "t3"
    more = [*turns, turn(4, "tool", "x" * 60, results=("c4",), uuid="t4"),
            turn(5, "assistant", calls=("c5",), uuid="t5")]  # fmt: skip
    # 60 more tokens, but one tool call since t3 and the last turn still uses tools.
    due, _ = should_update(more, replace_tokens(state, 120), CONFIG, chars)
    assert not due


def replace_tokens(state: SessionState, tokens: int) -> SessionState:
    from dataclasses import replace

    return replace(state, tokens_at_last_update=tokens)


def test_sidechain_turns_do_not_count_towards_the_size() -> None:
    from dataclasses import replace

    side = replace(turn(0, "assistant", "x" * 500), is_sidechain=True)
    assert conversation_tokens([side, *chat("abcd")]) == 1
