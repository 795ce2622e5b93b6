"""Team sync through real git: bare remotes in tmp_path, clones with their own homes."""

from __future__ import annotations

import getpass
import json
import os
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from memdir.cli.team import team
from memdir.errors import SecretDetected, SyncError
from memdir.storage.codec import parse_memory
from memdir.storage.memory_index import parse_entries
from memdir.team.secrets import scan_text
from memdir.team.sync import init_team, sync_team, team_status
from teamutil import (
    Clone,
    assert_index_matches_files,
    assert_no_conflict_markers,
    edit_both_sides,
    published,
    push_by_hand,
    remember,
    remote_files,
    run_git,
    shared_memories,
    shared_memory,
    team_files,
    token,
)

# Git under a throwaway HOME for every test here (teamutil's fixtures, via conftest.py).
pytestmark = pytest.mark.usefixtures("git_home")

# -- init ---------------------------------------------------------------------


def test_init_publishes_the_memories_already_in_the_team_folder(
    opened: Clone, remote: Path
) -> None:
    alice = opened("alice")
    file = remember(alice, "Deploy freeze", "No deploys on Fridays.\n")

    result = init_team(alice, str(remote))

    assert result.published and not result.already
    assert file in result.sync.committed and result.sync.pushed
    assert sorted(remote_files(remote)) == sorted(["MEMORY.md", file])
    assert "No deploys on Fridays." in team_files(alice)[file]


def test_init_of_a_non_empty_team_folder_merges_with_the_remote_history(
    clone: Clone, opened: Clone, remote: Path
) -> None:
    published(clone, "Staging database", "Staging lives on db-2.\n")
    bob = opened("bob")
    remember(bob, "Release train", "Releases leave every second Tuesday.\n")

    result = init_team(bob, str(remote))

    assert not result.published
    files = team_files(bob)
    assert "Staging lives on db-2." in files["staging_database.md"]
    assert "Releases leave every second Tuesday." in files["release_train.md"]
    assert_index_matches_files(bob)
    assert_no_conflict_markers(bob)
    assert "release_train.md" in remote_files(remote)


def test_init_again_with_the_same_remote_only_syncs(clone: Clone, remote: Path) -> None:
    alice = clone("alice")
    file = remember(alice, "On-call", "Pages go to the platform rotation.\n")

    result = init_team(alice, str(remote))

    assert result.already
    assert file in remote_files(remote)


def test_init_with_another_remote_is_refused(clone: Clone, tmp_path: Path) -> None:
    alice = clone("alice")
    with pytest.raises(SyncError, match="already syncs with"):
        init_team(alice, str(tmp_path / "other.git"))


def test_init_with_an_unreachable_remote_fails_and_leaves_the_folder_as_it_was(
    opened: Clone, tmp_path: Path
) -> None:
    alice = opened("alice")
    file = remember(alice, "Vendor", "The CDN vendor is Fastly.\n")
    missing = tmp_path / "nowhere.git"

    with pytest.raises(SyncError, match="cannot reach the team remote") as caught:
        init_team(alice, str(missing))

    assert str(missing) in str(caught.value)
    # git's whole message, not its last clause ("and the repository exists.") alone.
    assert "does not appear to be a git repository" in caught.value.message
    assert "Could not read from remote repository" in caught.value.message
    assert caught.value.hint is not None and "memdir team init" in caught.value.hint
    assert not (alice.layout.team_dir / ".git").exists()
    assert "Fastly" in team_files(alice)[file]


def test_a_remote_that_never_answers_times_out_with_a_sync_error(opened: Clone) -> None:
    alice = opened("alice")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()  # accepts connections into the backlog and never replies
        url = f"git://127.0.0.1:{server.getsockname()[1]}/team.git"
        with pytest.raises(SyncError, match="did not finish within") as caught:
            init_team(alice, url, timeout=1.0)
    assert url in str(caught.value)
    assert not (alice.layout.team_dir / ".git").exists()


def test_temp_files_left_by_a_crashed_write_are_never_committed(clone: Clone, remote: Path) -> None:
    alice = clone("alice")
    (alice.layout.team_dir / ".facts.md.x1y2.tmp").write_text("half a memory")
    file = remember(alice, "Facts", "Whole.\n")

    assert file in sync_team(alice).committed
    assert sorted(remote_files(remote)) == ["MEMORY.md", file]


