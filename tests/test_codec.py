"""The memory file codec: round trips, legacy files, broken frontmatter."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.errors import ParseError
from memdir.model import (
    KNOWN_FIELDS,
    FrontmatterStyle,
    Memory,
    MemoryType,
    claude_slug,
    claude_timestamp,
    memory_slug,
)
from memdir.storage import codec
from memdir.storage.codec import parse_memory, read_frontmatter_head, render_memory

FIXTURES = Path(__file__).parent / "fixtures"
CLAUDE_FIXTURES = FIXTURES / "claude_code" / "memory"
MEMDIR_FIXTURES = FIXTURES / "memdir_format" / "memory"

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


def common_fields(draw: st.DrawFn) -> dict[str, Any]:
    """The fields both frontmatter styles hold, drawn: all but the name."""
    return {
        "description": draw(line_text),
        "type": draw(st.none() | st.sampled_from(list(MemoryType))),
        "body": draw(bodies),
        "created": draw(dates),
        "updated": draw(dates),
        "verified": draw(dates),
        "source": draw(st.none() | line_text.filter(bool)),
        "anchors": tuple(draw(st.lists(line_text.filter(lambda s: s.strip()), max_size=3))),
    }


@st.composite
def memories(draw: st.DrawFn) -> Memory:
    return Memory(
        **common_fields(draw),
        name=draw(line_text),
        review_after=draw(dates),
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


# --- Claude Code's shape -------------------------------------------------------------

slugs = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,30}", fullmatch=True)
timestamps = st.datetimes(
    min_value=dt.datetime(1971, 1, 1), max_value=dt.datetime(2200, 1, 1), timezones=st.just(dt.UTC)
).map(claude_timestamp)
claude_values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(extra_keys, inner.filter(lambda v: v is not None), max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def claude_memories(draw: st.DrawFn) -> Memory:
    """Memories as Claude Code's shape holds them: a slug name, any metadata."""
    keys = extra_keys.filter(lambda k: k not in ("node_type", "metadata"))
    return Memory(
        **common_fields(draw),
        name=draw(slugs),
        modified=draw(st.none() | timestamps | line_text.map(str.strip).filter(bool)),
        extra=draw(st.dictionaries(keys, claude_values.filter(lambda v: v is not None))),
        style=FrontmatterStyle.CLAUDE,
    )


@settings(max_examples=300, deadline=None)
@given(claude_memories())
def test_any_memory_in_claude_codes_shape_survives_render_and_parse(memory: Memory) -> None:
    text = render_memory(memory)
    assert parse_memory(text) == memory
    assert render_memory(parse_memory(text)) == text


@settings(max_examples=100, deadline=None)
@given(memories().map(lambda m: replace(m, style=FrontmatterStyle.CLAUDE)))
def test_a_titled_memory_in_claude_codes_shape_is_written_under_its_slug(memory: Memory) -> None:
    again = parse_memory(render_memory(memory))
    assert again.name == memory_slug(memory.name)
    assert again == replace(memory, name=again.name)
    assert render_memory(again) == render_memory(memory)


@settings(max_examples=300, deadline=None)
@given(st.one_of(memories(), claude_memories()))
def test_the_fast_reader_reads_what_yaml_reads(memory: Memory) -> None:
    block, _, _ = codec.split_frontmatter(render_memory(memory))
    assert block is not None
    fast = codec._plain_fields(block)
    assert fast is None or fast == codec._yaml_frontmatter(block)


LINE_PIECES = st.sampled_from(["", "  ", "    ", " "]).flatmap(
    lambda pad: st.one_of(
        st.builds(lambda k, v: f"{pad}{k}: {v}", extra_keys, st.text(PLAIN_OR_NOT, max_size=10)),
        st.builds(lambda k: f"{pad}{k}:", extra_keys),
        st.builds(lambda v: f"{pad}- {v}", st.text(PLAIN_OR_NOT, max_size=10)),
    )
)


@settings(max_examples=500, deadline=None)
@given(st.lists(LINE_PIECES, min_size=1, max_size=8))
def test_the_fast_reader_never_reads_a_block_otherwise_than_yaml(lines: list[str]) -> None:
    block = "\n".join(lines)
    fast = codec._plain_fields(block)
    if fast is not None:
        assert codec._yaml_frontmatter(block) == fast


