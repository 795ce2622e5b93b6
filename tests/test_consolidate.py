"""Consolidation's gates and lock: order, cheapest first, with a frozen clock; real processes."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest

from consolidation.helpers import (
    NOW,
    add_notes_session,
    add_sessions,
    add_transcript_session,
    ago,
    dead_pid,
    live_process,
    lock_file,
    set_mtime,
    write_lock,
)
from memdir.agents.consolidate.gates import (
    STATE_NAME,
    acquire_lock,
    read_last_scan,
    read_lock,
    rollback_lock,
    write_last_scan,
)
from memdir.agents.consolidate.run import (
    ConsolidationReport,
    Gate,
    consolidate,
    consolidation_status,
)
from memdir.api import Memdir
from memdir.errors import ProviderError
from memdir.testing import ScriptedProvider

ORDER = [Gate.ENABLED, Gate.TIME, Gate.THROTTLE, Gate.SESSIONS, Gate.LOCK]
WAIT = 60.0


def state_file(mem: Memdir) -> Path:
    return mem.layout.state_dir / STATE_NAME


def gates_of(report: ConsolidationReport) -> list[Gate]:
    return [check.gate for check in report.checks]


def reason(report: ConsolidationReport) -> str:
    assert report.skipped_reason is not None
    return report.skipped_reason


# --- the gate matrix ------------------------------------------------------------------


def gated_run(
    mem: Memdir, provider: ScriptedProvider, *, hours_since_run: int, sessions: int
) -> tuple[Path, ConsolidationReport]:
    """A consolidation ``hours_since_run`` after the last, with ``sessions`` sessions of
    an hour ago: the lock file and the report."""
    lock = write_lock(mem, pid=None, at=ago(hours=hours_since_run))
    add_sessions(mem, sessions, at=ago(hours=1))
    return lock, consolidate(mem, provider, now=NOW)


def test_disabled_memory_stops_at_the_first_gate_and_reads_nothing_else(mem: Memdir) -> None:
    add_sessions(mem, 5, at=ago(hours=1))
    provider = ScriptedProvider("done")

    report = consolidate(mem, provider, now=NOW, enabled=False)

    assert not report.ran and report.blocked_by is Gate.ENABLED
    assert gates_of(report) == ORDER[:1]
    assert not state_file(mem).exists() and not lock_file(mem).exists()
    assert provider.requests == []


def test_a_recent_run_blocks_at_the_time_gate_before_sessions_are_counted(mem: Memdir) -> None:
    provider = ScriptedProvider("done")

    lock, report = gated_run(mem, provider, hours_since_run=23, sessions=5)

    assert report.blocked_by is Gate.TIME and "23.0 h since the last run" in reason(report)
    assert gates_of(report) == ORDER[:2]
    # Neither the throttle nor the session count ran: no scan was recorded.
    assert not state_file(mem).exists()
    assert lock.stat().st_mtime == ago(hours=23).timestamp()
    assert provider.requests == []


def test_a_recent_scan_blocks_at_the_throttle_without_counting_sessions(mem: Memdir) -> None:
    write_lock(mem, pid=None, at=ago(hours=48))
    write_last_scan(state_file(mem), ago(minutes=5))
    add_sessions(mem, 5, at=ago(hours=1))

    report = consolidate(mem, ScriptedProvider("done"), now=NOW)

    assert report.blocked_by is Gate.THROTTLE
    assert gates_of(report) == ORDER[:3]
    assert read_last_scan(state_file(mem)) == ago(minutes=5).timestamp()


def test_too_few_sessions_block_after_recording_the_scan_and_leave_the_lock(mem: Memdir) -> None:
    provider = ScriptedProvider("done")

    lock, report = gated_run(mem, provider, hours_since_run=48, sessions=4)

    assert report.blocked_by is Gate.SESSIONS and "4 sessions" in reason(report)
    assert gates_of(report) == ORDER[:4]
    assert read_last_scan(state_file(mem)) == NOW.timestamp()
    assert lock.read_text() == "" and lock.stat().st_mtime == ago(hours=48).timestamp()
    assert provider.requests == []


def test_a_live_holder_blocks_at_the_lock_gate_after_every_other_gate_passed(
    project: Path,
) -> None:
    mem = Memdir.open(project, consolidate_min_hours=0.25)
    add_sessions(mem, 5, at=ago(minutes=10))
    provider = ScriptedProvider("done")
    with live_process() as holder:
        lock = write_lock(mem, pid=holder, at=ago(minutes=30))

        report = consolidate(mem, provider, now=NOW)

        assert report.blocked_by is Gate.LOCK and f"PID {holder}" in reason(report)
        assert gates_of(report) == ORDER
        assert lock.read_text().strip() == str(holder)
    assert provider.requests == []


def test_when_every_gate_passes_the_run_starts_and_stamps_the_lock(mem: Memdir) -> None:
    provider = ScriptedProvider("Nothing needed consolidating.")

    _, report = gated_run(mem, provider, hours_since_run=48, sessions=5)

    assert report.ran and report.error is None and report.skipped_reason is None
    assert gates_of(report) == ORDER and all(check.passed for check in report.checks)
    assert len(provider.requests) == 1
    assert lock_file(mem).stat().st_mtime == NOW.timestamp()
    assert lock_file(mem).read_text() == ""  # finished: no holder
    assert report.message == "Improved 0 memories"


def test_force_skips_time_throttle_and_sessions_but_not_the_lock(mem: Memdir) -> None:
    write_lock(mem, pid=None, at=ago(minutes=5))
    write_last_scan(state_file(mem), ago(minutes=1))

    forced = consolidate(mem, ScriptedProvider("ok"), now=NOW, force=True)

    assert forced.ran and gates_of(forced) == [Gate.ENABLED, Gate.LOCK]
    with live_process() as holder:
        write_lock(mem, pid=holder, at=ago(minutes=5))
        blocked = consolidate(mem, ScriptedProvider("ok"), now=NOW, force=True)
    assert blocked.blocked_by is Gate.LOCK


# --- sessions and status ----------------------------------------------------------------


def test_sessions_count_notes_and_transcripts_once_each_since_the_last_run(mem: Memdir) -> None:
    write_lock(mem, pid=None, at=ago(hours=30))
    add_notes_session(mem, "both", at=ago(hours=2))
    add_transcript_session(mem, "both", at=ago(hours=2))
    add_notes_session(mem, "notes-only", at=ago(hours=3))
    add_transcript_session(mem, "transcript-only", at=ago(hours=4))
    add_transcript_session(mem, "current", at=ago(minutes=1))
    add_notes_session(mem, "before-last-run", at=ago(hours=31))
    add_transcript_session(mem, "old-transcript", at=ago(days=3))

    status = consolidation_status(mem, now=NOW, current_session="current")

    assert status.sessions_since == 3
    assert consolidation_status(mem, now=NOW).sessions_since == 4


def test_a_project_never_consolidated_counts_every_session(mem: Memdir) -> None:
    add_sessions(mem, 3, at=ago(days=400))
    status = consolidation_status(mem, now=NOW)
    assert status.last_run is None and status.hours_since is None
    assert status.sessions_since == 3 and status.blocked_by is Gate.SESSIONS


def test_status_reports_every_gate_and_writes_nothing(mem: Memdir) -> None:
    write_last_scan(state_file(mem), ago(minutes=3))
    scan_before = state_file(mem).read_bytes()
    add_sessions(mem, 6, at=ago(minutes=10))
    with live_process() as holder:
        lock = write_lock(mem, pid=holder, at=ago(minutes=20))

        status = consolidation_status(mem, now=NOW)

        assert status.last_run == ago(minutes=20)
        assert status.hours_since == pytest.approx(20 / 60)
        assert status.last_scan == ago(minutes=3)
        assert status.sessions_since == 6
        assert (status.lock_holder, status.holder_alive, status.lock_held) == (holder, True, True)
        assert [c.gate for c in status.checks] == ORDER
        assert [c.passed for c in status.checks] == [True, False, False, True, False]
        assert status.blocked_by is Gate.TIME and not status.ready
        assert lock.stat().st_mtime == ago(minutes=20).timestamp()
    assert state_file(mem).read_bytes() == scan_before


def test_status_shows_a_dead_holder_as_not_holding(mem: Memdir) -> None:
    write_lock(mem, pid=dead_pid(), at=ago(minutes=5))
    status = consolidation_status(mem, now=NOW)
    assert status.lock_holder is not None and not status.holder_alive and not status.lock_held
    assert status.checks[-1].passed


# --- the lock ---------------------------------------------------------------------------


def test_a_lock_body_of_non_decimal_digits_has_no_holder(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    path.write_text("\u00b2\n", encoding="utf-8")  # isdigit() but not a number int() reads
    state = read_lock(path, now=dt.datetime.now(dt.UTC), stale_after=dt.timedelta(hours=1))
    assert state.holder is None and not state.held


def test_a_failed_run_rolls_the_lock_mtime_back(mem: Memdir) -> None:
    provider = ScriptedProvider(ProviderError("the model is down", hint="retry later"))

    lock, report = gated_run(mem, provider, hours_since_run=48, sessions=5)

    assert report.ran and report.error is not None and "the model is down" in report.error
    assert report.message.startswith("Consolidation failed")
    assert lock.stat().st_mtime == ago(hours=48).timestamp()
    assert lock.read_text() == ""  # our PID is not left behind
    # The next attempt is not pushed back a day: only the throttle waits.
    later = consolidate(mem, ScriptedProvider("ok"), now=ago(minutes=-11))
    assert later.ran


def test_an_agent_error_propagates_after_rolling_the_lock_back(mem: Memdir) -> None:
    lock = write_lock(mem, pid=None, at=ago(hours=48))
    provider = ScriptedProvider(RuntimeError("bug in a tool"))

    with pytest.raises(RuntimeError, match="bug in a tool"):
        consolidate(mem, provider, now=NOW, force=True)

    assert lock.stat().st_mtime == ago(hours=48).timestamp() and lock.read_text() == ""


def test_a_cancelled_run_rolls_the_lock_back(mem: Memdir) -> None:
    lock = write_lock(mem, pid=None, at=ago(hours=48))
    with pytest.raises(KeyboardInterrupt):
        consolidate(mem, ScriptedProvider(KeyboardInterrupt()), now=NOW, force=True)
    assert lock.stat().st_mtime == ago(hours=48).timestamp()


def test_a_lock_file_created_for_a_failed_run_is_removed(mem: Memdir) -> None:
    assert not lock_file(mem).exists()
    report = consolidate(mem, ScriptedProvider(ProviderError("down")), now=NOW, force=True)
    assert report.error is not None
    assert not lock_file(mem).exists()
    assert consolidation_status(mem, now=NOW).last_run is None


def test_a_lock_held_by_a_dead_process_is_taken_over(mem: Memdir) -> None:
    write_lock(mem, pid=dead_pid(), at=ago(minutes=10))
    report = consolidate(mem, ScriptedProvider("ok"), now=NOW, force=True)
    assert report.ran and report.checks[-1].detail == "lock acquired"
    assert lock_file(mem).stat().st_mtime == NOW.timestamp()


def test_a_lock_older_than_an_hour_is_taken_over_even_if_its_holder_lives(mem: Memdir) -> None:
    with live_process() as holder:
        write_lock(mem, pid=holder, at=ago(minutes=61))
        report = consolidate(mem, ScriptedProvider("ok"), now=NOW, force=True)
    assert report.ran and report.error is None


def test_rollback_leaves_a_lock_that_someone_else_took_over(tmp_path: Path) -> None:
    path, mutex = tmp_path / ".consolidate-lock", tmp_path / "mutex"
    hour = dt.timedelta(hours=1)
    attempt = acquire_lock(path, now=NOW, stale_after=hour, mutex=mutex, pid=dead_pid())
    assert attempt.lease is not None
    path.write_text("999999\n")  # another consolidation took the stale lock over
    set_mtime(path, NOW)

    rollback_lock(attempt.lease)

    assert path.read_text() == "999999\n" and path.stat().st_mtime == NOW.timestamp()


RACER = r"""
import sys
from memdir.api import Memdir
from memdir.agents.consolidate.run import consolidate
from memdir.testing import ScriptedProvider