def test_sync_before_init_names_the_init_command(opened: Clone) -> None:
    with pytest.raises(SyncError) as caught:
        sync_team(opened("alice"))
    assert caught.value.hint is not None and "memdir team init --remote" in caught.value.hint


# -- merging ------------------------------------------------------------------


def test_edits_to_different_memories_merge(clone: Clone) -> None:
    notes = {
        "Cache policy": "Cache for five minutes.\n",
        "Error budget": "Ninety-nine point nine.\n",
    }
    alice, bob = shared_memories(clone, notes)

    remember(alice, "Cache policy", "Cache for ten minutes.\n")
    remember(bob, "Error budget", "Ninety-nine point five.\n")
    sync_team(alice)
    report = sync_team(bob)
    sync_team(alice)

    assert report.pulled == ("cache_policy.md",) and not report.conflicts
    for mem in (alice, bob):
        files = team_files(mem)
        assert "ten minutes" in files["cache_policy.md"]
        assert "point five" in files["error_budget.md"]
        assert_index_matches_files(mem)


def test_the_same_memory_edited_on_both_sides_keeps_both_versions_without_markers(
    clone: Clone,
) -> None:
    alice, bob = shared_memory(clone, "Build tool", "We build with make.\n")

    report = edit_both_sides(
        alice, bob, "Build tool", "We build with bazel.\n", "We build with just.\n"
    )

    [conflict] = report.conflicts
    assert conflict.file == "build_tool.md" and conflict.copy is not None
    assert conflict.copy.startswith(".conflicts/build_tool.conflict-")
    assert conflict.copy.endswith(".md")
    files = team_files(bob)
    assert "bazel" in files["build_tool.md"]  # the remote's version stays in the file
    copy = parse_memory(files[conflict.copy])
    assert "just" in copy.body and copy.name == "Build tool"  # bob's bytes, as they were
    assert_no_conflict_markers(bob)
    assert_index_matches_files(bob)  # the copy is no memory of the store: no index line

    sync_team(alice)
    assert conflict.copy not in team_files(alice)  # a copy is never pushed
    assert_no_conflict_markers(alice)


def test_edits_to_distant_parts_of_one_memory_merge_cleanly(clone: Clone) -> None:
    lines = [f"step {n}: check the service\n" for n in range(12)]
    alice, bob = shared_memory(clone, "Runbook", "".join(lines))

    hers = "".join(["step 0: page the lead\n", *lines[1:]])
    his = "".join([*lines[:-1], "step 11: write the report\n"])
    report = edit_both_sides(alice, bob, "Runbook", hers, his)

    assert not report.conflicts
    body = team_files(bob)["runbook.md"]
    assert "page the lead" in body and "write the report" in body
    assert not any(".conflict-" in f for f in team_files(bob))


def test_index_conflicts_resolve_to_the_union_of_both_sides(clone: Clone) -> None:
    alice, bob = clone("alice"), clone("bob")
    remember(alice, "Alerting", "Alerts go to #ops.\n")
    remember(bob, "Tracing", "Traces go to Tempo.\n")
    sync_team(alice)

    report = sync_team(bob)  # both appended a line at the end of MEMORY.md

    assert not report.conflicts
    index = bob.team.read_index()
    assert [e.file for e in parse_entries(index)] == ["alerting.md", "tracing.md"]
    assert "<<<<<<<" not in index and "=======" not in index
    sync_team(alice)
    assert alice.team.read_index() == index


def test_a_deletion_propagates_both_ways(clone: Clone) -> None:
    notes = {"Old proxy": "The proxy is squid.\n", "Old queue": "The queue is RabbitMQ.\n"}
    alice, bob = shared_memories(clone, notes)

    alice.delete("old_proxy.md", scope="team")
    bob.delete("old_queue.md", scope="team")
    sync_team(alice)
    report = sync_team(bob)
    sync_team(alice)

    assert report.deleted == ("old_proxy.md",)
    for mem in (alice, bob):
        assert mem.team.files() == []
        assert parse_entries(mem.team.read_index()) == []


def test_an_edit_wins_over_a_deletion_on_the_other_side(clone: Clone) -> None:
    alice, bob = shared_memory(clone, "Feature flags", "Flags live in LaunchDarkly.\n")

    alice.delete("feature_flags.md", scope="team")
    remember(bob, "Feature flags", "Flags live in Unleash now.\n")
    sync_team(alice)
    report = sync_team(bob)

    [conflict] = report.conflicts
    assert conflict.file == "feature_flags.md" and conflict.copy is None
    assert "Unleash" in team_files(bob)["feature_flags.md"]
    assert_index_matches_files(bob)
    sync_team(alice)
    assert "Unleash" in team_files(alice)["feature_flags.md"]


