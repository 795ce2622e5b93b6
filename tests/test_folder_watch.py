"""The hook server's folder watch: whatever the rule walk would see differently moves a token.

Real inotify on real folders (Linux only). The property that matters: after
any change, made any way, that changes what :func:`memdir.enforcement.rule_cache.walk`
records, the scope's token is not the one given before it, since a hook that
gets the same token again skips the walk.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.enforcement import rule_cache
from memdir.hooks import folder_watch
from memdir.hooks.folder_watch import FolderWatch, local_file_system

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")

EXCLUDED = frozenset({"team", "logs"})
# Paths the operations pick from: in scope, a dot entry, another scope's, not a memory.
FILES = (
    "a.md",
    "b.md",
    "sub/c.md",
    "sub/deep/d.md",
    "MEMORY.md",
    "sub/MEMORY.md",
    "notes.txt",
    ".hidden.md",
    ".state/e.md",
    "team/f.md",
    "logs/g.md",
)
FOLDERS = ("sub", "sub/deep", "other", "team", ".state")


def _walk_seen(root: Path) -> bytes:
    return rule_cache.walk([("private", str(root), EXCLUDED)]).seen


def _token(watch: FolderWatch, root: Path) -> str:
    tokens = watch.tokens([(str(root), EXCLUDED)])
    assert tokens is not None
    return tokens[0]


@pytest.fixture
def watch() -> Iterator[FolderWatch]:
    made = FolderWatch()
    yield made
    made.close()


def _apply(root: Path, op: str, first: str, second: str) -> None:
    """One change to the tree, any way a person or a program makes one; failures are fine."""
    a, b = root / first, root / second
    try:
        if op == "create":
            a.parent.mkdir(parents=True, exist_ok=True)
            a.write_text("---\nname: x\n---\nnew\n")
        elif op == "in-place":
            with a.open("r+", encoding="utf-8") as handle:  # an editor's save: same inode
                handle.seek(0, os.SEEK_END)
                handle.write("enforce: more\n")
        elif op == "truncate":
            os.truncate(a, 0)
        elif op == "touch":
            os.utime(a, ns=(1_000_000_000, 1_000_000_000 + len(second)))
        elif op == "remove":
            a.unlink()
        elif op == "rename":
            b.parent.mkdir(parents=True, exist_ok=True)
            os.replace(a, b)
        elif op == "atomic":  # a temporary file beside it, renamed over it
            temp = a.parent / f".{a.name}.tmp"
            temp.write_text("replaced\n")
            os.replace(temp, a)
        elif op == "mkdir":
            (root / second).mkdir(parents=True, exist_ok=True)
        elif op == "rmtree":
            shutil.rmtree(root / second)
        elif op == "move-folder":
            os.rename(root / second, root / f"{second}-moved")
        elif op == "link":
            os.symlink(a, root / f"{second}.md")
    except OSError:
        pass


_OPS = st.tuples(
    st.sampled_from(
        [
            "create",
            "in-place",
            "truncate",
            "touch",
            "remove",
            "rename",
            "atomic",
            "mkdir",
            "rmtree",
            "move-folder",
            "link",
        ]
    ),
    st.sampled_from(FILES),
    st.sampled_from(FILES + FOLDERS),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_OPS, min_size=1, max_size=12))
def test_every_change_the_walk_sees_moves_the_token(ops: list[tuple[str, str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory"
        root.mkdir()
        for name in ("a.md", "sub/c.md", "team/f.md", "notes.txt"):
            _apply(root, "create", name, name)
        watch = FolderWatch()
        try:
            token, seen = _token(watch, root), _walk_seen(root)
            for op, first, second in ops:
                _apply(root, op, first, second)
                now_token, now_seen = _token(watch, root), _walk_seen(root)
                if now_seen != seen:
                    assert now_token != token, (op, first, second)
                token, seen = now_token, now_seen
        finally:
            watch.close()


def test_changes_the_walk_does_not_see_leave_the_token(watch: FolderWatch, tmp_path: Path) -> None:
    root = tmp_path / "memory"
    for name in ("a.md", "team/f.md", ".state/e.md", "notes.txt", "MEMORY.md"):
        _apply(root, "create", name, name)
    token = _token(watch, root)
    for name in ("team/f.md", ".state/e.md", "notes.txt", "MEMORY.md", ".new.md"):
        _apply(root, "create", name, name)  # another scope's, a dot entry, no memory, the index
    (root / "team" / "sub").mkdir()
    (root / "team" / "sub" / "x.md").write_text("x")
    assert _token(watch, root) == token
    (root / "a.md").read_text()  # reading changes nothing
    assert _token(watch, root) == token


def test_a_folder_made_later_is_watched_to_its_depth(watch: FolderWatch, tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    token = _token(watch, root)
    (root / "new" / "deeper" / "still").mkdir(parents=True)
    moved = _token(watch, root)
    assert moved != token
    _apply(root, "create", "new/deeper/still/m.md", "")
    after_create = _token(watch, root)
    assert after_create != moved
    _apply(root, "in-place", "new/deeper/still/m.md", "")
    assert _token(watch, root) != after_create


def test_a_scope_not_there_yet_is_watched_once_it_is(watch: FolderWatch, tmp_path: Path) -> None:
    root = tmp_path / "memory" / "team"
    missing = _token(watch, root)
    assert ".missing." in missing
    assert _token(watch, root) == missing
    root.mkdir(parents=True)
    here = _token(watch, root)
    assert here != missing
    _apply(root, "create", "rule.md", "")
    assert _token(watch, root) != here


def test_a_scope_folder_replaced_under_its_path_is_watched_anew(
    watch: FolderWatch, tmp_path: Path
) -> None:
    root = tmp_path / "memory"
    _apply(root, "create", "a.md", "")
    token = _token(watch, root)
    os.rename(root, tmp_path / "old")
    _apply(root, "create", "a.md", "")
    replaced = _token(watch, root)
    assert replaced != token
    _apply(root, "in-place", "a.md", "")
    assert _token(watch, root) != replaced
    _apply(tmp_path / "old", "in-place", "a.md", "")  # the old folder is no one's now
    assert _token(watch, root) == _token(watch, root)


def test_what_cannot_be_watched_whole_gets_no_token(
    watch: FolderWatch, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    for name in ("one/a.md", "two/b.md", "three/c.md"):
        _apply(root, "create", name, name)
    monkeypatch.setattr(folder_watch, "MAX_FOLDERS", 3)
    assert watch.tokens([(str(root), frozenset())]) is None
    monkeypatch.setattr(folder_watch, "MAX_FOLDERS", 10)
    assert watch.tokens([(str(root), frozenset())]) is not None
    monkeypatch.setattr(folder_watch, "local_file_system", lambda path: False)
    assert watch.tokens([(str(tmp_path / "elsewhere"), frozenset())]) is not None  # missing
    (tmp_path / "elsewhere").mkdir()
    assert watch.tokens([(str(tmp_path / "elsewhere"), frozenset())]) is None


def test_two_scopes_sharing_folders_each_get_their_changes(
    watch: FolderWatch, tmp_path: Path
) -> None:
    private, team = tmp_path / "memory", tmp_path / "memory" / "team"
    _apply(private, "create", "a.md", "")
    _apply(team, "create", "t.md", "")
    scopes = [(str(private), frozenset({"team"})), (str(team), frozenset())]
    before = watch.tokens(scopes)
    _apply(team, "in-place", "t.md", "")
    after = watch.tokens(scopes)
    assert before is not None and after is not None
    assert after[0] == before[0] and after[1] != before[1]


def test_local_file_systems_are_read_off_the_mount_table(tmp_path: Path) -> None:
    table = tmp_path / "mountinfo"
    table.write_text(
        "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
        "40 22 0:40 / /mnt/nfs\\040share rw - nfs4 server:/export rw\n"
        "41 40 0:41 / /mnt/nfs\\040share/scratch rw - tmpfs tmpfs rw\n"
        "42 22 0:42 / /home/me/fuse rw - fuse.sshfs me@host:/ rw\n"
    )
    assert local_file_system("/home/me/memory", table=str(table))
    assert not local_file_system("/mnt/nfs share/memory", table=str(table))
    assert local_file_system("/mnt/nfs share/scratch/memory", table=str(table))
    assert not local_file_system("/home/me/fuse/memory", table=str(table))
    assert not local_file_system("/home/me/memory", table=str(tmp_path / "absent"))
    assert not local_file_system("/proc/self")  # this machine's own table


def test_events_lost_to_a_full_queue_move_every_token(
    watch: FolderWatch, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memdir.hooks import inotify

    one, two = tmp_path / "one", tmp_path / "two"
    _apply(one, "create", "a.md", "")
    _apply(two, "create", "b.md", "")
    scopes = [(str(one), frozenset[str]()), (str(two), frozenset[str]())]
    before = watch.tokens(scopes)
    real_read = watch._inotify.read
    queued = [[(-1, inotify.IN_Q_OVERFLOW, "")]]  # what the kernel reads out when it dropped some
    monkeypatch.setattr(watch._inotify, "read", lambda: queued.pop() if queued else real_read())
    after = watch.tokens(scopes)
    assert before is not None and after is not None
    assert after[0] != before[0] and after[1] != before[1]
    assert watch.tokens(scopes) == after
