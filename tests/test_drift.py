"""Drift checks against real git repositories and plain folders."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitutil import git
from memdir.model import Memory, MemoryType
from memdir.recall.drift import (
    Claim,
    ClaimKind,
    ClaimStatus,
    DriftChecker,
    check_drift,
    find_claims,
)
from openutil import files_opened

CONFIG_PY = '''\
"""Configuration loading."""


def parse_config(path):
    return {"path": path}


class Loader:
    def load(self):
        return parse_config("app.toml")
'''


def run_git(cwd: Path, *args: str) -> None:
    git(cwd, *args)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with src/config.py, src/api.py (80 lines) and docs."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "src" / "config.py").write_text(CONFIG_PY)
    (root / "src" / "api.py").write_text("".join(f"line_{n} = {n}\n" for n in range(1, 81)))
    (root / "docs" / "setup.md").write_text("# Setup\n")
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", ".")
    run_git(root, "commit", "-q", "-m", "init")
    return root


def memory(body: str = "", anchors: tuple[str, ...] = ()) -> Memory:
    return Memory(
        name="Config loading",
        description="where configuration is parsed",
        type=MemoryType.PROJECT,
        body=body,
        anchors=anchors,
    )


def messages(root: Path, mem: Memory) -> list[str]:
    return [f.message for f in check_drift(root, find_claims(mem))]


# -- finding claims ---------------------------------------------------------------------


def test_claims_come_from_anchors_and_backticked_paths_and_symbols() -> None:
    mem = memory(
        body="Config is parsed by `parse_config()` in `src/config.py`; "
        "see `docs/setup.md` and `Loader.load`.",
        anchors=("src/api.py",),
    )
    claims = [(c.kind, c.target, c.origin) for c in find_claims(mem)]
    assert claims == [
        (ClaimKind.PATH, "src/api.py", "anchor"),
        (ClaimKind.SYMBOL, "parse_config", "body"),
        (ClaimKind.PATH, "src/config.py", "body"),
        (ClaimKind.PATH, "docs/setup.md", "body"),
        (ClaimKind.SYMBOL, "Loader.load", "body"),
    ]


def test_line_references_are_found_backticked_and_bare() -> None:
    mem = memory(body="The bug is at `src/api.py:42`, and the handler at api.py:120.")
    claims = [(c.kind, c.target, c.line) for c in find_claims(mem)]
    assert claims == [(ClaimKind.LINE, "src/api.py", 42), (ClaimKind.LINE, "api.py", 120)]


@given(prose=st.text(alphabet="ab :*\n", max_size=40))
def test_a_bare_line_reference_is_found_among_any_prose_colons(prose: str) -> None:
    claims = find_claims(memory(body=f"{prose} api.py:120 {prose}"))
    assert [(c.kind, c.target, c.line) for c in claims] == [(ClaimKind.LINE, "api.py", 120)]


def test_prose_with_colons_but_no_code_makes_no_claims() -> None:
    assert find_claims(memory(body="**Why:** learned the hard way: twice.\nNote: see above")) == []


def test_a_line_range_claims_its_last_line() -> None:
    [claim] = find_claims(memory(body="See `src/api.py:10-95`."))
    assert (claim.kind, claim.line) == (ClaimKind.LINE, 95)


@pytest.mark.parametrize(
    "body",
    [
        "Prose words: the config loader is fast and parse config is easy.",
        "Links: https://example.com/src/api.py and http://localhost:8080/x.py:12",
        "Hosts in backticks: `example.com`, `grafana.internal`, and `localhost:5432`.",
        "Branches and repos: `feature/login`, `anthropics/claude-code`.",
        "Plain words in backticks: `true`, `None`, `README`, `GitHub`, `1.2.3`, `--verbose`.",
        "Commands: `git log --oneline`, `pip install -e .`",
        "```\nparse_config() in src/gone.py:12 and `inside_fence()`\n```",
    ],
)
def test_prose_urls_hosts_and_code_blocks_make_no_claims(body: str) -> None:
    assert find_claims(memory(body=body)) == []


def test_a_claim_named_twice_is_kept_once() -> None:
    mem = memory(body="`parse_config` and again `parse_config()`", anchors=("parse_config",))
    assert len(find_claims(mem)) == 1


def test_a_test_id_anchor_claims_the_file_and_the_function() -> None:
    claims = find_claims(memory(anchors=("tests/test_api.py::test_login",)))
    assert [(c.kind, c.target) for c in claims] == [
        (ClaimKind.PATH, "tests/test_api.py"),
        (ClaimKind.SYMBOL, "test_login"),
    ]


@given(body=st.text(), anchors=st.lists(st.text(), max_size=4))
def test_find_claims_never_raises(body: str, anchors: list[str]) -> None:
    for claim in find_claims(memory(body=body, anchors=tuple(anchors))):
        assert claim.target
        assert claim.line is None or claim.line > 0


@given(
    body=st.lists(
        st.sampled_from(["`", "src/", "a.py", ":", "9" * 30, "::", "()", ".", " ", "\n", "```"]),
        max_size=40,
    ).map("".join)
)
def test_find_claims_never_raises_on_code_like_noise(body: str) -> None:
    find_claims(memory(body=body))


# -- checking claims in a git repository --------------------------------------------------


def test_a_removed_file_and_a_renamed_function_are_both_reported(repo: Path) -> None:
    mem = memory(body="Settings come from `parse_config()` in `src/config.py`.")
    assert messages(repo, mem) == []
    (repo / "src" / "config.py").unlink()
    (repo / "src" / "settings.py").write_text(CONFIG_PY.replace("parse_config", "load_settings"))
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "rename")
    assert messages(repo, mem) == [
        "`parse_config` not found in tracked files",
        "`src/config.py` no longer exists",
    ]


def test_a_file_deleted_but_not_yet_committed_is_reported(repo: Path) -> None:
    (repo / "docs" / "setup.md").unlink()
    assert messages(repo, memory(anchors=("docs/setup.md",))) == [
        "`docs/setup.md` no longer exists"
    ]


def test_anchors_that_still_hold_report_nothing(repo: Path) -> None:
    mem = memory(
        body="Loader lives in `src/config.py:9`; docs in `docs/`.",
        anchors=("src/config.py", "parse_config", "Loader.load", "src", "config.py"),
    )
    checker = DriftChecker(repo)
    assert checker.check_memory(mem) == []
    assert {checker.status(c)[0] for c in find_claims(mem)} == {ClaimStatus.HOLDS}


def test_a_line_past_the_end_of_the_file_is_reported_with_its_length(repo: Path) -> None:
    mem = memory(body="Rate limits are set at api.py:123, and timeouts at `src/api.py:80`.")
    assert messages(repo, mem) == ["`api.py:123` — file has only 80 lines"]


def test_a_qualified_symbol_names_the_part_that_is_missing(repo: Path) -> None:
    assert messages(repo, memory(body="Call `Reader.load` first.")) == [
        "`Reader.load` not found in tracked files (no `Reader`)"
    ]


def test_a_symbol_only_in_an_untracked_ignored_file_is_not_found(repo: Path) -> None:
    (repo / ".gitignore").write_text("build/\n")
    (repo / "build").mkdir()
    (repo / "build" / "gen.py").write_text("def generated_helper(): pass\n")
    (repo / "src" / "new.py").write_text("def fresh_helper(): pass\n")
    findings = messages(repo, memory(anchors=("generated_helper", "fresh_helper")))
    assert findings == ["`generated_helper` not found in tracked files"]


def test_a_claim_outside_the_root_is_not_checked_and_not_reported(repo: Path) -> None:
    outside = repo.parent / "secret.py"
    outside.write_text("def leaked(): pass\n")
    mem = memory(anchors=("../../etc/passwd", "../secret.py", str(outside), "src/../../secret.py"))
    checker = DriftChecker(repo)
    claims = [*find_claims(mem), Claim(kind=ClaimKind.PATH, text="~/.bashrc", target="~/.bashrc")]
    assert len(claims) == 5
    assert [checker.status(c) for c in claims] == [(ClaimStatus.UNCHECKED, None)] * 5
    assert checker.check(claims) == []


def test_a_symlink_that_leaves_the_root_is_not_followed(repo: Path) -> None:
    (repo.parent / "elsewhere").mkdir()
    (repo.parent / "elsewhere" / "notes.md").write_text("x\n")
    (repo / "link").symlink_to(repo.parent / "elsewhere")
    claim = Claim(kind=ClaimKind.PATH, text="link/notes.md", target="link/notes.md")
    assert DriftChecker(repo).status(claim) == (ClaimStatus.UNCHECKED, None)


def test_an_absolute_path_inside_the_root_is_checked(repo: Path) -> None:
    present = str(repo.resolve() / "src" / "api.py")
    gone = str(repo.resolve() / "src" / "gone.py")
    assert messages(repo, memory(anchors=(present, gone))) == [f"`{gone}` no longer exists"]


def test_the_checker_scans_once_until_refreshed(repo: Path) -> None:
    checker = DriftChecker(repo)
    claim = Claim(kind=ClaimKind.SYMBOL, text="brand_new", target="brand_new")
    assert checker.status(claim)[0] is ClaimStatus.DRIFTED
    (repo / "src" / "more.py").write_text("def brand_new(): pass\n")
    assert checker.status(claim)[0] is ClaimStatus.DRIFTED
    checker.refresh()
    assert checker.status(claim)[0] is ClaimStatus.HOLDS


def test_a_symbol_that_exists_is_confirmed_without_reading_every_file(repo: Path) -> None:
    for n in range(20):
        (repo / "src" / f"zz_{n}.py").write_text(f"value_{n} = {n}\n")
    run_git(repo, "add", ".")
    run_git(repo, "commit", "-q", "-m", "more modules")  # listed after src/config.py
    checker = DriftChecker(repo)
    symbol = Claim(kind=ClaimKind.SYMBOL, text="parse_config", target="parse_config")
    gone = Claim(kind=ClaimKind.SYMBOL, text="renamed_away", target="renamed_away")
    with files_opened() as first:
        assert checker.status(symbol)[0] is ClaimStatus.HOLDS
    with files_opened() as second:
        assert checker.status(gone)[0] is ClaimStatus.DRIFTED
    with files_opened() as third:
        assert checker.status(symbol)[0] is ClaimStatus.HOLDS
    read = [p for p in first + second if p.endswith(".py")]
    assert len([p for p in first if p.endswith(".py")]) < 3
    assert sorted(read) == sorted(str(p) for p in (repo / "src").resolve().glob("*.py"))
    assert third == []


# -- checking claims outside git ----------------------------------------------------------


def test_outside_git_the_tree_is_walked_skipping_vendored_and_binary_files(
    tmp_path: Path,
) -> None:
    root = tmp_path / "plain"
    (root / "lib").mkdir(parents=True)
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / ".venv").mkdir()
    (root / "lib" / "core.py").write_text("def run_job(): pass\n")
    (root / "node_modules" / "dep" / "index.js").write_text("function vendored_fn() {}\n")
    (root / ".venv" / "site.py").write_text("def venv_fn(): pass\n")
    (root / "lib" / "blob.bin").write_bytes(b"\0binary_fn\0")
    mem = memory(anchors=("run_job", "vendored_fn", "venv_fn", "binary_fn", "core.py"))
    assert messages(root, mem) == [
        "`vendored_fn` not found in the project's files",
        "`venv_fn` not found in the project's files",
        "`binary_fn` not found in the project's files",
    ]


def test_oversized_files_are_not_searched(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "huge.txt").write_text("big_symbol\n" + "x" * 1_100_000)
    assert messages(root, memory(anchors=("big_symbol",))) == [
        "`big_symbol` not found in the project's files"
    ]
