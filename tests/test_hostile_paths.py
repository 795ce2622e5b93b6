"""A corpus of hostile file names: every one refused, nothing written outside."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memdir.api import Memdir
from memdir.errors import MemdirError, UnsafePath
from memdir.storage.fs import safe_join

TRAVERSAL = [
    "../x.md",
    "../../x.md",
    "../../../../../../etc/passwd",
    "a/../../x.md",
    "a/b/../../../x.md",
    "..",
    "../",
    "./../x.md",
    "a/./../../x.md",
    "team/../../x.md",
    "...//..//x.md",
    "..//x.md",
    "a//..//..//x.md",
    "../memory/x.md",
    "../team/x.md",
]
ABSOLUTE = [
    "/etc/passwd",
    "/tmp/x.md",
    "//server/share/x.md",
    "/",
    "~/x.md",
    "~root/x.md",
    "/../x.md",
    "/./x.md",
]
ENCODED = [
    "%2e%2e/x.md",
    "%2E%2E/x.md",
    "..%2fx.md",
    "..%2Fx.md",
    "%2e%2e%2fx.md",
    "%252e%252e/x.md",
    "..%5cx.md",
    "x%00.md",
    "%2fetc%2fpasswd",
    "a%2f..%2f..%2fx.md",
    "%c0%ae%c0%ae/x.md",
    "%2e./x.md",
    ".%2e/x.md",
    "x.md%00.txt",
    "%25%32%65%25%32%65/x.md",
]
BACKSLASH_AND_DRIVES = [
    "..\\x.md",
    "a\\..\\..\\x.md",
    "\\\\server\\share\\x.md",
    "C:\\x.md",
    "C:x.md",
    "c:/windows/x.md",
    "D:",
    "\\x.md",
    "a\\b.md",
    "Z:\\..\\x.md",
]
LOOKALIKES = [
    "\u2025/x.md",
    "\uff0e\uff0e/x.md",
    "\uff0e\uff0e\uff0fx.md",
    "..\u2215x.md",
    "..\u2044x.md",
    "\u2024\u2024/x.md",
    "a\uff0fb.md",
    "..\uff3cx.md",
    "\ufe52\ufe52/x.md",
    "x\u2215..\u2215..\u2215y.md",
    "\u3002\u3002/x.md",
    "..\u29f8x.md",
]
CONTROL = [
    "x\x00.md",
    "\x00",
    "a/\x00/b.md",
    "x\n.md",
    "x\r.md",
    "x\t.md",
    "\x1b[31mx.md",
    "x\x7f.md",
    "../x\x00.md",
    "x.md\x00",
]
EMPTY_AND_ROOT = ["", " ", ".", "./", "//", "./.", "/.", "\t"]
NOT_MEMORY_FILES = [
    "MEMORY.md",
    "./MEMORY.md",
    "x.txt",
    "x",
    "x.md/",
    "x.MD",
    "x.md.exe",
    "team/x.md",
    "logs/2026/01/2026-01-01.md",
]
MORE = [
    "a/a/a/../../../../x.md",
    "memory/../../x.md",
    "../" * 10 + "x.md",
    "%2E%2E%2F%2E%2E%2Fx.md",
    "..%255cx.md",
    "..%c0%afx.md",
    "x\u202egpj.md",
    "x.md\u200b",
    "..\u0000/x.md",
    "\u0085x.md",
    "a/\u2028b.md",
    "...md/../../x.md",
    "%2e%2e%5c%2e%2e%5cx.md",
    "file:///etc/passwd",
    "\\\\?\\C:\\x.md",
    "a/b/c/../../../../x.md",
]
TOO_LONG = ["a" * 300 + ".md", "/".join(["d"] * 600) + ".md", "x" * 2000]
ALL = (
    TRAVERSAL
    + ABSOLUTE
    + ENCODED
    + BACKSLASH_AND_DRIVES
    + LOOKALIKES
    + CONTROL
    + EMPTY_AND_ROOT
    + NOT_MEMORY_FILES
    + MORE
    + TOO_LONG
)


def test_the_corpus_holds_at_least_a_hundred_hostile_names() -> None:
    assert len(set(ALL)) >= 100


def snapshot(root: Path, skip: Path) -> set[tuple[str, int]]:
    out = set()
    for dirpath, _, files in os.walk(root):
        if Path(dirpath).is_relative_to(skip):
            continue
        for name in files:
            path = Path(dirpath) / name
            out.add((str(path), path.lstat().st_size))
    return out


@pytest.fixture
def planted(mem: Memdir, tmp_path: Path) -> Path:
    """Symlinks inside the memory directory that point out of it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.md").write_text("secret outside\n")
    os.symlink(outside, mem.layout.memory_dir / "evil_dir")
    os.symlink(outside / "target.md", mem.layout.memory_dir / "evil_link.md")
    os.symlink(outside / "missing.md", mem.layout.memory_dir / "dangling.md")
    os.symlink("/", mem.layout.team_dir / "rootlink")
    return outside


SYMLINK_NAMES = ["evil_dir/x.md", "evil_dir/target.md", "evil_link.md", "dangling.md"]


@pytest.mark.parametrize("name", ALL + SYMLINK_NAMES)
def test_every_hostile_name_is_refused_by_write(
    mem: Memdir, planted: Path, tmp_path: Path, name: str
) -> None:
    before = snapshot(tmp_path, mem.layout.home)
    with pytest.raises(MemdirError):
        mem.write(name="n", description="d", type="project", file=name)
    assert snapshot(tmp_path, mem.layout.home) == before
    assert (planted / "target.md").read_text() == "secret outside\n"
    assert not (planted / "missing.md").exists()


@pytest.mark.parametrize("name", ALL + SYMLINK_NAMES)
def test_every_hostile_name_is_refused_by_rename_delete_and_get(
    mem: Memdir, planted: Path, tmp_path: Path, name: str
) -> None:
    mem.write(name="victim", description="d", type="project")
    before = snapshot(tmp_path, mem.layout.home)
    with pytest.raises(MemdirError):
        mem.private.rename("victim.md", name)
    with pytest.raises(MemdirError):
        mem.private.delete(name)
    with pytest.raises(MemdirError):
        mem.get(name, scope="private")
    assert snapshot(tmp_path, mem.layout.home) == before
    assert (mem.layout.memory_dir / "victim.md").is_file()


@pytest.mark.parametrize("name", ["rootlink/etc/x.md", "rootlink/x.md"])
def test_a_symlink_to_the_filesystem_root_in_team_is_refused(
    mem: Memdir, planted: Path, name: str
) -> None:
    with pytest.raises(UnsafePath):
        mem.write(name="n", description="d", type="project", scope="team", file=name)


def test_a_symlink_that_stays_inside_the_root_is_allowed(mem: Memdir) -> None:
    (mem.layout.memory_dir / "real").mkdir()
    os.symlink(mem.layout.memory_dir / "real", mem.layout.memory_dir / "alias")
    mem.write(name="n", description="d", type="project", file="alias/n.md")
    assert (mem.layout.memory_dir / "real" / "n.md").is_file()


@pytest.mark.parametrize("name", ["a.md", "sub/dir/b.md", "ünïcødé.md", "with space.md"])
def test_plain_names_are_accepted(tmp_path: Path, name: str) -> None:
    assert safe_join(tmp_path, name) == tmp_path.resolve() / name


def test_the_root_itself_cannot_be_named(tmp_path: Path) -> None:
    for name in (".", "./", "a/.."):
        with pytest.raises(UnsafePath):
            safe_join(tmp_path, name)
