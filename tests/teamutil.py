"""Team sync tests' shared parts: real git, bare remotes, clones with their own homes.

The helpers are imported by the team test modules (``from teamutil import ...``); the
fixtures reach every test module through ``pytest_plugins`` in conftest.py, and the
modules that use git mark themselves with ``pytest.mark.usefixtures("git_home")``, which
gives git an empty global config under a temp HOME.
"""

from __future__ import annotations

import os
import random
import string
import subprocess
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memdir.api import Memdir
from memdir.cli import main
from memdir.storage.memory_index import parse_entries
from memdir.team.sync import SyncReport, init_team, sync_team

__all__ = [
    "Clone",
    "TreeEntry",
    "assert_index_matches_files",
    "assert_no_conflict_markers",
    "cli",
    "cli_output",
    "clone",
    "edit_both_sides",
    "files_under",
    "git_home",
    "note",
    "opened",
    "private_files",
    "private_remote",
    "published",
    "push_by_hand",
    "push_tree",
    "remember",
    "remote",
    "remote_files",
    "run_git",
    "shared_memories",
    "shared_memory",
    "team_files",
    "token",
]

Clone = Callable[[str], Memdir]
# A tree entry as a teammate's plumbing writes it: (mode, name, content), where content
# is a blob's bytes, a commit id (mode 160000) or the entries of a subtree (mode 40000).
TreeEntry = tuple[str, bytes, "bytes | str | list[TreeEntry]"]


def run_git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Plain git as a third party would run it (identity from the environment)."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Third Party",
        "GIT_AUTHOR_EMAIL": "third@example.com",
        "GIT_COMMITTER_NAME": "Third Party",
        "GIT_COMMITTER_EMAIL": "third@example.com",
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=check, capture_output=True, text=True
    )


def token() -> str:
    """A GitHub-token-shaped value, assembled so this file holds none."""
    rng = random.Random(5)
    return (
        "ghp" + "_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))
    )


@pytest.fixture
def git_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Git sees an empty global config (no identity, no hooks) under a temp HOME."""
    home = tmp_path / "git-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.delenv(f"GIT_{role}_NAME", raising=False)
        monkeypatch.delenv(f"GIT_{role}_EMAIL", raising=False)
    return home


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """An empty bare repository: the team's remote."""
    path = tmp_path / "team.git"
    run_git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=main", str(path))
    return path


@pytest.fixture
def opened(tmp_path: Path) -> Iterator[Clone]:
    """Open (without syncing) the memory of a named user's own project and home."""

    def open_(user: str) -> Memdir:
        project = tmp_path / user / "project"
        project.mkdir(parents=True, exist_ok=True)
        return Memdir.open(project, home=tmp_path / user / "home")

    yield open_


@pytest.fixture
def clone(opened: Clone, remote: Path) -> Clone:
    """A user's memory whose team folder is set up to sync with ``remote``."""

    def clone_(user: str) -> Memdir:
        mem = opened(user)
        init_team(mem, str(remote))
        return mem

    return clone_


def remember(mem: Memdir, name: str, body: str) -> str:
    result = mem.write(
        name=name,
        description=f"what the team knows about {name}",
        type="project",
        body=body,
        scope="team",
    )
    return result.record.file


def files_under(root: Path, *, skip: Callable[[tuple[str, ...]], bool]) -> dict[str, str]:
    """Every file under ``root`` whose relative path's parts ``skip`` lets by, by that path."""
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file() and not skip(p.relative_to(root).parts)
    }


def team_files(mem: Memdir) -> dict[str, str]:
    """Every file of the team folder (``.git`` aside), by relative path."""
    return files_under(mem.layout.team_dir, skip=lambda parts: ".git" in parts)


def assert_no_conflict_markers(mem: Memdir) -> None:
    for rel, text in team_files(mem).items():
        for line in text.splitlines():
            assert not line.startswith(("<<<<<<<", ">>>>>>>", "=======")), rel


def assert_index_matches_files(mem: Memdir) -> None:
    indexed = sorted(e.file for e in parse_entries(mem.team.read_index()))
    assert indexed == mem.team.files()


def remote_files(remote: Path) -> list[str]:
    out = run_git(remote, "ls-tree", "-r", "--name-only", "main").stdout
    return out.split()


def push_by_hand(
    remote: Path, tmp_path: Path, files: dict[str, str], message: str = "by hand"
) -> None:
    """A teammate who skips memdir: a plain git clone, files written (or appended to), pushed.

    The clone (``tmp_path / "third"``) is made once and kept for the next push.
    """
    third = tmp_path / "third"
    if not third.exists():
        run_git(tmp_path, "clone", "--quiet", str(remote), str(third))
    for rel, text in files.items():
        path = third / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(path.read_text() + text if path.exists() else text)
    run_git(third, "add", "-A")
    run_git(third, "commit", "--quiet", "-m", message)
    run_git(third, "push", "--quiet", "origin", "HEAD:main")


