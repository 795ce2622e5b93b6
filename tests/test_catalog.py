"""The catalog: indexing files of every kind, incremental refresh, rebuild, concurrency."""

from __future__ import annotations

import datetime as dt
import json
import multiprocessing
import os
import sqlite3
import time
from pathlib import Path

import pytest

from memdir.model import MemoryType, Scope
from memdir.search.catalog import CATALOG_NAME, SCHEMA_VERSION, Catalog, SearchQuery
from memdir.storage.paths import Layout, make_layout
from memdir.storage.scope_files import folder_stamp


@pytest.fixture
def layout(tmp_path: Path, memdir_home: Path) -> Layout:
    project = tmp_path / "proj"
    project.mkdir()
    lay = make_layout(memdir_home, project)
    lay.memory_dir.mkdir(parents=True)
    lay.team_dir.mkdir()
    return lay


def write_memory(
    folder: Path, file: str, *, name: str, description: str, body: str, type_: str = "project"
) -> Path:
    path = folder / file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\nname: {name}\ndescription: {description}\ntype: {type_}\n"
        f"updated: 2026-03-01\n---\n{body}\n",
        encoding="utf-8",
    )
    return path


def refs(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.ref for h in hits]


def test_memories_of_both_scopes_are_indexed_with_their_metadata(layout: Layout) -> None:
    write_memory(
        layout.memory_dir,
        "db.md",
        name="Database policy",
        description="Integration tests hit a real database",
        body="Never mocks.",
    )
    write_memory(
        layout.team_dir,
        "deploy.md",
        name="Deploy freeze",
        description="No deploys on Fridays",
        body="Release captain decides.",
        type_="feedback",
    )
    with Catalog.open(layout) as catalog:
        stats = catalog.refresh()
        assert (stats.added, stats.updated, stats.removed) == (2, 0, 0)
        [hit] = catalog.search("fridays deploys")
    assert hit.ref == "team/deploy.md"
    assert (hit.kind, hit.scope, hit.type) == ("memory", Scope.TEAM, MemoryType.FEEDBACK)
    assert hit.title == "Deploy freeze"
    assert hit.date == dt.datetime(2026, 3, 1)
    assert "Fridays" in hit.snippet


def test_the_index_file_of_memory_md_is_not_a_memory(layout: Layout) -> None:
    (layout.memory_dir / "MEMORY.md").write_text("- [Zebra](zebra.md) — zebra facts\n")
    with Catalog.open(layout) as catalog:
        assert catalog.search("zebra") == []


def test_refresh_notices_an_edit_made_outside_memdir(layout: Layout) -> None:
    path = write_memory(layout.memory_dir, "a.md", name="Alpha", description="first", body="apples")
    with Catalog.open(layout) as catalog:
        assert refs(catalog.search("apples")) == ["a.md"]
        path.write_text(path.read_text().replace("apples", "bananas"))
        stats = catalog.refresh()
        assert stats.updated == 1
        assert catalog.search("apples") == []
        assert refs(catalog.search("bananas")) == ["a.md"]


def test_a_touched_but_unchanged_file_is_not_reindexed(layout: Layout) -> None:
    path = write_memory(layout.memory_dir, "a.md", name="Alpha", description="first", body="x")
    with Catalog.open(layout) as catalog:
        catalog.refresh()
        os.utime(path, ns=(1, 1))
        assert catalog.refresh().updated == 0


def test_refresh_notices_a_rename_and_a_delete(layout: Layout) -> None:
    a = write_memory(layout.memory_dir, "a.md", name="Alpha", description="apples", body="")
    b = write_memory(layout.memory_dir, "b.md", name="Beta", description="bananas", body="")
    with Catalog.open(layout) as catalog:
        catalog.refresh()
        a.rename(layout.memory_dir / "renamed.md")
        b.unlink()
        stats = catalog.refresh()
        assert (stats.added, stats.removed) == (1, 2)
        assert refs(catalog.search("apples")) == ["renamed.md"]
        assert catalog.search("bananas") == []


