"""The memory store through the Memdir facade: writes keep the index in step."""

from __future__ import annotations

import datetime as dt
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from memdir.api import Memdir
from memdir.errors import (
    Conflict,
    InvalidMemory,
    LimitExceeded,
    MemoryExists,
    MemoryNotFound,
    SecretDetected,
)
from memdir.model import MemoryType, Scope
from memdir.storage.journal import JOURNAL_NAME
from memdir.storage.memory_index import parse_entries


def write(mem: Memdir, name: str, **kw: object) -> str:
    args: dict[str, object] = {"description": f"about {name}", "type": "project"}
    args.update(kw)
    return mem.write(name=name, **args).record.file  # type: ignore[arg-type]


def test_open_creates_private_and_team_folders_with_private_modes(mem: Memdir) -> None:
    for folder in (mem.layout.memory_dir, mem.layout.team_dir):
        assert folder.is_dir()
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_write_creates_a_file_named_after_the_memory_and_an_index_line(mem: Memdir) -> None:
    result = mem.write(
        name="Testing database policy",
        description="Integration tests hit a real database",
        type="feedback",
        body="Use the real database.\n**Why:** mocks hid a failed migration.",
    )
    assert result.created and result.record.file == "testing_database_policy.md"
    path = mem.layout.memory_dir / result.record.file
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = path.read_text()
    assert text.startswith("---\nname: Testing database policy\n")
    assert mem.private.read_index() == (
        "- [Testing database policy](testing_database_policy.md) — "
        "Integration tests hit a real database\n"
    )


def test_write_stamps_created_and_updated_and_keeps_created_on_update(mem: Memdir) -> None:
    first = mem.write(name="A", description="d", type="user", created=dt.date(2020, 1, 2))
    assert first.record.memory.created == dt.date(2020, 1, 2)
    again = mem.write(name="A", description="d2", type="user")
    assert again.record.memory.created == dt.date(2020, 1, 2)
    assert again.record.memory.updated == dt.date.today()
    assert not again.created and again.record.file == first.record.file


def test_same_name_updates_in_place_and_the_index_has_one_line(mem: Memdir) -> None:
    write(mem, "Release plan")
    write(mem, "release   PLAN", description="new hook")
    assert mem.private.files() == ["release_plan.md"]
    entries = parse_entries(mem.private.read_index())
    assert [(e.file, e.hook) for e in entries] == [("release_plan.md", "new hook")]


def test_distinct_names_with_the_same_file_stem_get_distinct_files(mem: Memdir) -> None:
    a = write(mem, "Deploy: prod")
    b = write(mem, "deploy prod!")
    assert (a, b) == ("deploy_prod.md", "deploy_prod_2.md")


def test_a_new_name_equal_to_another_memorys_file_stem_gets_its_own_file(mem: Memdir) -> None:
    first = write(mem, "Deploy process", file="deploy.md")
    second = write(mem, "deploy", description="something else")
    assert (first, second) == ("deploy.md", "deploy_2.md")
    assert mem.get("deploy.md").memory.name == "Deploy process"


def test_user_memory_is_refused_in_team_scope(mem: Memdir) -> None:
    with pytest.raises(InvalidMemory, match="always private"):
        mem.write(name="Me", description="who I am", type="user", scope="team")
    assert mem.team.files() == []


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"name": "", "description": "d", "type": "user"}, "needs a name"),
        ({"name": "n", "description": " ", "type": "user"}, "description"),
        ({"name": "n", "description": "d", "type": "opinion"}, "unknown memory type"),
    ],
)
def test_invalid_memories_are_refused_with_a_hint(
    mem: Memdir, kw: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidMemory, match=message) as info:
        mem.write(**kw)
    assert info.value.hint


def test_compare_and_swap_refuses_a_stale_version(mem: Memdir) -> None:
    first = mem.write(name="A", description="d", type="project").record
    mem.write(name="A", description="changed by someone else", type="project")
    with pytest.raises(Conflict) as info:
        mem.write(name="A", description="mine", type="project", expected_version=first.version)
    assert info.value.expected == first.version
    assert mem.get("A").memory.description == "changed by someone else"


def test_compare_and_swap_with_empty_version_means_create_only(mem: Memdir) -> None:
    mem.write(name="A", description="d", type="project", expected_version="")
    with pytest.raises(Conflict):
        mem.write(name="A", description="again", type="project", expected_version="")


def test_get_finds_by_file_by_stem_and_by_name(mem: Memdir) -> None:
    file = write(mem, "Grafana board", type="reference")
    for ref in (file, file.removesuffix(".md"), "grafana BOARD"):
        assert mem.get(ref).file == file
    with pytest.raises(MemoryNotFound, match="memdir list"):
        mem.get("nothing")


def test_get_without_scope_searches_private_then_team(mem: Memdir) -> None:
    write(mem, "Shared thing", scope="team")
    assert mem.get("Shared thing").scope is Scope.TEAM


def test_private_scope_does_not_list_team_or_log_files(mem: Memdir) -> None:
    write(mem, "Mine")
    write(mem, "Ours", scope="team")
    logs = mem.layout.logs_dir / "2026" / "01"
    logs.mkdir(parents=True)
    (logs / "2026-01-01.md").write_text("- 10:00:00 hi\n")
    assert [r.file for r in mem.list(scope="private")] == ["mine.md"]
    assert [r.file for r in mem.list(scope="team")] == ["ours.md"]


def test_private_writes_into_team_or_logs_are_refused(mem: Memdir) -> None:
    with pytest.raises(InvalidMemory):
        mem.write(name="x", description="d", type="project", file="team/x.md")
    with pytest.raises(InvalidMemory):
        mem.write(name="x", description="d", type="project", file="logs/x.md")


