"""Claude Code's memory folder: memdir names the same folder for every project path.

The expected folder names below were computed once by a separate JavaScript
implementation of Claude Code's rule (a regex replace over UTF-16 code units,
and the 32-bit hash over the unsanitised path); the filesystem cases (git
roots, worktrees, links) and the environment cases run ``memdir --profile
claude path`` as a user would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from gitutil import add_submodule, git
from memdir.storage.claude import claude_location, slugify
from memdir.storage.paths import find_project_root

GOLDEN = [
    ("/home/alice/project", "-home-alice-project"),
    ("/home/alice/my project", "-home-alice-my-project"),
    ("/srv/app.v2/src", "-srv-app-v2-src"),
    ("/tmp/caf\u00e9", "-tmp-caf-"),
    ("/tmp/cafe\u0301", "-tmp-cafe-"),
    ("/home/bob/\u65e5\u672c\u8a9e/\u30ea\u30dd\u30b8\u30c8\u30ea", "-home-bob----------"),
    ("/home/bob/\ud83d\ude80rocket", "-home-bob---rocket"),
    ("/work/a_b-c.d", "-work-a-b-c-d"),
    (
        "/x/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "-x-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ),
    (
        "/x/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "-x-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-ikcxza",
    ),
    (
        "/donn\u00e9es/\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9",
        "-donn-es-------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------f9z2ni",
    ),
    ("/home/u/proj/", "-home-u-proj-"),
    ("C:\\Users\\me\\code", "C--Users-me-code"),
    ("/home/u/\u00fcber/\u03a9mega", "-home-u--ber--mega"),
    ("/p/\ud83d\ude00\ud83d\ude00/x", "-p------x"),
    ("/a/b-c", "-a-b-c"),
    ("/a/b/c", "-a-b-c"),
    (
        "/zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
        "-zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
    ),
    (
        "/zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
        "-zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz-6zubpt",
    ),
    (
        "/opt/\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5\u65e5",
        "-opt-----------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------2ct80b",
    ),
    ("/tmp/spaces  and\ttab", "-tmp-spaces--and-tab"),
    ("/home/u/[brackets]{braces}(parens)", "-home-u--brackets--braces--parens-"),
    ("/tmp/emoji\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67", "-tmp-emoji--------"),
    ("/", "-"),
    ("/tmp/a%2Fb", "-tmp-a-2Fb"),
    ("/tmp/quote'dq\"", "-tmp-quote-dq-"),
    ("/mnt/data/\u00c5\u00c4\u00d6", "-mnt-data----"),
    ("/var/lib/x.y.z", "-var-lib-x-y-z"),
    (
        "/home/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/ab/",
        "-home-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-3ec5ep",
    ),
    ("/home/u/\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac", "-home-u---------"),
]


@pytest.mark.parametrize(("path", "folder"), GOLDEN, ids=range(len(GOLDEN)))
def test_the_folder_name_matches_claude_code(path: str, folder: str) -> None:
    assert slugify(path) == folder


def test_a_character_outside_the_bmp_counts_as_two_units() -> None:
    assert slugify("/a/\U0001f680") == "-a---"
    exactly_200 = "/a" + "\U0001f680" * 99  # 2 + 198 units
    assert slugify(exactly_200) == "-a" + "-" * 198
    hashed = slugify("/ab" + "\U0001f680" * 99)  # 201 units
    assert len(hashed) > 201 and hashed[:201] == "-ab" + "-" * 197 + "-"


def test_a_path_that_is_not_utf8_does_not_crash(tmp_path: Path) -> None:
    raw = os.fsdecode(b"/tmp/caf\xe9-bytes")
    assert slugify(raw) == "-tmp-caf--bytes"
    assert slugify(os.fsdecode(b"/x/" + b"\xff" * 250)).startswith("-x---")


def cli_path(project: Path, env: dict[str, str], *extra: str) -> str:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "MEMDIR_"))}
    full.update(env)
    out = subprocess.run(
        [sys.executable, "-m", "memdir", "--profile", "claude", "path", "--json",
         "--project", str(project), *extra],
        capture_output=True, env=full, cwd=project, check=True,
    )  # fmt: skip
    return str(json.loads(os.fsdecode(out.stdout))["memory_dir"])


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return tmp_path / "claude-config"


def expected(config: Path, root: Path) -> str:
    return str(config / "projects" / slugify(root) / "memory")


def test_a_plain_folder_uses_its_own_path(tmp_path: Path, config: Path) -> None:
    plain = tmp_path / "plain dir.v1"
    plain.mkdir()
    assert cli_path(plain, {"CLAUDE_CONFIG_DIR": str(config)}) == expected(config, plain)


def test_a_subfolder_of_a_repository_uses_the_repository_root(project: Path, config: Path) -> None:
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    assert cli_path(sub, {"CLAUDE_CONFIG_DIR": str(config)}) == expected(config, project)


def _symlinked(project: Path, tmp_path: Path) -> tuple[Path, Path]:
    link = tmp_path / "link-to-project"
    link.symlink_to(project)
    return link, project


def _linked_worktree(project: Path, tmp_path: Path) -> tuple[Path, Path]:
    other = tmp_path / "feature-tree"
    git(project, "worktree", "add", "-q", str(other), "-b", "feature")
    return other, project


def _worktree_moved_by_hand(project: Path, tmp_path: Path) -> tuple[Path, Path]:
    other = tmp_path / "before-move"
    git(project, "worktree", "add", "-q", str(other), "-b", "moving")
    moved = tmp_path / "after-move"
    other.rename(moved)
    return moved, moved


@pytest.mark.parametrize(
    "made",
    [
        pytest.param(_symlinked, id="a_symlinked_folder_resolves_to_its_target"),
        pytest.param(_linked_worktree, id="a_linked_worktree_maps_to_the_main_repository"),
        pytest.param(_worktree_moved_by_hand, id="a_worktree_moved_by_hand_keeps_its_own_path"),
    ],
)
def test_a_folder_git_or_a_link_leads_elsewhere_maps_to_where_it_leads(
    project: Path,
    tmp_path: Path,
    config: Path,
    made: Callable[[Path, Path], tuple[Path, Path]],
) -> None:
    """``made`` makes the folder a session starts in, and the root it maps to."""
    folder, root = made(project, tmp_path)
    assert cli_path(folder, {"CLAUDE_CONFIG_DIR": str(config)}) == expected(config, root)


def test_a_worktree_of_a_bare_repository_maps_to_the_bare_folder(
    project: Path, tmp_path: Path, config: Path
) -> None:
    bare = tmp_path / "repo-bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(project), str(bare))
    tree = tmp_path / "bare-tree"
    git(bare, "worktree", "add", "-q", str(tree), "-b", "side")
    assert find_project_root(tree) == bare
    assert cli_path(tree, {"CLAUDE_CONFIG_DIR": str(config)}) == expected(config, bare)


def test_a_submodule_is_its_own_project(project: Path, tmp_path: Path, config: Path) -> None:
    sub = add_submodule(project, tmp_path)
    assert cli_path(sub, {"CLAUDE_CONFIG_DIR": str(config)}) == expected(config, sub)


def test_a_dot_git_symlink_to_a_folder_marks_the_root(tmp_path: Path, config: Path) -> None:
    real = tmp_path / "repo"
    real.mkdir()
    git(real, "init", "-q", "-b", "main")
    (real / ".git").rename(real / "gitstore")
    (real / ".git").symlink_to(real / "gitstore")
    inner = real / "pkg"
    inner.mkdir()
    assert cli_path(inner, {"CLAUDE_CONFIG_DIR": str(config)}) == expected(config, real)


def test_decomposed_accents_keep_their_own_folder_name(tmp_path: Path, config: Path) -> None:
    folder = tmp_path / "cafe\u0301"
    folder.mkdir()
    got = cli_path(folder, {"CLAUDE_CONFIG_DIR": str(config)})
    assert got.endswith(slugify(folder) + "/memory") and "cafe-" in got


def test_without_claude_config_dir_the_folder_is_under_home(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    got = cli_path(project, {"HOME": str(home)})
    assert got == str(home / ".claude" / "projects" / slugify(project) / "memory")


def test_claude_config_dir_is_used_as_given_without_expanding_the_tilde(project: Path) -> None:
    got = cli_path(
        project,
        {"CLAUDE_CONFIG_DIR": "~/cc"},
    )
    assert got == str(Path("~/cc") / "projects" / slugify(project) / "memory")


def test_an_empty_claude_config_dir_is_a_value_not_unset(project: Path) -> None:
    got = cli_path(project, {"CLAUDE_CONFIG_DIR": ""})
    assert got == str(Path("projects") / slugify(project) / "memory")


def test_the_project_dir_name_replaces_the_folder_when_the_config_dir_is_set(
    project: Path, config: Path
) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(config), "CLAUDE_CODE_PROJECT_DIR_NAME": "my_proj-1"}
    assert cli_path(project, env) == str(config / "projects" / "my_proj-1" / "memory")


@pytest.mark.parametrize("name", ["CON", "lpt3", "bad/name", "x" * 65, "", "a b"])
def test_an_invalid_project_dir_name_is_ignored(project: Path, config: Path, name: str) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(config), "CLAUDE_CODE_PROJECT_DIR_NAME": name}
    assert cli_path(project, env) == expected(config, project)


def test_the_project_dir_name_needs_claude_config_dir(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    got = cli_path(project, {"HOME": str(home), "CLAUDE_CODE_PROJECT_DIR_NAME": "named"})
    assert got == str(home / ".claude" / "projects" / slugify(project) / "memory")


def test_the_remote_memory_dir_replaces_the_base(
    project: Path, tmp_path: Path, config: Path
) -> None:
    remote = tmp_path / "remote-mem"
    env = {"CLAUDE_CONFIG_DIR": str(config), "CLAUDE_CODE_REMOTE_MEMORY_DIR": str(remote),
           "CLAUDE_CODE_PROJECT_DIR_NAME": "ignored-here"}  # fmt: skip
    assert cli_path(project, env) == str(remote / "projects" / slugify(project) / "memory")


def test_auto_memory_directory_in_user_settings_moves_the_memory(
    project: Path, tmp_path: Path, config: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    config.mkdir()
    (config / "settings.json").write_text(json.dumps({"autoMemoryDirectory": "~/sync/mem/"}))
    got = cli_path(project, {"CLAUDE_CONFIG_DIR": str(config), "HOME": str(home)})
    assert got == str(home / "sync" / "mem")


def test_auto_memory_directory_in_shared_project_settings_is_ignored(
    project: Path, tmp_path: Path, config: Path
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"autoMemoryDirectory": str(tmp_path / "evil")})
    )
    assert cli_path(project, {"CLAUDE_CONFIG_DIR": str(config)}) == expected(config, project)


def test_local_settings_win_over_user_settings(project: Path, tmp_path: Path, config: Path) -> None:
    config.mkdir()
    (config / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(tmp_path / "u")}))
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"autoMemoryDirectory": str(tmp_path / "local")})
    )
    assert cli_path(project, {"CLAUDE_CONFIG_DIR": str(config)}) == str(tmp_path / "local")


@pytest.mark.parametrize("value", ["relative/dir", "~/..", "~/../x", "/", "", 42])
def test_an_unusable_auto_memory_directory_falls_back(
    project: Path, config: Path, value: object
) -> None:
    config.mkdir(exist_ok=True)
    (config / "settings.json").write_text(json.dumps({"autoMemoryDirectory": value}))
    assert cli_path(project, {"CLAUDE_CONFIG_DIR": str(config)}) == expected(config, project)


def test_the_memory_folder_is_nfc_normalised(tmp_path: Path) -> None:
    decomposed = tmp_path / "cafe\u0301"
    where = claude_location(Path("/p"), home=decomposed, env={"CLAUDE_CONFIG_DIR": str(decomposed)})
    assert where.memory_dir is not None and "caf\u00e9" in str(where.memory_dir)
    assert "\u0301" not in str(where.memory_dir)


def test_a_non_utf8_project_path_opens_without_a_crash(tmp_path: Path, config: Path) -> None:
    weird = Path(os.fsdecode(bytes(tmp_path) + b"/caf\xe9"))
    weird.mkdir()
    got = cli_path(weird, {"CLAUDE_CONFIG_DIR": str(config)})
    assert got == expected(config, weird)