def test_search_refreshes_by_itself(layout: Layout) -> None:
    with Catalog.open(layout) as catalog:
        assert catalog.search("cherries") == []
        write_memory(layout.memory_dir, "c.md", name="Cherry", description="cherries", body="")
        assert refs(catalog.search("cherries")) == ["c.md"]


def test_a_corrupt_index_file_is_rebuilt_and_search_answers(layout: Layout) -> None:
    write_memory(layout.memory_dir, "a.md", name="Alpha", description="apples", body="")
    with Catalog.open(layout) as catalog:
        catalog.refresh()
    db = layout.state_dir / CATALOG_NAME
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 500)
    with Catalog.open(layout) as catalog:
        assert refs(catalog.search("apples")) == ["a.md"]


def test_an_index_corrupted_while_open_is_rebuilt_on_the_next_search(layout: Layout) -> None:
    write_memory(layout.memory_dir, "a.md", name="Alpha", description="apples", body="")
    with Catalog.open(layout) as catalog:
        catalog.refresh()
        catalog.index.conn.close()
        db = layout.state_dir / CATALOG_NAME
        db.write_bytes(b"\x00garbage" * 4096)
        catalog.index.conn = sqlite3.connect(db)
        assert refs(catalog.search("apples")) == ["a.md"]


def test_a_catalog_of_another_schema_version_is_rebuilt(layout: Layout) -> None:
    write_memory(layout.memory_dir, "a.md", name="Alpha", description="apples", body="")
    layout.state_dir.mkdir(parents=True)
    old = sqlite3.connect(layout.state_dir / CATALOG_NAME)
    old.execute("CREATE TABLE docs (x)")
    old.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    old.commit()
    old.close()
    with Catalog.open(layout) as catalog:
        assert refs(catalog.search("apples")) == ["a.md"]


def test_deleting_the_catalog_loses_nothing(layout: Layout) -> None:
    write_memory(layout.memory_dir, "a.md", name="Alpha", description="apples", body="")
    with Catalog.open(layout) as catalog:
        before = catalog.search("apples")
    for path in layout.state_dir.glob(f"{CATALOG_NAME}*"):
        path.unlink()
    with Catalog.open(layout) as catalog:
        assert catalog.search("apples") == before


def test_rebuild_reindexes_everything_and_reports_progress(layout: Layout) -> None:
    for i in range(3):
        write_memory(layout.memory_dir, f"m{i}.md", name=f"M{i}", description="d", body="b")
    seen: list[tuple[int, int]] = []
    with Catalog.open(layout) as catalog:
        catalog.refresh()
        stats = catalog.rebuild(progress=lambda done, total: seen.append((done, total)))
    assert stats.added == 3
    assert seen[-1] == (3, 3)


def test_daily_log_entries_are_indexed_with_their_timestamp(layout: Layout) -> None:
    path = layout.log_path(dt.date(2026, 3, 15))
    path.parent.mkdir(parents=True)
    path.write_text(
        "# 2026-03-15\n\n- 09:14:02 deployed v2.3 to staging\n"
        "- 11:40:55 the flaky upload test fails after test_auth:\n  shared tmp dir\n"
    )
    with Catalog.open(layout) as catalog:
        [hit] = catalog.search(SearchQuery(query="shared tmp dir", kinds=("log",)))
    assert hit.ref == "logs/2026/03/2026-03-15.md#L4"
    assert hit.date == dt.datetime(2026, 3, 15, 11, 40, 55)
    assert hit.kind == "log"


def test_session_notes_are_indexed(layout: Layout) -> None:
    path = layout.session_notes_path("s1")
    path.parent.mkdir(parents=True)
    path.write_text("# Current State\nMigrating the billing service to Postgres\n")
    with Catalog.open(layout) as catalog:
        [hit] = catalog.search("billing postgres")
    assert (hit.kind, hit.ref) == ("notes", "sessions/s1/session-memory/summary.md")


