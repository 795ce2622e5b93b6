"""Undo and approval are recorded only once complete: cut short, they are finished by a rerun."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from consolidation.helpers import NOW, snapshot
from memdir.agents.consolidate.run import consolidate
from memdir.api import Memdir
from memdir.cli import main
from memdir.errors import Conflict, DiskFull, MemdirError
from memdir.history import reverse
from memdir.history.intents import APPROVE, UNDO
from memdir.history.provenance import provenance
from memdir.history.versions import APPROVED, History
from memdir.model import Scope
from memdir.testing import ScriptedProvider, tool_use
from proposalutil import rewrite_ci, write_ci_memories
from test_disk_full import Disk
from test_disk_full import disk as disk  # the fixture: a small tmpfs holds the memory home


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def history_of(mem: Memdir) -> History:
    assert mem.history_db is not None
    return mem.history_db


def consolidated(project: Path) -> tuple[Memdir, dict[str, bytes], int]:
    """A project after a consolidation that rewrote, deleted and created memories.

    Returns the memory, the folder as it was before the run, and the run's change.
    """
    mem = Memdir.open(project)
    write_ci_memories(mem)
    mem.write(name="Tabs", description="Indentation", type="feedback", body="Use tabs.")
    before = snapshot(mem)
    provider = ScriptedProvider(
        rewrite_ci(),
        tool_use("delete_memory", {"file": "ci_host.md"}),
        tool_use(
            "write_memory",
            {"name": "Release day", "description": "Tuesdays", "type": "project", "body": "Tue"},
        ),
        "Merged.",
    )
    report = consolidate(mem, provider, now=NOW, force=True)
    assert report.ran and report.error is None, report
    change = history_of(mem).last_change()
    assert change is not None and change.action == "consolidation"
    return mem, before, change.id


def steps_of(mem: Memdir, change: int) -> int:
    """How many files the undo of ``change`` puts back (planned, nothing touched)."""
    found = history_of(mem).change(change)
    assert found is not None
    steps, _ = reverse.plan_of(mem, history_of(mem), found)
    return len(steps)


def failing_at(k: int, exc: Callable[[], BaseException]) -> Callable[..., bool]:
    """``apply_step``, raising ``exc()`` instead of its ``k``-th step (counted from 0)."""
    real = reverse.apply_step
    calls = [0]

    def step(*args: object, **kwargs: object) -> bool:
        if calls[0] == k:
            raise exc()
        calls[0] += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    return step


def test_an_undo_cut_short_at_any_step_is_not_recorded_and_a_rerun_finishes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = tmp_path / "probe"
    probe.mkdir()
    mem, _, change = consolidated(probe)
    count = steps_of(mem, change)
    assert count >= 4  # three memory files and the index
    for k in range(count):
        project = tmp_path / f"cut-at-{k}"
        project.mkdir()
        mem, before, change = consolidated(project)
        full = lambda: OSError(errno.ENOSPC, "No space left on device", "injected")  # noqa: E731
        with monkeypatch.context() as patch:
            patch.setattr(reverse, "apply_step", failing_at(k, full))
            with pytest.raises(DiskFull) as raised:
                mem.undo()

        assert "stopped half way" in str(raised.value) and "not marked undone" in str(raised.value)
        history = history_of(mem)
        assert not history.is_undone(change)
        assert [i.target for i in history.intents(UNDO)] == [change]
        report = mem.undo()
        assert (report.change, report.resumed) == (change, True)
        assert history.is_undone(change) and history.intents(UNDO) == []
        assert snapshot(mem) == before


def test_the_next_undo_finishes_the_one_cut_short_never_an_older_change(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem, _, change = consolidated(project)
    older = history_of(mem).change(change - 1)
    assert older is not None and older.action != "consolidation"
    broken = lambda: OSError(errno.EIO, "Input/output error", "injected")  # noqa: E731
    with monkeypatch.context() as patch:
        patch.setattr(reverse, "apply_step", failing_at(1, broken))
        with pytest.raises(MemdirError, match="stopped half way"):
            mem.undo()
    mem.write(name="Later", description="written meanwhile", type="project", body="later")

    code, out = run("undo", "--project", str(project))

    assert code == 0, out
    assert "finished an undo that was cut short" in out and f"change {change} " in out
    history = history_of(mem)
    assert history.is_undone(change) and not history.is_undone(older.id)
    assert mem.get("Later").memory.body == "later\n"  # the later write stays
    assert mem.get("CI host").memory.body == "GHA too\n"  # the run is reversed
    assert "doctor --fix" in out  # the index changed meanwhile: derived, repaired by doctor


KILLER = textwrap.dedent(
    """
    import os, signal, sys
    from memdir.api import Memdir
    from memdir.history import reverse
    from memdir.history.versions import History

    project, k = sys.argv[1], int(sys.argv[2])
    real, calls = reverse.apply_step, [0]

    def step(*args, **kwargs):
        if calls[0] == k:
            os.kill(os.getpid(), signal.SIGKILL)
        calls[0] += 1
        return real(*args, **kwargs)

    def finish(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    reverse.apply_step = step
    History.finish_undo = finish  # reached only once every step is made
    Memdir.open(project).undo()
    """
)


def test_an_undo_killed_at_any_point_is_finished_by_the_next_undo(tmp_path: Path) -> None:
    probe = tmp_path / "probe"
    probe.mkdir()
    count = steps_of(*consolidated(probe)[::2])
    for k in range(count + 1):  # before each step, and after the last one
        project = tmp_path / f"killed-at-{k}"
        project.mkdir()
        mem, before, change = consolidated(project)
        killed = subprocess.run(
            [sys.executable, "-c", KILLER, str(project), str(k)],
            env=os.environ.copy(),
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        history = history_of(mem)
        assert not history.is_undone(change)

        report = mem.undo()

        assert (report.change, report.resumed) == (change, True)
        assert history.is_undone(change) and history.intents(UNDO) == []
        assert snapshot(mem) == before


def test_an_undo_on_a_full_disk_is_not_recorded_and_finishes_once_space_is_back(
    disk: Disk,
    project: Path,
) -> None:
    mem = Memdir.open(project)
    mem.write(name="Big", description="a long memory", type="project", body="x " * 100_000)
    mem.write(name="Small", description="a short one", type="project", body="s")
    before = snapshot(mem)
    shrink = {"file": "big.md", "name": "Big", "description": "shorter", "type": "project"}
    provider = ScriptedProvider(
        tool_use("write_memory", {**shrink, "body": "short now"}),
        tool_use("delete_memory", {"file": "small.md"}),
        "done",
    )
    assert consolidate(mem, provider, now=NOW, force=True).ran
    history = history_of(mem)
    change = history.last_change()
    assert change is not None
    disk.fill(leave=64 << 10)  # room for the intent and the small file, not the 200 KB one

    with pytest.raises(DiskFull) as raised:
        mem.undo()

    said = str(raised.value)
    assert "no space left on device writing" in said and "big.md" in said
    assert "stopped half way (back: private:small.md; left: private:big.md" in said
    assert not history.is_undone(change.id)
    disk.release()
    report = mem.undo()
    assert report.change == change.id
    assert history.is_undone(change.id)
    assert snapshot(mem) == before
    assert mem.undo().change != change.id  # the next undo goes on to the change before


def test_undo_after_a_redaction_refuses_naming_the_file_and_never_deletes_later_text(
    mem: Memdir,
) -> None:
    for body in ("first text", "the key is hunter2", "clean later text"):
        mem.write(name="Deploy", description="deploys", type="project", body=body)
    leaked = mem.history("Deploy")[1]
    mem.redact("Deploy", leaked.id)
    path = mem.layout.memory_dir / "deploy.md"
    history = history_of(mem)
    last = history.last_change()
    assert last is not None

    for _ in range(2):  # refused, and refused again: never an older change instead
        with pytest.raises(MemdirError, match="redacted") as raised:
            mem.undo()
        assert "private:deploy.md" in str(raised.value) and "nothing was changed" in str(
            raised.value
        )

    assert "clean later text" in path.read_text()
    assert not history.is_undone(last.id)
    assert history.intents(UNDO) == []


def test_an_undo_refuses_a_file_changed_since_before_touching_any(project: Path) -> None:
    mem, _, change = consolidated(project)
    path = mem.layout.memory_dir / "ci_runs_on_github.md"
    path.write_text(path.read_text() + "edited by hand\n")
    after_run = snapshot(mem)

    with pytest.raises(Conflict, match=r"ci_runs_on_github\.md changed after"):
        mem.undo()

    assert snapshot(mem) == after_run
    assert not history_of(mem).is_undone(change)
    assert history_of(mem).intents(UNDO) == []


# -- review approvals ---------------------------------------------------------------------


def proposed(project: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Memdir, int]:
    """An agent's memory held under manual review; returns the memory and the version."""
    monkeypatch.setenv("MEMDIR_REVIEW", "manual")
    mem = Memdir.open(project)
    with provenance(route="mcp", session="session-1"):
        result = mem.write(
            name="Invoices", description="rounding", type="project", body="Round half up."
        )
    assert result.pending is not None
    return mem, result.pending


def test_an_approval_cut_short_is_listed_and_approving_again_completes_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem, version = proposed(project, monkeypatch)

    def killed(self: History, version_id: int, status: str) -> None:
        raise KeyboardInterrupt  # the process ends between the write and its record

    with monkeypatch.context() as patch:
        patch.setattr(History, "set_status", killed)
        with pytest.raises(KeyboardInterrupt):
            mem.approve("Invoices")
    assert mem.get("Invoices").memory.body == "Round half up.\n"  # the write was made
    code, listing = run("review", "--project", str(project))
    assert code == 0 and f"approval cut short: `memdir review approve v{version}`" in listing

    code, out = run("review", "approve", f"v{version}", "--project", str(project))

    assert code == 0, out
    history = history_of(mem)
    found = history.version(version)
    assert found is not None and found.status == APPROVED
    assert history.intents(APPROVE) == [] and mem.review() == []
    applied = [v.action for v in mem.history("Invoices") if v.status is None]
    assert applied == ["approve"]  # written once, not twice
    assert "nothing awaits review" in run("review", "--project", str(project))[1]


APPROVER = textwrap.dedent(
    """
    import os, signal, sys
    from memdir.api import Memdir
    from memdir.history.versions import History

    def killed(self, version_id, status):
        os.kill(os.getpid(), signal.SIGKILL)

    History.set_status = killed
    Memdir.open(sys.argv[1]).approve(None)
    """
)


def test_an_approval_killed_after_its_write_is_completed_by_approving_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem, version = proposed(project, monkeypatch)
    killed = subprocess.run(
        [sys.executable, "-c", APPROVER, str(project)],
        env=os.environ.copy(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert [p.version.status for p in mem.review()] == ["approving"]
    with pytest.raises(Conflict, match="applied already"):
        mem.reject(f"v{version}")

    done = mem.approve(None)

    assert [v.id for v in done] == [version]
    assert mem.review() == []
    assert mem.get("Invoices").memory.body == "Round half up.\n"
    assert [v.action for v in mem.history("Invoices", scope=Scope.PRIVATE) if v.status is None] == [
        "approve"
    ]


def test_an_approval_refused_before_its_write_leaves_no_approval_under_way(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem, version = proposed(project, monkeypatch)
    mem.write(name="Invoices", description="rounding", type="project", body="By hand.")

    with pytest.raises(Conflict, match="changed since the agent proposed"):
        mem.approve(f"v{version}")

    assert history_of(mem).intents(APPROVE) == []
    assert [p.version.status for p in mem.review()] == ["pending"]
