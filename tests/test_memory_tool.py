"""The Anthropic memory tool backend: six commands over /memories, confined and locked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memdir.api import Memdir
from memdir.integrations.memory_tool import MemoryToolBackend, anthropic_memory_tool
from memdir.storage.codec import parse_memory
from memdir.storage.memory_index import parse_entries
from test_hostile_paths import ALL, SYMLINK_NAMES, planted, snapshot

__all__ = ["planted"]  # the fixture, imported so that the corpus tests can plant symlinks

NOTE = "---\nname: Build cache\ndescription: CI caches live in S3\ntype: reference\n---\nS3.\n"


@pytest.fixture
def tool(mem: Memdir) -> MemoryToolBackend:
    return MemoryToolBackend(mem)


def run(tool: MemoryToolBackend, **command: Any) -> str:
    reply = tool.execute(command)
    assert not reply.startswith("Error:"), reply
    return reply


def fail(tool: MemoryToolBackend, **command: Any) -> str:
    reply = tool.execute(command)
    assert reply.startswith("Error:"), reply
    return reply


def index_files(mem: Memdir) -> list[str]:
    return [e.file for e in parse_entries(mem.private.read_index())]


def test_view_of_the_root_lists_memories_but_not_other_scopes(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    mem.write(name="Oncall", description="who", type="reference", scope="team")
    run(tool, command="create", path="/memories/notes/cache.md", file_text=NOTE)
    listing = run(tool, command="view", path="/memories")
    lines = listing.splitlines()
    assert lines[0].startswith("Here're the files and directories up to 2 levels deep")
    assert any(line.endswith("\t/memories/notes/cache.md") for line in lines)
    assert any(line.endswith("\t/memories/MEMORY.md") for line in lines)
    assert "team" not in listing and "logs" not in listing


def test_create_with_frontmatter_writes_it_exactly_and_indexes_it(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    reply = run(tool, command="create", path="/memories/cache.md", file_text=NOTE)
    assert reply == "File created successfully at: /memories/cache.md"
    assert (mem.layout.memory_dir / "cache.md").read_text() == NOTE
    assert index_files(mem) == ["cache.md"]


def test_create_without_frontmatter_derives_it_from_name_and_first_line(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    reply = run(
        tool, command="create", path="/memories/user_prefs.md", file_text="# Likes tabs\nAlways.\n"
    )
    assert reply.endswith("(frontmatter added: name, description, type)")
    memory = parse_memory((mem.layout.memory_dir / "user_prefs.md").read_text())
    assert (memory.name, memory.description, memory.type) == ("user prefs", "Likes tabs", "project")
    assert memory.body == "# Likes tabs\nAlways.\n"
    assert index_files(mem) == ["user_prefs.md"]


def test_create_refuses_an_existing_file(tool: MemoryToolBackend, mem: Memdir) -> None:
    run(tool, command="create", path="/memories/cache.md", file_text=NOTE)
    assert "already exists" in fail(
        tool, command="create", path="/memories/cache.md", file_text="x"
    )
    assert (mem.layout.memory_dir / "cache.md").read_text() == NOTE


def test_view_of_a_file_numbers_its_lines_and_honours_the_range(tool: MemoryToolBackend) -> None:
    run(tool, command="create", path="/memories/cache.md", file_text=NOTE)
    whole = run(tool, command="view", path="/memories/cache.md")
    assert whole.splitlines()[0] == "Here's the content of /memories/cache.md with line numbers:"
    assert "     2\tname: Build cache" in whole
    part = run(tool, command="view", path="/memories/cache.md", view_range=[6, -1])
    assert part.splitlines()[1:] == ["     6\tS3.", "     7\t"]


def test_str_replace_changes_the_one_occurrence_and_the_index_follows(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    run(tool, command="create", path="/memories/cache.md", file_text=NOTE)
    reply = run(
        tool,
        command="str_replace",
        path="/memories/cache.md",
        old_str="CI caches live in S3",
        new_str="CI caches live in GCS",
    )
    assert reply.startswith("The memory file has been edited.")
    assert "description: CI caches live in GCS" in (mem.layout.memory_dir / "cache.md").read_text()
    assert parse_entries(mem.private.read_index())[0].hook == "CI caches live in GCS"


def test_str_replace_refuses_missing_and_repeated_text(tool: MemoryToolBackend) -> None:
    run(tool, command="create", path="/memories/cache.md", file_text=NOTE + "S3.\n")
    missing = fail(tool, command="str_replace", path="/memories/cache.md", old_str="x", new_str="")
    assert "did not appear verbatim in /memories/cache.md" in missing
    repeated = fail(
        tool, command="str_replace", path="/memories/cache.md", old_str="S3.", new_str=""
    )
    assert "Multiple occurrences of old_str `S3.` in lines: 6, 7" in repeated


def test_an_edit_that_breaks_the_frontmatter_is_refused(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    run(tool, command="create", path="/memories/cache.md", file_text=NOTE)
    reply = fail(
        tool, command="str_replace", path="/memories/cache.md", old_str="type: reference\n",
        new_str="",
    )  # fmt: skip
    assert "without valid frontmatter" in reply
    assert (mem.layout.memory_dir / "cache.md").read_text() == NOTE


def test_insert_puts_text_after_the_given_line(tool: MemoryToolBackend, mem: Memdir) -> None:
    run(tool, command="create", path="/memories/cache.md", file_text=NOTE)
    run(tool, command="insert", path="/memories/cache.md", insert_line=6, insert_text="Also R2.\n")
    lines = (mem.layout.memory_dir / "cache.md").read_text().splitlines()
    assert lines[5:] == ["S3.", "Also R2."]
    bad = fail(tool, command="insert", path="/memories/cache.md", insert_line=99, insert_text="x")
    assert "range [0, 7]" in bad


def test_delete_moves_a_file_to_the_trash_and_drops_its_pointer(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    run(tool, command="create", path="/memories/cache.md", file_text=NOTE)
    assert run(tool, command="delete", path="/memories/cache.md").startswith("Successfully deleted")
    assert not (mem.layout.memory_dir / "cache.md").exists()
    assert index_files(mem) == []
    assert list(mem.layout.trash_dir.rglob("cache.md"))


def test_delete_of_a_folder_deletes_its_memories(tool: MemoryToolBackend, mem: Memdir) -> None:
    run(tool, command="create", path="/memories/ci/a.md", file_text=NOTE)
    run(tool, command="create", path="/memories/ci/b.md", file_text="b\n")
    assert "(2 memories)" in run(tool, command="delete", path="/memories/ci")
    assert not (mem.layout.memory_dir / "ci").exists()
    assert index_files(mem) == []


def test_rename_moves_a_file_and_a_folder_with_their_pointers(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    run(tool, command="create", path="/memories/cache.md", file_text=NOTE)
    run(tool, command="rename", old_path="/memories/cache.md", new_path="/memories/ci/cache.md")
    assert index_files(mem) == ["ci/cache.md"]
    run(tool, command="rename", old_path="/memories/ci", new_path="/memories/build")
    assert index_files(mem) == ["build/cache.md"]
    assert (mem.layout.memory_dir / "build" / "cache.md").read_text() == NOTE
    assert not (mem.layout.memory_dir / "ci").exists()
    run(tool, command="create", path="/memories/other.md", file_text="o\n")
    clash = fail(
        tool, command="rename", old_path="/memories/other.md", new_path="/memories/build/cache.md"
    )
    assert "already exists" in clash


def test_the_root_can_be_neither_deleted_nor_renamed(tool: MemoryToolBackend) -> None:
    for path in ("/memories", "/memories/"):
        assert "cannot delete" in fail(tool, command="delete", path=path)
        renamed = fail(tool, command="rename", old_path=path, new_path="/memories/x")
        assert "cannot rename" in renamed


@pytest.mark.parametrize(
    "command",
    [
        {"command": "view", "path": "/memories_backup/x"},
        {"command": "create", "path": "/memories_backup/x.md", "file_text": "x"},
        {"command": "delete", "path": "/memories_backup"},
        {"command": "rename", "old_path": "/memories_backup/x.md", "new_path": "/memories/x.md"},
        {"command": "view", "path": "memories/x.md"},
        {"command": "view", "path": "/x/memories/x.md"},
        {"command": "view", "path": "/Memories/x.md"},
    ],
)
def test_paths_outside_memories_are_refused_by_component(
    tool: MemoryToolBackend, tmp_path: Path, command: dict[str, Any]
) -> None:
    (tmp_path / "memories_backup").mkdir()
    assert "is outside /memories" in fail(tool, **command)


def test_unknown_and_malformed_commands_are_errors(tool: MemoryToolBackend) -> None:
    assert "unknown command" in fail(tool, command="format")
    assert "malformed create command" in fail(tool, command="create", path="/memories/x.md")


@pytest.mark.parametrize("name", ALL + SYMLINK_NAMES)
def test_every_hostile_name_is_refused_and_nothing_is_written(
    tool: MemoryToolBackend, mem: Memdir, planted: Path, tmp_path: Path, name: str
) -> None:
    run(tool, command="create", path="/memories/victim.md", file_text=NOTE)
    before = snapshot(tmp_path, mem.layout.home)
    files_before = mem.private.files()
    path = f"/memories/{name}"
    replies = [
        fail(tool, command="create", path=path, file_text=NOTE),
        fail(tool, command="str_replace", path=path, old_str="S3", new_str="x"),
        fail(tool, command="insert", path=path, insert_line=0, insert_text="x"),
        fail(tool, command="rename", old_path="/memories/victim.md", new_path=path),
    ]
    if name.strip("/") not in ("", "."):
        replies.append(fail(tool, command="delete", path=path))
    if name == "MEMORY.md":  # the index may be read, never written
        assert "victim.md" in run(tool, command="view", path=path)
    elif name:
        replies.append(fail(tool, command="view", path=path))
    assert snapshot(tmp_path, mem.layout.home) == before
    assert mem.private.files() == files_before
    assert (mem.layout.memory_dir / "victim.md").read_text() == NOTE
    assert (planted / "target.md").read_text() == "secret outside\n"
    for reply in replies:
        assert str(tmp_path) not in reply


_WORKER = """
import sys
from memdir.api import Memdir
from memdir.integrations.memory_tool import MemoryToolBackend
tool = MemoryToolBackend(Memdir.open(sys.argv[1]))
for n in range(int(sys.argv[3])):
    reply = tool.execute({"command": "create", "path": f"/memories/w{sys.argv[2]}_{n}.md",
                          "file_text": f"# note {n} of worker {sys.argv[2]}\\n"})
    assert not reply.startswith("Error"), reply
    reply = tool.execute({"command": "str_replace", "path": "/memories/shared.md",
                          "old_str": "tally:", "new_str": "tally:+"})
    assert not reply.startswith("Error"), reply
