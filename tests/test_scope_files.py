"""The walk of a scope's folder: by path for listings, by folder descriptor for the hook."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memdir.storage import scope_files
from memdir.storage.scope_files import in_scope, scope_entries, scope_stats


def _tree(root: Path, outside: Path) -> None:
    (root / "a" / "b").mkdir(parents=True)
    (root / ".hidden").mkdir()
    (root / "team").mkdir()
    (root / "logs").mkdir()
    for rel in ("top.md", "a/one.md", "a/b/two.md", "a/b/notes.txt", ".hidden/x.md", ".dot.md"):
        (root / rel).write_text(rel)
    (root / "team" / "theirs.md").write_text("t")
    (root / "logs" / "day.md").write_text("l")
    outside.mkdir()
    (outside / "secret.md").write_text("s")
    (root / "linked-folder").symlink_to(outside)
    (root / "linked.md").symlink_to(outside / "secret.md")
    os.mkfifo(root / "a" / "pipe.md")


def test_both_walks_keep_the_same_files_and_the_stat_is_the_files_own(tmp_path: Path) -> None:
    root = tmp_path / "scope"
    _tree(root, tmp_path / "outside")
    excluded = frozenset({"team", "logs"})
    by_path = {
        rel: entry.stat(follow_symlinks=False) for rel, entry in scope_entries(str(root), excluded)
    }
    by_fd = dict(scope_stats(str(root), excluded))
    assert sorted(by_fd) == sorted(by_path) == ["a/b/notes.txt", "a/b/two.md", "a/one.md", "top.md"]
    for rel, st in by_fd.items():
        assert (st.st_ino, st.st_size) == (by_path[rel].st_ino, by_path[rel].st_size)


def test_a_missing_root_yields_nothing_and_a_linked_root_is_followed_like_a_listing(
    tmp_path: Path,
) -> None:
    assert scope_stats(str(tmp_path / "absent"), frozenset()) == []
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "m.md").write_text("m")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    listed = [rel for rel, _ in scope_entries(str(tmp_path / "link"), frozenset())]
    assert (
        [rel for rel, _ in scope_stats(str(tmp_path / "link"), frozenset())] == listed == ["m.md"]
    )


def test_the_walk_by_path_where_folders_cannot_be_opened_keeps_the_same_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "scope"
    _tree(root, tmp_path / "outside")
    excluded = frozenset({"team", "logs"})
    by_fd = sorted(rel for rel, _ in scope_stats(str(root), excluded))
    monkeypatch.setattr(scope_files, "_BY_FD", False)  # as on Windows
    assert sorted(rel for rel, _ in scope_stats(str(root), excluded)) == by_fd
    assert sorted(rel for rel, _ in scope_entries(str(root), excluded)) == by_fd


def test_in_scope_names_the_files_the_walk_reaches(tmp_path: Path) -> None:
    root = tmp_path / "scope"
    _tree(root, tmp_path / "outside")
    excluded = frozenset({"team", "logs"})
    every = [
        os.path.relpath(os.path.join(folder, name), root)
        for folder, _, names in os.walk(root)
        for name in names
        if os.path.isfile(os.path.join(folder, name))
        and not os.path.islink(os.path.join(folder, name))
    ]
    walked = sorted(rel for rel, _ in scope_entries(str(root), excluded))
    assert sorted(rel for rel in every if in_scope(rel, excluded)) == walked
    assert not in_scope("team/theirs.md", excluded) and in_scope("teams/x.md", excluded)
