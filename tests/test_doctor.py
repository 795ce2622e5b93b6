"""doctor: what it finds, what --fix repairs, and what it never touches."""

from __future__ import annotations

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
    assert [e.file for e in parse_entries(text)] == ["a.md", "broken.md", "orphan.md"]
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
