"""Durable memory extraction: what runs when, what it may touch, what it saves."""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from background.helpers import chat, prompt_of, tool_results, turn
from memdir.agents.extract import MemoryExtractor, external_reads, wrote_memory
from memdir.api import Memdir
from memdir.errors import ProviderError
from memdir.llm import Completion, Request
from memdir.testing import ScriptedProvider, tool_use
from memdir.transcripts.turns import ToolCall, Turn

WAIT = 10.0


def write(**args: object) -> Completion:
    return tool_use("write_memory", args)


FEEDBACK: dict[str, Any] = {
    "name": "Run tests with -x",
    "description": "The user wants pytest runs to stop at the first failure",
    "type": "feedback",
    "body": "Use `pytest -x`.\n**Why:** long logs.\n**How to apply:** every test run.",
}
TEAM_PROJECT = {
    "name": "Release freeze",
    "description": "Merges are frozen from 2026-03-05 for the mobile release",
    "type": "project",
    "body": "Freeze starts 2026-03-05.",
    "scope": "team",
}


@pytest.fixture
def team_mem(project: Path) -> Memdir:
    return Memdir.open(project, team=True, review_team="auto")


def writing_turn(index: int, name: str, path: str) -> Turn:
    return Turn(
        index=index,
        uuid=f"u{index}",
        parent_uuid=None,
        role="assistant",
        text="saving",
        tool_calls=(ToolCall(id=f"w{index}", name=name, input={"file_path": path}),),
    )


def test_extraction_saves_memories_through_the_store_and_reports_the_count(
    team_mem: Memdir,
) -> None:
    provider = ScriptedProvider(write(**FEEDBACK), write(**TEAM_PROJECT), "saved two")
    extractor = MemoryExtractor(team_mem, provider, "s1")

    report = extractor.extract(chat("always use pytest -x please", "noted"))

    assert report.message == "Saved 2 memories (1 team)"
    assert report.saved == ("run_tests_with_x.md", "team/release_freeze.md")
    assert "run_tests_with_x.md" in team_mem.private.read_index()
    assert "release_freeze.md" in team_mem.team.read_index()
    assert team_mem.get("Run tests with -x").memory.description == FEEDBACK["description"]
    assert report.cursor == "u1" and extractor.cursor() == "u1"


def test_one_memory_is_reported_in_the_singular(mem: Memdir) -> None:
    provider = ScriptedProvider(write(**FEEDBACK), "done")
    report = MemoryExtractor(mem, provider, "s1").extract(chat("q", "a"))
    assert report.message == "Saved 1 memory (0 team)"


def test_updating_an_existing_memory_counts_it_once(mem: Memdir) -> None:
    provider = ScriptedProvider(write(**FEEDBACK), write(**{**FEEDBACK, "body": "v2"}), "done")
    report = MemoryExtractor(mem, provider, "s1").extract(chat("q", "a"))
    assert report.saved == ("run_tests_with_x.md",)
    assert mem.get("Run tests with -x").memory.body == "v2\n"


def test_the_prompt_carries_the_new_messages_and_the_manifest(mem: Memdir) -> None:
    mem.write(name="Old one", description="a memory saved earlier", type="user", body="x")
    provider = ScriptedProvider("nothing to save", "nothing to save")
    extractor = MemoryExtractor(mem, provider, "s1")
    first = chat("hello there", "hi")
    extractor.extract(first)
    extractor.extract([*first, turn(2, "user", "new question"), turn(3, "assistant", "answer")])

    prompt = prompt_of(provider.requests[1])
    assert "a memory saved earlier" in prompt and "old_one.md" in prompt
    assert "new question" in prompt and "hello there" not in prompt


def test_extraction_is_skipped_when_the_agent_wrote_memory_itself(mem: Memdir) -> None:
    provider = ScriptedProvider()
    extractor = MemoryExtractor(mem, provider, "s1")
    direct = str(mem.layout.memory_dir / "prefs.md")
    turns = [*chat("remember I like tabs"), writing_turn(1, "Write", direct),
             turn(2, "tool", "ok", results=("w1",)), turn(3, "assistant", "saved")]  # fmt: skip

    report = extractor.extract(turns)

    assert report.skipped == "the agent wrote memory itself" and provider.requests == []
    assert extractor.cursor() == "u3"
    assert report.message.startswith("Extraction skipped")