def test_delete_moves_the_file_to_trash_and_drops_its_index_line(mem: Memdir) -> None:
    file = write(mem, "Old")
    write(mem, "Kept")
    trashed = mem.delete("Old")
    assert trashed.read_text().startswith("---\nname: Old")
    assert not (mem.layout.memory_dir / file).exists()
    assert [e.file for e in parse_entries(mem.private.read_index())] == ["kept.md"]


def test_rename_moves_the_file_and_its_index_line(mem: Memdir) -> None:
    write(mem, "Alpha", description="first letter")
    write(mem, "Beta")
    record = mem.private.rename("alpha.md", "topics/alpha_renamed.md")
    assert record.file == "topics/alpha_renamed.md"
    entries = parse_entries(mem.private.read_index())
    assert [(e.file, e.hook) for e in entries] == [
        ("beta.md", "about Beta"),
        ("topics/alpha_renamed.md", "first letter"),
    ]
    with pytest.raises(MemoryExists):
        mem.private.rename("beta.md", "topics/alpha_renamed.md")


def test_long_descriptions_are_shortened_in_the_index_but_kept_in_the_file(
    mem: Memdir,
) -> None:
    description = "word " * 80
    mem.write(name="Long", description=description, type="project")
    (line,) = mem.private.read_index().splitlines()
    assert len(line) <= 150 and line.endswith("…")
    assert mem.get("Long").memory.description == description.strip()


def test_a_memory_over_the_size_limit_is_refused_and_nothing_is_written(
    project: Path,
) -> None:
    mem = Memdir.open(project, max_memory_bytes=1000)
    with pytest.raises(LimitExceeded, match="limit is 1000"):
        mem.write(name="Big", description="d", type="project", body="x" * 2000)
    assert mem.private.files() == [] and mem.private.read_index() == ""


def test_the_file_count_limit_refuses_new_files_but_not_updates(project: Path) -> None:
    mem = Memdir.open(project, max_files=2)
    write(mem, "One")
    write(mem, "Two")
    with pytest.raises(LimitExceeded):
        write(mem, "Three")
    write(mem, "Two", description="still updatable")


def test_unparseable_files_are_reported_by_scan_not_dropped(mem: Memdir) -> None:
    write(mem, "Good")
    bad = mem.layout.memory_dir / "bad.md"
    bad.write_text("---\nname: [x\n  - : :\n---\n")
    result = mem.private.scan()
    assert [r.file for r in result.records] == ["good.md"]
    assert [p.path for p in result.problems] == [str(bad)]
    assert bad.read_text() == "---\nname: [x\n  - : :\n---\n"


def test_type_values_are_enums_in_records(mem: Memdir) -> None:
    write(mem, "T", type="reference")
    assert mem.get("T").memory.type is MemoryType.REFERENCE


def fake_token() -> str:
    return "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def test_a_team_write_with_a_secret_is_refused_without_echoing_it(mem: Memdir) -> None:
    token = fake_token()
    with pytest.raises(SecretDetected) as info:
        mem.write(
            name="CI token", description="d", type="reference", scope="team", body=f"x {token}"
        )
    assert token not in str(info.value) and info.value.labels == ("GitHub personal access token",)
    assert mem.team.files() == [] and mem.team.read_index() == ""


def test_a_private_write_with_a_secret_is_written_with_a_warning(mem: Memdir) -> None:
    result = mem.write(name="Token", description="d", type="reference", body=fake_token())
    assert result.record.file == "token.md"
    assert len(result.warnings) == 1 and fake_token() not in result.warnings[0]


def test_team_memory_turns_on_when_the_team_folder_holds_a_memory_file(mem: Memdir) -> None:
    assert not mem.team.has_files() and not mem.team_enabled
    nested = mem.layout.team_dir / "infra" / "ci.md"
    nested.parent.mkdir()
    nested.write_text("---\nname: CI\ndescription: d\ntype: project\n---\n")
    assert mem.team.has_files() and mem.team_enabled


def test_the_file_count_limit_counts_files_written_by_hand(project: Path) -> None:
    mem = Memdir.open(project, max_files=3)
    write(mem, "One")
    (mem.layout.memory_dir / "sub").mkdir()
    (mem.layout.memory_dir / "sub" / "two.md").write_text("by hand\n")
    os.utime(mem.layout.memory_dir, ns=(1, 1))  # a later clock tick than memdir's write
    write(mem, "Three")
    with pytest.raises(LimitExceeded):
        write(mem, "Four")


def test_the_file_count_follows_deletes_and_renames(project: Path) -> None:
    mem = Memdir.open(project, max_files=2)
    write(mem, "One")
    write(mem, "Two")
    mem.private.rename("one.md", "nested/one.md")
    with pytest.raises(LimitExceeded):
        write(mem, "Three")
    mem.delete("Two")
    write(mem, "Three")
    with pytest.raises(LimitExceeded):
        write(mem, "Four")


def test_writes_list_what_they_touched_in_the_catalog_journal(mem: Memdir) -> None:
    write(mem, "One")
    mem.private.rename("one.md", "renamed.md")
    mem.delete("One")
    journal = (mem.layout.state_dir / JOURNAL_NAME).read_text().splitlines()
    root = mem.layout.memory_dir
    assert journal == [
        str(root / "one.md"),
        str(root / "one.md"),
        str(root / "renamed.md"),
        str(root / "renamed.md"),
    ]


def test_a_new_memory_appends_its_index_line_and_keeps_hand_written_lines(mem: Memdir) -> None:
    index = mem.layout.memory_dir / "MEMORY.md"
    index.write_text("# Notes\nkept as written  \n")
    write(mem, "One")
    write(mem, "One", description="changed")
    assert index.read_text() == "# Notes\nkept as written  \n- [One](one.md) — changed\n"
