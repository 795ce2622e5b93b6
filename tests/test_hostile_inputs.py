"""A corpus of hostile inputs: names, bodies, paths, encodings, broken environments, servers.

Every case ends in a clean error (a :class:`MemdirError`, a one-line CLI error
with exit status 1, an MCP tool error in plain sentences) or is handled; none
prints a traceback, none reads or writes outside the memory home, and the
memory that was there before is still there afterwards.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner

from gitutil import git
from memdir.api import Memdir
from memdir.cli import main
from memdir.errors import InvalidMemory, MemdirError, StorageError
from memdir.hosts.probes import INITIALIZE
from memdir.model import MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS
from memdir.storage.failures import explain_os_error
from memdir.storage.store import MemoryStore

pytest.importorskip("mcp")
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcputil import HTTP_HEADERS, call_tool, serving_http

SECRET = "outside-secret-never-read"
VICTIM = ("Deploy window", "Deploys happen on Tuesdays", "victim body\n")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the memory home holding a file nothing may read or change."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text(f"---\nname: s\ndescription: d\ntype: user\n---\n{SECRET}\n")
    return folder


@pytest.fixture
def home(mem: Memdir) -> Memdir:
    """The project's memory with one memory that every case must leave intact."""
    name, description, body = VICTIM
    mem.write(name=name, description=description, type="project", body=body)
    return mem