def _plain_transcript(path: Path) -> None:
    lines = [
        {
            "role": "user",
            "content": "How do I rotate the signing keys?",
            "timestamp": "2026-02-01T10:00:00Z",
        },
        {
            "role": "assistant",
            "content": "Run the keyring rotate command.",
            "timestamp": "2026-02-01T10:00:05Z",
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _claude_transcript(path: Path) -> None:
    events = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": "abc",
            "timestamp": "2026-02-02T09:00:00Z",
            "message": {"role": "user", "content": "Where are the flamingo fixtures?"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": "abc",
            "timestamp": "2026-02-02T09:00:03Z",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "text", "text": "Under tests/fixtures/birds."}],
            },
        },
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in events))


def test_transcripts_of_both_formats_are_indexed_at_turn_level(
    layout: Layout, tmp_path: Path
) -> None:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    _plain_transcript(folder / "plain.jsonl")
    _claude_transcript(folder / "claude.jsonl")
    with Catalog.open(layout) as catalog:
        stats = catalog.add_transcripts(folder)
        assert stats.added == 2
        plain = catalog.search(SearchQuery(query="keyring rotate command", kinds=("transcript",)))[
            0
        ]
        claude = catalog.search(SearchQuery(query="flamingo fixtures", kinds=("transcript",)))[0]
    assert plain.ref == f"{folder / 'plain.jsonl'}#1"
    assert claude.ref == f"{folder / 'claude.jsonl'}#0"
    assert claude.date is not None and claude.date.date() == dt.date(2026, 2, 2)