def test_sync_repairs_dangling_and_missing_index_lines(clone: Clone, remote: Path) -> None:
    alice = published(clone, "Gone soon", "This file is removed by hand.\n")
    (alice.layout.team_dir / "gone_soon.md").unlink()
    (alice.layout.team_dir / "hand_written.md").write_text(
        "---\nname: Hand written\ndescription: written without memdir\ntype: reference\n---\nx\n"
    )

    sync_team(alice)

    [entry] = parse_entries(alice.team.read_index())
    assert (entry.file, entry.title, entry.hook) == (
        "hand_written.md",
        "Hand written",
        "written without memdir",
    )
    assert sorted(remote_files(remote)) == ["MEMORY.md", "hand_written.md"]


# -- racing and failing -------------------------------------------------------


def test_a_push_race_is_retried_and_nothing_is_lost(clone: Clone, remote: Path) -> None:
    alice, bob = clone("alice"), clone("bob")
    remember(alice, "From alice", "Alice's fact.\n")
    remember(bob, "From bob", "Bob's fact.\n")

    def bob_pushes_first(attempt: int) -> None:
        if attempt == 0:
            sync_team(bob)

    report = sync_team(alice, before_push=bob_pushes_first)

    assert report.retries == 1 and report.pushed
    assert "from_bob.md" in report.pulled
    assert sorted(remote_files(remote)) == ["MEMORY.md", "from_alice.md", "from_bob.md"]
    sync_team(bob)
    for mem in (alice, bob):
        assert mem.team.files() == ["from_alice.md", "from_bob.md"]
        assert_index_matches_files(mem)


def test_a_push_rejected_every_time_gives_up_after_the_bound(clone: Clone) -> None:
    alice, bob = clone("alice"), clone("bob")
    remember(alice, "Patient", "Waits its turn.\n")

    def bob_always_pushes_first(attempt: int) -> None:
        remember(bob, f"Busy {attempt}", "Bob pushes again.\n")
        sync_team(bob)

    with pytest.raises(SyncError, match="rejected 3 times") as caught:
        sync_team(alice, max_attempts=3, before_push=bob_always_pushes_first)

    assert caught.value.hint is not None and "memdir team sync" in caught.value.hint
    assert team_status(alice, fetch=False).ahead >= 1  # committed locally, kept
    assert sync_team(alice).pushed
    assert "patient.md" in sync_team(bob).pulled


def test_an_unreachable_remote_raises_and_keeps_the_local_commit(
    clone: Clone, remote: Path, tmp_path: Path
) -> None:
    alice = clone("alice")
    file = remember(alice, "Offline work", "Written on a plane.\n")
    away = tmp_path / "moved.git"
    remote.rename(away)

    with pytest.raises(SyncError, match="cannot reach the team remote") as caught:
        sync_team(alice)

    assert str(remote) in str(caught.value)
    assert "Written on a plane." in team_files(alice)[file]
    status = team_status(alice)
    assert (status.ahead, status.fetched) == (1, False)
    assert file in status.unsynced_files

    away.rename(remote)
    report = sync_team(alice)
    assert report.pushed and file in remote_files(remote)


# -- secrets ------------------------------------------------------------------


def test_a_secret_pushed_by_a_third_party_is_quarantined(
    clone: Clone, remote: Path, tmp_path: Path
) -> None:
    alice = published(clone, "Known good", "Nothing secret here.\n")
    leak = f"---\nname: Leak\ndescription: a token\ntype: reference\n---\ntoken: {token()}\n"
    index_line = "- [Leak](leak.md) — a token\n"  # appended to the index alice pushed
    push_by_hand(remote, tmp_path, {"leak.md": leak, "MEMORY.md": index_line}, "add a leak")

    report = sync_team(alice)

    [quarantined] = report.quarantined
    assert quarantined.file == "leak.md" and "leak.md" not in report.pulled
    assert quarantined.labels and all(token() not in label for label in quarantined.labels)
    assert quarantined.moved_to.is_file()
    assert quarantined.moved_to.is_relative_to(alice.layout.project_dir / ".quarantine")
    assert not (alice.layout.team_dir / "leak.md").exists()
    assert all(not scan_text(text) for text in team_files(alice).values())
    assert [e.file for e in parse_entries(alice.team.read_index())] == ["known_good.md"]
    assert "leak.md" not in remote_files(remote)


