"""A team sync never wedges: what a killed sync or git by hand leaves is cleared, nothing lost."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memdir.api import Memdir
from memdir.errors import SyncError
from memdir.team import recovery
from memdir.team.git import Git
from memdir.team.sync import sync_team, team_status
from memdir.team.sync_record import read_record
from teamutil import (
    Clone,
    assert_index_matches_files,
    assert_no_conflict_markers,
    cli_output,
    remember,
    remote_files,
    run_git,
    shared_memory,
    team_files,
)

# Git under a throwaway HOME for every test here (teamutil's fixtures, via conftest.py).
pytestmark = [
    pytest.mark.usefixtures("git_home"),
    pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc"),
]


def _children(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (git runs in sessions of its own)."""
    parents: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(b")") + 2 :].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _kill_tree(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the sync and every git it started, as a crash or an OOM kill would."""
    with_children = [process.pid]
    try:
        os.kill(process.pid, signal.SIGSTOP)  # no new child while we look
        with_children += _children(process.pid)
        for pid in with_children[1:]:
            os.kill(pid, signal.SIGSTOP)
        with_children += [p for p in _children(process.pid) if p not in with_children]
    except ProcessLookupError:
        pass
    for pid in with_children:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
    process.wait()


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _kill_at_a_random_point(process: subprocess.Popen[bytes], rng: random.Random) -> bool:
    """Kill the sync while it merges (or, one round in three, at a random time)."""
    if rng.random() < 1 / 3:
        time.sleep(rng.uniform(0.3, 1.2))  # python start-up, then any of the sync's steps
    else:
        while process.poll() is None:
            if any(b"\0merge\0" in _cmdline(pid) for pid in _children(process.pid)):
                time.sleep(
                    rng.choice([0, 0, 0.005, 0.02, 0.06])
                )  # in git merge, or resolving after it
                break
            time.sleep(0.002)
    if process.poll() is not None:
        return False
    _kill_tree(process)
    return True


def _cli_sync(mem: Memdir) -> subprocess.Popen[bytes]:
    env = {**os.environ, "MEMDIR_HOME": str(mem.layout.home)}
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return subprocess.Popen(
        [sys.executable, "-m", "memdir", "team", "sync", "--project", str(mem.layout.project_root)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _git_state_is_clean(mem: Memdir) -> None:
    dot = mem.layout.team_dir / ".git"
    assert not (dot / "index.lock").exists() and not (dot / "MERGE_HEAD").exists()
    assert not recovery.inspect(Git(mem.layout.team_dir)).wedged


def test_a_sync_killed_at_random_points_of_its_merge_never_wedges_and_loses_nothing(
    clone: Clone, remote: Path
) -> None:
    alice, bob = shared_memory(clone, "Shared", "base\n")
    rng = random.Random(25)
    written: dict[str, str] = {}
    kills = 0
    for round_ in range(10):
        # Bob's push makes alice's next sync merge: a conflict on Shared, new files besides.
        remember(bob, "Shared", f"bob says {round_}\n")
        for n in range(3):
            name = f"Bob {round_} {n}"
            written[remember(bob, name, f"bob fact {round_} {n}\n")] = f"bob fact {round_} {n}"
        sync_team(bob)
        remember(alice, "Shared", f"alice says {round_}\n")
        name = f"Alice {round_}"
        written[remember(alice, name, f"alice fact {round_}\n")] = f"alice fact {round_}"

        kills += _kill_at_a_random_point(_cli_sync(alice), rng)

        report = sync_team(alice)  # the next sync recovers and completes

        assert report.remote
        _git_state_is_clean(alice)
        assert_no_conflict_markers(alice)
        assert_index_matches_files(alice)
        files = "".join(team_files(alice).values())
        for file, body in written.items():
            assert body in files, (round_, file)
    assert kills >= 3  # most rounds were killed mid-way
    sync_team(bob)
    bob_files = "".join(team_files(bob).values())
    for body in written.values():
        assert body in bob_files
    assert not team_status(alice).unsynced_files


def test_a_planted_index_lock_is_removed_and_the_sync_goes_on(clone: Clone, remote: Path) -> None:
    alice = clone("alice")
    file = remember(alice, "Locked out", "A stale lock must not stop sync.\n")
    lock = alice.layout.team_dir / ".git" / "index.lock"
    lock.write_text("")
    assert "index.lock" in team_status(alice, fetch=False).stuck

    report = sync_team(alice)

    assert report.pushed and file in remote_files(remote)
    assert "index.lock" in report.recovered
    assert not lock.exists()


def test_a_planted_merge_head_is_cleared_and_local_work_is_kept(clone: Clone, remote: Path) -> None:
    alice, bob = shared_memory(clone, "Queue", "The queue is SQS.\n")
    remember(bob, "Queue", "The queue is Kafka now.\n")
    sync_team(bob)
    team_dir = alice.layout.team_dir
    run_git(team_dir, "fetch", "--quiet", "origin")
    tip = run_git(team_dir, "rev-parse", "origin/main").stdout.strip()
    (team_dir / ".git" / "MERGE_HEAD").write_text(tip + "\n")
    (team_dir / "hand_note.md").write_text(
        "---\nname: Hand note\ndescription: by hand\ntype: project\n---\nwritten mid-merge\n"
    )

    report = sync_team(alice)

    assert "merge" in report.recovered
    assert "written mid-merge" in team_files(alice)["hand_note.md"]
    assert not (alice.layout.project_dir / ".rescued").exists()  # restored: no copy left
    assert "hand_note.md" in remote_files(remote)
    assert "Kafka" in team_files(alice)["queue.md"]
    _git_state_is_clean(alice)


def test_a_rebase_left_half_done_by_hand_is_undone_and_its_work_tree_edits_kept(
    clone: Clone, remote: Path
) -> None:
    alice, bob = shared_memory(clone, "Linter", "flake8\n")
    remember(bob, "Linter", "ruff\n")
    sync_team(bob)
    team_dir = alice.layout.team_dir
    remember(alice, "Linter", "pylint\n")
    run_git(team_dir, "commit", "--quiet", "-am", "mine")
    run_git(team_dir, "fetch", "--quiet", "origin")
    run_git(team_dir, "rebase", "origin/main", check=False)  # stops on the conflict
    assert (team_dir / ".git" / "rebase-merge").is_dir()
    assert "rebase" in team_status(alice, fetch=False).stuck  # no branch: reported, no error
    (team_dir / "during.md").write_text(
        "---\nname: During\ndescription: d\ntype: project\n---\nwritten during the rebase\n"
    )

    report = sync_team(alice)

    assert "rebase" in report.recovered
    assert "conflict markers" in report.recovered  # git's half-merged linter.md, set aside
    code, output = _doctor(alice)
    assert code == 1 and "[team:rescued]" in output
    files = team_files(alice)
    assert "written during the rebase" in files["during.md"]
    texts = "".join(files.values())
    assert "pylint" in texts and "ruff" in texts
    assert_no_conflict_markers(alice)
    _git_state_is_clean(alice)
    assert run_git(team_dir, "symbolic-ref", "--short", "HEAD").stdout.strip() == "main"


def test_a_lock_a_live_git_process_holds_is_never_removed(clone: Clone) -> None:
    alice = clone("alice")
    team_dir = alice.layout.team_dir
    lock = team_dir / ".git" / "index.lock"
    lock.write_text("")
    live = subprocess.Popen(
        ["git", "-C", str(team_dir), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    )
    try:
        for _ in range(500):  # until the process has started git and entered the folder
            if live.pid in (recovery.git_processes(team_dir) or ()):
                break
            time.sleep(0.01)
        wedge = recovery.inspect(Git(team_dir))
        assert [lock.holders for lock in wedge.locks] == [(live.pid,)]
        with pytest.raises(SyncError, match=str(live.pid)):
            recovery.recover(Git(team_dir), rescue_dir=team_dir.parent / "r", wait=0)
        assert lock.exists()
    finally:
        assert live.stdin is not None
        live.stdin.close()  # git cat-file --batch ends at the end of its input
        live.wait()
    assert recovery.recover(Git(team_dir), rescue_dir=team_dir.parent / "r").locks == (
        "index.lock",
    )


def _failed_sync(clone: Clone, remote: Path, moved: Path) -> Memdir:
    """Alice, whose sync failed: the remote was moved to ``moved``."""
    alice = clone("alice")
    remote.rename(moved)
    with pytest.raises(SyncError):
        sync_team(alice)
    return alice


def test_a_failed_sync_is_recorded_with_gits_whole_message(
    clone: Clone, remote: Path, tmp_path: Path
) -> None:
    alice = _failed_sync(clone, remote, tmp_path / "moved.git")

    record = read_record(alice.layout)
    assert record.failing and record.last_success is not None
    assert "does not appear to be a git repository" in record.detail
    assert "Please make sure you have the correct access rights" in record.detail
    (tmp_path / "moved.git").rename(remote)
    sync_team(alice)
    assert not read_record(alice.layout).failing


def _doctor(mem: Memdir, *args: str) -> tuple[int, str]:
    return cli_output(mem, "doctor", *args)


def test_doctor_reports_a_stuck_clone_and_fix_clears_it(clone: Clone, git_home: Path) -> None:
    alice = clone("alice")
    for key, value in (("user.name", "Alice"), ("user.email", "alice@example.com")):
        run_git(git_home, "config", "--global", key, value)  # or doctor names the stand-in
    file = remember(alice, "Kept", "Not lost by the fix.\n")
    (alice.layout.team_dir / ".git" / "index.lock").write_text("")

    code, output = _doctor(alice)
    assert code == 1
    assert "[team:wedged]" in output and "index.lock" in output and "doctor --fix" in output

    code, output = _doctor(alice, "--fix")
    assert code == 0, output
    assert "[fixed]" in output and "index.lock" in output
    assert not (alice.layout.team_dir / ".git" / "index.lock").exists()
    assert "Not lost by the fix." in team_files(alice)[file]
    code, output = _doctor(alice)
    assert code == 0 and "all good" in output and "0 ahead, 0 behind" in output


def test_doctor_shows_the_last_failure_with_gits_whole_message(
    clone: Clone, remote: Path, tmp_path: Path
) -> None:
    alice = _failed_sync(clone, remote, tmp_path / "moved.git")

    code, output = _doctor(alice)

    assert code == 1 and "[team:sync-failed]" in output
    assert "Please make sure you have the correct access rights" in output
    assert "memdir team sync" in output  # the next step


def test_a_commit_killed_after_staging_keeps_the_staged_work(clone: Clone, remote: Path) -> None:
    alice = clone("alice")
    file = remember(alice, "Staged only", "Staged, never committed.\n")
    team_dir = alice.layout.team_dir
    run_git(team_dir, "add", "-A")  # what the killed sync's commit had staged
    (team_dir / ".git" / "index.lock").write_text("")

    report = sync_team(alice)

    assert "index.lock" in report.recovered
    assert "Staged, never committed." in team_files(alice)[file]
    assert file in remote_files(remote)
