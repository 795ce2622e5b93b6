"""Reading conversation transcripts: Claude Code JSONL and plain JSONL."""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdir.errors import MemdirError, TranscriptError
from memdir.transcripts.reader import MAX_TOOL_RESULT_CHARS, iter_turns, read_transcript
from memdir.transcripts.turns import (
    Transcript,
    Turn,
    count_tool_calls_since,
    estimate_tokens,
    last_assistant_has_tool_calls,
)

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"
SESSION = FIXTURES / "claude-code-session.jsonl"
PLAIN = FIXTURES / "plain-chat.jsonl"


@pytest.fixture(scope="module")
def session() -> Transcript:
    return read_transcript(SESSION)


def write_lines(path: Path, *events: object) -> Path:
    path.write_text(
        "".join((e if isinstance(e, str) else json.dumps(e)) + "\n" for e in events),
        encoding="utf-8",
    )
    return path


def by_uuid(transcript: Transcript, uuid: str) -> Turn:
    return next(turn for turn in transcript.turns if turn.uuid == uuid)


# --- the Claude Code sample -------------------------------------------------------


def test_claude_code_sample_is_detected_with_its_session_id(session: Transcript) -> None:
    assert session.format == "claude-code"
    assert session.session_id == "7c1e5a2b-4d0f-4c8e-9a61-3f2b8d9e0a17"
    assert session.path == SESSION


def test_claude_code_sample_yields_the_conversation_roles_in_order(session: Transcript) -> None:
    roles = [turn.role for turn in session.turns]
    assert roles == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "tool",
        "assistant",
        "tool",
        "user",
        "assistant",
        "assistant",
        "tool",
        "user",
        "user",
        "user",
        "assistant",
    ]
    assert [turn.index for turn in session.turns] == list(range(len(session.turns)))


def test_meta_lines_and_command_wrappers_are_not_turns(session: Transcript) -> None:
    uuids = {uuid for turn in session.turns for uuid in turn.uuids}
    assert not uuids & {"m0", "c0", "c1"}
    assert session.turns[0].text.startswith("Invoices over 1000 EUR")


def test_assistant_lines_sharing_a_message_id_merge_into_one_turn(session: Transcript) -> None:
    turn = session.turns[1]
    assert turn.uuids == ("a1", "a2", "a3")
    assert turn.uuid == "a3"
    assert turn.parent_uuid == "u1"
    assert turn.timestamp == dt.datetime(2025, 11, 3, 9, 14, 5, 402000, tzinfo=dt.UTC)
    assert [call.name for call in turn.tool_calls] == ["Grep"]
    assert turn.text.startswith("I'll search for where invoice totals are rounded.")
    assert '[tool_use Grep: {"pattern":"round\\\\("' in turn.text
    assert "Look for round(" not in turn.text, "thinking is not conversation text"


def test_tool_results_between_lines_of_one_reply_follow_the_merged_turn(
    session: Transcript,
) -> None:
    reply, first, second = session.turns[3:6]
    assert reply.uuids == ("a4", "a5")
    assert [call.id for call in reply.tool_calls] == ["toolu_01Read", "toolu_01Read2"]
    assert first.tool_results == ("toolu_01Read",)
    assert second.tool_results == ("toolu_01Read2",)


def test_tool_results_are_rendered_with_the_tool_name(session: Transcript) -> None:
    grep = by_uuid(session, "r1")
    assert grep.tool_results == ("toolu_01Grep",)
    assert grep.text.startswith("[tool_result Grep]\nsrc/billing/totals.py:42:")
    failed = by_uuid(session, "r4")
    assert failed.text.startswith("[tool_result Edit error]")


def test_sidechain_turns_are_kept_and_flagged(session: Transcript) -> None:
    sidechain = [turn.uuid for turn in session.turns if turn.is_sidechain]
    assert sidechain == ["s1", "s2"]