def test_a_secret_merged_by_hand_outside_memdir_is_quarantined_by_the_next_sync(
    clone: Clone, remote: Path, tmp_path: Path
) -> None:
    alice = clone("alice")
    push_by_hand(remote, tmp_path, {"notes/leak.md": f"token: {token()}\n"}, "add a leak")
    run_git(alice.layout.team_dir, "pull", "--quiet", "--no-rebase", "origin", "main")
    assert (alice.layout.team_dir / "notes" / "leak.md").exists()

    report = sync_team(alice)

    assert [q.file for q in report.quarantined] == ["notes/leak.md"]
    assert not (alice.layout.team_dir / "notes" / "leak.md").exists()
    assert "notes/leak.md" not in remote_files(remote)


def test_a_secret_written_by_hand_is_refused_and_nothing_is_committed(
    clone: Clone, remote: Path
) -> None:
    alice = clone("alice")
    (alice.layout.team_dir / "oops.md").write_text(f"the token is {token()}\n")

    with pytest.raises(SecretDetected, match=r"oops\.md") as caught:
        sync_team(alice)

    assert token() not in str(caught.value)
    assert "oops.md" not in remote_files(remote)
    assert "oops.md" in team_status(alice).unsynced_files


def test_the_pre_commit_hook_refuses_a_staged_secret(clone: Clone, remote: Path) -> None:
    alice = clone("alice")
    hook = init_team(alice, str(remote), hook=True).hook
    assert hook is not None and os.access(hook, os.X_OK)
    team_dir = alice.layout.team_dir
    (team_dir / "leak.md").write_text(f"token: {token()}\n")
    run_git(team_dir, "add", "leak.md")

    refused = run_git(team_dir, "commit", "-m", "leak", check=False)

    assert refused.returncode != 0
    assert "leak.md:1" in refused.stderr and token() not in refused.stderr
    (team_dir / "leak.md").write_text("no token here\n")
    run_git(team_dir, "add", "leak.md")
    assert run_git(team_dir, "commit", "-m", "clean", check=False).returncode == 0


def test_sync_ignores_hooks_and_signing_from_the_global_config(
    clone: Clone, git_home: Path, remote: Path
) -> None:
    alice = clone("alice")
    hooks = git_home / "hooks"
    hooks.mkdir()
    for name in ("pre-commit", "pre-push", "post-merge"):
        (hooks / name).write_text("#!/bin/sh\nexit 1\n")
        (hooks / name).chmod(0o755)
    run_git(git_home, "config", "--global", "core.hooksPath", str(hooks))
    run_git(git_home, "config", "--global", "commit.gpgSign", "true")
    file = remember(alice, "Hook free", "Hooks of the user never block a sync.\n")

    assert sync_team(alice).pushed
    assert file in remote_files(remote)


# -- commits and status -------------------------------------------------------


def test_commits_list_the_memories_and_fall_back_to_this_login_on_this_host(
    clone: Clone, remote: Path
) -> None:
    published(clone, "Metrics", "Prometheus scrapes every 15 s.\n")

    log = run_git(remote, "log", "-1", "--format=%an <%ae>%n%B", "main").stdout

    assert log.startswith(f"{getpass.getuser()} on ") and "<memdir@localhost>" in log
    assert "metrics.md" in log.splitlines()[1]
    assert "added: metrics.md" in log


def test_commits_use_the_author_from_git_config(clone: Clone, git_home: Path, remote: Path) -> None:
    run_git(git_home, "config", "--global", "user.name", "Ada Lovelace")
    run_git(git_home, "config", "--global", "user.email", "ada@example.com")
    published(clone, "Engines", "The analytical engine.\n")

    author = run_git(remote, "log", "-1", "--format=%an <%ae>", "main").stdout.strip()
    assert author == "Ada Lovelace <ada@example.com>"