def push_tree(remote: Path, tmp_path: Path, entries: list[TreeEntry]) -> str:
    """A teammate who writes trees with plumbing: the remote's tree plus ``entries``, pushed.

    Every tree is written byte for byte (``hash-object -t tree --literally``), so
    names git itself refuses (``..``, ``.git``, a slash, an empty name, the same
    name twice) reach the remote as a bare repository accepts them. Returns the
    commit pushed on ``main``.
    """
    third = tmp_path / "third"
    if not third.exists():
        run_git(tmp_path, "clone", "--quiet", str(remote), str(third))
    run_git(third, "fetch", "--quiet", "origin")
    parent = run_git(third, "rev-parse", "--verify", "--quiet", "origin/main", check=False)
    head = parent.stdout.strip()
    kept: list[bytes] = []
    if head:
        listed = subprocess.run(
            ["git", "ls-tree", "-z", head], cwd=third, check=True, capture_output=True
        ).stdout
        for line in listed.split(b"\0"):
            if line:
                meta, _, name = line.partition(b"\t")
                mode, _kind, sha = meta.split()
                kept.append(_tree_line(mode, name, sha.decode()))
    written: dict[int, str] = {}  # a subtree named many times is written once
    tree = _write_tree(third, kept + [_entry_line(third, entry, written) for entry in entries])
    parents = ["-p", head] if head else []
    commit = run_git(third, "commit-tree", tree, *parents, "-m", "by plumbing").stdout.strip()
    run_git(third, "push", "--quiet", "origin", f"{commit}:refs/heads/main")
    run_git(third, "fetch", "--quiet", "origin")
    return commit


def _entry_line(repo: Path, entry: TreeEntry, written: dict[int, str]) -> bytes:
    mode, name, content = entry
    if isinstance(content, list):
        if id(content) not in written:
            lines = [_entry_line(repo, e, written) for e in content]
            written[id(content)] = _write_tree(repo, lines)
        sha = written[id(content)]
    elif isinstance(content, str):  # a commit id: a submodule's gitlink
        sha = content
    else:
        sha = _hash(repo, "blob", content)
    return _tree_line(mode.encode(), name, sha)


def _tree_line(mode: bytes, name: bytes, sha: str) -> bytes:
    return mode.lstrip(b"0") + b" " + name + b"\0" + bytes.fromhex(sha)


def _write_tree(repo: Path, lines: list[bytes]) -> str:
    """A tree of ``lines``, in git's order (a subtree sorts as its name and a slash)."""

    def order(line: bytes) -> bytes:
        meta, _, rest = line.partition(b" ")
        name = rest.partition(b"\0")[0]
        return name + b"/" if meta == b"40000" else name

    ordered: list[bytes] = sorted(lines, key=order)
    return _hash(repo, "tree", b"".join(ordered))


def _hash(repo: Path, kind: str, data: bytes) -> str:
    done = subprocess.run(
        ["git", "hash-object", "-t", kind, "--literally", "-w", "--stdin"],
        cwd=repo,
        input=data,
        check=True,
        capture_output=True,
    )
    return done.stdout.decode().strip()


def published(clone: Clone, name: str, body: str) -> Memdir:
    """Alice, whose team memory ``name`` she has synced to the remote."""
    alice = clone("alice")
    remember(alice, name, body)
    sync_team(alice)
    return alice


def shared_memories(clone: Clone, notes: Mapping[str, str]) -> tuple[Memdir, Memdir]:
    """Alice and bob, both synced with alice's team memories (``notes``: body by name)."""
    alice, bob = clone("alice"), clone("bob")
    for name, body in notes.items():
        remember(alice, name, body)
    sync_team(alice)
    sync_team(bob)
    return alice, bob


def shared_memory(clone: Clone, name: str, body: str) -> tuple[Memdir, Memdir]:
    """Alice and bob, both synced with alice's team memory ``name``."""
    return shared_memories(clone, {name: body})


def edit_both_sides(alice: Memdir, bob: Memdir, name: str, hers: str, his: str) -> SyncReport:
    """Each rewrites ``name``; alice syncs first, then bob: the report of bob's sync."""
    remember(alice, name, hers)
    remember(bob, name, his)
    sync_team(alice)
    return sync_team(bob)


def cli(mem: Memdir, *args: str) -> Result:
    """Run ``memdir ARGS --project <mem's project>`` in ``mem``'s home."""
    env = {"MEMDIR_HOME": str(mem.layout.home)}
    project = ["--project", str(mem.layout.project_root)]
    return CliRunner().invoke(main, [*args, *project], env=env)


def cli_output(mem: Memdir, *args: str) -> tuple[int, str]:
    """:func:`cli`'s exit code and output."""
    result = cli(mem, *args)
    return result.exit_code, result.output


# -- private sync: one person's machines, each a memdir home of its own --------


@pytest.fixture
def private_remote(tmp_path: Path) -> Path:
    """An empty bare repository only its owner uses: the private remote."""
    path = tmp_path / "mine.git"
    run_git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=main", str(path))
    return path


def note(mem: Memdir, name: str, body: str, *, type: str = "user") -> str:
    """Write a private memory ``name``; its file."""
    result = mem.write(name=name, description=f"about {name}", type=type, body=body)
    return result.record.file


def private_files(mem: Memdir) -> dict[str, str]:
    """Every file of the private memory folder (``.git`` and the team folder aside)."""
    return files_under(mem.layout.memory_dir, skip=lambda parts: parts[0] in (".git", "team"))
