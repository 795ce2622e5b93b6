"""The private memory folder as a git work tree of a remote its owner keeps.

:class:`PrivateTree` is what each step of a private sync is handed: the
project's memory, the memory folder (``<project>/memory``, the private
scope's root) and a :class:`~memdir.team.git.Git` for it, isolated as team
sync's is (no hook, filter or attribute of anyone's config runs or converts).
It is a :class:`~memdir.team.merge.MergeTree`, so a conflicted merge is
settled by team sync's own code: whole versions, conflict copies in
``.conflicts/``, never a marker.

What syncs is the private folder's own layout, whole: memories, ``MEMORY.md``,
``logs/``, the memory tool's ``.meta/`` sidecars. What never does
(``.git/info/exclude``, this clone only): the team folder (``team/``, a git
work tree of the team's remote: team memory never reaches a private remote,
and the reverse), conflict copies until settled, a write's staging folder and
temp files.

The owner's remote is checked before it is used: a remote that is also the
team's is refused (private memories, ``user`` ones first, never reach the
team), and the remote's tree is screened entry by entry before a merge
(:func:`screen_tip`): a link, a submodule, a ``.git`` or ``..`` part, git's
own attribute files or a ``team/`` folder stop the sync, nothing checked out.
"""

from __future__ import annotations

import os
import re
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.errors import SyncError
from memdir.storage.fs import file_lock
from memdir.storage.store_apply import STAGING_DIR
from memdir.team.checks import display_name
from memdir.team.conflicts import CONFLICTS_DIR
from memdir.team.git import Git, display_url
from memdir.team.work_tree import REMOTE, WorkTree

if TYPE_CHECKING:
    from memdir.history.project import ProjectMemory

__all__ = [
    "REMOTE",
    "SYNCED_REF",
    "PrivateTree",
    "refuse_private_remote",
    "same_remote",
    "screen_tip",
]

# The remote's commit this clone last merged or pushed (in the repository: durable).
SYNCED_REF = "refs/memdir/private-synced"
_RECORD = "memdir-private-sync.json"
_TEMP_FILES = ".*.tmp"  # memdir.storage.fs.atomic_write's temp names
_REFUSED_NAMES = frozenset({".git", ".gitattributes", ".gitmodules", "..", "."})
_SCP_LIKE = re.compile(r"^[^/:]+@?[^/:]*:(?!//)")


class PrivateTree(WorkTree):
    """The private memory folder as a git work tree, and what a sync's steps share."""

    synced_ref = SYNCED_REF

    def __init__(self, memdir: ProjectMemory, timeout: float) -> None:
        super().__init__(memdir, memdir.layout.memory_dir, timeout)

    @property
    def initialized(self) -> bool:
        return (self.root / ".git").is_dir()

    @property
    def record_path(self) -> Path:
        """The last syncs' outcome, kept with the repository (durable, not derived)."""
        return self.root / ".git" / _RECORD

    def store_lock(self) -> AbstractContextManager[None]:
        """The private store's own lock: no store write interleaves with a step."""
        return self.memdir.private.lock()

    def sync_lock(self) -> AbstractContextManager[None]:
        """One private sync at a time per project (a lock file holds no state)."""
        path = self.memdir.layout.lock_dir / "private-sync.lock"
        return file_lock(path, timeout=self.memdir.settings.lock_timeout)

    # -- setting up -------------------------------------------------------

    def require_repo(self) -> tuple[str, str]:
        """The remote's URL and the branch, or SyncError naming the next step."""
        url = self.git.config(f"remote.{REMOTE}.url") if self.initialized else None
        if url is None:
            raise SyncError(
                "private memory is not set up for sync",
                path=self.root,
                hint="run `memdir sync init REMOTE` first (a git remote only you use)",
            )
        return url, self.git.current_branch()

    def adopt(self, remote: str) -> None:
        """For a folder already set up: refuse a different remote than the one it has."""
        current = self.git.config(f"remote.{REMOTE}.url")
        if current is None:
            self.git.run("remote", "add", REMOTE, remote)
        elif not same_remote(current, remote):
            raise SyncError(
                f"private memory already syncs with {display_url(current)}",
                path=self.root,
                hint=f"to switch remotes run `git -C {self.root} remote set-url {REMOTE} URL`",
            )

    def prepare(self) -> None:
        """What each sync sets first: neutral attributes and this clone's excludes."""
        self.git.ignore_attributes()
        team = self.memdir.layout.team_dir.relative_to(self.root).as_posix()
        self.git.exclude(f"/{team}/", why="team memory syncs with the team's remote only")
        self.git.exclude(f"/{CONFLICTS_DIR}/", why="conflict copies, until settled")
        self.git.exclude(f"/{STAGING_DIR}/", why="a write's staged copy")
        self.git.exclude(_TEMP_FILES, why="temp files of atomic writes")

    def refuse_team_remote(self, remote: str) -> None:
        """SyncError when ``remote`` is the team's: private memories never go there."""
        team_root = self.memdir.layout.team_dir
        if not (team_root / ".git").exists():
            return
        if _is_remote_of(team_root, remote):
            raise SyncError(
                f"{display_url(remote)} is the team's remote: private memory "
                "(your `user` memories among it) never goes to a team remote",
                path=self.root,
                hint="create a repository only you can reach (a bare repository on your "
                "own disk or server, a private hosted one) and run `memdir sync init URL`",
            )


