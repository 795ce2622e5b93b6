"""A teammate who writes git trees by hand cannot wedge a clone nor reach its files.

Each hostile tree is made with plumbing in a third party's clone and pushed to a
plain bare remote, which accepts it; the clones sync with memdir.
"""

from __future__ import annotations

import codecs
import json
import subprocess
from pathlib import Path

import pytest

from memdir.api import Memdir
from memdir.storage.memory_index import parse_entries
from memdir.team.checks import is_memory_name
from memdir.team.sync import SyncReport, sync_team
from teamutil import (
    Clone,
    TreeEntry,
    cli,
    published,
    push_by_hand,
    push_tree,
    remember,
    remote_files,
    run_git,
    team_files,
)

# Git under a throwaway HOME for every test here (teamutil's fixtures, via conftest.py).
pytestmark = pytest.mark.usefixtures("git_home")


def front(name: str, body: str = "A note.\n") -> bytes:
    return f"---\nname: {name}\ndescription: {name} notes\ntype: project\n---\n{body}".encode()


_NOTE = ("100644", b"escaped.md", front("Escaped"))
_HOOK = ("100755", b"post-checkout", b"#!/bin/sh\ntouch /tmp/memdir-pwned\n")
_CONFIG = ("100644", b"config", b"[core]\n\thooksPath = hooks\n\tfsmonitor = touch pwned\n")
_SUBMODULE = "1" * 40  # a gitlink names a commit of another repository

# (what, the hostile entries, a name each report line starts with)
HOSTILE: list[tuple[str, list[TreeEntry], str]] = [
    ("a file named ..", [("100644", b"..", front("Up"))], ".."),
    ("a folder named ..", [("40000", b"..", [_NOTE])], "../escaped.md"),
    ("a folder named .", [("40000", b".", [_NOTE])], "./escaped.md"),
    ("a .git folder", [("40000", b".git", [("40000", b"hooks", [_HOOK]), _CONFIG])], ".git/"),
    ("a .GIT folder", [("40000", b".GIT", [_CONFIG])], ".GIT/config"),
    ("a .Git file", [("100644", b".Git", b"gitdir: /tmp\n")], ".Git"),
    ("NTFS's name of .git", [("40000", b"GIT~1", [("100644", b"hooks.md", front("H"))])], "GIT~1"),
    ("a .gitattributes", [("100644", b".gitattributes", b"*.md filter=x eol=crlf\n")], ".git"),
    (
        "a .gitmodules and a submodule",
        [
            ("100644", b".gitmodules", b'[submodule "sub"]\n\tpath = sub\n\turl = ../x.git\n'),
            ("160000", b"sub", _SUBMODULE),
        ],
        "sub",
    ),
    ("a symlink", [("120000", b"link.md", b"/etc/passwd")], "link.md"),
    ("a symlinked folder", [("120000", b"notes", b"../../..")], "notes"),
    ("a slash in a name", [("100644", b"sub/way.md", front("Slash"))], "sub/way.md"),
    ("a backslash in a name", [("100644", b"..\\up.md", front("Back"))], "..\\up.md"),
    (
        "one name twice",
        [("100644", b"twice.md", front("A")), ("100644", b"twice.md", front("B"))],
        "twice.md",
    ),
    ("not a memory", [("100755", b"run.sh", b"#!/bin/sh\necho hi\n")], "run.sh"),
    ("a file of an odd mode", [("100664", b"odd.md", front("Odd"))], "odd.md"),
    ("a mode git reads as a submodule", [("644", b"odd.md", front("Odd"))], "odd.md"),
]


def noted(report: SyncReport) -> list[str]:
    """Every name the sync's report says it left out (quarantined or refused)."""
    return [q.file for q in report.quarantined] + [r.file for r in report.refused]


def remote_blob(remote: Path, rel: str) -> bytes:
    """A file's bytes as the remote's branch holds them."""
    done = subprocess.run(
        ["git", "-C", str(remote), "cat-file", "blob", f"main:{rel}"],
        capture_output=True,
        check=True,
    )
    return done.stdout


def assert_only_memories(mem: Memdir) -> None:
    """The team folder holds memory files and git's own folder, nothing else."""
    root = mem.layout.team_dir
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if rel.parts[0] == ".git":
            continue
        assert not path.is_symlink(), rel
        assert path.is_dir() or is_memory_name(rel.as_posix()), rel
    assert not (root / ".git" / "hooks" / "post-checkout").exists()
    assert "fsmonitor" not in (root / ".git" / "config").read_text()


