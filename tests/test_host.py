"""Feeding an agent: after_turn decides, background threads run, drain and close wait."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from background.helpers import CURRENT, Router, answer, edit, prompt_of, user
from memdir.agents.host import MemoryHost, as_turns
from memdir.api import Memdir
from memdir.errors import ProviderError
from memdir.llm import Request
from memdir.testing import ScriptedProvider, tool_use

WAIT = 10.0


@pytest.fixture
def small(project: Path) -> Memdir:
    """Thresholds small enough for a few short messages."""
    return Memdir.open(
        project,
        session_min_tokens_to_init=20,
        session_min_tokens_between_updates=10,
        session_tool_calls_between_updates=2,
    )


def test_short_conversations_schedule_only_extraction(small: Memdir) -> None:
    extract = ScriptedProvider("nothing to save")
    with MemoryHost(small, Router(extractor=extract), "s1") as host:
        scheduled = host.after_turn([user("hi"), answer("hello")])
        assert host.drain(WAIT)
    assert not scheduled.session_notes and scheduled.extraction
    assert not small.layout.session_notes_path("s1").exists()
    assert host.extractions[0].message == "Saved 0 memories (0 team)"


def test_a_long_enough_conversation_updates_the_notes_in_the_background(small: Memdir) -> None:
    path = small.layout.session_notes_path("s1")
    notes = ScriptedProvider(edit(path, CURRENT, CURRENT + "Planning the migration.\n"), "ok")
    extract = ScriptedProvider("nothing to save")
    messages = [
        user("we need to migrate the whole production database from mysql to postgres"),
        answer("Let us plan it."),
    ]
    with MemoryHost(small, Router(notes=notes, extractor=extract), "s1") as host:
        scheduled = host.after_turn(messages)
        assert host.drain(WAIT)
    assert scheduled.session_notes and scheduled.extraction
    assert "Planning the migration." in path.read_text()
    assert host.notes_updates[0].accepted
    assert "[user] we need to migrate" in prompt_of(notes.requests[0])


def test_extraction_after_a_final_answer_saves_a_memory(small: Memdir) -> None:
    saved = tool_use(
        "write_memory",
        {"name": "Prefers tabs", "description": "The user indents with tabs", "type": "user",
         "body": "Tabs, never spaces."},
    )  # fmt: skip
    extract = ScriptedProvider(saved, "saved")
    host = MemoryHost(small, Router(extractor=extract), "s1", session_notes=False)
    host.after_turn([user("I always indent with tabs"), answer("Noted.")])
    assert host.close(WAIT)
    assert host.extractions[0].message == "Saved 1 memory (0 team)"
    assert "prefers_tabs.md" in small.private.read_index()


def test_nothing_is_extracted_while_the_agent_is_still_calling_tools(small: Memdir) -> None:
    host = MemoryHost(small, Router(), "s1", session_notes=False)
    call = {"id": "c1", "name": "Bash", "input": {"command": "ls"}}
    scheduled = host.after_turn([user("list files"), {"role": "assistant", "content": "",
                                                        "tool_calls": [call]}])  # fmt: skip
    assert not scheduled.extraction
    assert host.close(WAIT)


def test_background_work_runs_in_named_non_daemon_threads(small: Memdir) -> None:
    seen: list[threading.Thread] = []

    def record(request: Request) -> str:
        seen.append(threading.current_thread())
        return "ok"

    host = MemoryHost(small, Router(extractor=ScriptedProvider(record)), "s1", session_notes=False)
    host.after_turn([user("q"), answer("a")])
    assert host.drain(WAIT)
    assert seen[0].name == "memdir-extract-s1" and not seen[0].daemon


def test_turns_during_a_run_are_coalesced_and_the_caller_never_waits(small: Memdir) -> None:
    started, release = threading.Event(), threading.Event()

    def held(request: Request) -> str:
        started.set()
        assert release.wait(WAIT)
        return "first"

    extract = ScriptedProvider(held, "trailing")
    host = MemoryHost(small, Router(extractor=extract), "s1", session_notes=False)
    conversation = [user("q0"), answer("a0")]
    host.after_turn(conversation)
    assert started.wait(WAIT)
    for n in range(1, 11):
        conversation = [*conversation, user(f"q{n}"), answer(f"a{n}")]
        assert host.after_turn(conversation).extraction
    release.set()
    assert host.close(WAIT)
    assert len(extract.requests) == 2
    assert "q10" in prompt_of(extract.requests[1])


def test_provider_failures_never_reach_the_agent(small: Memdir) -> None:
    failing = ScriptedProvider(ProviderError("down"), ProviderError("down"))
    host = MemoryHost(small, Router(notes=failing, extractor=failing), "s1")
    messages = [
        user("we need to migrate the whole production database from mysql to postgres"),
        answer("Let us plan it."),
    ]
    scheduled = host.after_turn(messages)
    assert host.close(WAIT)
    assert scheduled.session_notes and scheduled.extraction
    assert not host.notes_updates[0].accepted
    assert host.extractions[0].error is not None


def test_a_closed_host_starts_nothing(small: Memdir) -> None:
    extract = ScriptedProvider()
    host = MemoryHost(small, Router(extractor=extract), "s1", session_notes=False)
    assert host.close(WAIT)
    host.after_turn([user("q"), answer("a")])
    assert host.drain(WAIT) and extract.requests == []


def test_dict_messages_become_turns_with_tool_calls_and_results() -> None:
    turns = as_turns(
        [
            user("run it"),
            {"role": "assistant", "content": [
                {"type": "text", "text": "running"},
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "a.py"},
            ]},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "t2", "function": {"name": "Read", "arguments": '{"file_path": "a.py"}'}},
            ]},
            {"role": "tool", "tool_call_id": "t2", "content": "print(1)", "uuid": "x"},
        ]
    )  # fmt: skip
    assert [t.role for t in turns] == ["user", "assistant", "tool", "assistant", "tool"]
    assert turns[1].tool_calls[0].name == "Bash" and "[tool_use Bash:" in turns[1].text
    assert turns[2].tool_results == ("t1",) and "a.py" in turns[2].text
    assert turns[3].tool_calls[0].input == {"file_path": "a.py"}
    assert turns[4].uuid == "x" and turns[4].tool_results == ("t2",)
    assert [t.index for t in turns] == [0, 1, 2, 3, 4]


def test_reports_include_updates_run_directly_through_the_host_parts(small: Memdir) -> None:
    router = Router(notes=ScriptedProvider("ok"), extractor=ScriptedProvider("nothing"))
    with MemoryHost(small, router, "s1") as host:
        turns = as_turns([user("q"), answer("a")])
        host.notes.update(turns)
        host.extractor.extract(turns)
    assert [u.accepted for u in host.notes_updates] == [True]
    assert [r.message for r in host.extractions] == ["Saved 0 memories (0 team)"]
