"""The manifest: one line per memory, newest first or ranked, from file heads only."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from memdir.api import Memdir
from memdir.model import Memory, MemoryType, Scope
from memdir.recall.manifest import ScannedMemories, build_manifest, scan_memory_files
from memdir.search.catalog import CATALOG_NAME, Catalog


def put(
    root: Path,
    file: str,
    *,
    description: str,
    type: str = "project",
    mtime: float | None = None,
    extra: str = "",
    body: str = "Body.\n",
) -> Path:
    """Write a memory file by hand (as an agent would), with a chosen mtime."""
    path = root / file
    path.parent.mkdir(parents=True, exist_ok=True)
    name = Path(file).stem.replace("_", " ")
    path.write_text(
        f"---\nname: {name}\ndescription: {description}\ntype: {type}\n{extra}---\n{body}",
        encoding="utf-8",
    )
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def at(day: int) -> float:
    """Noon, local time, on a day of March 2026."""
    return dt.datetime(2026, 3, day, 12, 0, 0).timestamp()


def test_entries_are_one_line_each_newest_first(mem: Memdir) -> None:
    root = mem.layout.memory_dir
    put(root, "old.md", description="the old one", mtime=at(1))
    put(root, "new.md", description="the new one", type="feedback", mtime=at(5))
    put(root, "mid.md", description="the middle one", type="reference", mtime=at(3))
    manifest = build_manifest(mem)
    assert manifest.text.splitlines() == [
        "[feedback] new.md (2026-03-05): the new one",
        "[reference] mid.md (2026-03-03): the middle one",
        "[project] old.md (2026-03-01): the old one",
    ]
    assert (manifest.total, manifest.omitted, manifest.ranked) == (3, 0, False)


def test_the_limit_keeps_the_newest_and_counts_the_rest(mem: Memdir) -> None:
    for day in range(1, 8):
        put(mem.layout.memory_dir, f"m{day}.md", description=f"day {day}", mtime=at(day))
    manifest = build_manifest(mem, limit=3)
    assert [e.ref for e in manifest.entries] == ["m7.md", "m6.md", "m5.md"]
    assert manifest.omitted == 4
    assert manifest.text.splitlines()[-1] == "(4 more memories not listed)"


def test_the_default_limit_is_the_manifest_max_entries_setting(project: Path) -> None:
    mem = Memdir.open(project, manifest_max_entries=2)
    for day in range(1, 5):
        put(mem.layout.memory_dir, f"m{day}.md", description=f"day {day}", mtime=at(day))
    assert [e.ref for e in build_manifest(mem).entries] == ["m4.md", "m3.md"]


def test_the_date_is_the_memory_own_date_before_its_mtime(mem: Memdir) -> None:
    root = mem.layout.memory_dir
    put(root, "dated.md", description="dated", extra="updated: 2025-12-24\n", mtime=at(9))
    put(root, "checked.md", description="checked", extra="verified: 2026-01-02\n", mtime=at(8))
    lines = build_manifest(mem).text.splitlines()
    assert lines == [
        "[project] dated.md (2025-12-24): dated",
        "[project] checked.md (2026-01-02): checked",
    ]


def test_index_logs_dot_folders_and_other_files_are_not_memories(mem: Memdir) -> None:
    root = mem.layout.memory_dir
    put(root, "real.md", description="a memory")
    put(root, "topics/nested.md", description="nested memory")
    put(root, "logs/2026/03/2026-03-01.md", description="a daily log")
    put(root, ".hidden/secret.md", description="in a dot folder")
    (root / "MEMORY.md").write_text("- [real](real.md) — a memory\n")
    (root / "notes.txt").write_text("not markdown\n")
    (root / "link.md").symlink_to(root / "real.md")
    refs = sorted(e.ref for e in build_manifest(mem).entries)
    assert refs == ["real.md", "topics/nested.md"]


def test_team_entries_are_marked_and_carry_their_team_path(mem: Memdir) -> None:
    put(mem.layout.memory_dir, "mine.md", description="private one", mtime=at(1))
    put(mem.layout.team_dir, "shared.md", description="shared one", mtime=at(2))
    manifest = build_manifest(mem)
    assert manifest.text.splitlines() == [
        "[project, team] team/shared.md (2026-03-02): shared one",
        "[project] mine.md (2026-03-01): private one",
    ]
    team = manifest.entries[0]
    assert (team.scope, team.file, team.path) == (
        Scope.TEAM,
        "shared.md",
        mem.layout.team_dir / "shared.md",
    )


def test_team_memories_are_left_out_when_team_memory_is_off(project: Path) -> None:
    mem = Memdir.open(project, team=False)
    put(mem.layout.team_dir, "shared.md", description="shared one")
    put(mem.layout.memory_dir, "mine.md", description="private one")
    assert [e.ref for e in build_manifest(mem).entries] == ["mine.md"]


def test_only_the_first_thirty_lines_are_read(mem: Memdir) -> None:
    # The closing fence sits on line 32: a head-only reader never sees it.
    padding = "".join(f"x{n}: filler\n" for n in range(28))
    path = mem.layout.memory_dir / "long_head.md"
    path.write_text(f"---\n{padding}description: too far down\ntype: user\n---\nbody\n")
    (entry,) = build_manifest(mem).entries
    assert entry.description == ""
    assert entry.line().endswith(": (no description)")


def test_a_huge_or_broken_body_does_not_matter(mem: Memdir) -> None:
    broken = "---\n: : [unbalanced\n\x00\xff garbage {{{\n" + "a line of body text\n" * 200_000
    put(mem.layout.memory_dir, "big.md", description="big memory", body=broken)
    (entry,) = build_manifest(mem).entries
    assert (entry.description, entry.type, entry.problem) == (
        "big memory",
        MemoryType.PROJECT,
        None,
    )


def test_a_file_whose_frontmatter_does_not_parse_is_listed_with_the_problem(
    mem: Memdir,
) -> None:
    path = mem.layout.memory_dir / "bad.md"
    path.write_text("---\nname: [unclosed\ndescription: {also: [bad\n---\nbody\n")
    (entry,) = build_manifest(mem).entries
    assert entry.problem is not None and "does not parse" in entry.problem
    assert entry.line().startswith("[untyped] bad.md (")
    assert "frontmatter does not parse" in entry.line()


def test_a_query_ranks_matches_first_then_the_rest_by_recency(mem: Memdir) -> None:
    root = mem.layout.memory_dir
    put(root, "newest.md", description="dashboard colours", mtime=at(9))
    put(root, "match.md", description="postgres connection pool size", mtime=at(1))
    put(root, "middle.md", description="release calendar", mtime=at(5))
    manifest = build_manifest(mem, query="how big is the postgres pool")
    assert manifest.ranked
    assert [e.ref for e in manifest.entries] == ["match.md", "newest.md", "middle.md"]


def test_a_catalog_passed_in_lists_and_ranks_as_it_is(mem: Memdir) -> None:
    root = mem.layout.memory_dir
    put(root, "pool.md", description="postgres connection pool size", mtime=at(1))
    put(root, "other.md", description="dashboard colours", mtime=at(9))
    with Catalog.open(mem.layout, auto_refresh=False) as catalog:
        catalog.refresh()
        # Written after the catalog's last refresh: that catalog does not know it yet.
        put(root, "late.md", description="postgres pool limits", mtime=at(2))
        manifest = build_manifest(mem, query="postgres pool", catalog=catalog)
    assert [e.ref for e in manifest.entries] == ["pool.md", "other.md"]
    assert manifest.total == 2


def test_the_catalog_listing_gives_the_same_lines_as_the_files(mem: Memdir) -> None:
    root = mem.layout.memory_dir
    put(root, "old.md", description="the old one", mtime=at(1))
    put(root, "dated.md", description="dated", extra="updated: 2025-12-24\n", mtime=at(9))
    put(mem.layout.team_dir, "shared.md", description="shared one", type="user", mtime=at(2))
    (root / "bad.md").write_text("---\nname: [unclosed\n---\nbody\n")
    os.utime(root / "bad.md", (at(3), at(3)))
    from_files = build_manifest(mem, catalog=None)
    with Catalog.open(mem.layout) as catalog:
        from_catalog = build_manifest(mem, catalog=catalog)
    assert from_catalog.text == from_files.text
    # Listing from the catalog opens no memory file: their facts are in its metadata.
    for path in (root / "old.md", root / "dated.md", mem.layout.team_dir / "shared.md"):
        path.write_text("---\ndescription: not what the catalog holds\n---\n")
    with Catalog.open(mem.layout, auto_refresh=False) as catalog:
        assert build_manifest(mem, catalog=catalog).text == from_files.text
    assert [e.file for e in from_catalog.entries] == [e.file for e in from_files.entries]


def test_after_hand_edits_the_catalog_manifest_still_equals_the_files_manifest(
    mem: Memdir,
) -> None:
    root = mem.layout.memory_dir
    put(root, "kept.md", description="kept as it was", mtime=at(1))
    put(root, "edited.md", description="before the edit", mtime=at(2))
    put(root, "removed.md", description="removed by hand", mtime=at(3))
    put(mem.layout.team_dir, "shared.md", description="shared one", type="user", mtime=at(4))
    with Catalog.open(mem.layout) as catalog:
        catalog.refresh()
    # Edits made outside memdir: the store's journal knows nothing of them.
    put(root, "edited.md", description="after the edit, in place", type="feedback", mtime=at(6))
    (root / "removed.md").unlink()
    put(root, "sub/added.md", description="added by hand", extra="verified: 2026-02-01\n")
    os.utime(root / "sub/added.md", (at(5), at(5)))
    from_catalog = build_manifest(mem)
    from_files = build_manifest(mem, catalog=None)
    assert from_catalog.text == from_files.text
    assert from_catalog.total == from_files.total == 4
    assert [e.ref for e in from_catalog.entries] == [
        "edited.md",
        "sub/added.md",
        "team/shared.md",
        "kept.md",
    ]
    assert from_catalog.entries[0].type is MemoryType.FEEDBACK
    assert [e.date for e in from_catalog.entries] == [e.date for e in from_files.entries]


def test_an_existing_catalog_is_refreshed_and_used_by_default(mem: Memdir) -> None:
    put(mem.layout.memory_dir, "sizes.md", description="postgres connection pool size")
    with Catalog.open(mem.layout) as catalog:
        catalog.refresh()
    put(mem.layout.team_dir, "late.md", description="postgres pool limits")
    manifest = build_manifest(mem, query="postgres pool limits")
    assert manifest.entries[0].ref == "team/late.md"
    with Catalog.open(mem.layout, auto_refresh=False) as catalog:
        assert len(catalog.index) == 2


def test_without_a_catalog_file_none_is_created(mem: Memdir) -> None:
    put(mem.layout.memory_dir, "pool.md", description="postgres connection pool size")
    build_manifest(mem, query="postgres pool")
    assert not (mem.layout.state_dir / CATALOG_NAME).exists()


def test_without_a_catalog_the_same_engine_ranks_a_description_above_a_body_mention(
    mem: Memdir,
) -> None:
    root = mem.layout.memory_dir
    put(root, "described.md", description="Flaky checkout test on CI", mtime=at(1))
    put(
        root,
        "mentions.md",
        description="Release calendar",
        body="We ship monthly, on the first Tuesday.\n"
        "Freeze the release branch two days before; the checkout test was flaky on CI once.\n"
        "Tag the release and announce it in the team channel.\n",
        mtime=at(2),
    )
    files = ScannedMemories(scan_memory_files(mem), layout=mem.layout, team=True)
    ranked = files.ranked("flaky checkout test on CI", limit=5)
    assert [entry.ref for entry, _ in ranked] == ["described.md", "mentions.md"]
    assert ranked[0][1] > 1.5 * ranked[1][1]
    assert not (mem.layout.state_dir / CATALOG_NAME).exists()


def test_memories_written_through_the_store_appear_in_the_manifest(mem: Memdir) -> None:
    mem.write(name="Style", description="Prefer small functions", type="feedback")
    mem.team.write(Memory(name="Oncall", description="Who is on call", type=MemoryType.REFERENCE))
    refs = {e.ref for e in build_manifest(mem).entries}
    assert refs == {"style.md", "team/oncall.md"}


def test_past_the_file_threshold_auto_builds_the_catalog(
    mem: Memdir, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memdir.recall.listing

    monkeypatch.setattr(memdir.recall.listing, "AUTO_CATALOG_FILES", 3)
    for n in range(5):
        put(mem.layout.memory_dir, f"m{n}.md", description=f"postgres pool note {n}")
    manifest = build_manifest(mem, query="postgres pool")
    assert (mem.layout.state_dir / CATALOG_NAME).exists()
    assert manifest.ranked and len(manifest.entries) == 5