def test_registered_transcripts_are_remembered_and_reread(layout: Layout, tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    _plain_transcript(path)
    with Catalog.open(layout) as catalog:
        catalog.add_transcripts(path)
    with path.open("a") as out:
        out.write(json.dumps({"role": "user", "content": "and the walrus config?"}) + "\n")
    with Catalog.open(layout) as catalog:
        assert refs(catalog.search("walrus"))[0] == f"{path}#2"


def test_filters_narrow_by_kind_type_scope_and_date(layout: Layout) -> None:
    write_memory(layout.memory_dir, "p.md", name="Otter", description="otter notes", body="")
    write_memory(
        layout.team_dir,
        "t.md",
        name="Otter team",
        description="otter rules",
        body="",
        type_="reference",
    )
    log = layout.log_path(dt.date(2025, 1, 2))
    log.parent.mkdir(parents=True)
    log.write_text("- 08:00:00 saw an otter\n")
    with Catalog.open(layout) as catalog:
        assert {h.kind for h in catalog.search("otter")} == {"memory", "log"}
        assert refs(catalog.search(SearchQuery(query="otter", kinds=("log",)))) == [
            "logs/2025/01/2025-01-02.md#L1"
        ]
        assert refs(catalog.search(SearchQuery(query="otter", types=("reference",)))) == [
            "team/t.md"
        ]
        assert refs(catalog.search(SearchQuery(query="otter", scope=Scope.TEAM))) == ["team/t.md"]
        assert set(refs(catalog.search(SearchQuery(query="otter", since=dt.date(2026, 1, 1))))) == {
            "p.md",
            "team/t.md",
        }
        assert refs(catalog.search(SearchQuery(query="otter", until=dt.date(2025, 12, 31)))) == [
            "logs/2025/01/2025-01-02.md#L1"
        ]
        assert catalog.search(SearchQuery(query="otter", kinds=())) == []


def test_a_file_with_broken_frontmatter_is_still_searchable(layout: Layout) -> None:
    (layout.memory_dir / "broken.md").write_text("---\nname: [unclosed\n---\npelican facts\n")
    with Catalog.open(layout) as catalog:
        assert refs(catalog.search("pelican")) == ["broken.md"]


def _refresh_many(home: str, project: str, rounds: int) -> None:
    lay = make_layout(Path(home), project)
    with Catalog.open(lay, auto_refresh=False) as catalog:
        for i in range(rounds):
            write_memory(
                lay.memory_dir,
                f"gen{i % 5}.md",
                name=f"Gen {i}",
                description=f"generation {i} heron",
                body="heron " * 50,
            )
            catalog.refresh()


def test_concurrent_refresh_and_search_from_two_processes(layout: Layout) -> None:
    write_memory(layout.memory_dir, "heron.md", name="Heron", description="heron", body="")
    with Catalog.open(layout) as catalog:
        catalog.refresh()
    ctx = multiprocessing.get_context("spawn")
    writer = ctx.Process(
        target=_refresh_many, args=(str(layout.home), str(layout.project_root), 30)
    )
    writer.start()
    answers = 0
    with Catalog.open(layout) as catalog:
        while writer.is_alive() or answers == 0:
            hits = catalog.search("heron")
            assert "heron.md" in refs(hits)
            answers += 1
    writer.join(timeout=120)
    assert writer.exitcode == 0
    with Catalog.open(layout) as catalog:
        assert catalog.refresh().added == 0
        assert len(catalog.search(SearchQuery(query="heron", limit=20))) == 6


def test_refresh_every_skips_the_file_check_between_refreshes(layout: Layout) -> None:
    with Catalog.open(layout, refresh_every=3600) as catalog:
        assert catalog.search("cherries") == []
        write_memory(layout.memory_dir, "c.md", name="Cherry", description="cherries", body="")
        assert catalog.search("cherries") == []
        catalog.refresh()
        assert refs(catalog.search("cherries")) == ["c.md"]


def test_a_transcript_folder_with_a_symlink_loop_is_indexed_once(
    tmp_path: Path, memdir_home: Path
) -> None:
    import os

    from memdir import Memdir

    project = tmp_path / "loop-project"
    project.mkdir()
    mem = Memdir.open(project)
    folder = tmp_path / "chats"
    (folder / "a").mkdir(parents=True)
    (folder / "a" / "chat.jsonl").write_text(
        '{"role": "user", "content": "the zebra deploy", "timestamp": "2026-03-01T10:00:00Z"}\n'
    )
    os.symlink(folder, folder / "a" / "back")  # a -> back -> chats -> a ...
    mem.add_transcripts(folder)
    hits = mem.search("zebra", kinds=["transcript"])
    assert len(hits) == 1 and hits[0].ref.endswith("chat.jsonl#0")


def _age(*folders: Path) -> None:
    """Give folders an mtime long past, as if the last change was an hour ago."""
    for folder in folders:
        os.utime(folder, ns=(1_000_000_000, 1_000_000_000))


def test_a_search_finds_files_created_by_hand_in_a_known_or_new_folder(layout: Layout) -> None:
    write_memory(layout.memory_dir, "a.md", name="Alpha", description="first", body="apples")
    with Catalog.open(layout) as catalog:
        catalog.refresh()
        _age(layout.memory_dir, layout.team_dir)
        catalog.refresh()
        write_memory(layout.memory_dir, "b.md", name="Beta", description="x", body="bananas")
        write_memory(layout.team_dir, "deep/c.md", name="Gamma", description="x", body="cherries")
        assert refs(catalog.search("bananas")) == ["b.md"]
        assert refs(catalog.search("cherries")) == ["team/deep/c.md"]


def test_a_search_notices_edits_in_place_and_deleted_folders(layout: Layout) -> None:
    path = write_memory(layout.memory_dir, "a.md", name="Alpha", description="x", body="apples")
    write_memory(layout.memory_dir, "sub/b.md", name="Beta", description="x", body="bananas")
    with Catalog.open(layout) as catalog:
        assert refs(catalog.search("bananas")) == ["sub/b.md"]
        _age(layout.memory_dir, layout.memory_dir / "sub")
        catalog.refresh()
        path.write_text(path.read_text().replace("apples", "apricots"))
        (layout.memory_dir / "sub" / "b.md").unlink()
        (layout.memory_dir / "sub").rmdir()
        assert refs(catalog.search("apricots")) == ["a.md"]
        assert catalog.search("bananas") == []


def test_memdir_writes_reach_search_through_the_journal(tmp_path: Path, memdir_home: Path) -> None:
    from memdir import Memdir

    project = tmp_path / "journaled"
    project.mkdir()
    mem = Memdir.open(project)
    mem.write(name="Otters", description="otters hold hands", type="project", body="kelp")
    assert refs(mem.search("otters")) == ["otters.md"]
    with Catalog.open(mem.layout, auto_refresh=False) as catalog:
        _age(mem.layout.memory_dir)
        catalog.refresh()
        mem.write(name="Otters", description="otters sleep afloat", type="project", body="kelp")
        _age(mem.layout.memory_dir)  # the folder looks untouched: only the journal tells
        assert catalog.catch_up().updated == 1
        assert refs(catalog.search("afloat")) == ["otters.md"]


def test_a_journal_read_to_its_end_is_emptied_and_later_entries_still_count(
    layout: Layout,
) -> None:
    from memdir.storage.journal import JOURNAL_NAME, append_journal

    a = write_memory(layout.memory_dir, "a.md", name="Alpha", description="x", body="apples")
    journal = layout.state_dir / JOURNAL_NAME
    with Catalog.open(layout, auto_refresh=False) as catalog:
        catalog.refresh()
        append_journal(journal, [a] * 5000)  # more than the catalog keeps once read
        catalog.catch_up()
        assert journal.read_bytes() == b""
        b = write_memory(layout.memory_dir, "b.md", name="Beta", description="x", body="kiwis")
        append_journal(journal, [b])
        assert catalog.catch_up().added == 1
        assert refs(catalog.search("kiwis")) == ["b.md"]


def test_a_session_folder_that_changed_is_recorded_without_the_lock_while_a_refresh_holds_it(
    layout: Layout,
) -> None:
    import filelock

    write_memory(layout.memory_dir, "a.md", name="Alpha", description="x", body="apples")
    session = layout.session_dir("earlier")
    session.mkdir(parents=True)
    with Catalog.open(layout) as catalog:
        _age(layout.memory_dir, layout.sessions_dir, session)
        catalog.refresh()
        assert catalog._pending(set()) is None
        (session / "recall-state.json").write_text("{}")  # what a recall leaves there
        os.utime(session, ns=(2_000_000_000, 2_000_000_000))  # changed, and long enough ago
        assert catalog._pending(set()) is not None
        with filelock.FileLock(str(layout.lock_dir / "catalog.lock"), timeout=5):
            assert catalog.catch_up(wait=False).added == 0
        assert catalog._pending(set()) is None  # the new stamp was recorded anyway
        write_memory(session, "stray.md", name="Stray", description="x", body="plums")
        os.utime(session, ns=(3_000_000_000, 3_000_000_000))
        assert refs(catalog.search("plums")) == []  # only session notes are indexed there


@pytest.mark.parametrize(
    ("age_ms", "whole_second", "trusted"),
    [(500, False, True), (30, False, False), (500, True, False), (2_500, True, True)],
)
def test_a_folder_stamp_is_trusted_after_one_tick_of_the_clock_its_mtime_shows(
    layout: Layout, age_ms: int, whole_second: bool, trusted: bool
) -> None:
    folder = layout.memory_dir / "sub"
    folder.mkdir()
    mtime = time.time_ns() - age_ms * 1_000_000
    if whole_second:
        mtime -= mtime % 1_000_000_000  # a file system that keeps whole seconds
    else:
        mtime += 1 if mtime % 1_000_000_000 == 0 else 0
    os.utime(folder, ns=(mtime, mtime))
    stamp = folder_stamp(os.stat(folder).st_mtime_ns)
    assert stamp == (mtime if trusted else -1)


def test_a_store_searched_right_after_its_files_were_written_is_not_listed_again(
    layout: Layout,
) -> None:
    for i in range(3):
        write_memory(layout.memory_dir / f"d{i}", "m.md", name=f"m{i}", description="d", body="b")
    time.sleep(0.15)  # past a tick of a file system with sub-second mtimes
    if os.stat(layout.memory_dir / "d0").st_mtime_ns % 1_000_000_000 == 0:
        pytest.skip("this file system keeps whole-second mtimes: the 2 s wait applies")
    with Catalog.open(layout) as catalog:
        catalog.rebuild()
        stamps = dict(catalog.index.conn.execute("SELECT path, mtime_ns FROM folders"))
    assert all(stamp > 0 for stamp in stamps.values()), stamps
