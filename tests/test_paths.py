"""Project identity: git roots, worktrees, submodules, slugs, settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitutil import add_submodule, git
from memdir import ConfigError, Memdir, ProjectMismatch, load_settings
from memdir.storage.claude import slugify
from memdir.storage.paths import find_project_root


def test_a_subdirectory_of_a_repository_maps_to_its_root(project: Path) -> None:
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    assert find_project_root(sub) == project.resolve()


def test_outside_git_the_directory_is_its_own_project(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert find_project_root(plain) == plain.resolve()


def test_all_worktrees_of_a_repository_share_one_memory(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-worktree"
    git(project, "worktree", "add", "-q", str(other), "-b", "feature")
    assert (other / ".git").is_file()
    assert find_project_root(other) == project.resolve()
    Memdir.open(project).write(name="Shared", description="d", type="project")
    assert Memdir.open(other).get("Shared").file == "shared.md"


def test_a_submodule_is_its_own_project(project: Path, tmp_path: Path) -> None:
    sub = add_submodule(project, tmp_path)
    assert (sub / ".git").is_file()
    assert find_project_root(sub) == sub.resolve()


@pytest.mark.parametrize(
    ("path", "slug"),
    [
        ("/home/u/my project", "-home-u-my-project"),
        ("/a/b-c", "-a-b-c"),
        ("/a/b/c", "-a-b-c"),
        ("C:\\Users\\me", "C--Users-me"),
        ("/tmp/é", "-tmp--"),
    ],
)
def test_slugs_replace_every_non_alphanumeric_character(path: str, slug: str) -> None:
    assert slugify(path) == slug


def test_a_long_slug_keeps_200_characters_and_a_hash_of_the_whole_path() -> None:
    long_a, long_b = "/x" * 150 + "/a", "/x" * 150 + "/b"
    slug_a, slug_b = slugify(long_a), slugify(long_b)
    assert slug_a[:200] == slug_b[:200] == slugify(long_a)[:200]
    assert slug_a != slug_b and slug_a[200] == "-"
    # The same djb2/base-36 hash as Claude Code computes for this path.
    assert slugify("/x" * 150).endswith("-4y6yx2")


def test_two_roots_with_one_slug_are_refused(tmp_path: Path) -> None:
    first, second = tmp_path / "a" / "b-c", tmp_path / "a" / "b" / "c"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    Memdir.open(first).write(name="Mine", description="d", type="project")
    with pytest.raises(ProjectMismatch, match="belongs to") as info:
        Memdir.open(second)
    assert info.value.hint and "MEMDIR_HOME" in info.value.hint
    assert Memdir.open(first).get("Mine")


def test_claude_profile_uses_claude_config_dir(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    mem = Memdir.open(project, profile="claude")
    expected = claude / "projects" / slugify(project.resolve()) / "memory"
    assert mem.layout.memory_dir == expected and expected.is_dir()


def test_settings_file_then_environment_then_arguments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("max_index_lines = 50\nteam = true\nrecall_max_memories = 3\n")
    monkeypatch.setenv("MEMDIR_CONFIG", str(config))
    monkeypatch.setenv("MEMDIR_TEAM", "off")
    settings = load_settings(recall_max_memories=4)
    assert (settings.max_index_lines, settings.team, settings.recall_max_memories) == (50, False, 4)


@pytest.mark.parametrize(
    ("content", "env", "message"),
    [
        ("nonsense = 1\n", {}, "unknown setting"),
        ("max_index_lines = [\n", {}, "cannot read settings"),
        ("", {"MEMDIR_TEAM": "maybe"}, "not a boolean"),
        ('max_files = "many"\n', {}, "'max_files' has the wrong type"),
        ("team = 1\n", {}, "'team' has the wrong type"),
        ("lock_timeout = true\n", {}, "'lock_timeout' has the wrong type"),
        ("", {"MEMDIR_PROFILE": "cursor"}, "unknown profile"),
    ],
)
def test_bad_settings_are_config_errors(
    tmp_path: Path, content: str, env: dict[str, str], message: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(content)
    with pytest.raises(ConfigError, match=message):
        load_settings({"MEMDIR_CONFIG": str(config), "MEMDIR_HOME": str(tmp_path), **env})
