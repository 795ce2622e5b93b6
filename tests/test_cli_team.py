"""Team sync on the command line: a conflict exits 3, named last; both versions seen first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdir.api import Memdir
from memdir.cli._common import EXIT_CONFLICT
from memdir.team.sync import sync_team
from teamutil import Clone, cli, remember, shared_memory

# Git under a throwaway HOME for every test here (teamutil's fixtures, via conftest.py).
pytestmark = pytest.mark.usefixtures("git_home")


def _both_edit(clone: Clone) -> tuple[Memdir, Memdir, str]:
    alice, bob = shared_memory(clone, "Build tool", "We build with make.\n")
    file = remember(alice, "Build tool", "We build with bazel.\n")
    remember(bob, "Build tool", "We build with just.\n")
    sync_team(alice)
    return alice, bob, file


def test_a_sync_that_leaves_a_conflict_exits_3_and_names_it_on_the_last_line(
    clone: Clone,
) -> None:
    _alice, bob, file = _both_edit(clone)
    result = cli(bob, "team", "sync")
    assert result.exit_code == EXIT_CONFLICT == 3, result.output
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith(f"conflict: team/{file}: ")
    assert f"memdir team conflicts {file}" in last and "--keep mine|theirs|both" in last
    again = cli(bob, "team", "sync", "--json")  # the copy waits: nothing new to report
    assert again.exit_code == 0 and json.loads(again.stdout)["conflicts"] == []


def test_a_sync_without_conflict_exits_0(clone: Clone) -> None:
    alice, _bob = shared_memory(clone, "Build tool", "We build with make.\n")
    remember(alice, "Test runner", "pytest\n")
    result = cli(alice, "team", "sync")
    assert result.exit_code == 0
    assert not any(line.startswith("conflict:") for line in result.stdout.splitlines())


def test_team_conflicts_shows_the_remotes_version_against_mine_before_resolving(
    clone: Clone,
) -> None:
    _alice, bob, file = _both_edit(clone)
    cli(bob, "team", "sync")
    result = cli(bob, "team", "conflicts")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert f"--- theirs: team/{file}" in out and "+++ mine: team/.conflicts/" in out
    assert "-We build with bazel." in out and "+We build with just." in out
    assert f"memdir team resolve {file} --keep mine|theirs|both" in out
    shown = cli(bob, "team", "resolve", file, "--show")
    assert shown.exit_code == 0 and "+We build with just." in shown.stdout
    assert Memdir.open(bob.layout.project_root, home=bob.layout.home).team.find(file) is not None
    listed = json.loads(cli(bob, "team", "conflicts", "--json").stdout)
    assert [c["file"] for c in listed] == [file] and "+We build with just." in listed[0]["diff"]
    settled = cli(bob, "team", "resolve", file, "--keep", "mine")
    assert settled.exit_code == 0
    assert cli(bob, "team", "conflicts").stdout.strip() == "no conflict to settle"


def test_resolve_without_a_choice_asks_for_one(clone: Clone) -> None:
    _alice, bob, file = _both_edit(clone)
    cli(bob, "team", "sync")
    result = cli(bob, "team", "resolve", file)
    assert result.exit_code == 2 and "--keep mine|theirs|both" in result.stderr


def test_conflicts_of_a_name_that_has_none_is_a_clear_error(clone: Clone) -> None:
    alice, _bob = shared_memory(clone, "Build tool", "We build with make.\n")
    result = cli(alice, "team", "conflicts", "nothing.md")
    assert result.exit_code == 1 and "no conflict copy matches 'nothing.md'" in result.stderr


def test_doctor_notes_team_commits_made_without_a_git_identity(
    clone: Clone, git_home: Path
) -> None:
    alice = clone("alice")
    result = cli(alice, "doctor")
    assert "[git-identity] team sync commits carry a stand-in author" in result.stdout
    assert "git config --global user.name" in result.stdout
    (git_home / ".gitconfig").write_text("[user]\n\tname = Alice\n\temail = alice@example.com\n")
    assert "[git-identity]" not in cli(alice, "doctor").stdout