def tree(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` (links not followed), by relative path."""
    out = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            if path.is_file() and not path.is_symlink():
                out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def victim_intact(mem: Memdir) -> None:
    record = mem.private.get(VICTIM[0])
    assert (record.memory.description, record.memory.body) == VICTIM[1:]
    assert record.file in mem.private.index_entries()


def refused(mem: Memdir, outside: Path, action: Callable[[], Any]) -> MemdirError:
    """Run ``action``; it must raise a MemdirError and change nothing anywhere."""
    before, outside_before = tree(mem.layout.memory_dir), tree(outside)
    with pytest.raises(MemdirError) as info:
        action()
    assert tree(mem.layout.memory_dir) == before
    assert tree(outside) == outside_before
    victim_intact(mem)
    assert "\n" not in info.value.message
    return info.value


def cli(*args: str, input: bytes | str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    assert result.exit_code in (0, 1), output
    if result.exit_code == 1:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("memdir: error: "), output
    return result.exit_code, output


# -- names and descriptions, through the API -------------------------------------------

BAD_NAMES = {
    "nul": "a\x00b",
    "escape": "red \x1b[31m",
    "bell": "ding\x07",
    "delete": "x\x7fy",
    "c1 control": "x\x9by",
    "bidi override": "abc\u202etxt.exe",
    "bidi isolate": "abc\u2066x",
    "lone surrogate": "x\ud800y",
    "undecodable byte": "caf\udce9",
    "one too long": "n" * (MAX_NAME_CHARS + 1),
    "100 KB": "n" * 100_000,
    "empty": "",
    "blank": "   \t ",
}


@pytest.mark.parametrize("name", BAD_NAMES.values(), ids=BAD_NAMES.keys())
def test_a_hostile_name_is_refused_by_the_api(home: Memdir, outside: Path, name: str) -> None:
    error = refused(home, outside, lambda: home.write(name=name, description="d", type="user"))
    if len(name) > MAX_NAME_CHARS:
        assert str(MAX_NAME_CHARS) in error.message


BAD_DESCRIPTIONS = {
    "nul": "d\x00",
    "escape": "\x1b]0;title\x07",
    "lone surrogate": "\udfff",
    "too long": "d" * (MAX_DESCRIPTION_CHARS + 1),
    "empty": "",
}


@pytest.mark.parametrize("description", BAD_DESCRIPTIONS.values(), ids=BAD_DESCRIPTIONS.keys())
def test_a_hostile_description_is_refused(home: Memdir, outside: Path, description: str) -> None:
    refused(home, outside, lambda: home.write(name="n", description=description, type="user"))


BAD_TEXT = {
    "body with nul": {"body": "a\x00b"},
    "body with lone surrogate": {"body": "a\ud83db"},
    "body with undecodable byte": {"body": "\udcff\udcfe"},
    "source with surrogate": {"source": "\udc80"},
    "anchor with nul": {"anchors": ("src/\x00.py",)},
    "unknown type": {"type": "opinion"},
}


@pytest.mark.parametrize("fields", BAD_TEXT.values(), ids=BAD_TEXT.keys())
def test_hostile_text_in_other_fields_is_refused(
    home: Memdir, outside: Path, fields: dict[str, Any]
) -> None:
    args: dict[str, Any] = {"name": "n", "description": "d", "type": "user", **fields}
    refused(home, outside, lambda: home.write(**args))


def test_newlines_in_a_name_are_folded_into_one_line(home: Memdir) -> None:
    result = home.write(name="two\nlines\r\nhere", description="a\u2028b", type="user")
    assert result.record.memory.name == "two lines here"
    assert "\n- [two lines here](" in "\n" + home.private.read_index()


def test_the_longest_allowed_name_keeps_its_index_line_within_the_limit(home: Memdir) -> None:
    home.write(name="n" * MAX_NAME_CHARS, description="d" * MAX_DESCRIPTION_CHARS, type="user")
    lines = home.private.read_index().splitlines()
    assert max(len(line) for line in lines) <= home.settings.max_index_line_chars


def test_a_hand_written_memory_with_a_long_name_can_still_be_edited(home: Memdir) -> None:
    long_name = "A hand-written memory whose name is longer than memdir allows today"
    path = home.layout.memory_dir / "long.md"
    path.write_text(f"---\nname: {long_name}\ndescription: d\ntype: user\n---\nold\n")
    record = home.private.get("long.md")
    edited = replace(record.memory, body="new\n")
    home.private.write(edited, file="long.md", expected_version=record.version)
    assert home.private.get("long.md").memory.body == "new\n"
    with pytest.raises(MemdirError, match=f"limit is {MAX_NAME_CHARS}"):
        home.write(name=long_name + "!", description="d", type="user", file="long.md")


# -- file names, through the API --------------------------------------------------------

BAD_FILES = [
    ".hidden.md",
    ".git/config.md",
    "sub/.x.md",
    ".trash/x.md",
    ".memdir/x.md",
    "MEMORY.md",
    "notes.txt",
    "../x.md",
    "/etc/x.md",
    "a" * 130 + ".md",  # the index line would leave no room for a description
]


@pytest.mark.parametrize("file", BAD_FILES)
def test_a_hostile_file_name_is_refused(home: Memdir, outside: Path, file: str) -> None:
    refused(home, outside, lambda: home.write(name="n", description="d", type="user", file=file))


# -- writes never destroy ---------------------------------------------------------------


def victim_file(mem: Memdir) -> str:
    return mem.private.get(VICTIM[0]).file


def test_writing_to_a_file_that_holds_another_memory_is_refused(
    home: Memdir, outside: Path
) -> None:
    file = victim_file(home)
    error = refused(
        home, outside, lambda: home.write(name="Other", description="d", type="user", file=file)
    )
    assert "another memory" in error.message and "replace" in (error.hint or "")


def test_writing_over_an_unparseable_file_is_refused(home: Memdir, outside: Path) -> None:
    broken = home.layout.memory_dir / "broken.md"
    broken.write_text("---\nname: [x\n  - : :\n---\nhand-written notes\n")
    error = refused(
        home,
        outside,
        lambda: home.write(name="n", description="d", type="user", file="broken.md"),
    )
    assert "cannot parse" in error.message
    assert "hand-written notes" in broken.read_text()


def trashed(mem: Memdir) -> dict[str, bytes]:
    return tree(mem.layout.trash_dir) if mem.layout.trash_dir.exists() else {}


def test_an_explicit_replace_moves_the_old_file_to_the_trash_first(home: Memdir) -> None:
    file = victim_file(home)
    old = (home.layout.memory_dir / file).read_bytes()
    home.write(name="Other", description="d", type="user", file=file, replace=True)
    assert old in trashed(home).values()
    assert home.private.get("Other").file == file


def test_a_compare_and_swap_over_another_memory_keeps_a_copy_in_the_trash(home: Memdir) -> None:
    record = home.private.get(VICTIM[0])
    old = (home.layout.memory_dir / record.file).read_bytes()
    home.write(
        name="New", description="d", type="user", file=record.file, expected_version=record.version
    )
    assert old in trashed(home).values()


def test_the_cli_and_mcp_replace_flags_keep_the_old_file_in_the_trash(home: Memdir) -> None:
    file = victim_file(home)
    old = (home.layout.memory_dir / file).read_bytes()
    code, output = cli(*add_args(home, "--name", "Cli", "--description", "d", "--file", file),
                       "--replace")  # fmt: skip
    assert code == 0 and "updated" in output
    assert old in trashed(home).values()
    replaced = (home.layout.memory_dir / file).read_bytes()
    arguments = {"name": "Mcp", "description": "d", "type": "user", "file": file}
    is_error, text = call_tool(home.layout.project_root, "write", {**arguments, "replace": True})
    assert not is_error, text
    assert replaced in trashed(home).values()
    assert home.private.get("Mcp").file == file


def test_updating_the_same_memory_through_its_file_needs_no_replace(home: Memdir) -> None:
    file = victim_file(home)
    home.write(name=VICTIM[0], description="Now Wednesdays", type="project", file=file)
    assert home.private.get(VICTIM[0]).memory.description == "Now Wednesdays"
    assert trashed(home) == {}


# -- broken environments ----------------------------------------------------------------


def test_a_symlink_planted_in_the_trash_cannot_carry_a_deleted_memory_outside(
    home: Memdir, outside: Path
) -> None:
    import datetime as dt

    day = home.layout.trash_dir / dt.date.today().isoformat()
    day.mkdir(parents=True)
    (day / "private").symlink_to(outside, target_is_directory=True)
    refused(home, outside, lambda: home.delete(VICTIM[0]))
    assert tree(outside).keys() == {"secret.md"}


def test_a_whole_trash_folder_linked_outside_is_refused_too(home: Memdir, outside: Path) -> None:
    home.layout.trash_dir.symlink_to(outside, target_is_directory=True)
    refused(home, outside, lambda: home.delete(VICTIM[0]))


def test_the_index_replaced_by_a_directory_is_a_clear_error(home: Memdir, outside: Path) -> None:
    index = home.private.index_path
    saved = index.read_bytes()
    index.unlink()
    index.mkdir()
    with pytest.raises(MemdirError, match="not a regular file"):
        home.write(name="n", description="d", type="user")
    index.rmdir()
    index.write_bytes(saved)
    victim_intact(home)


def test_a_directory_named_like_the_memory_file_is_a_clear_error(
    home: Memdir, outside: Path
) -> None:
    (home.layout.memory_dir / "x.md").mkdir()
    error = refused(
        home, outside, lambda: home.write(name="x", description="d", type="user", file="x.md")
    )
    assert "x.md" in error.message


def test_a_fifo_named_like_the_memory_file_is_refused_without_hanging(
    home: Memdir, outside: Path
) -> None:
    os.mkfifo(home.layout.memory_dir / "pipe.md")
    refused(
        home, outside, lambda: home.write(name="p", description="d", type="user", file="pipe.md")
    )


def test_a_memory_file_linked_outside_is_not_read(home: Memdir, outside: Path) -> None:
    (home.layout.memory_dir / "leak.md").symlink_to(outside / "secret.md")
    assert home.private.find("leak.md") is None
    assert all(SECRET not in hit.text for hit in home.grep("outside-secret"))
    assert all(record.file != "leak.md" for record in home.list())


def test_a_folder_linked_outside_is_not_searched(home: Memdir, outside: Path) -> None:
    (home.layout.memory_dir / "linked").symlink_to(outside, target_is_directory=True)
    assert home.grep(SECRET) == []


def test_an_index_linked_outside_never_reaches_the_prompt(home: Memdir, outside: Path) -> None:
    index = home.private.index_path
    index.unlink()
    index.symlink_to(outside / "secret.md")
    with pytest.raises(MemdirError, match="symbolic link"):
        home.prompt()
    with pytest.raises(MemdirError, match="symbolic link"):
        home.private.read_index()


def test_a_team_folder_replaced_by_a_file_is_a_clear_error(home: Memdir, outside: Path) -> None:
    team = home.layout.team_dir
    team.rmdir()
    team.write_text("not a folder")
    with pytest.raises(MemdirError) as info:
        home.write(name="t", description="d", type="project", scope="team")
    assert str(team) in str(info.value) and "move" in (info.value.hint or "")
    args = ["add", "--project", str(home.layout.project_root), "--type", "project"]
    code, output = cli(*args, "--name", "t", "--description", "d", "--scope", "team")
    assert code == 1 and f"{team} is not a folder" in output
    assert team.read_text() == "not a folder"
    victim_intact(home)


def test_a_lock_file_linked_outside_is_refused(home: Memdir, outside: Path) -> None:
    lock = home.layout.lock_dir / "private.lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(outside / "owned.lock")
    code, output = cli("add", "--project", str(home.layout.project_root), "--type", "user",
                       "--name", "n", "--description", "d")  # fmt: skip
    assert code == 1 and "private.lock" in output
    assert tree(outside).keys() == {"secret.md"}


def test_a_lock_file_in_a_symlink_loop_is_a_clear_error(home: Memdir) -> None:
    locks = home.layout.lock_dir
    (locks / "private.lock").unlink(missing_ok=True)
    (locks / "loop-a").symlink_to(locks / "loop-b")
    (locks / "loop-b").symlink_to(locks / "loop-a")
    (locks / "private.lock").symlink_to(locks / "loop-a")
    code, output = cli("add", "--project", str(home.layout.project_root), "--type", "user",
                       "--name", "n", "--description", "d")  # fmt: skip
    assert code == 1 and "symbolic link" in output


# -- the command line -------------------------------------------------------------------


def add_args(mem: Memdir, *extra: str) -> list[str]:
    return ["add", "--project", str(mem.layout.project_root), "--type", "user", *extra]


CLI_CASES = {
    "undecodable body": ["--name", "n", "--description", "d", "--body", "caf\udce9"],
    "lone surrogate name": ["--name", "x\ud800", "--description", "d"],
    "hidden file": ["--name", "n", "--description", "d", "--file", ".hidden.md"],
    "git file": ["--name", "n", "--description", "d", "--file", ".git/x.md"],
    "long name": ["--name", "n" * 200, "--description", "d"],
    "escape in name": ["--name", "\x1b[2J", "--description", "d"],
    "over another memory": ["--name", "n", "--description", "d", "--file", "deploy_window.md"],
    "traversal": ["--name", "n", "--description", "d", "--file", "../../x.md"],
}


@pytest.mark.parametrize("extra", CLI_CASES.values(), ids=CLI_CASES.keys())
def test_the_cli_turns_hostile_input_into_one_line(
    home: Memdir, outside: Path, extra: list[str]
) -> None:
    before = tree(home.layout.memory_dir)
    code, output = cli(*add_args(home, *extra))
    assert code == 1
    assert "\x1b" not in output
    assert tree(home.layout.memory_dir) == before
    victim_intact(home)


def test_undecodable_standard_input_names_the_encoding(home: Memdir) -> None:
    code, output = cli(*add_args(home, "--name", "n", "--description", "d", "--body", "-"),
                       input=b"ok \xff\xfe")  # fmt: skip
    assert code == 1 and "UTF-8" in output and "0xff" in output


@pytest.mark.parametrize("command", ["show", "edit"])
def test_show_and_edit_on_a_latin1_file_name_the_file_and_encoding(
    home: Memdir, command: str
) -> None:
    path = home.layout.memory_dir / "latin.md"
    path.write_bytes(b"---\nname: Latin\ndescription: caf\xe9\ntype: user\n---\nna\xefve\n")
    code, output = cli(command, "latin.md", "--project", str(home.layout.project_root))
    assert code == 1 and "latin.md" in output and "UTF-8" in output
    assert path.read_bytes().endswith(b"na\xefve\n")


def test_an_unexpected_error_is_one_line_and_its_traceback_goes_to_the_log(
    home: Memdir, memdir_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*_: Any, **__: Any) -> None:
        raise KeyError("surprise")

    monkeypatch.setattr(MemoryStore, "scan", boom)
    code, output = cli("list", "--project", str(home.layout.project_root))
    assert code == 1 and "KeyError" in output and "--debug" in output
    log = memdir_home / "state" / "cli-errors.log"
    assert "Traceback" in log.read_text()
    debug = CliRunner().invoke(
        main, ["--debug", "list", "--project", str(home.layout.project_root)]
    )
    assert debug.exit_code == 1 and "Traceback" in debug.stderr


def test_an_ordinary_error_leaves_no_traceback_in_the_log(home: Memdir, memdir_home: Path) -> None:
    code, output = cli("show", "nothing-by-this-name", "--project", str(home.layout.project_root))
    assert code == 1 and "no memory named" in output
    assert not (memdir_home / "state" / "cli-errors.log").exists()


def test_the_error_log_is_rotated_past_its_size_limit(
    home: Memdir, memdir_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*_: Any, **__: Any) -> None:
        raise KeyError("surprise")

    monkeypatch.setattr(MemoryStore, "scan", boom)
    state = memdir_home / "state"
    state.mkdir(parents=True, exist_ok=True)
    (state / "cli-errors.log").write_text("old\n" * 100_000)  # past 256 KiB
    cli("list", "--project", str(home.layout.project_root))
    assert (state / "cli-errors.log.1").read_text().startswith("old\n")
    fresh = (state / "cli-errors.log").read_text()
    assert "Traceback" in fresh and "old" not in fresh
    assert (state / "cli-errors.log").stat().st_size < 256 << 10


# -- the MCP server ---------------------------------------------------------------------


ARGUMENT_ERRORS = {
    "missing everything": ("write", {}),
    "unknown type": ("write", {"name": "n", "description": "d", "type": "opinion"}),
    "name as a number": ("write", {"name": 5, "description": "d", "type": "user"}),
    "scope unknown": ("write", {"name": "n", "description": "d", "type": "user", "scope": "x"}),
    "start_line as text": ("view", {"path": "a.md", "start_line": "first"}),
    "limit as text": ("search", {"query": "x", "limit": "many"}),
    "mode unknown": ("search", {"query": "x", "mode": "fuzzy"}),
    "missing query": ("recall", {}),
    "old_str as a list": ("edit", {"path": "a.md", "old_str": ["a"], "new_str": "b"}),
}


@pytest.mark.parametrize("tool,arguments", ARGUMENT_ERRORS.values(), ids=ARGUMENT_ERRORS.keys())
def test_mcp_argument_errors_say_what_to_send_without_echoing_input(
    home: Memdir, tool: str, arguments: dict[str, Any]
) -> None:
    is_error, text = call_tool(home.layout.project_root, tool, arguments)
    assert is_error
    assert "pydantic" not in text and "input_value" not in text and "Traceback" not in text
    assert "opinion" not in text and "first" not in text and "many" not in text
    assert "Call it again" in text


MCP_REFUSALS = {
    "reversed view range": ("view", {"start_line": -5, "end_line": 0}),
    "end before start": ("view", {"path": "deploy_window.md", "start_line": 3, "end_line": 2}),
    "nul in name": ("write", {"name": "n\x00", "description": "d", "type": "user"}),
    "100 KB name": ("write", {"name": "n" * 100_000, "description": "d", "type": "user"}),
    "over another memory": (
        "write",
        {"name": "n", "description": "d", "type": "user", "file": "deploy_window.md"},
    ),
    "hidden file": ("write", {"name": "n", "description": "d", "type": "user", "file": ".x.md"}),
    "backreference": ("search", {"query": "(a)\\1", "mode": "grep", "regex": True}),
    "hidden view": ("view", {"path": ".trash"}),
}


@pytest.mark.parametrize("tool,arguments", MCP_REFUSALS.values(), ids=MCP_REFUSALS.keys())
def test_mcp_refuses_hostile_calls_with_a_next_step(
    home: Memdir, outside: Path, tool: str, arguments: dict[str, Any]
) -> None:
    before = tree(home.layout.memory_dir)
    is_error, text = call_tool(home.layout.project_root, tool, arguments)
    assert is_error and "Next:" in text
    assert str(home.layout.home) not in text
    assert tree(home.layout.memory_dir) == before
    victim_intact(home)


TEN_MB = 10 * 1024 * 1024
UNUSABLE_ARGUMENTS = {
    "lone surrogate in a ranked query": ("search", {"query": "\udcff\udcfe deploy"}, "query"),
    "lone surrogate in a grep query": ("search", {"query": "\ud800", "mode": "grep"}, "query"),
    "lone surrogate in a recall": ("recall", {"query": "deploys \ud800"}, "query"),
    "lone surrogate in a path": ("view", {"path": "\ud800.md"}, "path"),
    "lone surrogate in a name": (
        "write",
        {"name": "n\ud800", "description": "d", "type": "user"},
        "name",
    ),
    "lone surrogate in new_str": (
        "edit",
        {"path": "deploy_window.md", "old_str": "victim", "new_str": "\udfff"},
        "new_str",
    ),
    "lone surrogate in a log entry": ("log", {"text": "\ud800"}, "text"),
    "10 MB view path": ("view", {"path": "a/" * (TEN_MB // 2)}, "path"),
    "10 MB write file": (
        "write",
        {"name": "n", "description": "d", "type": "user", "file": "x" * TEN_MB},
        "file",
    ),
    "10 MB edit path": ("edit", {"path": "y" * TEN_MB, "old_str": "a", "new_str": "b"}, "path"),
    "10 MB delete path": ("delete", {"path": "z" * TEN_MB}, "path"),
    "10 MB why path": ("why", {"path": "w" * TEN_MB}, "path"),
    "lone surrogate in a why path": ("why", {"path": "\ud800"}, "path"),
    "lone surrogate in a delete path": ("delete", {"path": "\ud800"}, "path"),
}


@pytest.mark.parametrize(
    "tool,arguments,arg", UNUSABLE_ARGUMENTS.values(), ids=UNUSABLE_ARGUMENTS.keys()
)
def test_arguments_no_memory_can_hold_are_a_tool_error_naming_them(
    home: Memdir, tool: str, arguments: dict[str, Any], arg: str
) -> None:
    before = tree(home.layout.memory_dir)
    is_error, text = call_tool(home.layout.project_root, tool, arguments)
    assert is_error and "unexpected" not in text
    assert repr(arg) in text and "Next:" in text
    assert len(text) < 1000  # the value is not echoed back
    assert tree(home.layout.memory_dir) == before
    victim_intact(home)


def test_a_backtracking_pattern_is_answered_over_mcp(home: Memdir) -> None:
    (home.layout.memory_dir / "as.md").write_text("a" * 40 + "b\n")
    is_error, text = call_tool(
        home.layout.project_root, "search", {"query": "(a+)+$", "mode": "grep", "regex": True}
    )
    assert not is_error and "No line contains" in text


def test_mcp_grep_does_not_read_through_a_planted_link(home: Memdir, outside: Path) -> None:
    (home.layout.memory_dir / "leak.md").symlink_to(outside / "secret.md")
    is_error, text = call_tool(
        home.layout.project_root, "search", {"query": "never", "mode": "grep"}
    )
    assert not is_error and SECRET not in text and "leak.md" not in text


# -- over HTTP --------------------------------------------------------------------------

TOKEN = "hostile-inputs-token"


@pytest.fixture
def url(home: Memdir) -> Iterator[str]:
    with serving_http(home.layout.project_root, TOKEN) as served:
        yield served


def over_http(url: str, action: Callable[[Client], Any]) -> Any:
    async def run() -> Any:
        async with (
            httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            return await action(client)

    return anyio.run(run)


def test_the_prompt_served_over_http_names_no_host_path(home: Memdir, url: str) -> None:
    async def prompt(client: Client) -> str:
        result = await client.get_prompt("memory")
        content = result.messages[0].content
        assert content.type == "text"
        return content.text

    text = over_http(url, prompt)
    assert str(home.layout.home) not in text and str(home.layout.memory_dir) not in text
    assert os.path.realpath(home.layout.home) not in text
    assert "view" in text and "[Deploy window]" in text


def test_over_http_a_pathological_grep_and_another_client_are_both_answered(
    home: Memdir, url: str
) -> None:
    (home.layout.memory_dir / "as.md").write_text(("a" * 30 + "\n") * 200)

    async def both(client: Client) -> tuple[str, str]:
        answers: dict[str, str] = {}

        async def grep() -> None:
            args = {"query": "(a+)+$b", "mode": "grep", "regex": True}
            result = await client.call_tool("search", args)
            answers["grep"] = result.content[0].text  # type: ignore[union-attr]

        async def view() -> None:
            result = await client.call_tool("view", {})
            answers["view"] = result.content[0].text  # type: ignore[union-attr]

        async with anyio.create_task_group() as group:
            group.start_soon(grep)
            group.start_soon(view)
        return answers["grep"], answers["view"]

    grep_text, view_text = over_http(url, both)
    assert "No line contains" in grep_text
    assert "[Deploy window]" in view_text


NOT_TEXT = {
    "bytes that are not UTF-8": b'"\xff\xfe deploy"',
    "an unpaired surrogate escape": b'"\\udcff deploy"',
}


def tool_call(id: int, query: bytes) -> bytes:
    """A search call with ``query`` as the raw JSON of its argument."""
    params = b'{"name":"search","arguments":{"query":' + query + b"}}"
    return b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}' % (id, params)


def refused_text(answer: dict[str, Any], id: int) -> str:
    assert answer["id"] == id and answer["result"]["isError"]
    text = str(answer["result"]["content"][0]["text"])
    assert "'query'" in text and "UTF-8" in text and "Next:" in text
    return text


@pytest.mark.parametrize("query", NOT_TEXT.values(), ids=NOT_TEXT.keys())
def test_over_http_a_query_that_is_not_text_gets_its_tool_error(
    home: Memdir, url: str, query: bytes
) -> None:
    headers = {"authorization": f"Bearer {TOKEN}", **HTTP_HEADERS}
    with httpx2.Client(headers=headers, timeout=60) as http:
        opened = http.post(url, json=INITIALIZE)
        assert opened.status_code == 200
        headers = {"mcp-session-id": opened.headers["mcp-session-id"]}
        answer = http.post(url, content=tool_call(7, query), headers=headers)
    assert answer.status_code == 200
    refused_text(answer.json(), 7)


def test_over_stdio_a_query_that_is_not_text_gets_its_tool_error(home: Memdir) -> None:
    lines = [tool_call(i, query) for i, query in enumerate(NOT_TEXT.values(), start=1)]
    done = subprocess.run(
        [sys.executable, "-m", "memdir", "serve", "--project", str(home.layout.project_root)],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=120,
        check=False,
    )
    answers = {m["id"]: m for m in map(json.loads, done.stdout.splitlines()) if "id" in m}
    for id in range(1, len(lines) + 1):
        refused_text(answers[id], id)


# -- environment failures explained -----------------------------------------------------

OS_FAILURES = {
    "read-only folder": (errno.EACCES, "chmod"),
    "read-only file system": (errno.EROFS, "read-only"),
    "directory where a file belongs": (errno.EISDIR, "directory"),
    "file where a folder belongs": (errno.ENOTDIR, "folder"),
    "symlink loop": (errno.ELOOP, "link"),
    "disk full": (errno.ENOSPC, "space"),
}


@pytest.mark.parametrize("code,advice", OS_FAILURES.values(), ids=OS_FAILURES.keys())
def test_an_environment_failure_names_the_folder_and_what_to_do(
    tmp_path: Path, code: int, advice: str
) -> None:
    temp = tmp_path / "memory" / ".topic.md.k2j3h4.tmp"  # what atomic_write was creating
    error = explain_os_error(OSError(code, os.strerror(code), str(temp)))
    # A full disk names the file that was being written; the rest its folder.
    where = tmp_path / "memory" / ("topic.md" if code == errno.ENOSPC else "")
    assert error.path == str(where).rstrip("/")
    assert advice in (error.hint or "")
    assert isinstance(error, StorageError)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through any permission")
def test_a_read_only_memory_folder_is_a_one_line_error(home: Memdir) -> None:
    folder = home.layout.memory_dir
    folder.chmod(0o500)
    try:
        code, output = cli(*add_args(home, "--name", "n", "--description", "d"))
    finally:
        folder.chmod(0o700)
    assert code == 1 and str(folder) in output and "chmod" in output
    victim_intact(home)


def test_claude_mode_with_an_undecodable_project_path_saves_and_lists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = Path(os.fsdecode(tmp_path / "caf") + os.fsdecode(b"\xe9"))
    project.mkdir()
    git(project, "init", "-q")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    args = ["--profile", "claude", "add", "--project", str(project), "--type", "user"]
    code, output = cli(*args, "--name", "n", "--description", "d")
    assert code == 0, output
    code, output = cli("--profile", "claude", "list", "--project", str(project), "--json")
    assert code == 0 and '"name": "n"' in output


# -- enforced rules: what the shell runs, rules too wide, inputs too long ----------------

_SHELL_DISGUISES = [
    "npm  install",
    "npm\tinstall",
    "npm \\\ninstall",
    "n\\pm install",
    "'npm' install",
    '"npm" install',
    "$(echo npm) install",
    "`echo npm` install",
    "N=npm; $N install",
    "bash -c 'npm install'",
    "eval 'npm install'",
]


@pytest.mark.parametrize("command", _SHELL_DISGUISES)
def test_a_deny_rule_sees_through_the_shell_spelling_of_a_command(
    home: Memdir, command: str
) -> None:
    from memdir.enforcement.enforced import load_rules
    from memdir.hooks.pre_tool_use import decide

    rule = {"tool": "Bash", "match": r"\bnpm (install|i|run)\b", "action": "deny"}
    home.write(name="Use pnpm", description="pnpm only", type="feedback", extra={"enforce": [rule]})
    rules = load_rules(home.layout).rules
    assert decide(rules, "Bash", {"command": command}).action == "deny"
    message = "git commit -m 'stop using npm install in CI'"
    assert decide(rules, "Bash", {"command": message}).action is None
    past_the_limit = "x" * 200_000 + "; npm install"
    assert decide(rules, "Bash", {"command": past_the_limit}).action == "ask"


@pytest.mark.parametrize("match", [".", "(?s).", "\\S", ".*", ""])
def test_a_teammate_rule_that_matches_everything_is_refused(
    home: Memdir, outside: Path, match: str
) -> None:
    rule = {"tool": "*", "match": match, "action": "deny"}
    refused(
        home,
        outside,
        lambda: home.write(
            name="Everything", description="d", type="feedback", scope="team",
            extra={"enforce": [rule]},
        ),
    )  # fmt: skip


# -- bounded work for any input -----------------------------------------------------------


def test_a_huge_prompt_is_ranked_on_its_two_ends_only() -> None:
    from memdir.search.terms import MAX_QUERY_CHARS, bounded_query

    middle = "filler " * 1_000_000
    query = "deploy window " + middle + " when is the freeze"
    bounded = bounded_query(query)
    assert len(bounded) <= MAX_QUERY_CHARS + 1
    assert bounded.startswith("deploy window") and bounded.endswith("when is the freeze")
    assert "fill" not in bounded.split()[-5:]  # no word is cut in two at either end
    assert bounded_query("short question") == "short question"


@pytest.mark.parametrize("where", ["head", "tail"])
def test_recall_and_search_on_a_megabyte_prompt_find_what_its_ends_ask(
    home: Memdir, where: str
) -> None:
    home.write(name="Merge freeze", description="the mobile merge freeze", type="project")
    noise = " ".join(f"w{i}" for i in range(150_000))  # a megabyte of distinct words
    ask = "merge freeze"
    prompt = f"{ask} {noise}" if where == "head" else f"{noise} {ask}"
    assert len(prompt) > 1 << 20
    assert [item.ref for item in home.recall(prompt).items] == ["merge_freeze.md"]
    assert [hit.title for hit in home.search(prompt)][:1] == ["Merge freeze"]


def test_a_body_on_stdin_over_the_limit_is_refused_before_it_is_read_whole(
    home: Memdir, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    from memdir.cli._common import read_stdin_text
    from memdir.errors import LimitExceeded

    raw = io.BytesIO(b"x" * (50 << 20))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(raw, encoding="utf-8"))
    with pytest.raises(LimitExceeded, match="limit of one memory"):
        read_stdin_text(limit=home.settings.max_memory_bytes)
    assert raw.tell() <= home.settings.max_memory_bytes + 1
    args = ("add", "--type", "project", "--name", "Big", "--description", "d", "--body", "-")
    code, output = cli(*args, input=b"y" * (1 << 20))
    assert code == 1 and "limit" in output
    victim_intact(home)


# -- wrong-typed arguments of the Python API --------------------------------------------

WRONG_TYPES: dict[str, tuple[dict[str, object], str]] = {
    "source as a number": ({"source": 123}, "'source' must be text"),
    "source as a list": ({"source": ["a"]}, "'source' must be text"),
    "anchors as one string": ({"anchors": "src/x.py"}, "'anchors' must be a list of strings"),
    "anchors holding numbers": ({"anchors": [1, 2]}, "item 0 is int"),
    "anchors as a dict": ({"anchors": {"a": 1}}, "'anchors' must be a list of strings"),
    "supersedes as a number": ({"supersedes": 5}, "'supersedes' must be a list"),
    "a date as text": ({"verified": "soon"}, "'verified' must be a date"),
    "extra as a list": ({"extra": ["x"]}, "'extra' must be a dict"),
    "an unknown field": ({"tags": ["x"]}, "unknown memory field 'tags'"),
    "enforce as a keyword": ({"enforce": []}, "extra={'enforce'"),
    "a numeric body": ({"body": 5}, "body must be text"),
    "a numeric name": ({"name": 5}, "name must be text"),
    "a list description": ({"description": ["x"]}, "description must be text"),
    "a numeric file": ({"file": 5}, "file must be text"),
    "a numeric version": ({"expected_version": 5}, "expected_version must be text"),
}


@pytest.mark.parametrize("change,said", WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
def test_a_wrong_typed_api_argument_is_a_clear_error_not_a_type_error(
    mem: Memdir, change: dict[str, object], said: str
) -> None:
    arguments: dict[str, Any] = {"name": "n", "description": "d", "type": "project", **change}
    with pytest.raises(InvalidMemory) as caught:
        mem.write(**arguments)
    assert said in str(caught.value)
    assert mem.private.files() == []
