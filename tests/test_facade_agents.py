"""The facade's model verbs: extract, consolidate, notes and host through one Memdir."""

from __future__ import annotations

from pathlib import Path

import pytest

from background.helpers import CURRENT, answer, edit, user
from consolidation.helpers import NOW, add_sessions, ago, write_lock
from memdir.agents.host import as_turns
from memdir.api import Memdir
from memdir.testing import ScriptedProvider, tool_use

WAIT = 10.0
TABS = {
    "name": "Prefers tabs",
    "description": "The user indents with tabs",
    "type": "user",
    "body": "Tabs, never spaces.",
}


def test_extract_saves_what_the_model_writes_from_plain_dict_messages(mem: Memdir) -> None:
    provider = ScriptedProvider(tool_use("write_memory", TABS), "saved")

    report = mem.extract(provider, [user("I always indent with tabs"), answer("Noted.")])

    assert report.message == "Saved 1 memory (0 team)"
    assert mem.get("Prefers tabs").memory.body.strip() == "Tabs, never spaces."
    assert "[user] I always indent with tabs" in provider.requests[0].messages[0].text


def test_extract_again_on_the_same_session_looks_only_at_new_messages(mem: Memdir) -> None:
    messages = [user("I always indent with tabs"), answer("Noted.")]
    mem.extract(ScriptedProvider("nothing to save"), messages, session_id="s1")

    idle = ScriptedProvider()
    again = mem.extract(idle, messages, session_id="s1")
    other = mem.extract(ScriptedProvider("nothing to save"), messages, session_id="s2")

    assert again.skipped == "nothing new since the last extraction" and idle.requests == []
    assert other.skipped is None and other.error is None


def test_consolidate_is_held_back_by_its_gates_without_calling_the_model(mem: Memdir) -> None:
    idle = ScriptedProvider()

    report = mem.consolidate(idle, now=NOW)

    assert not report.ran and report.skipped_reason is not None
    assert idle.requests == []


def test_consolidate_runs_once_the_gates_pass_and_applies_the_models_writes(
    mem: Memdir,
) -> None:
    write_lock(mem, pid=None, at=ago(days=2))
    add_sessions(mem, 5, at=ago(hours=1))
    provider = ScriptedProvider(tool_use("write_memory", TABS), "done")

    report = mem.consolidate(provider, now=NOW)

    assert report.ran and report.created == ("prefers_tabs.md",)
    assert "prefers_tabs.md" in mem.private.read_index()


def test_consolidate_does_not_run_when_memory_is_disabled(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMDIR_DISABLE", "1")
    idle = ScriptedProvider()

    report = Memdir.open(project).consolidate(idle, force=True, now=NOW)

    assert not report.ran and idle.requests == []


def test_preview_consolidation_shows_the_diff_and_writes_nothing(mem: Memdir) -> None:
    provider = ScriptedProvider(tool_use("write_memory", TABS), "done")

    preview = mem.preview_consolidation(provider, now=NOW)

    assert "+name: Prefers tabs" in preview.diff
    assert not (mem.layout.memory_dir / "prefers_tabs.md").exists()


def test_notes_update_edits_the_sessions_notes_file(mem: Memdir) -> None:
    path = mem.layout.session_notes_path("s1")
    provider = ScriptedProvider(edit(path, CURRENT, CURRENT + "Planning the migration.\n"), "ok")
    notes = mem.notes(provider, "s1")

    update = notes.update(as_turns([user("plan the migration"), answer("Let us plan it.")]))

    assert update.accepted and notes.path == path
    assert "Planning the migration." in (notes.read() or "")


def test_host_extracts_in_the_background_after_a_final_answer(mem: Memdir) -> None:
    provider = ScriptedProvider(tool_use("write_memory", TABS), "saved")

    with mem.host(provider, "s1", session_notes=False) as host:
        scheduled = host.after_turn([user("I always indent with tabs"), answer("Noted.")])
        assert host.drain(WAIT)

    assert scheduled.extraction and not scheduled.session_notes
    assert "prefers_tabs.md" in mem.private.read_index()