def screen_tip(tree: PrivateTree, tip: str) -> None:
    """Refuse a remote tree holding what a memory folder may not (nothing is checked out).

    The remote is the owner's own, so nothing is quarantined: the sync stops
    and names the entry, for the owner to look at.
    """
    team = tree.memdir.layout.team_dir.relative_to(tree.root).as_posix()
    listed = tree.git.run("ls-tree", "-r", "-z", "--full-tree", tip).paths()
    for entry in listed:
        meta, _, path = entry.partition("\t")
        mode = meta.split()[0]
        parts = path.split("/")
        why = None
        if mode in ("120000", "160000"):
            why = "a link or a submodule"
        elif any(p.casefold() in _REFUSED_NAMES or not p for p in parts):
            why = "a name git or memdir keeps for itself"
        elif path == team or path.startswith(f"{team}/") or parts[0] == CONFLICTS_DIR:
            why = "the team folder or conflict copies, which never sync privately"
        if why is not None:
            raise SyncError(
                f"the private remote holds {display_name(path)!r}: {why}; nothing was merged",
                path=tree.root,
                hint="remove it from the remote's branch (it was not written by memdir), "
                "then run `memdir sync` again; your memories are kept",
            )


def refuse_private_remote(memdir: ProjectMemory, remote: str) -> None:
    """SyncError when ``remote`` is the private sync's: it is not a team remote."""
    root = memdir.layout.memory_dir
    if not (root / ".git").is_dir():
        return
    if _is_remote_of(root, remote):
        raise SyncError(
            f"{display_url(remote)} is your private memory's remote (`memdir sync`): "
            "team memory and private memory never share a remote",
            path=memdir.layout.team_dir,
            hint="give the team a repository of its own and run "
            "`memdir team init --remote URL` with it",
        )


def same_remote(first: str, second: str) -> bool:
    """Whether two remote URLs (or paths) name the same repository."""
    return _normal(first) == _normal(second)


def _normal(url: str) -> str:
    text = display_url(url.strip()).removeprefix("file://")
    if "://" not in text and not _SCP_LIKE.match(text):
        path = Path(os.path.expanduser(text))
        with_git = path.with_name(path.name + ".git") if path.suffix != ".git" else path
        chosen = path if path.exists() or not with_git.exists() else with_git
        return str(chosen.resolve())
    return text.rstrip("/").removesuffix(".git").casefold()


def _is_remote_of(root: Path, remote: str) -> bool:
    """Whether ``remote`` is the one the git work tree at ``root`` syncs with."""
    url = Git(root).config(f"remote.{REMOTE}.url")
    return url is not None and same_remote(url, remote)
