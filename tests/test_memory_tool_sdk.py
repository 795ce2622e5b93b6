"""The memory tool answers as the SDK's reference tool does (memory_20250818).

Each behaviour the anthropic SDK checks of its own filesystem memory tool is
checked here against memdir's backend, expecting the SDK's reply texts,
except where memdir is deliberately stricter (listed in docs/memory-tool.md): those
tests say so in their names.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdir.api import Memdir
from memdir.hosts.memory_tool import MemoryToolBackend, anthropic_memory_tool
from memtoolutil import error, ok

VIEW_HEADER = "Here's the content of {} with line numbers:\n"
EDITED = (
    "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
)


@pytest.fixture
def tool(mem: Memdir) -> MemoryToolBackend:
    return MemoryToolBackend(mem)


def visible(mem: Memdir) -> dict[str, bytes]:
    """What a model can see in /memories: every file but hidden ones and the index."""
    root = mem.layout.memory_dir
    out: dict[str, bytes] = {}
    for dirpath, dirs, files in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root)
        dirs[:] = [
            d for d in dirs if not d.startswith(".") and str(rel_dir / d) not in ("team", "logs")
        ]
        for name in files:
            rel = (rel_dir / name).as_posix()
            if not name.startswith(".") and rel != "MEMORY.md":
                out[rel] = (Path(dirpath) / name).read_bytes()
    return out


def numbered(*lines: tuple[int, str]) -> str:
    return "\n".join(f"{n:>6}\t{text}" for n, text in lines)


# -- create ---------------------------------------------------------------------------


def test_create_writes_a_txt_note_exactly_and_replies_like_the_sdk(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    reply = ok(tool, command="create", path="/memories/hello.txt", file_text="Hello, World!")
    assert reply == "File created successfully at: /memories/hello.txt"
    assert visible(mem) == {"hello.txt": b"Hello, World!"}


def test_create_makes_the_missing_folders(tool: MemoryToolBackend, mem: Memdir) -> None:
    reply = ok(tool, command="create", path="/memories/a/b/c.txt", file_text="deep")
    assert reply == "File created successfully at: /memories/a/b/c.txt"
    assert visible(mem) == {"a/b/c.txt": b"deep"}


def test_folders_and_files_the_tool_creates_are_private_to_the_owner_under_any_umask(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    old = os.umask(0)
    try:
        ok(tool, command="create", path="/memories/x/y/z.txt", file_text="z")
    finally:
        os.umask(old)
    root = mem.layout.memory_dir
    for folder in (root, root / "x", root / "x" / "y"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((root / "x/y/z.txt").stat().st_mode) == 0o600


def test_create_refuses_a_file_that_exists_and_keeps_it(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    ok(tool, command="create", path="/memories/e.txt", file_text="Original")
    reply = error(tool, command="create", path="/memories/e.txt", file_text="New")
    assert "File /memories/e.txt already exists" in reply
    assert visible(mem) == {"e.txt": b"Original"}


# -- view -----------------------------------------------------------------------------


def test_view_numbers_every_line_of_a_file(tool: MemoryToolBackend) -> None:
    ok(tool, command="create", path="/memories/v.txt", file_text="Line 1\nLine 2\nLine 3")
    assert ok(tool, command="view", path="/memories/v.txt") == VIEW_HEADER.format(
        "/memories/v.txt"
    ) + numbered((1, "Line 1"), (2, "Line 2"), (3, "Line 3"))


def test_view_of_a_folder_lists_what_it_holds(tool: MemoryToolBackend) -> None:
    ok(tool, command="create", path="/memories/d/one.txt", file_text="1")
    ok(tool, command="create", path="/memories/d/two.txt", file_text="2")
    reply = ok(tool, command="view", path="/memories/d")
    lines = reply.split("\n")
    assert lines[0] == (
        "Here're the files and directories up to 2 levels deep in /memories/d, "
        "excluding hidden items:"
    )
    assert [line.split("\t")[1] for line in lines[1:]] == [
        "/memories/d",
        "/memories/d/one.txt",
        "/memories/d/two.txt",
    ]
    assert lines[2] == "1B\t/memories/d/one.txt"


LINES5 = "Line 1\nLine 2\nLine 3\nLine 4\nLine 5"


@pytest.mark.parametrize(
    ("view_range", "shown"),
    [
        ([2, 4], [2, 3, 4]),
        ([4, -1], [4, 5]),
        ([0, 2], [1, 2]),  # a start before the first line starts at it
        ([-3, 1], [1]),
        ([3, 99], [3, 4, 5]),  # an end past the last line stops at it
        ([4, 2], []),  # an empty range shows no line
        ([2, -2], [2, 3]),  # other negative ends count from the end, as slices do
        ([], [1, 2, 3, 4, 5]),  # any other form shows the whole file
        ([2], [1, 2, 3, 4, 5]),
        ([1, 2, 3], [1, 2, 3, 4, 5]),
        (None, [1, 2, 3, 4, 5]),
    ],
)
def test_view_accepts_every_range_form_the_sdk_accepts(
    tool: MemoryToolBackend, view_range: list[int] | None, shown: list[int]
) -> None:
    ok(tool, command="create", path="/memories/r.txt", file_text=LINES5)
    command: dict[str, Any] = {"command": "view", "path": "/memories/r.txt"}
    if view_range is not None:
        command["view_range"] = view_range
    reply = ok(tool, **command)
    assert reply == VIEW_HEADER.format("/memories/r.txt") + numbered(
        *((n, f"Line {n}") for n in shown)
    )


def test_view_of_a_missing_file_says_so(tool: MemoryToolBackend) -> None:
    reply = error(tool, command="view", path="/memories/nope.txt")
    assert "The path /memories/nope.txt does not exist. Please provide a valid path." in reply


def test_view_refuses_a_file_that_is_not_utf8_text(tool: MemoryToolBackend, mem: Memdir) -> None:
    (mem.layout.memory_dir / "blob.dat").write_bytes(b"\xff\xfe\x80 not utf-8")
    assert "is not a valid UTF-8 text file" in error(
        tool, command="view", path="/memories/blob.dat"
    )


def test_view_refuses_a_file_of_more_than_999999_lines(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    (mem.layout.memory_dir / "huge.txt").write_text("\n" * 1_000_000)
    reply = error(tool, command="view", path="/memories/huge.txt")
    assert "File /memories/huge.txt exceeds maximum line limit of 999,999 lines." in reply


def test_stricter_create_refuses_a_note_over_the_size_limit(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    reply = error(tool, command="create", path="/memories/huge.txt", file_text="line\n" * 100_000)
    assert "the limit is" in reply
    assert visible(mem) == {}


def test_view_keeps_carriage_returns_in_the_lines(tool: MemoryToolBackend, mem: Memdir) -> None:
    (mem.layout.memory_dir / "crlf.txt").write_bytes(b"line1\r\nline2\r\nline3\r\n")
    assert ok(tool, command="view", path="/memories/crlf.txt") == VIEW_HEADER.format(
        "/memories/crlf.txt"
    ) + numbered((1, "line1\r"), (2, "line2\r"), (3, "line3\r"), (4, ""))


# -- str_replace ----------------------------------------------------------------------


def replace_in_new_file(
    tool: MemoryToolBackend, text: str, old: str, new: str, reply: Callable[..., str] = ok
) -> str:
    """``str_replace`` of ``old`` by ``new`` in ``/memories/s.txt``, just created holding
    ``text``: the reply, checked by ``reply`` (:func:`ok`, or :func:`error` for a refusal)."""
    ok(tool, command="create", path="/memories/s.txt", file_text=text)
    return reply(tool, command="str_replace", path="/memories/s.txt", old_str=old, new_str=new)


def test_str_replace_changes_the_text_and_shows_the_lines_around_it(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    reply = replace_in_new_file(tool, "Line 1\nOld Text\nLine 3", "Old Text", "New Text")
    assert reply == EDITED + numbered((1, "Line 1"), (2, "New Text"), (3, "Line 3"))
    assert visible(mem) == {"s.txt": b"Line 1\nNew Text\nLine 3"}


def test_str_replace_snippet_is_two_lines_either_side_of_the_changed_line(
    tool: MemoryToolBackend,
) -> None:
    text = "\n".join(f"l{n}" for n in range(1, 11))
    reply = replace_in_new_file(tool, text, "l6", "L6\nX")
    assert reply == EDITED + numbered((4, "l4"), (5, "l5"), (6, "L6"), (7, "X"), (8, "l7"))


def test_str_replace_of_the_first_line_of_a_note_works(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    ok(tool, command="create", path="/memories/n.md", file_text="Prefers tabs\nin Go too\n")
    ok(tool, command="str_replace", path="/memories/n.md", old_str="Prefers tabs", new_str="Spaces")
    assert visible(mem) == {"n.md": b"Spaces\nin Go too\n"}


def test_str_replace_reports_text_that_is_not_there(tool: MemoryToolBackend) -> None:
    reply = replace_in_new_file(tool, "Hello, World!", "NotFound", "x", reply=error)
    assert (
        "No replacement was performed, old_str `NotFound` did not appear verbatim in "
        "/memories/s.txt." in reply
    )


def test_str_replace_reports_the_lines_of_repeated_text(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    reply = replace_in_new_file(tool, "Hello\nMiddle\nHello", "Hello", "Hi", reply=error)
    assert (
        "No replacement was performed. Multiple occurrences of old_str `Hello` in lines: 1, 3. "
        "Please ensure it is unique" in reply
    )
    assert visible(mem) == {"s.txt": b"Hello\nMiddle\nHello"}


def test_str_replace_of_a_missing_file_says_so(tool: MemoryToolBackend) -> None:
    reply = error(tool, command="str_replace", path="/memories/no.txt", old_str="a", new_str="b")
    assert "The path /memories/no.txt does not exist. Please provide a valid path." in reply


def test_str_replace_keeps_carriage_returns(tool: MemoryToolBackend, mem: Memdir) -> None:
    path = mem.layout.memory_dir / "crlf.txt"
    path.write_bytes(b"line1\r\nline2\r\nline3\r\n")
    ok(tool, command="str_replace", path="/memories/crlf.txt", old_str="line2", new_str="LINE2")
    assert path.read_bytes() == b"line1\r\nLINE2\r\nline3\r\n"


# -- insert ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (0, b"First\nLine 1\nLine 2\n"),
        (1, b"Line 1\nFirst\nLine 2\n"),
        (2, b"Line 1\nLine 2\nFirst\n"),
    ],
)
def test_insert_puts_the_text_after_the_given_line(
    tool: MemoryToolBackend, mem: Memdir, line: int, expected: bytes
) -> None:
    ok(tool, command="create", path="/memories/i.txt", file_text="Line 1\nLine 2")
    reply = ok(
        tool, command="insert", path="/memories/i.txt", insert_line=line, insert_text="First"
    )
    assert reply == "The file /memories/i.txt has been edited."
    assert visible(mem) == {"i.txt": expected}


def test_insert_keeps_carriage_returns(tool: MemoryToolBackend, mem: Memdir) -> None:
    path = mem.layout.memory_dir / "crlf.txt"
    path.write_bytes(b"line1\r\nline2\r\nline3\r\n")
    ok(tool, command="insert", path="/memories/crlf.txt", insert_line=1, insert_text="Inserted")
    assert path.read_bytes() == b"line1\r\nInserted\nline2\r\nline3\r\n"


def test_insert_of_a_missing_file_says_so(tool: MemoryToolBackend) -> None:
    reply = error(tool, command="insert", path="/memories/no.txt", insert_line=0, insert_text="t")
    assert "The path /memories/no.txt does not exist. Please provide a valid path." in reply


def test_insert_reports_a_line_out_of_range(tool: MemoryToolBackend) -> None:
    ok(tool, command="create", path="/memories/i.txt", file_text="Line 1\nLine 2")
    reply = error(tool, command="insert", path="/memories/i.txt", insert_line=10, insert_text="t")
    assert "Invalid `insert_line` parameter: 10. It should be within the range [0, 2]." in reply


# -- delete and rename ----------------------------------------------------------------


def test_delete_removes_a_file_from_view(tool: MemoryToolBackend, mem: Memdir) -> None:
    ok(tool, command="create", path="/memories/d.txt", file_text="To be deleted")
    assert (
        ok(tool, command="delete", path="/memories/d.txt") == "Successfully deleted /memories/d.txt"
    )
    assert visible(mem) == {}


def test_delete_removes_a_folder_from_view(tool: MemoryToolBackend, mem: Memdir) -> None:
    ok(tool, command="create", path="/memories/sub/f.txt", file_text="Content")
    assert ok(tool, command="delete", path="/memories/sub") == "Successfully deleted /memories/sub"
    assert visible(mem) == {}


def test_delete_of_a_missing_file_says_so(tool: MemoryToolBackend) -> None:
    reply = error(tool, command="delete", path="/memories/no.txt")
    assert "The path /memories/no.txt does not exist" in reply


@pytest.mark.parametrize("path", ["/memories", "/memories/", "/memories/.", "/memories/sub/.."])
def test_the_memories_folder_itself_cannot_be_deleted_or_renamed_however_it_is_spelled(
    tool: MemoryToolBackend, mem: Memdir, tmp_path: Path, path: str
) -> None:
    ok(tool, command="create", path="/memories/sub/keep.txt", file_text="kept")
    deleted = error(tool, command="delete", path=path)
    assert "Cannot delete the /memories directory itself" in deleted
    renamed = error(tool, command="rename", old_path=path, new_path="/memories/moved")
    assert "Cannot rename the /memories directory itself" in renamed
    assert str(tmp_path) not in deleted + renamed
    assert visible(mem) == {"sub/keep.txt": b"kept"}


def test_rename_moves_a_file(tool: MemoryToolBackend, mem: Memdir) -> None:
    ok(tool, command="create", path="/memories/old.txt", file_text="Original content")
    reply = ok(tool, command="rename", old_path="/memories/old.txt", new_path="/memories/new.txt")
    assert reply == "Successfully renamed /memories/old.txt to /memories/new.txt"
    assert visible(mem) == {"new.txt": b"Original content"}


def test_rename_makes_the_missing_folders(tool: MemoryToolBackend, mem: Memdir) -> None:
    ok(tool, command="create", path="/memories/f.txt", file_text="Content")
    reply = ok(tool, command="rename", old_path="/memories/f.txt", new_path="/memories/n/d/f.txt")
    assert reply == "Successfully renamed /memories/f.txt to /memories/n/d/f.txt"
    assert visible(mem) == {"n/d/f.txt": b"Content"}


def test_rename_of_a_missing_file_says_so(tool: MemoryToolBackend) -> None:
    reply = error(tool, command="rename", old_path="/memories/no.txt", new_path="/memories/n.txt")
    assert "The path /memories/no.txt does not exist" in reply


def test_rename_refuses_a_destination_that_exists(tool: MemoryToolBackend, mem: Memdir) -> None:
    ok(tool, command="create", path="/memories/1.txt", file_text="File 1")
    ok(tool, command="create", path="/memories/2.txt", file_text="File 2")
    reply = error(tool, command="rename", old_path="/memories/1.txt", new_path="/memories/2.txt")
    assert "The destination /memories/2.txt already exists" in reply
    assert visible(mem) == {"1.txt": b"File 1", "2.txt": b"File 2"}


# -- paths ----------------------------------------------------------------------------


def test_a_path_outside_memories_is_refused(tool: MemoryToolBackend) -> None:
    reply = error(tool, command="create", path="/invalid/path.txt", file_text="x")
    assert "Path must start with /memories" in reply


def test_stricter_a_sibling_of_memories_is_refused_not_mapped_inside(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    reply = error(tool, command="create", path="/memories_x/a.md", file_text="x")
    assert "Path must start with /memories" in reply
    assert visible(mem) == {}


def test_a_path_that_climbs_out_is_refused(tool: MemoryToolBackend, tmp_path: Path) -> None:
    reply = error(
        tool, command="create", path="/memories/../../../etc/passwd", file_text="Escape attempt"
    )
    assert "Path /memories/../../../etc/passwd would escape /memories directory" in reply


@pytest.mark.parametrize(
    ("link", "command"),
    [
        ("escape_link", {"command": "view", "path": "/memories/escape_link/secret.txt"}),
        (
            "bad_link",
            {"command": "create", "path": "/memories/bad_link/hacked.txt", "file_text": "x"},
        ),
        (
            "subdir",
            {"command": "create", "path": "/memories/subdir/nested/f.txt", "file_text": "x"},
        ),
    ],
)
def test_a_symlink_to_outside_cannot_be_followed(
    tool: MemoryToolBackend, mem: Memdir, tmp_path: Path, link: str, command: dict[str, Any]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("sensitive data")
    os.symlink(outside, mem.layout.memory_dir / link, target_is_directory=True)
    reply = error(tool, **command)
    assert "would escape /memories directory" in reply
    assert str(tmp_path) not in reply
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_stricter_a_symlink_is_never_read_even_one_that_stays_inside(
    tool: MemoryToolBackend, mem: Memdir
) -> None:
    ok(tool, command="create", path="/memories/real.txt", file_text="real")
    os.symlink("real.txt", mem.layout.memory_dir / "alias.txt")
    for command in (
        {"command": "view", "path": "/memories/alias.txt"},
        {
            "command": "str_replace",
            "path": "/memories/alias.txt",
            "old_str": "real",
            "new_str": "x",
        },
        {"command": "insert", "path": "/memories/alias.txt", "insert_line": 0, "insert_text": "x"},
    ):
        assert "is a symlink" in error(tool, **command)
    assert "alias" not in ok(tool, command="view", path="/memories")
    assert (mem.layout.memory_dir / "real.txt").read_text() == "real"


@pytest.mark.parametrize(
    "command",
    [
        {"command": "view", "path": "/memories/n.txt"},
        {"command": "str_replace", "path": "/memories/n.txt", "old_str": "outside", "new_str": "x"},
        {"command": "insert", "path": "/memories/n.txt", "insert_line": 0, "insert_text": "x"},
    ],
)
def test_a_note_swapped_for_a_symlink_after_the_check_is_not_read(
    tool: MemoryToolBackend,
    mem: Memdir,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: dict[str, Any],
) -> None:
    ok(tool, command="create", path="/memories/n.txt", file_text="inside")
    outside = tmp_path / "outside.txt"
    outside.write_text("outside")
    note = mem.layout.memory_dir / "n.txt"
    real_open = os.open

    def swap_then_open(path: Any, flags: int, *rest: Any, **kw: Any) -> int:
        if Path(path) == note and not note.is_symlink():
            note.unlink()
            note.symlink_to(outside)
        return real_open(path, flags, *rest, **kw)

    monkeypatch.setattr(os, "open", swap_then_open)
    reply = error(tool, **command)
    monkeypatch.undo()
    assert "is a symlink" in reply and "outside" not in reply.split("old_str")[0]
    assert outside.read_text() == "outside"


def test_stricter_a_name_too_long_for_the_file_system_is_refused_without_a_host_path(
    tool: MemoryToolBackend, mem: Memdir, tmp_path: Path
) -> None:
    reply = error(tool, command="create", path="/memories/" + "n" * 300 + ".md", file_text="x")
    assert "longer than" in reply and str(tmp_path) not in reply


@pytest.mark.parametrize(
    "path", ["/memories/.hidden.txt", "/memories/a/.env", "/memories/photo.png", "/memories/a:b"]
)
def test_stricter_hidden_binary_and_unportable_names_are_refused(
    tool: MemoryToolBackend, mem: Memdir, path: str
) -> None:
    error(tool, command="create", path=path, file_text="x")
    assert visible(mem) == {}


def test_stricter_text_with_nul_characters_is_refused(tool: MemoryToolBackend, mem: Memdir) -> None:
    assert "NUL" in error(tool, command="create", path="/memories/b.txt", file_text="a\x00b")
    assert visible(mem) == {}


# -- byte for byte ----------------------------------------------------------------------

_LINE_TEXT = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=40
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    text=st.lists(_LINE_TEXT, max_size=8).map("\n".join),
    suffix=st.sampled_from([".md", ".txt", ".json", ".xml", ".yaml", ""]),
)
def test_any_text_a_note_is_created_with_views_back_byte_for_byte_with_its_line_numbers(
    tool: MemoryToolBackend, mem: Memdir, text: str, suffix: str
) -> None:
    path = f"/memories/roundtrip{suffix}"
    tool.execute({"command": "delete", "path": path})
    ok(tool, command="create", path=path, file_text=text)
    for held in mem.review():  # screening holds a note with hidden characters for a person
        mem.approve(f"v{held.version.id}")
    note = mem.layout.memory_dir / f"roundtrip{suffix}"
    assert note.read_bytes() == text.encode("utf-8")
    view = ok(tool, command="view", path=path)
    body = view.split("\n", 1)[1]
    expected = text.split("\n")
    assert [line.split("\t", 1)[0].strip() for line in body.split("\n")[: len(expected)]] == [
        str(n) for n in range(1, len(expected) + 1)
    ]
    assert body == numbered(*enumerate(expected, 1))
    assert mem.private.get(f"roundtrip{suffix}").file == f"roundtrip{suffix}"


# -- through the SDK's own tool class ---------------------------------------------------


def test_through_the_sdk_errors_are_tool_errors_with_the_sdk_texts(
    tool: MemoryToolBackend,
) -> None:
    lib = pytest.importorskip("anthropic.lib.tools")
    sdk_tool = anthropic_memory_tool(tool)
    assert sdk_tool.call({"command": "create", "path": "/memories/a.txt", "file_text": "A"}) == (
        "File created successfully at: /memories/a.txt"
    )
    with pytest.raises(lib.ToolError, match=r"File /memories/a\.txt already exists"):
        sdk_tool.call({"command": "create", "path": "/memories/a.txt", "file_text": "B"})
    with pytest.raises(lib.ToolError, match="must be a string"):
        sdk_tool.call({"command": "create", "path": "/memories/b.txt", "file_text": 3})
    view = sdk_tool.call({"command": "view", "path": "/memories/a.txt", "view_range": [1, -1]})
    assert view == VIEW_HEADER.format("/memories/a.txt") + numbered((1, "A"))