"""


def test_concurrent_creates_from_four_processes_all_land_in_files_and_index(
    tool: MemoryToolBackend, mem: Memdir, project: Path
) -> None:
    run(tool, command="create", path="/memories/shared.md", file_text="# Shared counter\ntally:\n")
    per_worker = 10
    workers = [
        subprocess.Popen([sys.executable, "-c", _WORKER, str(project), str(w), str(per_worker)])
        for w in range(4)
    ]
    assert [w.wait(timeout=120) for w in workers] == [0, 0, 0, 0]
    expected = {f"w{w}_{n}.md" for w in range(4) for n in range(per_worker)} | {"shared.md"}
    assert set(mem.private.files()) == expected
    assert sorted(index_files(mem)) == sorted(expected)
    # Every read-modify-write counted: none was lost to a race.
    shared = parse_memory((mem.layout.memory_dir / "shared.md").read_text())
    assert shared.body.count("+") == 4 * per_worker
    assert not [p for p in mem.layout.memory_dir.iterdir() if p.name.endswith(".tmp")]


def test_the_team_scope_can_back_the_tool(mem: Memdir) -> None:
    team = MemoryToolBackend(mem, scope="team")
    run(team, command="create", path="/memories/oncall.md", file_text="# Oncall rota\n")
    assert (mem.layout.team_dir / "oncall.md").is_file()
    assert [e.file for e in parse_entries(mem.team.read_index())] == ["oncall.md"]


def test_the_sdk_memory_tool_wraps_the_backend(tool: MemoryToolBackend, mem: Memdir) -> None:
    lib = pytest.importorskip("anthropic.lib.tools")
    sdk_tool = anthropic_memory_tool(tool)
    assert isinstance(sdk_tool, lib.BetaAbstractMemoryTool)
    assert sdk_tool.to_dict() == {"type": "memory_20250818", "name": "memory"}
    reply = sdk_tool.call({"command": "create", "path": "/memories/cache.md", "file_text": NOTE})
    assert reply == "File created successfully at: /memories/cache.md"
    with pytest.raises(lib.ToolError) as raised:
        sdk_tool.call({"command": "view", "path": "/memories_backup/x"})
    assert "outside /memories" in str(raised.value)
    assert json.loads(json.dumps(index_files(mem))) == ["cache.md"]
    assert os.path.isfile(mem.layout.memory_dir / "cache.md")