def test_writes_outside_the_memory_directory_do_not_skip_extraction(mem: Memdir) -> None:
    elsewhere = str(mem.layout.project_root / "notes.md")
    turns = [writing_turn(0, "Edit", elsewhere)]
    assert not wrote_memory(turns, mem.layout.memory_dir)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("Edit", {"file_path": "{memory}/team/x.md"}),
        ("MultiEdit", {"file_path": "{memory}/x.md"}),
        ("mcp__memdir__write", {"name": "x"}),
        ("mcp__memdir__memory_edit", {}),
        ("memory", {"command": "create", "path": "/memories/x.md"}),
    ],
)
def test_memory_writes_are_recognised_in_the_agents_tool_calls(
    mem: Memdir, name: str, args: dict[str, str]
) -> None:
    filled = {k: v.format(memory=mem.layout.memory_dir) for k, v in args.items()}
    call = ToolCall(id="c", name=name, input=filled)
    turns = [
        Turn(index=0, uuid="a", parent_uuid=None, role="assistant", text="", tool_calls=(call,))
    ]
    assert wrote_memory(turns, mem.layout.memory_dir)


def test_memory_reads_are_not_writes(mem: Memdir) -> None:
    calls = (
        ToolCall(id="1", name="Read", input={"file_path": str(mem.layout.memory_dir / "x.md")}),
        ToolCall(id="2", name="mcp__memdir__search", input={"query": "x"}),
        ToolCall(id="3", name="memory", input={"command": "view", "path": "/memories"}),
    )
    turns = [Turn(index=0, uuid="a", parent_uuid=None, role="assistant", text="", tool_calls=calls)]
    assert not wrote_memory(turns, mem.layout.memory_dir)


def test_extraction_runs_only_after_a_final_answer(mem: Memdir) -> None:
    extractor = MemoryExtractor(mem, ScriptedProvider(), "s1")
    assert extractor.should_run(chat("q", "a"))
    assert not extractor.should_run(chat("q"))
    assert not extractor.should_run([*chat("q"), turn(1, "assistant", "", calls=("c",))])


def test_nothing_new_since_the_cursor_means_no_run(mem: Memdir) -> None:
    provider = ScriptedProvider("done")
    extractor = MemoryExtractor(mem, provider, "s1")
    turns = chat("q", "a")
    extractor.extract(turns)
    assert not extractor.should_run(turns)
    assert extractor.extract(turns).skipped == "nothing new since the last extraction"
    assert len(provider.requests) == 1


def test_a_provider_error_is_reported_and_the_cursor_stays(
    mem: Memdir, caplog: pytest.LogCaptureFixture
) -> None:
    extractor = MemoryExtractor(mem, ScriptedProvider(ProviderError("down")), "s1")
    with caplog.at_level(logging.WARNING):
        report = extractor.extract(chat("q", "a"))
    assert report.error is not None and "down" in report.error
    assert report.message.startswith("Extraction failed")
    assert extractor.cursor() is None
    assert "down" in caplog.text


def test_delete_and_escaping_paths_are_refused_and_nothing_is_written(
    mem: Memdir, tmp_path: Path
) -> None:
    mem.write(**{**FEEDBACK, "type": "feedback"})
    provider = ScriptedProvider(
        tool_use("delete_memory", {"file": "run_tests_with_x.md"}),
        tool_use("read_memory", {"file": "../../../../etc/passwd"}),
        write(**{**FEEDBACK, "name": "Escape", "file": "../escape.md"}),
        tool_use("read_memory", {"file": "/etc/passwd"}),
        "done",
    )
    report = MemoryExtractor(mem, provider, "s1").extract(chat("q", "a"))

    assert report.run is not None and report.run.refused == 4
    allowed = "only list_memories, read_memory, search_memories and write_memory"
    for request in provider.requests[1:]:
        result = tool_results(request)[-1]
        assert result.is_error and allowed in result.content
    assert [r.file for r in mem.list()] == ["run_tests_with_x.md"]
    assert not (mem.layout.project_dir / "escape.md").exists()
    assert report.saved == ()