def test_compact_boundary_and_summary_are_marked(session: Transcript) -> None:
    boundary = by_uuid(session, "b1")
    assert boundary.is_compact_boundary
    assert boundary.parent_uuid == "r5", "the logical parent stands in for the cut link"
    summary = by_uuid(session, "cs1")
    assert summary.is_compact_summary and not summary.is_compact_boundary
    assert sum(turn.is_compact_boundary for turn in session.turns) == 1


def test_the_truncated_line_is_counted_as_skipped(session: Transcript) -> None:
    assert session.skipped_lines == 1


def test_iter_turns_streams_the_same_turns_as_read_transcript(session: Transcript) -> None:
    assert tuple(iter_turns(SESSION)) == session.turns


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_iter_turns_yields_a_turn_before_the_file_is_complete(tmp_path: Path) -> None:
    pipe_path = tmp_path / "live.jsonl"
    os.mkfifo(pipe_path)
    reader_has_first, writer_done = threading.Event(), threading.Event()

    def write() -> None:
        with pipe_path.open("w", encoding="utf-8") as pipe:
            pipe.write(json.dumps({"role": "user", "content": "one"}) + "\n")
            pipe.flush()
            reader_has_first.wait(timeout=30)
            pipe.write(json.dumps({"role": "assistant", "content": "two"}) + "\n")
        writer_done.set()

    writer = threading.Thread(target=write)
    writer.start()
    turns = iter_turns(pipe_path)
    first = next(turns)
    streamed = not writer_done.is_set()
    reader_has_first.set()
    rest = list(turns)
    writer.join(timeout=30)
    assert streamed, "the first turn arrived only after the writer finished"
    assert [first.text, *(turn.text for turn in rest)] == ["one", "two"]


# --- the plain sample -------------------------------------------------------------


def test_plain_sample_is_read_with_roles_tools_and_times() -> None:
    transcript = read_transcript(PLAIN)
    assert transcript.format == "plain"
    assert transcript.skipped_lines == 1, "the bare JSON array line"
    assert [turn.role for turn in transcript.turns] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert transcript.turns[0].text == "What's a good name for a cat?"
    assert transcript.turns[1].timestamp == dt.datetime(2025, 10, 1, 6, 0, 7, tzinfo=dt.UTC)
    assert transcript.turns[2].timestamp == dt.datetime(2025, 10, 1, 8, 1, tzinfo=dt.UTC)
    assert transcript.turns[3].tool_calls[0].input["command"] == "create"
    assert transcript.turns[5].timestamp is None


def test_plain_openai_tool_calls_and_tool_messages_are_understood(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "chat.jsonl",
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_9",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_9", "content": "4 °C, rain"},
    )
    _user, reply, result = read_transcript(path).turns
    assert reply.tool_calls[0].name == "get_weather"
    assert reply.tool_calls[0].input == {"city": "Oslo"}
    assert result.role == "tool" and result.tool_results == ("call_9",)
    assert result.text == "[tool_result get_weather]\n4 °C, rain"


# --- edge cases -------------------------------------------------------------------


def test_a_plain_record_names_its_speaker_by_field_never_by_its_text(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "chat.jsonl",
        {"role": "user", "speaker": "Priya", "content": "The reset link should expire."},
        {"role": "assistant", "name": "Marco", "content": "Agreed."},
        {"role": "user", "content": "Note: the deploy script lives in ops/."},
        {"role": "user", "speaker": "  ", "content": "blank speaker"},
    )
    turns = read_transcript(path).turns
    assert [t.speaker for t in turns] == ["Priya", "Marco", None, None]


def test_a_huge_tool_result_is_clipped_and_says_so(tmp_path: Path) -> None:
    call = {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "x"}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "x" * 50_000}
    path = write_lines(
        tmp_path / "s.jsonl",
        {"type": "assistant", "uuid": "a", "message": {"id": "m", "content": [call]}},
        {"type": "user", "uuid": "r", "message": {"role": "user", "content": [result]}},
    )
    text = read_transcript(path).turns[1].text
    assert len(text) < MAX_TOOL_RESULT_CHARS + 100
    assert text.endswith(f"… [{50_000 - MAX_TOOL_RESULT_CHARS} more characters]")


