"""Provenance on every route: MCP (client and session), memory tool, extraction, hooks, sync."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client

import teamutil
from background.helpers import Router
from memdir.agents.extract import MemoryExtractor
from memdir.api import Memdir
from memdir.errors import MemdirError
from memdir.history.provenance import provenance
from memdir.hooks.background import run_job
from memdir.hosts.memory_tool import MemoryToolBackend
from memdir.mcp import build_server
from memdir.model import Scope
from memdir.team.sync import sync_team
from memdir.testing import ScriptedProvider, tool_use
from memdir.transcripts.reader import read_transcript
from teamutil import Clone, remember

# Git under a throwaway HOME for every test here (teamutil's fixtures, via conftest.py).
pytestmark = pytest.mark.usefixtures("git_home")

NOTE: dict[str, Any] = {
    "name": "Invoices round half up",
    "description": "Invoice totals round half up to the cent, never banker's rounding",
    "type": "project",
    "body": "Round half up.\n**Why:** the auditor said so.\n**How to apply:** invoices.",
}


def mcp_calls(project: Path, *calls: tuple[str, dict[str, Any]]) -> list[str]:
    """Call tools in order on one server connection; returns each result's text."""

    async def main() -> list[str]:
        out = []
        async with Client(build_server(project)) as client:
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                block = result.content[0]
                assert block.type == "text"
                assert not result.is_error, block.text
                out.append(block.text)
        return out

    return anyio.run(main)


def test_an_mcp_write_records_route_client_and_session(mem: Memdir, project: Path) -> None:
    write, why = mcp_calls(project, ("write", NOTE), ("why", {"path": NOTE["name"]}))

    version = mem.history(NOTE["name"])[0]
    assert version.route == "mcp"
    assert version.client  # the name the client sent in its initialize request
    assert version.session and version.session.startswith("mcp-")
    assert "mcp(" in why and version.session in why
    assert "Created" in write


def test_an_mcp_delete_can_be_restored_as_its_reply_says(mem: Memdir, project: Path) -> None:
    mem.write(**NOTE)
    original = (mem.layout.memory_dir / "invoices_round_half_up.md").read_bytes()

    (reply,) = mcp_calls(project, ("delete", {"path": NOTE["name"]}))

    assert "memdir restore" in reply and "history" in reply
    mem.restore(NOTE["name"])
    assert (mem.layout.memory_dir / "invoices_round_half_up.md").read_bytes() == original
    assert [v.route for v in mem.history(NOTE["name"])][:2] == ["api", "mcp"]


def test_the_memory_tool_records_its_route_and_its_deletes_are_restorable(mem: Memdir) -> None:
    tool = MemoryToolBackend(mem)
    tool.execute({"command": "create", "path": "/memories/notes.txt", "file_text": "raw note\n"})
    tool.execute({"command": "rename", "old_path": "/memories/notes.txt",
                  "new_path": "/memories/kept.txt"})  # fmt: skip
    tool.execute({"command": "delete", "path": "/memories/kept.txt"})
    versions = mem.history("kept.txt")
    assert [(v.action, v.route) for v in versions][:2] == [
        ("delete", "memory-tool"),
        ("rename", "memory-tool"),
    ]

    mem.undo()

    assert (mem.layout.memory_dir / "kept.txt").read_text() == "raw note\n"
    assert "raw note" in tool.execute({"command": "view", "path": "/memories/kept.txt"})


def test_extraction_records_its_session_and_the_turns_it_read(mem: Memdir) -> None:
    provider = ScriptedProvider(tool_use("write_memory", NOTE), "saved")
    messages = [
        {"role": "user", "content": "remember: invoices round half up"},
        {"role": "assistant", "content": "Noted."},
    ]

    mem.extract(provider, messages, session_id="s-42")

    version = mem.history(NOTE["name"])[0]
    assert (version.route, version.session) == ("extraction", "s-42")
    assert version.turns is not None and len(version.turns.split()) == 2