def test_commits_use_the_projects_own_git_identity_when_git_has_none_global(
    clone: Clone, remote: Path
) -> None:
    alice = clone("alice")
    project = alice.layout.project_root
    if not (project / ".git").exists():
        run_git(project, "init", "--quiet")
    run_git(project, "config", "user.name", "Grace Hopper")
    run_git(project, "config", "user.email", "grace@example.com")
    remember(alice, "Compilers", "The A-0 system.\n")
    sync_team(alice)

    author = run_git(remote, "log", "-1", "--format=%an <%ae>", "main").stdout.strip()
    assert author == "Grace Hopper <grace@example.com>"


def test_status_shows_ahead_behind_and_unsynced_files(clone: Clone) -> None:
    alice, bob = clone("alice"), clone("bob")
    file = remember(alice, "Pending", "Not pushed yet.\n")
    remember(bob, "Elsewhere", "Pushed by bob.\n")
    sync_team(bob)

    status = team_status(alice)

    assert status.initialized and status.fetched
    assert (status.ahead, status.behind) == (0, 1)
    assert set(status.unsynced_files) == {file, "MEMORY.md"}
    sync_team(alice)
    assert team_status(alice) == type(status)(
        initialized=True,
        remote=status.remote,
        branch="main",
        ahead=0,
        behind=0,
        unsynced_files=(),
        fetched=True,
    )


def test_sync_finishes_a_merge_an_interrupted_sync_left_with_markers(clone: Clone) -> None:
    alice, bob = shared_memory(clone, "Linter", "We lint with flake8.\n")
    edit_both_sides(alice, bob, "Linter", "We lint with ruff.\n", "We lint with pylint.\n")
    remember(alice, "Linter", "We lint with ruff and mypy.\n")
    sync_team(alice)
    team_dir = bob.layout.team_dir
    run_git(team_dir, "fetch", "--quiet", "origin")
    remember(bob, "Linter", "We lint with pylint only.\n")
    run_git(team_dir, "commit", "--quiet", "-am", "local edit")
    run_git(team_dir, "merge", "origin/main", check=False)  # stops with markers
    assert "<<<<<<<" in (team_dir / "linter.md").read_text()

    sync_team(bob)

    assert_no_conflict_markers(bob)
    texts = "".join(team_files(bob).values())
    assert "ruff and mypy" in texts and "pylint only" in texts


def test_status_before_init_lists_every_file_as_unsynced(opened: Clone) -> None:
    alice = opened("alice")
    file = remember(alice, "Local only", "Never shared.\n")
    status = team_status(alice)
    assert not status.initialized and status.unsynced_files == (file,)


# -- command line -------------------------------------------------------------


def test_the_team_commands_init_sync_and_status(opened: Clone, remote: Path) -> None:
    alice = opened("alice")
    project = alice.layout.project_root
    remember(alice, "Via the CLI", "Shared from the command line.\n")
    runner = CliRunner()
    env = {"MEMDIR_HOME": str(alice.layout.home)}

    init = runner.invoke(
        team, ["init", "--remote", str(remote), "--project", str(project), "--json"], env=env
    )
    assert init.exit_code == 0, init.output
    assert json.loads(init.output)["published"] is True

    synced = runner.invoke(team, ["sync", "--project", str(project)], env=env)
    assert synced.exit_code == 0, synced.output
    assert "up to date" in synced.output.lower()

    status = runner.invoke(team, ["status", "--project", str(project), "--json"], env=env)
    assert status.exit_code == 0, status.output
    assert json.loads(status.output)["ahead"] == 0


def test_the_sync_command_exits_1_with_the_next_step_when_not_set_up(opened: Clone) -> None:
    alice = opened("alice")
    result = CliRunner().invoke(
        team,
        ["sync", "--project", str(alice.layout.project_root)],
        env={"MEMDIR_HOME": str(alice.layout.home)},
    )
    assert result.exit_code == 1
    assert "memdir team init --remote" in result.output


def test_gits_message_is_kept_whole_on_one_line() -> None:
    from memdir.team.git import git_message

    stderr = (
        b"fatal: 'nowhere' does not appear to be a git repository\n"
        b"fatal: Could not read from remote repository.\n\n"
        b"Please make sure you have the correct access rights\nand the repository exists.\n"
    )
    assert git_message(stderr) == (
        "'nowhere' does not appear to be a git repository; Could not read from remote "
        "repository. Please make sure you have the correct access rights and the "
        "repository exists."
    )
    assert git_message(b"") == "no error message"
    assert "secret" not in git_message(b"fatal: https://user:secret@host/x.git gone\n")
