"""Session notes: the file, the update run, the cursor, the caps, the coalesced runs."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from background.helpers import CURRENT, chat, edit, prompt_of, turn
from memdir.agents.session.notes import SessionNotes, ensure_notes_file
from memdir.agents.session.template import DEFAULT_TEMPLATE, missing_structure, parse_sections
from memdir.api import Memdir
from memdir.errors import ConfigError, ProviderError
from memdir.llm import Request
from memdir.testing import ScriptedProvider

WAIT = 10.0


def notes_for(mem: Memdir, provider: Any, session: str = "s1", **kw: Any) -> SessionNotes:
    return SessionNotes.for_session(
        layout=mem.layout, settings=mem.settings, provider=provider, session_id=session, **kw
    )


def state_of(notes: SessionNotes) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(notes.state_path.read_text())
    return data


# --- the file --------------------------------------------------------------------------


def test_the_notes_file_is_created_from_the_template_with_private_modes(mem: Memdir) -> None:
    path = mem.layout.session_notes_path("s1")
    text, created = ensure_notes_file(path, DEFAULT_TEMPLATE)
    assert created and text == DEFAULT_TEMPLATE == path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for folder in (path.parent, path.parent.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_an_existing_notes_file_is_never_overwritten(mem: Memdir) -> None:
    path = mem.layout.session_notes_path("s1")
    path.parent.mkdir(parents=True)
    path.write_text("# Session Title\nmine\n")
    text, created = ensure_notes_file(path, DEFAULT_TEMPLATE)
    assert not created and text == "# Session Title\nmine\n"


def test_a_notes_file_that_could_not_be_filled_is_removed(
    mem: Memdir, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = mem.layout.session_notes_path("s1")

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        ensure_notes_file(path, DEFAULT_TEMPLATE)
    assert not path.exists()


def test_racing_creators_fill_the_file_exactly_once(mem: Memdir) -> None:
    path = mem.layout.session_notes_path("s1")
    barrier = threading.Barrier(8)
    outcomes: list[bool] = []

    def create() -> None:
        barrier.wait(WAIT)
        outcomes.append(ensure_notes_file(path, DEFAULT_TEMPLATE)[1])

    threads = [threading.Thread(target=create) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert sorted(outcomes) == [False] * 7 + [True]
    assert path.read_text() == DEFAULT_TEMPLATE


def test_the_template_has_ten_sections_each_with_an_italic_line() -> None:
    sections = parse_sections(DEFAULT_TEMPLATE)
    assert [s.title for s in sections] == [
        "Session Title", "Current State", "Task specification", "Files and Functions",
        "Workflow", "Errors & Corrections", "Codebase and System Documentation", "Learnings",
        "Key results", "Worklog",
    ]  # fmt: skip
    assert all(s.instruction.startswith("_") and s.instruction.endswith("_") for s in sections)
    assert all(not s.content for s in sections)


def test_a_session_id_that_escapes_the_sessions_folder_is_refused(mem: Memdir) -> None:
    from memdir.errors import UnsafePath

    with pytest.raises(UnsafePath):
        notes_for(mem, ScriptedProvider(), session="../../elsewhere")


# --- one update ------------------------------------------------------------------------


def test_an_update_edits_the_notes_and_moves_the_cursor(mem: Memdir) -> None:
    provider = ScriptedProvider()
    notes = notes_for(mem, provider)
    provider.add(edit(notes.path, CURRENT, CURRENT + "Fixing the login bug.\n"), "updated")
    turns = chat("please fix the login bug", "looking at auth.py now")

    result = notes.update(turns)

    assert result.accepted and result.created and result.cursor == "u1"
    assert "Fixing the login bug." in notes.path.read_text()
    prompt = prompt_of(provider.requests[0])
    assert "[user] please fix the login bug" in prompt
    assert str(notes.path) in prompt and "# Worklog" in prompt
    saved = state_of(notes)
    assert saved["summarized_cursor"] == "u1" and saved["updates"] == 1
    assert saved["tokens_at_last_update"] == 6 + 6  # 24 and 22 characters
    assert stat.S_IMODE(notes.state_path.stat().st_mode) == 0o600


def test_the_next_update_sends_only_the_messages_after_the_cursor(mem: Memdir) -> None:
    provider = ScriptedProvider("ok", "ok")
    notes = notes_for(mem, provider)
    first = chat("first question", "first answer")
    notes.update(first)
    notes.update(
        [*first, turn(2, "user", "second question"), turn(3, "assistant", "second answer")]
    )
    later = prompt_of(provider.requests[1])
    assert "second question" in later and "first question" not in later


def test_nothing_new_means_no_model_call(mem: Memdir) -> None:
    provider = ScriptedProvider("ok")
    notes = notes_for(mem, provider)
    turns = chat("q", "a")
    notes.update(turns)
    result = notes.update(turns)
    assert result.run is None and result.accepted and len(provider.requests) == 1


def test_the_cursor_does_not_move_when_the_run_fails(mem: Memdir) -> None:
    provider = ScriptedProvider(ProviderError("the endpoint is down"))
    notes = notes_for(mem, provider)
    result = notes.update(chat("q", "a"))
    assert not result.accepted and result.cursor is None
    assert result.run is not None and "the endpoint is down" in (result.run.error or "")
    assert notes.state().summarized_cursor is None
    assert notes.path.read_text() == DEFAULT_TEMPLATE


def test_the_cursor_does_not_move_past_pending_tool_calls(mem: Memdir) -> None:
    provider = ScriptedProvider("ok", "ok")
    notes = notes_for(mem, provider)
    done = chat("q", "a")
    notes.update(done)
    pending = [*done, turn(2, "user", "run the tests"),
               turn(3, "assistant", "running", calls=("c1",))]  # fmt: skip

    result = notes.update(pending)

    assert result.accepted and result.cursor == "u1"
    assert notes.state().summarized_cursor == "u1"
    assert notes.state().updates == 2


def test_a_run_that_drops_a_header_is_rejected_and_the_notes_kept(mem: Memdir) -> None:
    provider = ScriptedProvider()
    notes = notes_for(mem, provider)
    learnings = "# Learnings\n_What worked well, what did not, what to avoid. Nothing already said in another section_\n"  # noqa: E501
    provider.add(edit(notes.path, CURRENT, CURRENT + "Working.\n"), edit(notes.path, learnings, ""),
                 "done")  # fmt: skip

    result = notes.update(chat("q", "a"))

    assert not result.accepted and result.missing == ("# Learnings",)
    assert notes.path.read_text() == DEFAULT_TEMPLATE
    assert notes.state().summarized_cursor is None


def test_a_run_that_rewrites_an_italic_line_is_rejected(mem: Memdir) -> None:
    provider = ScriptedProvider()
    notes = notes_for(mem, provider)
    provider.add(edit(notes.path, "_A short, distinctive", "_Any"), "done")
    result = notes.update(chat("q", "a"))
    assert not result.accepted and result.missing == ("# Session Title",)
    assert notes.path.read_text() == DEFAULT_TEMPLATE


def test_missing_structure_lists_what_is_gone_in_template_order() -> None:
    broken = DEFAULT_TEMPLATE.replace("# Workflow", "# Flow").replace("# Key results\n", "")
    assert missing_structure(DEFAULT_TEMPLATE, broken) == ["# Workflow", "# Key results"]
    assert missing_structure(DEFAULT_TEMPLATE, DEFAULT_TEMPLATE + "\nextra\n") == []


# --- caps --------------------------------------------------------------------------------


def fill(section: str, text: str) -> str:
    lines = DEFAULT_TEMPLATE.splitlines(keepends=True)
    at = lines.index(f"# {section}\n") + 2
    return "".join([*lines[:at], text + "\n", *lines[at:]])


def test_notes_within_their_caps_get_no_condense_instruction(mem: Memdir) -> None:
    provider = ScriptedProvider("ok")
    notes = notes_for(mem, provider)
    notes.update(chat("q", "a"))
    assert "Condense" not in prompt_of(provider.requests[0])


def test_an_oversized_section_gets_a_condense_instruction_protecting_two_sections(
    mem: Memdir,
) -> None:
    provider = ScriptedProvider("ok")
    notes = notes_for(mem, provider)
    notes.path.parent.mkdir(parents=True)
    notes.path.write_text(fill("Worklog", "- step\n" * 1500))  # ~2,600 tokens

    result = notes.update(chat("q", "a"))

    prompt = prompt_of(provider.requests[0])
    assert result.condensing
    assert '"# Worklog" is ~' in prompt and "the limit is 2000" in prompt
    assert '"# Learnings"' not in prompt.split("IMPORTANT")[1]
    assert 'Keep "Current State" and "Errors & Corrections" accurate' in prompt
    assert "The whole file" not in prompt


def test_notes_over_the_total_cap_are_told_to_condense_the_whole(mem: Memdir) -> None:
    provider = ScriptedProvider("ok")
    notes = notes_for(mem, provider)
    notes.path.parent.mkdir(parents=True)
    big = DEFAULT_TEMPLATE
    for section in ("Learnings", "Workflow", "Key results", "Worklog", "Files and Functions",
                    "Task specification", "Codebase and System Documentation"):  # fmt: skip
        lines = big.splitlines(keepends=True)
        at = lines.index(f"# {section}\n") + 2
        big = "".join([*lines[:at], "word " * 1500 + "\n", *lines[at:]])  # ~1,900 tokens
    notes.path.write_text(big)

    notes.update(chat("q", "a"))

    prompt = prompt_of(provider.requests[0])
    assert "The whole file is ~" in prompt and "the limit is 12000" in prompt
    assert '" is ~' not in prompt  # no single section is over its own cap


def test_the_caps_come_from_settings(project: Path) -> None:
    mem = Memdir.open(project, session_max_section_tokens=10, session_max_total_tokens=100_000)
    provider = ScriptedProvider("ok")
    notes = notes_for(mem, provider)
    notes.path.parent.mkdir(parents=True)
    notes.path.write_text(fill("Learnings", "a fairly long learning line here"))
    notes.update(chat("q", "a"))
    assert '"# Learnings" is ~' in prompt_of(provider.requests[0])


# --- overrides ----------------------------------------------------------------------------


def test_template_and_prompt_files_replace_the_built_in_ones(mem: Memdir, tmp_path: Path) -> None:
    template = tmp_path / "template.md"
    template.write_text("# Goal\n_What we want_\n\n# Current State\n_Now_\n")
    prompt = tmp_path / "prompt.md"
    prompt.write_text("Notes at {{notesPath}}:\n{{currentNotes}}\n{{unknown}} stays.")
    provider = ScriptedProvider("ok")
    notes = notes_for(mem, provider, template_path=template, prompt_path=prompt)

    notes.update(chat("q", "a"))

    assert notes.path.read_text() == template.read_text()
    sent = prompt_of(provider.requests[0])
    assert f"Notes at {notes.path}:\n# Goal\n_What we want_" in sent
    assert "{{unknown}} stays." in sent


def test_override_files_in_the_home_config_folder_are_picked_up(mem: Memdir) -> None:
    config = mem.layout.home / "session-memory" / "config"
    config.mkdir(parents=True)
    (config / "template.md").write_text("# Only\n_one section_\n")
    notes = notes_for(mem, ScriptedProvider())
    assert notes.template == "# Only\n_one section_\n"


def test_an_unreadable_override_file_is_a_config_error(mem: Memdir, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        notes_for(mem, ScriptedProvider(), prompt_path=tmp_path / "missing.md")
    assert caught.value.hint and "built-in prompt" in caught.value.hint


# --- the trigger through SessionNotes, and sequential runs ------------------------------


def test_should_update_persists_the_trigger_state(project: Path) -> None:
    mem = Memdir.open(project, session_min_tokens_to_init=10, session_min_tokens_between_updates=5)
    notes = notes_for(mem, ScriptedProvider())
    assert not notes.should_update(chat("short"))
    assert not notes.state_path.exists()
    assert notes.should_update(chat("a long enough message", "and an answer"))
    assert state_of(notes)["initialized"] is True
    assert state_of(notes)["trigger_cursor"] == "u1"


def test_ten_triggers_during_a_run_make_one_run_and_one_trailing_run(mem: Memdir) -> None:
    started, release = threading.Event(), threading.Event()

    def held(request: Request) -> str:
        started.set()
        assert release.wait(WAIT)
        return "first done"

    provider = ScriptedProvider(held, "second done")
    notes = notes_for(mem, provider)
    base = chat("q0", "a0")
    notes.submit(base)
    assert started.wait(WAIT)
    for n in range(1, 11):
        notes.submit([*base, turn(2, "user", f"question {n}"), turn(3, "assistant", f"answer {n}")])
    release.set()
    assert notes.drain(WAIT)

    assert len(provider.requests) == 2 and notes.runner.runs == 2
    trailing = prompt_of(provider.requests[1])
    assert "question 10" in trailing and "question 9" not in trailing and "q0" not in trailing
    assert notes.state().updates == 2 and notes.state().summarized_cursor == "u3"


def test_updates_called_from_two_threads_never_overlap(mem: Memdir) -> None:
    inside = threading.Semaphore(1)
    overlaps: list[bool] = []

    def reply(request: Request) -> str:
        overlaps.append(not inside.acquire(blocking=False))
        inside.release()
        return "ok"

    notes = notes_for(mem, ScriptedProvider(reply, reply))
    threads = [
        threading.Thread(target=notes.update, args=([turn(0, "user", "q", uuid=f"q{n}")],))
        for n in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert overlaps == [False, False]


def test_maybe_update_runs_only_when_the_trigger_fires(project: Path) -> None:
    mem = Memdir.open(
        project, session_min_tokens_to_init=1000, session_min_tokens_between_updates=500
    )
    provider = ScriptedProvider("ok")
    notes = notes_for(mem, provider)
    assert notes.maybe_update(chat("q", "a")) is None
    assert provider.requests == [] and notes.read() is None
    assert notes.maybe_update(chat("q" * 4000, "a")) is not None
    assert notes.read() == DEFAULT_TEMPLATE


def test_a_damaged_state_file_starts_over(mem: Memdir) -> None:
    notes = notes_for(mem, ScriptedProvider())
    notes.state_path.parent.mkdir(parents=True)
    notes.state_path.write_text("{not json")
    assert notes.state().updates == 0
    os.chmod(notes.state_path, 0o600)