@pytest.mark.parametrize(("what", "entries", "shown"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_tree_entry_never_wedges_a_clone(
    clone: Clone, remote: Path, tmp_path: Path, what: str, entries: list[TreeEntry], shown: str
) -> None:
    alice, bob = clone("alice"), clone("bob")
    remember(alice, "Runbook", "Restart the workers first.\n")
    sync_team(alice)
    push_tree(remote, tmp_path, [*entries, ("100644", b"fine.md", front("Fine"))])

    synced = cli(alice, "team", "sync", "--json")

    assert synced.exit_code == 0, synced.output
    report = json.loads(synced.output)
    names = [q["file"] for q in report["quarantined"]] + [r["file"] for r in report["refused"]]
    assert any(name.startswith(shown) for name in names), (what, names)
    assert "fine.md" in report["pulled"]
    assert sorted(alice.team.files()) == ["fine.md", "runbook.md"]
    assert [e.file for e in parse_entries(alice.team.read_index())] == ["runbook.md", "fine.md"]
    assert_only_memories(alice)
    # Pushed: the remote's branch holds memories only again, for every clone.
    assert sorted(remote_files(remote)) == ["MEMORY.md", "fine.md", "runbook.md"]

    bob_report = sync_team(bob)  # bob merges the cleaned branch: nothing to leave out
    assert sorted(bob.team.files()) == ["fine.md", "runbook.md"] and not noted(bob_report)
    remember(bob, "Later", "A later memory.\n")
    sync_team(bob)
    again = sync_team(alice)
    assert again.pulled == ("later.md",) and not noted(again)


@pytest.mark.parametrize(("what", "entries", "shown"), HOSTILE[:9], ids=[h[0] for h in HOSTILE[:9]])
def test_joining_a_remote_whose_tree_is_hostile_works(
    clone: Clone, remote: Path, tmp_path: Path, what: str, entries: list[TreeEntry], shown: str
) -> None:
    push_tree(remote, tmp_path, [*entries, ("100644", b"fine.md", front("Fine"))])

    alice = clone("alice")  # team init: its first merge is of the hostile commit

    assert alice.team.files() == ["fine.md"]
    assert_only_memories(alice)
    assert set(remote_files(remote)) <= {"MEMORY.md", "fine.md"}
    remember(alice, "Runbook", "Restart the workers first.\n")
    assert sync_team(alice).pushed


def test_a_teammate_who_keeps_the_hostile_entry_gets_no_second_report_or_copy(
    clone: Clone, remote: Path, tmp_path: Path
) -> None:
    alice = published(clone, "Runbook", "Restart the workers first.\n")
    push_tree(remote, tmp_path, [("40000", b".git", [_CONFIG])])

    def teammate_pushes_on_their_hostile_tree(attempt: int) -> None:
        if attempt == 0:  # they never merged alice's clean commit
            push_tree(remote, tmp_path, [("100644", b"more.md", front("More"))])

    report = sync_team(alice, before_push=teammate_pushes_on_their_hostile_tree)

    assert report.retries == 1 and noted(report) == [".git/config"]
    assert "more.md" in report.pulled
    quarantine = alice.layout.project_dir / ".quarantine"
    assert len([p for p in quarantine.rglob("*") if p.is_file()]) == 1
    assert sorted(remote_files(remote)) == ["MEMORY.md", "more.md", "runbook.md"]


def test_the_report_line_names_what_was_not_taken_in(
    clone: Clone, remote: Path, tmp_path: Path
) -> None:
    alice = clone("alice")
    push_tree(
        remote,
        tmp_path,
        [
            ("40000", b".git", [_CONFIG]),
            ("160000", b"sub", _SUBMODULE),
            ("100644", b"ok.md", front("Ok")),
        ],
    )

    synced = cli(alice, "team", "sync")

    assert synced.exit_code == 0, synced.output
    assert "quarantined: .git/config (a name git acts on" in synced.output
    assert "not taken in: sub: a submodule" in synced.output
    quarantined = next(alice.layout.project_dir.glob(".quarantine/*/_.git/config"))
    assert b"hooksPath" in quarantined.read_bytes()


def test_a_rewritten_remote_with_a_hostile_tree_is_adopted_without_it(
    clone: Clone, remote: Path, tmp_path: Path
) -> None:
    alice = published(clone, "Runbook", "Restart the workers first.\n")
    run_git(remote, "config", "receive.denyNonFastForwards", "false")
    third = tmp_path / "third"
    run_git(tmp_path, "clone", "--quiet", str(remote), str(third))
    root = run_git(third, "commit-tree", "4b825dc642cb6eb9a060e54bf8d69288fbee4904", "-m", "purge")
    run_git(third, "push", "--quiet", "--force", "origin", f"{root.stdout.strip()}:refs/heads/main")
    push_tree(remote, tmp_path, [("40000", b"..", [_NOTE]), ("100644", b"fine.md", front("Fine"))])

    report = sync_team(alice)

    assert report.rewritten and noted(report) == ["../escaped.md"]
    assert alice.team.files() == ["fine.md"]
    assert_only_memories(alice)
    assert sync_team(alice).pushed


def test_a_tree_that_names_one_folder_over_and_over_is_walked_only_to_the_limit(
    clone: Clone, remote: Path, tmp_path: Path
) -> None:
    alice = clone("alice")
    bounded = Memdir.open(alice.layout.project_root, home=alice.layout.home, max_files=40)
    level: list[TreeEntry] = [("100644", b"n.md", front("N"))]
    for depth in range(6):  # 10**6 files, from six trees of ten entries each
        level = [("40000", f"d{depth}{i}".encode(), level) for i in range(10)]
    push_tree(remote, tmp_path, [("40000", b"many", level), ("100644", b"fine.md", front("F"))])

    report = sync_team(bounded)

    assert "fine.md" in report.pulled and len(bounded.team.files()) < 40
    assert report.refused and all("more entries than" in r.reason for r in report.refused)
    assert sync_team(bounded).pulled == ()


# -- size ---------------------------------------------------------------------------


def test_a_memory_over_the_size_limit_is_quarantined_with_the_reason(
    clone: Clone, remote: Path, tmp_path: Path
) -> None:
    alice = clone("alice")
    small = Memdir.open(alice.layout.project_root, home=alice.layout.home, max_memory_bytes=2000)
    big = front("Big", "x" * 3000 + "\n").decode()
    push_by_hand(remote, tmp_path, {"big.md": big, "small.md": front("Small").decode()})

    report = sync_team(small)

    assert report.pulled == ("small.md",)
    [kept] = report.quarantined
    assert kept.file == "big.md" and "over the limit of a memory (2000" in kept.labels[0]
    assert kept.moved_to.read_text() == big
    assert small.team.files() == ["small.md"] and "big.md" not in small.team.read_index()
    assert "big.md" not in remote_files(remote)
    push_tree(remote, tmp_path, [("100644", b"later.md", front("Later"))])
    assert sync_team(small).pulled == ("later.md",)


def test_a_memory_of_a_few_megabytes_is_not_taken_in_under_the_default_limit(
    clone: Clone, remote: Path, tmp_path: Path
) -> None:
    alice = clone("alice")
    huge = front("Huge", "word " * 600_000).decode()  # 3 MB; the default limit is 256 KiB
    push_by_hand(remote, tmp_path, {"huge.md": huge})

    report = sync_team(alice)

    [kept] = report.quarantined
    assert kept.file == "huge.md" and str(alice.settings.max_memory_bytes) in kept.labels[0]
    assert kept.moved_to.stat().st_size == len(huge)
    assert alice.team.files() == []
    assert "word word" not in (alice.prompt() or "")


# -- attributes ---------------------------------------------------------------------


def test_a_teammates_gitattributes_changes_nothing_this_clone_writes_or_pushes(
    clone: Clone, remote: Path, tmp_path: Path
) -> None:
    alice = clone("alice")
    attributes = b"*.md text working-tree-encoding=UTF-16 eol=crlf\n"
    shared = front("Shared", "Café rules.\n")
    push_tree(
        remote,
        tmp_path,
        [("100644", b".gitattributes", attributes), ("100644", b"shared.md", shared)],
    )

    report = sync_team(alice)

    assert ".gitattributes" in noted(report)
    assert (alice.layout.team_dir / "shared.md").read_bytes() == shared
    mine = remember(alice, "Mine", "Written here, in UTF-8: café.\n")
    sync_team(alice)
    pushed = remote_blob(remote, mine)
    assert pushed == (alice.layout.team_dir / mine).read_bytes()
    assert not pushed.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and b"\r" not in pushed
    assert ".gitattributes" not in remote_files(remote)


def test_attributes_in_the_folder_or_the_global_config_never_convert_a_memory(
    clone: Clone, remote: Path, git_home: Path
) -> None:
    alice = clone("alice")
    converting = "*.md text working-tree-encoding=UTF-16 eol=crlf filter=upper\n"
    (git_home / "attributes").write_text(converting)
    run_git(git_home, "config", "--global", "core.attributesFile", str(git_home / "attributes"))
    run_git(git_home, "config", "--global", "core.autocrlf", "true")
    run_git(git_home, "config", "--global", "filter.upper.clean", "tr a-z A-Z")
    run_git(git_home, "config", "--global", "filter.upper.required", "true")
    # As a hand `git pull` would leave it: a .gitattributes in the work tree itself.
    (alice.layout.team_dir / ".gitattributes").write_text(converting)
    mine = remember(alice, "Mine", "Lower case, one line ending.\n")

    sync_team(alice)

    pushed = remote_blob(remote, mine)
    assert pushed == (alice.layout.team_dir / mine).read_bytes()
    assert b"Lower case" in pushed and b"\r\n" not in pushed
    assert ".gitattributes" not in remote_files(remote)
    assert team_files(alice)[mine].startswith("---\nname: Mine")