def test_unknown_event_types_are_ignored_without_counting(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "s.jsonl",
        {"type": "queue-operation", "operation": "dequeue", "sessionId": "s"},
        {"type": "attachment", "uuid": "x", "attachment": {}},
        {"type": "user", "uuid": "u", "message": {"role": "user", "content": "hi"}},
    )
    transcript = read_transcript(path)
    assert [turn.text for turn in transcript.turns] == ["hi"]
    assert transcript.skipped_lines == 0


def test_injected_system_reminders_are_not_user_text(tmp_path: Path) -> None:
    reminder = {"type": "text", "text": "<system-reminder>\nfile changed\n</system-reminder>"}
    said = {"type": "text", "text": "now run the linter"}
    path = write_lines(
        tmp_path / "s.jsonl",
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": [reminder, said]}},
        {"type": "user", "uuid": "u2", "message": {"role": "user", "content": [reminder]}},
    )
    assert [turn.text for turn in read_transcript(path).turns] == ["now run the linter"]


def test_a_conversation_line_without_a_message_is_counted(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "s.jsonl",
        {"type": "user", "uuid": "u"},
        {"type": "assistant", "uuid": "a", "message": {"content": 7}},
        b"\xff\xfe not utf-8".decode("latin-1"),
        {"no": "shape"},
    )
    assert read_transcript(path).skipped_lines == 4


def test_an_empty_file_has_no_turns(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    transcript = read_transcript(path)
    assert transcript.turns == ()
    assert transcript.skipped_lines == 0


def test_a_missing_file_raises_transcript_error_naming_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "gone.jsonl"
    with pytest.raises(TranscriptError) as caught:
        read_transcript(missing)
    assert caught.value.path == str(missing)
    assert isinstance(caught.value, MemdirError)


def test_a_directory_raises_transcript_error(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError):
        list(iter_turns(tmp_path))


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_raises_transcript_error(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", {"role": "user", "content": "hi"})
    path.chmod(0)
    with pytest.raises(TranscriptError, match="cannot read transcript"):
        read_transcript(path)


line_values = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda children: st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["type", "role", "content", "message", "uuid", "id", "text", "input",
                 "tool_use_id", "timestamp", "isSidechain", "subtype", "tool_calls"]
            ),
            children,
            max_size=6,
        ),
        max_leaves=20,
    ).map(lambda value: json.dumps(value).encode()),
)  # fmt: skip


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line_values, max_size=12))
def test_arbitrary_lines_never_raise(lines: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.jsonl"
        data = b"\n".join(lines)
        path.write_bytes(data)
        transcript = read_transcript(path)
    assert transcript.skipped_lines <= data.count(b"\n") + 1
    assert [turn.index for turn in transcript.turns] == list(range(len(transcript.turns)))
    for turn in transcript.turns:
        assert turn.timestamp is None or turn.timestamp.tzinfo == dt.UTC


# --- helpers for session memory ---------------------------------------------------


def test_tool_calls_are_counted_after_a_cursor(session: Transcript) -> None:
    assert count_tool_calls_since(session.turns, None) == 5, "sidechain turns do not count"
    assert count_tool_calls_since(session.turns, "r1") == 4
    assert count_tool_calls_since(session.turns, 2) == 4
    assert count_tool_calls_since(session.turns, "a4") == 2, "any merged line's uuid is a cursor"
    assert count_tool_calls_since(session.turns, "a8") == 0


def test_an_unknown_cursor_counts_no_tool_calls(session: Transcript) -> None:
    assert count_tool_calls_since(session.turns, "not-a-uuid") == 0
    assert count_tool_calls_since(session.turns, 999) == 0


def test_last_assistant_turn_tool_calls_are_detected(session: Transcript) -> None:
    assert not last_assistant_has_tool_calls(session.turns)
    assert last_assistant_has_tool_calls(session.turns[:11])
    assert not last_assistant_has_tool_calls(session.turns[:10][-2:]), "sidechain is skipped"
    assert not last_assistant_has_tool_calls(())


def test_tokens_are_estimated_at_four_characters_each() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abc") == 1
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("x" * 4000) == 1000