def hold_until_told(request):
    print("running", flush=True)
    sys.stdin.readline()
    return "nothing to change"

mem = Memdir.open(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()
report = consolidate(mem, ScriptedProvider(hold_until_told), force=True)
print("ran" if report.ran else f"skipped {report.blocked_by}", flush=True)
"""


def test_two_processes_racing_for_the_lock_exactly_one_runs(mem: Memdir, project: Path) -> None:
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(project)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
        )
        for _ in range(2)
    ]
    try:
        for racer in racers:
            assert racer.stdout is not None and racer.stdout.readline().strip() == "ready"
        for racer in racers:  # both are waiting: release them together
            assert racer.stdin is not None
            racer.stdin.write("go\n")
            racer.stdin.flush()
        first = [racer.stdout.readline().strip() for racer in racers if racer.stdout]
        assert sorted(first) == ["running", "skipped lock"]
        winner = racers[first.index("running")]
        assert winner.stdin is not None
        winner.stdin.write("finish\n")
        winner.stdin.flush()
        out, _ = winner.communicate(timeout=WAIT)
        assert out.strip() == "ran"
    finally:
        for racer in racers:
            if racer.poll() is None:
                racer.kill()
            racer.communicate(timeout=WAIT)
    assert lock_file(mem).read_text() == ""
