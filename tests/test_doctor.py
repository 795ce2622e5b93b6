"""doctor: what it finds, what --fix repairs, and what it never touches."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memdir import Memdir
from memdir.recall.doctor import Problem, diagnose
from memdir.storage.memory_index import parse_entries


def problems(mem: Memdir) -> set[tuple[str, str | None]]:
    return {(f.problem.value, f.file) for f in diagnose(mem).findings}


def test_a_clean_memory_has_no_findings(mem: Memdir) -> None:
    mem.write(name="A", description="d", type="project")
    assert diagnose(mem).ok and diagnose(mem).findings == ()


def test_each_kind_of_breakage_is_reported(mem: Memdir) -> None:
    mem.write(name="A", description="d", type="project")
    root = mem.layout.memory_dir
    (root / "orphan.md").write_text("---\nname: O\ndescription: d\ntype: user\n---\n")
    (root / "legacy.md").write_text("---\nname: L\ndescription: d\n---\n")
    (root / "odd.md").write_text("---\nname: Odd\ndescription: d\ntype: opinion\n---\n")
    (root / "broken.md").write_text("---\nname: [x\n  - : :\n---\n")
    (root / "nodesc.md").write_text("---\nname: N\ntype: user\n---\n")
    (mem.layout.team_dir / "me.md").write_text("---\nname: Me\ndescription: d\ntype: user\n---\n")
    index = mem.private.read_index()
    index += "- [A](a.md) — dup\n- [Gone](gone.md) — x\n"
    index += "- [Long](orphan.md) — " + "w" * 200 + "\n"
    (root / "MEMORY.md").write_text(index)
    found = problems(mem)
    assert {
        ("duplicate", "a.md"),
        ("dangling", "gone.md"),
        ("long-line", "orphan.md"),
        ("missing-type", "legacy.md"),
        ("unknown-type", "odd.md"),
        ("unparseable", "broken.md"),
        ("missing-field", "nodesc.md"),
        ("wrong-scope", "me.md"),
        ("orphan", "me.md"),
    } <= found


def test_fix_repairs_the_index_and_never_touches_memory_files(mem: Memdir) -> None:
    mem.write(name="A", description="d", type="project")
    root = mem.layout.memory_dir
    (root / "orphan.md").write_text("---\nname: Orphan\ndescription: hook\ntype: user\n---\n")
    (root / "broken.md").write_text("---\nname: [x\n  - : :\n---\n")
    (root / "MEMORY.md").write_text(
        "# notes\n- [A](a.md) — d\n- [A](a.md) — dup\n- [Gone](gone.md) — x\n"
    )
    before = {p.name: p.read_bytes() for p in root.glob("*.md") if p.name != "MEMORY.md"}
    report = diagnose(mem, fix=True)
    assert {f.problem for f in report.findings if f.fixed} == {
        Problem.ORPHAN,
        Problem.DANGLING,
        Problem.DUPLICATE,
    }
    after = {p.name: p.read_bytes() for p in root.glob("*.md") if p.name != "MEMORY.md"}
    assert after == before
    text = mem.private.read_index()
    assert text.startswith("# notes\n")
    # broken.md cannot be read: it gets no index line (doctor names it unparseable).
    assert [e.file for e in parse_entries(text)] == ["a.md", "orphan.md"]
    assert [f.problem for f in diagnose(mem).findings] == [Problem.UNPARSEABLE]


def test_entries_that_truncation_would_drop_are_listed(project_path_mem: Memdir) -> None:
    mem = project_path_mem
    for i in range(12):
        mem.write(name=f"m{i}", description="d", type="project")
    truncated = [f.file for f in diagnose(mem).findings if f.problem is Problem.TRUNCATED]
    assert truncated == ["m10.md", "m11.md"]


def test_drift_lists_memories_whose_files_are_gone(mem: Memdir) -> None:
    (mem.layout.project_root / "src").mkdir()
    (mem.layout.project_root / "src" / "api.py").write_text("def serve():\n    pass\n")
    mem.write(name="API", description="d", type="project", body="See `src/api.py` and `serve()`.")
    assert not [f for f in diagnose(mem, drift=True).findings if f.problem is Problem.DRIFT]
    (mem.layout.project_root / "src" / "api.py").unlink()
    drift = [f.message for f in diagnose(mem, drift=True).findings if f.problem is Problem.DRIFT]
    assert any("src/api.py" in m and "no longer exists" in m for m in drift)


WRITER = textwrap.dedent(
    """
    import sys
    from memdir.api import Memdir
    project, worker, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    mem = Memdir.open(project)
    for i in range(count):
        mem.write(name=f"w{worker} m{i}", description=f"memory {i}", type="project")
    """
)


def race_doctor_against_writers(mem: Memdir, *, writers: int, count: int) -> tuple[int, int]:
    """Run ``doctor --fix`` in a loop while ``writers`` processes add memories.

    Returns (doctor runs, index lines doctor dropped).
    """
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(mem.layout.project_root), str(w), str(count)],
            env=os.environ.copy(),
        )
        for w in range(writers)
    ]
    runs, lost = 0, set()
    while any(p.poll() is None for p in procs) or runs == 0:
        diagnose(mem, fix=True)
        runs += 1
        # Writers hold this lock from file to index line: under it, a file
        # without a line can only be one doctor dropped.
        with mem.private.lock():
            listed = {e.file for e in parse_entries(mem.private.read_index())}
            lost |= set(mem.private.files()) - listed
    assert [p.wait(timeout=300) for p in procs] == [0] * writers
    expected = {f"w{w}_m{i}.md" for w in range(writers) for i in range(count)}
    assert set(mem.private.files()) == expected
    return runs, len(lost)


def test_doctor_fix_racing_three_writers_drops_no_index_line(mem: Memdir) -> None:
    for _ in range(2):
        runs, missing = race_doctor_against_writers(mem, writers=3, count=40)
        assert runs >= 1
        assert missing == 0


def test_old_temp_files_are_reported_and_removed_by_fix_young_ones_are_left(mem: Memdir) -> None:
    mem.write(name="A", description="d", type="project")
    root = mem.layout.memory_dir
    old = root / ".a.md.k3j2h1.tmp"
    young = root / ".b.md.x9y8z7.tmp"
    nested = mem.layout.team_dir / ".t.md.q1w2e3.tmp"
    for path in (old, young, nested):
        path.write_text("partial")
    stale = time.time() - 3600
    os.utime(old, (stale, stale))
    os.utime(nested, (stale, stale))
    found = problems(mem)
    assert ("temp-file", ".a.md.k3j2h1.tmp") in found
    assert ("temp-file", ".t.md.q1w2e3.tmp") in found
    assert ("temp-file", ".b.md.x9y8z7.tmp") not in found
    assert old.exists() and not diagnose(mem).ok
    report = diagnose(mem, fix=True)
    assert report.ok
    assert not old.exists() and not nested.exists()
    assert young.read_text() == "partial"
    assert (root / "a.md").is_file()


def test_a_staged_copy_a_killed_writer_left_is_removed_by_fix_other_dot_folders_are_not(
    mem: Memdir,
) -> None:
    mem.write(name="A", description="d", type="project")
    root = mem.layout.memory_dir
    staged = root / ".staging" / ".a.md.k3j2h1.tmp"
    foreign = root / ".git" / ".x.md.k3j2h1.tmp"  # not the store's: never touched
    for path in (staged, foreign):
        path.parent.mkdir(exist_ok=True)
        path.write_text("partial")
        stale = time.time() - 3600
        os.utime(path, (stale, stale))
    assert ("temp-file", ".staging/.a.md.k3j2h1.tmp") in problems(mem)
    assert diagnose(mem, fix=True).ok
    assert not staged.exists()
    assert foreign.read_text() == "partial"
    mem.write(name="B", description="d", type="project")  # the staging folder still works
    assert (root / "b.md").is_file()


def _many_orphans(mem: Memdir, count: int) -> None:
    for i in range(count):
        (mem.layout.memory_dir / f"orphan_{i:03}.md").write_text(
            f"---\nname: O{i}\ndescription: d\ntype: project\n---\n"
        )


def test_doctor_on_a_large_store_prints_counts_and_the_first_few_of_each_kind(
    mem: Memdir,
) -> None:
    from click.testing import CliRunner

    from memdir.cli import main

    _many_orphans(mem, 60)
    (mem.layout.memory_dir / "legacy.md").write_text("---\nname: L\ndescription: d\n---\n")
    args = ["doctor", "--project", str(mem.layout.project_root)]
    summary = CliRunner().invoke(main, args)
    assert summary.exit_code == 1
    lines = summary.stdout.splitlines()
    assert lines[0] == "62 findings: 61 orphan, 1 missing-type"
    assert "orphan_003.md" in summary.stdout and "orphan_004.md" not in summary.stdout
    assert "... and 56 more" in summary.stdout and "--all" in summary.stdout
    assert len(lines) < 20
    everything = CliRunner().invoke(main, [*args, "--all"])
    assert "orphan_059.md" in everything.stdout
    assert len(everything.stdout.splitlines()) == 62


def test_doctor_prints_a_small_store_in_full(mem: Memdir) -> None:
    from click.testing import CliRunner

    from memdir.cli import main

    _many_orphans(mem, 3)
    result = CliRunner().invoke(main, ["doctor", "--project", str(mem.layout.project_root)])
    assert len(result.stdout.splitlines()) == 3 and "findings:" not in result.stdout


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` made read-only: a read-only bind mount as root (root writes through any
    permission), else its permissions; skipped where neither is possible."""
    if os.geteuid() != 0:
        folder.chmod(0o500)
        try:
            yield
        finally:
            folder.chmod(0o700)
        return
    bound = subprocess.run(["mount", "--bind", str(folder), str(folder)], check=False)
    if bound.returncode != 0:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must be able to bind-mount a folder read-only")
        pytest.skip("a read-only bind mount needs mount privileges")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], check=True)
        yield
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_read_only_memory_folder_is_a_finding_with_its_fix(mem: Memdir) -> None:
    from click.testing import CliRunner

    from memdir.cli import main

    mem.write(name="A", description="d", type="project")
    with read_only(mem.layout.memory_dir):
        report = diagnose(mem)
        found = [f for f in report.findings if f.problem is Problem.READ_ONLY]
        # The team folder lives inside the private one: read-only too.
        assert [f.scope.value for f in found] == ["private", "team"] and not report.ok
        finding = found[0]
        assert "read-only" in finding.message and "chmod u+w" in finding.fix
        result = CliRunner().invoke(main, ["doctor", "--project", str(mem.layout.project_root)])
        assert result.exit_code == 1 and "[read-only] private the private memory folder" in (
            result.stdout
        )
        assert "all good" not in result.stdout
    assert diagnose(mem).ok


def test_every_finding_names_its_fix(mem: Memdir) -> None:
    mem.write(name="A", description="d", type="project")
    root = mem.layout.memory_dir
    (root / "orphan.md").write_text("---\nname: O\ndescription: d\ntype: project\n---\n")
    (root / "broken.md").write_text("---\nname: [x\n---\n")
    fixes = {f.problem: f.fix for f in diagnose(mem).findings}
    assert fixes[Problem.ORPHAN] == "memdir doctor --fix adds its index line"
    assert fixes[Problem.UNPARSEABLE].startswith("fix its frontmatter: memdir edit broken.md")
    assert all(fix and "FILE" not in fix for fix in fixes.values())
