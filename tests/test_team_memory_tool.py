"""Memory-tool notes in team scope never block team sync, and nothing unscanned leaves."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdir.api import Memdir
from memdir.hosts.memory_tool import MemoryToolBackend
from memdir.model import Memory, MemoryType
from memdir.storage import sidecar
from memdir.storage.memory_index import parse_entries
from memdir.team.sync import sync_team
from teamutil import Clone, cli_output, remember, remote_files, run_git, team_files, token

# Git under a throwaway HOME for every test here (teamutil's fixtures, via conftest.py).
pytestmark = pytest.mark.usefixtures("git_home")


def _tool(mem: Memdir) -> MemoryToolBackend:
    auto = Memdir.open(mem.layout.project_root, home=mem.layout.home, review_team="auto")
    return MemoryToolBackend(auto, scope="team")


def _doctor(mem: Memdir, *args: str) -> tuple[int, str]:
    return cli_output(mem, "doctor", *args)


def test_a_tool_note_syncs_its_text_and_index_line_and_keeps_its_sidecar_here(
    clone: Clone, remote: Path
) -> None:
    alice, bob = clone("alice"), clone("bob")
    reply = _tool(alice).execute(
        {"command": "create", "path": "/memories/oncall.md", "file_text": "# Oncall rota\nAda\n"}
    )
    assert not reply.startswith("Error"), reply
    assert sidecar.exists(alice.layout.team_dir / "oncall.md")

    report = sync_team(alice)

    assert report.pushed and not report.skipped
    assert sorted(remote_files(remote)) == ["MEMORY.md", "oncall.md"]
    sync_team(bob)
    assert team_files(bob)["oncall.md"] == "# Oncall rota\nAda\n"
    assert [e.file for e in parse_entries(bob.team.read_index())] == ["oncall.md"]


def test_the_tool_refuses_a_note_team_sync_could_not_share(clone: Clone) -> None:
    alice = clone("alice")
    tool = _tool(alice)

    reply = tool.execute(
        {"command": "create", "path": "/memories/deploy.txt", "file_text": "Tuesdays\n"}
    )

    assert reply.startswith("Error") and ".md files only" in reply
    assert "/memories/deploy.md" in reply
    assert not (alice.layout.team_dir / "deploy.txt").exists()
    tool.execute({"command": "create", "path": "/memories/deploy.md", "file_text": "Tuesdays\n"})
    renamed = tool.execute(
        {"command": "rename", "old_path": "/memories/deploy.md", "new_path": "/memories/d.json"}
    )
    assert renamed.startswith("Error") and ".md files only" in renamed


def test_a_note_sync_cannot_share_is_left_out_reported_and_doctor_fix_renames_it(
    clone: Clone, remote: Path
) -> None:
    alice = clone("alice")
    note = Memory(name="Deploy days", description="when we deploy", type=MemoryType.PROJECT)
    alice.team.write_note("deploy.txt", "Tuesdays and Thursdays\n", note)  # an older tool's note
    memory = remember(alice, "Beside it", "Shared all the same.\n")

    report = sync_team(alice)

    assert report.skipped == ("deploy.txt",) and report.pushed
    assert "deploy.txt" not in remote_files(remote) and memory in remote_files(remote)
    code, output = _doctor(alice)
    assert code == 1 and "[team:unsyncable]" in output and "deploy.txt" in output
    assert "doctor --fix" in output

    code, output = _doctor(alice, "--fix")
    assert code == 0, output
    assert (alice.layout.team_dir / "deploy.md").read_text() == "Tuesdays and Thursdays\n"
    assert sync_team(alice).skipped == ()
    assert "deploy.md" in remote_files(remote)


def test_a_sidecar_is_never_pushed_even_with_a_token_in_it(clone: Clone, remote: Path) -> None:
    alice, bob = clone("alice"), clone("bob")
    _tool(alice).execute(
        {"command": "create", "path": "/memories/ops.md", "file_text": "Restart with care\n"}
    )
    side = sidecar.path_for(alice.layout.team_dir / "ops.md")
    side.write_text(side.read_text() + f"note: {token()}\n")

    sync_team(alice)

    assert "ops.md" in remote_files(remote)
    assert token() not in run_git(remote, "log", "-p", "--all").stdout
    sync_team(bob)
    assert not (bob.layout.team_dir / ".meta").exists()
