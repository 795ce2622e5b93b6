"""The Anthropic memory tool backend: six commands over /memories, confined and locked.

The SDK-compatibility behaviours (what the SDK's reference tool returns) are in
test_memory_tool_sdk.py; these are memdir's own: the index, sidecars, trash, scopes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from memdir.api import Memdir
from memdir.hosts.memory_tool import MemoryToolBackend, anthropic_memory_tool
from memdir.storage import sidecar
from memdir.storage.codec import parse_memory
from memdir.storage.memory_index import parse_entries
from memtoolutil import error, ok
from test_hostile_paths import ALL, NOT_MEMORY_FILES, SYMLINK_NAMES, planted, snapshot

__all__ = ["planted"]  # the fixture, imported so that the corpus tests can plant symlinks

NOTE = "---\nname: Build cache\ndescription: CI caches live in S3\ntype: reference\n---\nS3.\n"


@pytest.fixture
def tool(mem: Memdir) -> MemoryToolBackend:
    return MemoryToolBackend(mem)


def index_files(mem: Memdir) -> list[str]:
    return [e.file for e in parse_entries(mem.private.read_index())]


def test_view_of_the_root_lists_memories_but_not_other_scopes(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    mem.write(name="Oncall", description="who", type="reference", scope="team")
    ok(tool, command="create", path="/memories/notes/cache.md", file_text=NOTE)
    listing = ok(tool, command="view", path="/memories")
    lines = listing.splitlines()
    assert lines[0].startswith("Here're the files and directories up to 2 levels deep")
    assert any(line.endswith("\t/memories/notes/cache.md") for line in lines)
    assert any(line.endswith("\t/memories/MEMORY.md") for line in lines)
    assert "team" not in listing and "logs" not in listing


def test_create_with_frontmatter_writes_it_exactly_and_indexes_it(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    reply = ok(tool, command="create", path="/memories/cache.md", file_text=NOTE)
    assert reply == "File created successfully at: /memories/cache.md"
    assert (mem.layout.memory_dir / "cache.md").read_text() == NOTE
    assert not sidecar.exists(mem.layout.memory_dir / "cache.md")
    assert index_files(mem) == ["cache.md"]


def test_a_plain_note_is_kept_exactly_and_its_fields_live_in_a_hidden_sidecar(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    text = "# Likes tabs\nAlways.\n"
    reply = ok(tool, command="create", path="/memories/user_prefs.md", file_text=text)
    assert reply == "File created successfully at: /memories/user_prefs.md"
    note = mem.layout.memory_dir / "user_prefs.md"
    assert note.read_bytes() == text.encode()
    assert sidecar.path_for(note) == mem.layout.memory_dir / ".meta" / "user_prefs.md.yaml"
    record = mem.private.get("user_prefs.md")
    memory = record.memory
    assert (memory.name, memory.description, memory.type) == ("user prefs", "Likes tabs", "project")
    assert memory.body == text
    assert index_files(mem) == ["user_prefs.md"]
    listing = ok(tool, command="view", path="/memories")
    assert ".meta" not in listing and "yaml" not in listing
    assert ".meta" in error(tool, command="view", path="/memories/.meta/user_prefs.md.yaml")


def test_notes_of_any_text_extension_are_memories_that_recall_and_search_find(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    ok(
        tool,
        command="create",
        path="/memories/deploy.txt",
        file_text="Deploys go out on Tuesdays\n",
    )
    data = '{"release_train": "weekly", "owner": "platform"}'
    ok(tool, command="create", path="/memories/config/release.json", file_text=data)
    ok(tool, command="create", path="/memories/arch.xml", file_text="<arch>hexagonal</arch>\n")
    assert set(mem.private.files()) == {"deploy.txt", "config/release.json", "arch.xml"}
    assert sorted(index_files(mem)) == ["arch.xml", "config/release.json", "deploy.txt"]
    assert mem.private.get("config/release.json").memory.body == data + "\n"
    assert {e.file for e in mem.manifest().entries} == set(mem.private.files())
    hits = mem.search("Tuesdays", kinds=["memory"])
    assert hits[0].ref == "deploy.txt"
    assert mem.search("hexagonal", kinds=["memory"])[0].ref == "arch.xml"
    recalled = mem.recall("which day do deploys go out, Tuesdays?").items
    assert [(i.file, i.name, i.type) for i in recalled][:1] == [("deploy.txt", "deploy", "project")]


def test_the_sidecar_is_kept_across_edits_and_follows_renames_and_deletes(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    root = mem.layout.memory_dir
    ok(tool, command="create", path="/memories/todo.txt", file_text="Ship the parser\n")
    first = sidecar.read_fields(root / "todo.txt")
    ok(tool, command="str_replace", path="/memories/todo.txt", old_str="Ship", new_str="Test")
    ok(tool, command="insert", path="/memories/todo.txt", insert_line=0, insert_text="key: value")
    assert (root / "todo.txt").read_text() == "key: value\nTest the parser\n"
    kept = sidecar.read_fields(root / "todo.txt")
    assert kept is not None and first is not None
    assert (kept["name"], kept["description"], kept["created"]) == (
        first["name"], first["description"], first["created"],
    )  # fmt: skip
    assert "key" not in kept  # inserted YAML-looking text is part of the note, not its fields
    assert "key: value" in mem.private.get("todo.txt").memory.body
    ok(tool, command="rename", old_path="/memories/todo.txt", new_path="/memories/a/todo.txt")
    assert (
        not sidecar.exists(root / "todo.txt") and sidecar.read_fields(root / "a/todo.txt") == kept
    )
    assert index_files(mem) == ["a/todo.txt"]
    ok(tool, command="rename", old_path="/memories/a", new_path="/memories/b")
    assert sidecar.read_fields(root / "b/todo.txt") == kept and not (root / "a").exists()
    ok(tool, command="delete", path="/memories/b/todo.txt")
    assert not (root / "b" / ".meta").exists() and index_files(mem) == []
    trashed = list(mem.layout.trash_dir.rglob("todo.txt"))
    assert len(trashed) == 1 and sidecar.read_fields(trashed[0]) == kept


def test_memdirs_own_edits_of_a_note_keep_its_text_plain_and_its_fields_beside_it(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    ok(tool, command="create", path="/memories/plan.txt", file_text="Ship on Friday\n")
    record = mem.private.get("plan.txt")
    mem.private.write_text("plan.txt", "Ship on Monday\n", expected_version=record.version)
    assert (mem.layout.memory_dir / "plan.txt").read_text() == "Ship on Monday\n"
    record = mem.private.get("plan.txt")
    assert record.memory.name == "plan"
    updated = replace(record.memory, description="the release day", body="Ship on Tuesday\n")
    mem.private.write(updated, file="plan.txt", expected_version=record.version)
    assert (mem.layout.memory_dir / "plan.txt").read_text() == "Ship on Tuesday\n"
    assert mem.private.get("plan.txt").memory.description == "the release day"
    assert parse_entries(mem.private.read_index())[0].hook == "the release day"
    assert "Ship on Tuesday" in ok(tool, command="view", path="/memories/plan.txt")


def edit_note(tool: MemoryToolBackend, old: str, new: str) -> None:
    """The tool creates :data:`NOTE` as ``cache.md``, then replaces ``old`` by ``new`` in it."""
    ok(tool, command="create", path="/memories/cache.md", file_text=NOTE)
    ok(tool, command="str_replace", path="/memories/cache.md", old_str=old, new_str=new)


def test_an_edit_that_breaks_the_frontmatter_keeps_the_text_and_the_last_fields(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    edit_note(tool, "type: reference\n", "")
    note = mem.layout.memory_dir / "cache.md"
    assert note.read_text() == NOTE.replace("type: reference\n", "")
    memory = mem.private.get("cache.md").memory
    assert (memory.name, memory.type) == ("Build cache", "reference")
    assert index_files(mem) == ["cache.md"]


def test_an_edit_of_a_memory_that_keeps_its_frontmatter_updates_the_index(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    edit_note(tool, "CI caches live in S3", "CI caches live in GCS")
    assert "description: CI caches live in GCS" in (mem.layout.memory_dir / "cache.md").read_text()
    assert parse_entries(mem.private.read_index())[0].hook == "CI caches live in GCS"
    assert not sidecar.exists(mem.layout.memory_dir / "cache.md")


def test_a_file_put_there_by_hand_gets_a_sidecar_on_its_first_edit(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    (mem.layout.memory_dir / "hand.txt").write_text("written by hand\n")
    assert mem.private.files() == []
    ok(tool, command="insert", path="/memories/hand.txt", insert_line=1, insert_text="and edited")
    assert mem.private.files() == ["hand.txt"]
    assert mem.private.get("hand.txt").memory.description == "written by hand"


def test_delete_moves_a_file_to_the_trash_and_drops_its_pointer(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    ok(tool, command="create", path="/memories/cache.md", file_text=NOTE)
    assert ok(tool, command="delete", path="/memories/cache.md") == (
        "Successfully deleted /memories/cache.md"
    )
    assert not (mem.layout.memory_dir / "cache.md").exists()
    assert index_files(mem) == []
    assert list(mem.layout.trash_dir.rglob("cache.md"))


def test_delete_of_a_folder_trashes_its_memories_and_its_other_files(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    ok(tool, command="create", path="/memories/ci/a.md", file_text=NOTE)
    ok(tool, command="create", path="/memories/ci/b.txt", file_text="b\n")
    (mem.layout.memory_dir / "ci" / "hand.log").write_text("kept in the trash\n")
    assert ok(tool, command="delete", path="/memories/ci") == "Successfully deleted /memories/ci"
    assert not (mem.layout.memory_dir / "ci").exists()
    assert index_files(mem) == []
    trashed = {p.name for p in mem.layout.trash_dir.rglob("*") if p.is_file()}
    assert {"a.md", "b.txt", "hand.log"} <= trashed


def test_rename_moves_a_file_and_a_folder_with_their_pointers(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    ok(tool, command="create", path="/memories/cache.md", file_text=NOTE)
    ok(tool, command="rename", old_path="/memories/cache.md", new_path="/memories/ci/cache.md")
    assert index_files(mem) == ["ci/cache.md"]
    ok(tool, command="rename", old_path="/memories/ci", new_path="/memories/build")
    assert index_files(mem) == ["build/cache.md"]
    assert (mem.layout.memory_dir / "build" / "cache.md").read_text() == NOTE
    assert not (mem.layout.memory_dir / "ci").exists()
    ok(tool, command="create", path="/memories/other.md", file_text="o\n")
    clash = error(
        tool, command="rename", old_path="/memories/other.md", new_path="/memories/build/cache.md"
    )
    assert "The destination /memories/build/cache.md already exists" in clash


def test_a_memory_renamed_away_from_md_stays_a_memory_through_a_sidecar(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    ok(tool, command="create", path="/memories/cache.md", file_text=NOTE)
    ok(tool, command="rename", old_path="/memories/cache.md", new_path="/memories/cache.txt")
    assert (mem.layout.memory_dir / "cache.txt").read_text() == NOTE
    assert mem.private.get("cache.txt").memory.name == "Build cache"
    assert index_files(mem) == ["cache.txt"]


def test_the_root_and_the_index_can_be_neither_deleted_nor_renamed(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    ok(tool, command="create", path="/memories/cache.md", file_text=NOTE)
    for path in ("/memories", "/memories/"):
        assert "Cannot delete the /memories directory itself" in error(
            tool, command="delete", path=path
        )
        renamed = error(tool, command="rename", old_path=path, new_path="/memories/x")
        assert "Cannot rename the /memories directory itself" in renamed
    assert "index" in error(tool, command="delete", path="/memories/MEMORY.md")
    error(tool, command="rename", old_path="/memories/MEMORY.md", new_path="/memories/i.md")
    assert index_files(mem) == ["cache.md"]


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
    tool: MemoryToolBackend, mem: Memdir, command: dict[str, Any]
) -> None:
    (mem.layout.memory_dir / "_backup").mkdir()
    (mem.layout.memory_dir / "_backup" / "x.md").write_text(NOTE)
    assert "Path must start with /memories/" in error(tool, **command)
    assert (mem.layout.memory_dir / "_backup" / "x.md").read_text() == NOTE


def test_unknown_and_malformed_commands_are_errors(tool: MemoryToolBackend) -> None:
    assert "unknown command" in error(tool, command="format")
    assert "malformed create command" in error(tool, command="create", path="/memories/x.md")


@pytest.mark.parametrize(
    "command",
    [
        {"command": "create", "path": "/memories/x.md", "file_text": 42},
        {"command": "create", "path": "/memories/x.md", "file_text": None},
        {"command": "create", "path": "/memories/x.md", "file_text": ["a"]},
        {"command": "create", "path": 7, "file_text": "x"},
        {"command": "str_replace", "path": "/memories/x.md", "old_str": 1, "new_str": "y"},
        {"command": "insert", "path": "/memories/x.md", "insert_line": "one", "insert_text": "y"},
        {"command": "insert", "path": "/memories/x.md", "insert_line": 1, "insert_text": 3},
        {"command": "view", "path": "/memories/x.md", "view_range": ["a", 2]},
    ],
)
def test_arguments_of_the_wrong_type_are_clean_errors(
    tool: MemoryToolBackend, mem: Memdir, command: dict[str, Any]
) -> None:
    ok(tool, command="create", path="/memories/x.md", file_text="x\n")
    reply = error(tool, **command)
    assert "must be" in reply and "Attribute" not in reply
    assert (mem.layout.memory_dir / "x.md").read_text() == "x\n"


# Names the tool accepts on purpose (any text note); the store alone still refuses them.
_TOOL_NAMES = {"x.txt", "x", "x.MD"}


@pytest.mark.parametrize("name", [n for n in ALL if n not in _TOOL_NAMES] + SYMLINK_NAMES)
def test_every_hostile_name_is_refused_and_nothing_is_written(
    tool: MemoryToolBackend, mem: Memdir, planted: Path, tmp_path: Path, name: str
) -> None:
    ok(tool, command="create", path="/memories/victim.md", file_text=NOTE)
    before = snapshot(tmp_path, mem.layout.home)
    files_before = mem.private.files()
    path = f"/memories/{name}"
    replies = [
        error(tool, command="create", path=path, file_text=NOTE),
        error(tool, command="str_replace", path=path, old_str="S3", new_str="x"),
        error(tool, command="insert", path=path, insert_line=0, insert_text="x"),
        error(tool, command="rename", old_path="/memories/victim.md", new_path=path),
    ]
    if name.strip("/") not in ("", "."):
        replies.append(error(tool, command="delete", path=path))
    if name == "MEMORY.md":  # the index may be read, never written
        assert "victim.md" in ok(tool, command="view", path=path)
    elif name:
        replies.append(error(tool, command="view", path=path))
    assert snapshot(tmp_path, mem.layout.home) == before
    assert mem.private.files() == files_before
    assert (mem.layout.memory_dir / "victim.md").read_text() == NOTE
    assert (planted / "target.md").read_text() == "secret outside\n"
    for reply in replies:
        assert str(tmp_path) not in reply


def test_the_names_the_tool_accepts_are_exactly_the_text_notes() -> None:
    assert set(NOT_MEMORY_FILES) >= _TOOL_NAMES


_WORKER = """
import sys
from memdir.api import Memdir
from memdir.hosts.memory_tool import MemoryToolBackend
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
    ok(tool, command="create", path="/memories/shared.md", file_text="# Shared counter\ntally:\n")
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


