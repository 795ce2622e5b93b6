"""The memory file codec: round trips, legacy files, broken frontmatter."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.errors import ParseError
from memdir.model import KNOWN_FIELDS, Memory, MemoryType
from memdir.storage import codec
from memdir.storage.codec import parse_memory, read_frontmatter_head, render_memory

line_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=80
)
dates = st.none() | st.dates(min_value=dt.date(1970, 1, 1), max_value=dt.date(2200, 1, 1))
scalars = st.none() | st.booleans() | st.integers(-(10**9), 10**9) | line_text
extra_values: st.SearchStrategy[Any] = scalars | st.lists(scalars, max_size=4)
extra_keys = st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True).filter(
    lambda k: k not in KNOWN_FIELDS
)
bodies = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\r\x85\x0b\x0c"),
    max_size=300,
)


@st.composite
def memories(draw: st.DrawFn) -> Memory:
    return Memory(
        name=draw(line_text),
        description=draw(line_text),
        type=draw(st.none() | st.sampled_from(list(MemoryType))),
        body=draw(bodies),
        created=draw(dates),
        updated=draw(dates),
        verified=draw(dates),
        review_after=draw(dates),
        source=draw(st.none() | line_text.filter(bool)),
        anchors=tuple(draw(st.lists(line_text.filter(lambda s: s.strip()), max_size=3))),
        supersedes=tuple(draw(st.lists(line_text.filter(lambda s: s.strip()), max_size=2))),
        extra=draw(st.dictionaries(extra_keys, extra_values.filter(lambda v: v is not None))),
    )


@settings(max_examples=300, deadline=None)
@given(memories())
def test_any_valid_memory_survives_render_and_parse(memory: Memory) -> None:
    text = render_memory(memory)
    assert parse_memory(text) == memory


@settings(max_examples=100, deadline=None)
@given(memories())
def test_unknown_fields_keep_their_order_on_rewrite(memory: Memory) -> None:
    again = parse_memory(render_memory(parse_memory(render_memory(memory))))
    assert list(again.extra) == list(memory.extra)


@pytest.mark.parametrize("key", ["no", "yes", "on", "off", "y", "null", "1", "0x1f", "true"])
def test_unknown_keys_yaml_would_read_as_other_types_round_trip_as_strings(key: str) -> None:
    memory = Memory(name="n", description="d", type=None, extra={key: "v", "after": 1})
    again = parse_memory(render_memory(memory))
    assert list(again.extra) == [key, "after"]
    assert again == memory


def test_legacy_file_without_type_is_read() -> None:
    memory = parse_memory("---\nname: Old\ndescription: from before types\n---\nbody\n")
    assert memory.type is None and memory.name == "Old" and memory.body == "body\n"


def test_unknown_type_is_kept_verbatim_for_doctor() -> None:
    text = "---\nname: X\ndescription: d\ntype: opinion\n---\n"
    memory = parse_memory(text)
    assert memory.type is None
    assert "type: opinion" in render_memory(memory)


def test_frontmatter_with_bare_colons_is_retried_with_values_quoted() -> None:
    text = "---\nname: Deploy: staging first\ndescription: see: the runbook\ntype: project\n---\n"
    memory = parse_memory(text)
    assert memory.name == "Deploy: staging first"
    assert memory.description == "see: the runbook"


def test_frontmatter_that_cannot_be_read_names_the_file_and_line() -> None:
    text = "---\nname: ok\ndescription: [unclosed\ntype: user\n  - : :\n---\nbody\n"
    with pytest.raises(ParseError) as info:
        parse_memory(text, path="memory/broken.md")
    assert info.value.line is not None
    assert str(info.value).startswith(f"memory/broken.md:{info.value.line}:")


def test_frontmatter_that_is_not_a_mapping_is_a_parse_error() -> None:
    with pytest.raises(ParseError):
        parse_memory("---\n- a\n- b\n---\nbody\n")


def test_head_reader_sees_only_the_first_lines(tmp_path: Any) -> None:
    path = tmp_path / "m.md"
    path.write_text("---\nname: A\ndescription: B\ntype: user\n---\n" + "x\n" * 1000)
    assert read_frontmatter_head(path)["name"] == "A"
    late = tmp_path / "late.md"
    late.write_text("\n" * 40 + "---\nname: A\n---\n")
    assert read_frontmatter_head(late) == {}


# Characters YAML gives a meaning to, beside plain ones: the plain writer must defer on them.
PLAIN_OR_NOT = "abyYnNoOtTeE 12.,;/()+=?$%'_-:#\"!&*[]{}@`|>~\t\\"


@settings(max_examples=400, deadline=None)
@given(
    value=st.one_of(
        st.text(alphabet=PLAIN_OR_NOT, max_size=14),
        st.sampled_from(["yes", "No", "null", "ON", "e", "a  b", "b ", "x" * 2_001]),
    )
)
def test_a_value_written_without_the_emitter_is_what_yaml_writes_and_reads_back(
    value: str,
) -> None:
    plain = codec._plain_value(value)
    if plain is None:
        return
    dumped = codec._yaml()[0].safe_dump(
        value, default_flow_style=True, allow_unicode=True, width=10_000, sort_keys=False
    )
    assert plain == dumped.removesuffix("\n...\n").rstrip("\n")
    assert codec._yaml_frontmatter(f"key: {plain}") == {"key": value}
    assert codec.parse_frontmatter(f"key: {plain}") == {"key": value}


@pytest.mark.parametrize("value", ["yes", "Off", "a: b", "#x", "'q'", "1.5", "b ", "a  b"])
def test_values_yaml_would_misread_go_through_the_emitter(value: str) -> None:
    assert codec._plain_value(value) is None
    memory = Memory(name=value.strip() or "n", description="d", type=None, extra={"k": value})
    assert parse_memory(render_memory(memory)).extra == {"k": value}


def test_ordinary_names_and_descriptions_are_written_without_the_emitter() -> None:
    for value in ["Deploys go through staging first", "Use uv, not pip (since 2026)", "e"]:
        assert codec._plain_value(value) == value