def test_the_read_only_tools_see_the_memory_directory(mem: Memdir) -> None:
    mem.write(**FEEDBACK)
    provider = ScriptedProvider(
        tool_use("list_memories"),
        tool_use("search_memories", {"query": "PYTEST"}),
        tool_use("read_memory", {"file": "MEMORY.md"}),
        "done",
    )
    MemoryExtractor(mem, provider, "s1").extract(chat("q", "a"))
    listing, hits, index = (tool_results(provider.requests[n])[-1].content for n in (1, 2, 3))
    assert "run_tests_with_x.md" in listing and "stop at the first failure" in listing
    assert "run_tests_with_x.md:" in hits and "pytest -x" in hits
    assert "[Run tests with -x](run_tests_with_x.md)" in index


def test_team_writes_are_refused_while_team_memory_is_off(project: Path) -> None:
    mem = Memdir.open(project, team=False)
    provider = ScriptedProvider(write(**TEAM_PROJECT), "done")
    report = MemoryExtractor(mem, provider, "s1").extract(chat("q", "a"))
    result = tool_results(provider.requests[1])[0]
    assert result.is_error and "team memory is off" in result.content
    assert report.saved == () and mem.team.list() == []


def test_a_store_error_goes_back_to_the_model_with_its_hint(mem: Memdir) -> None:
    provider = ScriptedProvider(write(**{**FEEDBACK, "description": ""}), "done")
    MemoryExtractor(mem, provider, "s1").extract(chat("q", "a"))
    result = tool_results(provider.requests[1])[0]
    assert result.is_error and "needs a one-line description" in result.content


def test_at_most_five_model_turns(mem: Memdir) -> None:
    provider = ScriptedProvider(*(tool_use("list_memories"),) * 6)
    report = MemoryExtractor(mem, provider, "s1").extract(chat("q", "a"))
    assert len(provider.requests) == 5 and report.error is not None
    assert MemoryExtractor(mem, ScriptedProvider(), "s1").cursor() is None


def test_submissions_during_a_run_coalesce_into_one_trailing_run(mem: Memdir) -> None:
    started, release = threading.Event(), threading.Event()

    def held(request: Request) -> str:
        started.set()
        assert release.wait(WAIT)
        return "first"

    provider = ScriptedProvider(held, "second")
    extractor = MemoryExtractor(mem, provider, "s1")
    extractor.submit(chat("q0", "a0"))
    assert started.wait(WAIT)
    for n in range(1, 6):
        extractor.submit([*chat("q0", "a0"), turn(2, "user", f"q{n}"), turn(3, "assistant", "a")])
    release.set()
    assert extractor.drain(WAIT)
    assert len(provider.requests) == 2
    assert "q5" in prompt_of(provider.requests[1]) and "q4" not in prompt_of(provider.requests[1])


def test_an_unknown_scope_is_refused(mem: Memdir) -> None:
    provider = ScriptedProvider(write(**{**FEEDBACK, "scope": "public"}), "done")
    report = MemoryExtractor(mem, provider, "s1").extract(chat("q", "a"))
    assert report.run is not None and report.run.refused == 1
    assert "neither 'private' nor 'team'" in tool_results(provider.requests[1])[0].content
    assert mem.list() == []


def test_a_proposed_rule_is_saved_as_ask_and_a_promoted_rule_survives_updates(
    mem: Memdir,
) -> None:
    npm = {"tool": "Bash", "match": r"\bnpm (install|i)\b", "action": "deny"}
    proposal = {
        **FEEDBACK,
        "name": "Use pnpm",
        "body": "Use pnpm.\n**Why:** npm broke the lockfile.",
        "enforce": [npm],  # the model asks for deny: it gets ask
    }
    provider = ScriptedProvider(write(**proposal), "done")
    MemoryExtractor(mem, provider, "s1").extract(chat("never use npm here", "ok"))
    assert mem.get("Use pnpm").memory.extra["enforce"] == [{**npm, "action": "ask"}]

    # The user promotes the rule; a later extraction updates the memory without rules.
    record = mem.get("Use pnpm")
    promoted = {**record.memory.extra, "enforce": [npm]}
    mem.store(record.scope).write(replace(record.memory, extra=promoted), file=record.file)
    update = {k: v for k, v in proposal.items() if k != "enforce"} | {"body": "v2"}
    provider = ScriptedProvider(write(**update), "done")
    MemoryExtractor(mem, provider, "s2").extract(chat("pnpm, still", "ok"))
    assert mem.get("Use pnpm").memory.body == "v2\n"
    assert mem.get("Use pnpm").memory.extra["enforce"] == [npm]