def test_the_team_scope_can_back_the_tool(project: Path) -> None:
    mem = Memdir.open(project, review_team="auto")  # the default, manual, keeps it pending
    team = MemoryToolBackend(mem, scope="team")
    ok(team, command="create", path="/memories/oncall.md", file_text="# Oncall rota\n")
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
    assert "Path must start with /memories/" in str(raised.value)
    assert json.loads(json.dumps(index_files(mem))) == ["cache.md"]
    assert os.path.isfile(mem.layout.memory_dir / "cache.md")


def test_the_mcp_server_lists_and_edits_notes_the_tool_created(
    tool: MemoryToolBackend, mem: Memdir, project: Path
) -> None:
    pytest.importorskip("mcp")
    from test_mcp import ok as mcp_ok

    ok(tool, command="create", path="/memories/ops/deploy.txt", file_text="Deploys on Tuesdays")
    listing = mcp_ok(project, "view", {"path": "ops/"})
    assert "ops/deploy.txt [project] Deploys on Tuesdays" in listing
    mcp_ok(project, "edit", {"path": "ops/deploy.txt", "old_str": "Tuesdays", "new_str": "Fridays"})
    assert (mem.layout.memory_dir / "ops/deploy.txt").read_text() == "Deploys on Fridays\n"
    assert sidecar.read_fields(mem.layout.memory_dir / "ops/deploy.txt") is not None
