"""Conflict copies a person settles: listed until then, never pushed, resolved three ways."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdir.api import Memdir
from memdir.errors import MemoryNotFound
from memdir.storage.codec import parse_memory
from memdir.storage.memory_index import parse_entries
from memdir.team.conflicts import pending_conflicts, resolve
from memdir.team.sync import sync_team, team_status
from teamutil import (
    Clone,
    assert_index_matches_files,
    cli_output,
    edit_both_sides,
    push_by_hand,
    remember,
    remote_files,
    shared_memory,
    team_files,
)

# Git under a throwaway HOME for every test here (teamutil's fixtures, via conftest.py).
pytestmark = pytest.mark.usefixtures("git_home")


def _conflicted(clone: Clone) -> tuple[Memdir, Memdir, str]:
    """Alice and bob both edit "Build tool"; bob syncs second and holds a copy."""
    alice, bob = shared_memory(clone, "Build tool", "We build with make.\n")
    report = edit_both_sides(
        alice, bob, "Build tool", "We build with bazel.\n", "We build with just.\n"
    )
    [conflict] = report.conflicts
    assert conflict.copy is not None
    return alice, bob, conflict.copy


def test_a_conflict_copy_is_listed_by_status_and_doctor_and_never_pushed(
    clone: Clone, remote: Path
) -> None:
    _alice, bob, copy = _conflicted(clone)
    sync_team(bob)  # again: still not pushed

    assert not any("conflict" in f for f in remote_files(remote))
    assert [c.copy for c in team_status(bob).conflicts] == [copy]
    assert copy not in bob.team.files()  # no memory of the store: not in prompts or recall
    assert "just" not in bob.team.read_index() and "conflict" not in bob.team.read_index()
    code, output = cli_output(bob, "team", "status", "--no-fetch")
    assert code == 0 and copy in output and "team resolve" in output
    code, output = cli_output(bob, "doctor")
    assert code == 1 and "[team:conflict-copy]" in output and copy in output
    status = json.loads(cli_output(bob, "team", "status", "--no-fetch", "--json")[1])
    assert status["conflicts"][0]["file"] == "build_tool.md"


def test_keep_mine_puts_the_copy_in_the_file_and_the_next_sync_shares_it(
    clone: Clone, remote: Path
) -> None:
    alice, bob, _copy = _conflicted(clone)

    code, output = cli_output(bob, "team", "resolve", "build_tool.md", "--keep", "mine")

    assert code == 0, output
    assert "just" in team_files(bob)["build_tool.md"]
    assert pending_conflicts(bob.layout.team_dir) == []
    sync_team(bob)
    sync_team(alice)
    assert "just" in team_files(alice)["build_tool.md"]
    code, output = cli_output(bob, "doctor")
    assert "conflict-copy" not in output


def test_keep_theirs_moves_the_copy_to_the_trash(clone: Clone) -> None:
    _alice, bob, copy = _conflicted(clone)

    done = resolve(bob, copy, "theirs")

    assert "bazel" in team_files(bob)["build_tool.md"]
    assert done.trashed is not None and "just" in done.trashed.read_text()
    assert done.trashed.is_relative_to(bob.layout.trash_dir)
    assert not (bob.layout.team_dir / copy).exists()
    assert team_status(bob, fetch=False).conflicts == ()


def test_keep_both_makes_the_copy_a_memory_of_its_own_with_an_index_line(
    clone: Clone, remote: Path
) -> None:
    _alice, bob, _copy = _conflicted(clone)

    done = resolve(bob, "Build tool", "both")

    assert done.written is not None and done.written != "build_tool.md"
    files = team_files(bob)
    assert "bazel" in files["build_tool.md"]
    kept = parse_memory(files[done.written])
    assert "just" in kept.body and kept.name == "Build tool (local copy)"
    assert done.written in [e.file for e in parse_entries(bob.team.read_index())]
    assert_index_matches_files(bob)
    sync_team(bob)
    assert done.written in remote_files(remote)


def test_resolving_a_name_with_no_copy_lists_what_is_unsettled(clone: Clone) -> None:
    _alice, bob, copy = _conflicted(clone)
    with pytest.raises(MemoryNotFound, match="unsettled") as caught:
        resolve(bob, "nothing_like_it.md", "mine")
    assert copy in caught.value.message


def test_a_sync_run_again_after_an_interruption_makes_no_second_copy(clone: Clone) -> None:
    _alice, bob, copy = _conflicted(clone)
    from memdir.team.conflicts import add_copy

    data = (bob.layout.team_dir / copy).read_bytes()
    again = add_copy(bob.layout.team_dir, "build_tool.md", data, "edited on both sides", "x")

    assert again == copy
    assert len(pending_conflicts(bob.layout.team_dir)) == 1


def test_status_counts_team_changes_awaiting_review(clone: Clone) -> None:
    from memdir.history.provenance import provenance

    alice = clone("alice")
    with provenance(route="mcp"):
        remember(alice, "Agent note", "An agent wrote this.\n")

    status = team_status(alice, fetch=False)

    assert status.pending_review == 1
    _code, output = cli_output(alice, "team", "status", "--no-fetch")
    assert "1 team change(s) await review" in output


def test_a_pushed_file_named_like_a_local_copy_never_overwrites_it(
    clone: Clone, remote: Path, tmp_path: Path
) -> None:
    _alice, bob, copy = _conflicted(clone)
    mine = (bob.layout.team_dir / copy).read_bytes()
    hand_made = {copy: "a hand-made push into .conflicts/\n"}
    push_by_hand(remote, tmp_path, hand_made, "push into the excluded folder")

    report = sync_team(bob)

    assert copy in [q.file for q in report.quarantined]
    assert (bob.layout.team_dir / copy).read_bytes() == mine
    assert [c.copy for c in pending_conflicts(bob.layout.team_dir)] == [copy]
    assert not (bob.layout.project_dir / ".rescued").exists()