def test_a_proposed_rule_with_a_bad_pattern_goes_back_to_the_model(mem: Memdir) -> None:
    bad = {**FEEDBACK, "enforce": [{"tool": "Bash", "match": r"(a+)+b"}]}
    provider = ScriptedProvider(write(**bad), "done")
    MemoryExtractor(mem, provider, "s1").extract(chat("q", "a"))
    result = tool_results(provider.requests[-1])[-1]
    assert result.is_error and "catastrophic" in result.content
    assert mem.list() == []


# -- a session that read external content -------------------------------------------------


def web_session(tool: str = "WebFetch") -> list[Turn]:
    """A session in which the agent read a web page, then answered."""
    fetch = ToolCall(id="f1", name=tool, input={"url": "https://vendor.example/changelog"})
    return [
        turn(0, "user", "What does the vendor's changelog say about the v1 API?"),
        Turn(index=1, uuid="u1", parent_uuid=None, role="assistant", text="", tool_calls=(fetch,)),
        turn(2, "tool", "v1 is deprecated on 2026-06-01; use v2.", results=["f1"]),
        turn(3, "assistant", "The v1 API is deprecated on 2026-06-01."),
    ]


DEPRECATION: dict[str, Any] = {
    "name": "Vendor v1 API deprecation",
    "description": "The vendor deprecates its v1 API on 2026-06-01",
    "type": "reference",
    "body": "Move to v2 before 2026-06-01.",
}


def test_a_session_that_read_a_web_page_has_its_extraction_held_for_review(
    mem: Memdir,
) -> None:
    extractor = MemoryExtractor(mem, ScriptedProvider(write(**DEPRECATION), "kept"), "s1")
    report = extractor.extract(web_session())
    assert report.held == "session read external content (WebFetch)"
    assert report.message == (
        "Kept 1 memory for review (0 team): session read external content (WebFetch)"
    )
    assert mem.list() == []  # in no prompt, recall or search until a person approves it
    (pending,) = mem.review()
    assert pending.version.reason == "session read external content (WebFetch)"
    assert report.cursor == "u3"
    mem.approve()
    assert mem.get("Vendor v1 API deprecation").memory.body.strip() == DEPRECATION["body"]


def test_extract_tainted_no_skips_the_run_and_yes_extracts_as_usual(project: Path) -> None:
    refused = Memdir.open(project, extract_tainted="no")
    never = ScriptedProvider()
    report = MemoryExtractor(refused, never, "s1").extract(web_session("WebSearch"))
    assert report.skipped == (
        "the session read external content (WebSearch), and extract_tainted is no"
    )
    assert never.requests == [] and report.cursor == "u3"
    trusted = Memdir.open(project, extract_tainted="yes")
    report = MemoryExtractor(trusted, ScriptedProvider(write(**DEPRECATION), "ok"), "s2").extract(
        web_session()
    )
    assert report.message == "Saved 1 memory (0 team)"
    assert trusted.review() == []


def test_mcp_tools_of_other_servers_are_external_and_memdirs_own_are_not() -> None:
    def calls(*names: str) -> list[Turn]:
        made = tuple(ToolCall(id=f"c{i}", name=n, input={}) for i, n in enumerate(names))
        return [
            Turn(index=0, uuid="a", parent_uuid=None, role="assistant", text="", tool_calls=made)
        ]

    own = calls("mcp__memdir__recall", "mcp__plugin_memdir_memdir__search", "Read", "Bash")
    assert external_reads(own) == ()
    theirs = calls("mcp__github__get_issue", "WebSearch", "mcp__github__get_issue")
    assert external_reads(theirs) == ("mcp__github__get_issue", "WebSearch")
