"""Structured output: the schema validator, reply parsing, and complete_json's retry."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdir.errors import ProviderError
from memdir.llm import Completion, Message, Request, StopReason, complete_json, validate_json
from memdir.llm.schema import parse_json_reply
from memdir.testing import ScriptedProvider

SELECTION = {
    "type": "object",
    "properties": {
        "selected": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
        "mode": {"enum": ["fast", "careful"]},
        "count": {"type": "integer", "minimum": 0},
    },
    "required": ["selected"],
    "additionalProperties": False,
}


def ask() -> Request:
    return Request(messages=(Message.user("pick memories"),))


def test_validator_accepts_a_conforming_object() -> None:
    assert validate_json({"selected": ["a.md"], "mode": "fast", "count": 1}, SELECTION) == []


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ({}, "$: missing required key 'selected'"),
        ({"selected": "a.md"}, "$.selected: expected array, got string"),
        ({"selected": [1]}, "$.selected[0]: expected string, got integer"),
        ({"selected": [], "mode": "slow"}, "$.mode: 'slow' is not one of ['fast', 'careful']"),
        ({"selected": [], "count": True}, "$.count: expected integer, got boolean"),
        ({"selected": [], "count": -1}, "$.count: -1 is fewer than the minimum 0"),
        ({"selected": ["x"] * 6}, "$.selected: 6 items is more than the maximum 5"),
        ({"selected": [], "extra": 1}, "$: unexpected key 'extra'"),
        ([], "$: expected object, got array"),
    ],
)
def test_validator_names_the_path_and_the_rule_broken(value: Any, error: str) -> None:
    assert error in validate_json(value, SELECTION)


def test_validator_accepts_a_list_of_types_and_numbers_for_number() -> None:
    schema = {"type": ["number", "null"]}
    assert (
        validate_json(1, schema) == validate_json(1.5, schema) == validate_json(None, schema) == []
    )
    assert validate_json("1", schema) == ["$: expected number or null, got string"]


def test_reply_parser_tolerates_fences_and_surrounding_prose() -> None:
    assert parse_json_reply('```json\n{"a": 1}\n```') == {"a": 1}
    assert parse_json_reply('Sure! Here it is: {"a": [1, 2]} Hope that helps.') == {"a": [1, 2]}


def test_reply_parser_explains_a_reply_without_json() -> None:
    with pytest.raises(ValueError, match="not a JSON object"):
        parse_json_reply("I cannot do that.")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@given(st.dictionaries(st.text(), json_values, max_size=4), st.sampled_from(["", "Here:\n", "x "]))
def test_reply_parser_round_trips_any_object_with_or_without_fences(
    value: dict[str, Any], prefix: str
) -> None:
    dumped = json.dumps(value)
    assert parse_json_reply(dumped) == value
    assert parse_json_reply(f"{prefix}```json\n{dumped}\n```") == value


def test_complete_json_returns_the_validated_object_and_sends_the_schema() -> None:
    provider = ScriptedProvider({"selected": ["a.md", "b.md"]})
    assert complete_json(provider, ask(), SELECTION) == {"selected": ["a.md", "b.md"]}
    assert provider.requests[0].json_schema == SELECTION


def test_complete_json_retries_once_telling_the_model_what_was_wrong() -> None:
    provider = ScriptedProvider({"selected": "a.md"}, {"selected": ["a.md"]})
    assert complete_json(provider, ask(), SELECTION) == {"selected": ["a.md"]}
    retry = provider.requests[1]
    assert retry.messages[1] == Message.assistant('{"selected": "a.md"}')
    assert "$.selected: expected array, got string" in retry.messages[2].text


def test_complete_json_raises_provider_error_when_the_retry_also_fails() -> None:
    provider = ScriptedProvider("no json here", "still none")
    with pytest.raises(ProviderError, match="did not return valid JSON after 2 tries"):
        complete_json(provider, ask(), SELECTION)
    assert provider.pending == 0


def test_complete_json_tells_the_model_when_its_reply_was_cut_off() -> None:
    cut = Completion(text='{"selected": ["a', stop_reason=StopReason.MAX_TOKENS)
    provider = ScriptedProvider(cut, {"selected": []})
    complete_json(provider, ask(), SELECTION)
    assert "cut off at max_tokens" in provider.requests[1].messages[-1].text


def test_complete_json_refuses_a_schema_that_is_not_an_object() -> None:
    with pytest.raises(ValueError, match="type is 'object'"):
        complete_json(ScriptedProvider(), ask(), {"type": "array"})