def transcript_file(tmp_path: Path, session: str) -> Path:
    """A small Claude Code transcript: the user states a rule, the assistant answers."""
    lines = [
        {"type": "user", "uuid": "t1", "parentUuid": None, "sessionId": session,
         "isSidechain": False, "timestamp": "2026-03-01T10:00:00Z",
         "message": {"role": "user", "content": "Invoices must round half up, never banker's."}},
        {"type": "assistant", "uuid": "t2", "parentUuid": "t1", "sessionId": session,
         "isSidechain": False, "timestamp": "2026-03-01T10:00:05Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "Understood."}]}},
    ]  # fmt: skip
    path = tmp_path / f"{session}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_why_shows_the_source_turns_of_a_hook_extraction(
    mem: Memdir, project: Path, tmp_path: Path
) -> None:
    session = "5f0c2a9e-1111-4d7e-9a51-2f0c6f4b8e21"
    path = transcript_file(tmp_path, session)
    extractor = ScriptedProvider(tool_use("write_memory", NOTE), "saved")
    notes = ScriptedProvider(*["Nothing to update."] * 3)

    provider = Router(notes=notes, extractor=extractor)
    report = run_job(
        event="stop", session_id=session, project=project, transcript=path,
        env={"MEMDIR_HOME": str(mem.layout.home)}, provider=provider,
    )  # fmt: skip

    assert report.status == "done", report.steps
    answer = mem.why(NOTE["name"])
    assert answer.latest is not None and answer.latest.session == session
    assert answer.latest.transcript == str(path)
    assert [t.text for t in answer.turns if t.role == "user"] == [
        "Invoices must round half up, never banker's."
    ]
    path.unlink()
    assert "no longer there" in (mem.why(NOTE["name"]).transcript_note or "")


def test_why_reads_turns_by_uuid_from_a_transcript(mem: Memdir, tmp_path: Path) -> None:
    path = transcript_file(tmp_path, "s1")
    turns = read_transcript(path).turns
    with provenance(route="extraction", session="s1", transcript=str(path), turns="t1"):
        mem.write(**NOTE)
    assert [t.uuid for t in turns] == ["t1", "t2"]

    answer = mem.why(NOTE["name"])

    assert [(t.ref, t.role) for t in answer.turns] == [("t1", "user")]


def test_incoming_team_changes_are_versions_naming_their_author(clone: Clone) -> None:
    alice, bob = clone("alice"), clone("bob")
    teamutil.run_git(alice.layout.team_dir, "config", "user.name", "Alice")
    teamutil.run_git(alice.layout.team_dir, "config", "user.email", "alice@example.com")
    remember(alice, "Deploy window", "deploys on tuesdays")
    sync_team(alice)

    sync_team(bob)

    (version,) = bob.history("Deploy window", scope=Scope.TEAM)
    assert (version.action, version.route) == ("sync", "sync")
    assert version.user == "Alice <alice@example.com>"  # git's author, not this machine's
    assert version.after is not None and version.before is None
    remember(alice, "Deploy window", "deploys on wednesdays now")
    sync_team(alice)
    sync_team(bob)
    newest = bob.history("Deploy window", scope=Scope.TEAM)[0]
    assert newest.before == version.after  # the text bob had is kept
    with pytest.raises(MemdirError, match="team sync brought in"):
        bob.undo()  # it would push the revert of alice's change back to her
    bob.restore("Deploy window", scope=Scope.TEAM)
    assert "tuesdays" in bob.get("Deploy window").memory.body
    assert [v.action for v in bob.history("team/deploy_window.md")][:2] == ["restore", "sync"]


def test_extractor_background_runs_keep_the_submitters_provenance(mem: Memdir) -> None:
    provider = ScriptedProvider(tool_use("write_memory", NOTE), "saved")
    extractor = MemoryExtractor(mem, provider, "bg")
    from background.helpers import chat

    with provenance(transcript="/somewhere/bg.jsonl"):
        assert extractor.submit(chat("invoices round half up", "noted"))
    assert extractor.drain(timeout=30)

    version = mem.history(NOTE["name"])[0]
    assert (version.route, version.transcript) == ("extraction", "/somewhere/bg.jsonl")