def test_claude_codes_own_files_are_read_without_the_yaml_parser() -> None:
    for path in sorted(CLAUDE_FIXTURES.glob("*.md")):
        block, _, _ = codec.split_frontmatter(path.read_text())
        if path.name != "MEMORY.md":
            assert block is not None and codec._plain_fields(block) is not None, path.name


def test_claude_codes_own_files_are_rewritten_byte_for_byte() -> None:
    for path in sorted(CLAUDE_FIXTURES.glob("*.md")):
        if path.name != "MEMORY.md":
            text = path.read_text()
            memory = parse_memory(text)
            assert memory.style is FrontmatterStyle.CLAUDE and memory.type is not None
            assert render_memory(memory) == text, path.name


def test_memdir_format_files_are_rewritten_byte_for_byte() -> None:
    for path in sorted(MEMDIR_FIXTURES.glob("*.md")):
        if path.name != "MEMORY.md":
            text = path.read_text()
            memory = parse_memory(text)
            assert memory.style is FrontmatterStyle.MEMDIR
            assert render_memory(memory) == text, path.name


def test_metadata_type_and_modified_are_read_as_claude_code_reads_them() -> None:
    text = (
        "---\nname: deploy-freeze\ndescription: No deploys on Fridays\n"
        "metadata:\n  type: project\n  modified: 2026-03-02T23:30:00.000Z\n---\nbody\n"
    )
    memory = parse_memory(text)
    assert memory.type is MemoryType.PROJECT and memory.style is FrontmatterStyle.CLAUDE
    assert memory.modified == "2026-03-02T23:30:00.000Z"
    assert memory.modified_at == dt.datetime(2026, 3, 2, 23, 30, tzinfo=dt.UTC)
    assert memory.last_updated == memory.modified_at.astimezone().date()


def test_top_level_fields_fold_into_metadata_which_wins_as_in_claude_code() -> None:
    text = (
        "---\nname: x\ndescription: d\ntype: user\ntags: [a]\ncreated: 2026-01-01\n"
        "metadata:\n  node_type: memory\n  type: feedback\n  owner: me\n---\n"
    )
    memory = parse_memory(text)
    assert memory.type is MemoryType.FEEDBACK  # metadata's type wins
    assert memory.created == dt.date(2026, 1, 1) and memory.extra == {"tags": ["a"], "owner": "me"}
    assert render_memory(memory) == (
        "---\nname: x\ndescription: d\nmetadata:\n  node_type: memory\n  type: feedback\n"
        "  created: 2026-01-01\n  tags:\n    - a\n  owner: me\n---\n"
    )


def test_an_unknown_metadata_type_is_kept_for_doctor() -> None:
    memory = parse_memory("---\nname: x\ndescription: d\nmetadata:\n  type: opinion\n---\n")
    assert memory.type is None and memory.raw_type == "opinion"
    assert "  type: opinion\n" in render_memory(memory)


def test_a_modified_that_is_no_timestamp_is_kept_and_dates_nothing() -> None:
    memory = parse_memory("---\nname: x\ndescription: d\nmetadata:\n  modified: soon\n---\n")
    assert memory.modified == "soon" and memory.modified_at is None
    assert memory.last_updated is None


def test_the_later_of_updated_and_modified_is_the_last_update() -> None:
    older = Memory(name="n", description="d", type=None, updated=dt.date(2026, 1, 1))
    newer = replace(older, modified="2026-02-01T12:00:00.000Z")
    assert older.last_updated == dt.date(2026, 1, 1)
    assert newer.last_updated == dt.datetime(2026, 2, 1, 12, tzinfo=dt.UTC).astimezone().date()
    assert replace(newer, updated=dt.date(2026, 3, 1)).last_updated == dt.date(2026, 3, 1)


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Testing database policy", "testing-database-policy"),
        ("already-a-slug_ok", "already-a-slug_ok"),
        ("Probe Title: With Colon", "probe-title-with-colon"),
        ("Über  Ärger", "ber-rger"),
        ("  --x--  ", "x"),
    ],
)
def test_names_are_slugged_as_claude_code_slugs_them(name: str, slug: str) -> None:
    assert claude_slug(name) == slug


def test_a_name_without_ascii_letters_still_gets_a_slug() -> None:
    assert claude_slug("日本語") == ""
    assert memory_slug("日本語").startswith("memory-") and memory_slug("日本語") != memory_slug(
        "中文"
    )
