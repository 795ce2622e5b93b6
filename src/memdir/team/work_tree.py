"""The team folder as a git work tree of the team's remote: its git, locks and refs.

:class:`TeamTree` is what every step of a team sync is handed: the project's
memory, the team folder, and a :class:`~memdir.team.git.Git` for it (with a
fallback author when the user set none, so a commit never stops on a missing
identity). Its base, :class:`WorkTree`, is what it shares with private sync's
tree (:mod:`memdir.sync.tree`). It holds what the steps share and nothing of
their own logic:

* the two locks: the team store's own (no store write interleaves with a
  step that touches the folder) and one sync at a time per team folder;
* setting the repository up (``team init``) and checking it is set up;
* clearing what an interrupted sync left (:mod:`memdir.team.recovery`) before
  anything reads the branch;
* the ref of the remote's commit this clone last merged or pushed
  (``refs/memdir/synced``): a remote whose history no longer holds it was
  rewritten (:mod:`memdir.team.incoming` adopts it, never merges);
* writing a file into the folder and the index, and keeping this clone's
  version of a file as a conflict copy (:mod:`memdir.team.conflicts`).
"""

from __future__ import annotations

import datetime as dt
import getpass
import re
import socket
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.errors import SyncError
from memdir.storage.fs import atomic_write, ensure_dir, file_lock, safe_join
from memdir.team import recovery
from memdir.team.conflicts import add_copy
from memdir.team.git import Git, display_url
from memdir.team.reports import Progress

if TYPE_CHECKING:
    from memdir.history.project import ProjectMemory

__all__ = ["REMOTE", "TeamTree", "WorkTree", "commit_identity", "host"]

REMOTE = "origin"
_FALLBACK_EMAIL = "memdir@localhost"
_TAG_CHARS = re.compile(r"[^a-z0-9-]+")
# The remote's commit this clone last merged or pushed: a remote whose history
# no longer holds it was rewritten (a purge), and is adopted, never merged.
_SYNCED_REF = "refs/memdir/synced"


def commit_identity(memdir: ProjectMemory, timeout: float) -> tuple[str, str]:
    """Who authors sync commits (team or private) when git has no identity of its own here.

    The project's repository may name its user (its own config): then that user;
    else this login on this host, so a teammate still sees whose commit it is.
    """
    project = Git(memdir.layout.project_root, isolate=False, network_timeout=timeout)
    name, email = project.config("user.name"), project.config("user.email")
    if name and email:
        return name, email
    try:
        login = getpass.getuser()
    except (OSError, KeyError):  # no login name in the environment or the password file
        login = "memdir"
    return f"{login} on {host() or 'unknown host'}", _FALLBACK_EMAIL


class WorkTree:
    """A memory folder as a git work tree of one remote: what a sync of it (team or
    private) needs of git and the folder, whatever the remote."""

    synced_ref = _SYNCED_REF  # the remote's commit this clone last merged or pushed

    def __init__(self, memdir: ProjectMemory, root: Path, timeout: float) -> None:
        self.memdir = memdir
        self.root = root
        ensure_dir(root)
        probe = Git(root, network_timeout=timeout)
        configured = probe.config("user.name") and probe.config("user.email")
        identity = None if configured else commit_identity(memdir, timeout)
        self.git = Git(root, network_timeout=timeout, identity=identity)

    @property
    def rescue_dir(self) -> Path:
        """Where files with conflict markers an interrupted merge left are saved."""
        return self.memdir.layout.project_dir / ".rescued"

    def create(self, remote: str, branch: str) -> None:
        """Make the folder a repository of ``remote`` on ``branch`` (no commit yet)."""
        # No template: nothing from the user's init.templateDir (hooks) comes along.
        self.git.run("init", "--quiet", "--template=", f"--initial-branch={branch}")
        self.git.ignore_attributes()
        self.git.run("remote", "add", REMOTE, remote)

    def mark_synced(self, tip: str | None) -> None:
        """Record ``tip`` as the remote commit this clone last merged or pushed."""
        if tip is not None:
            self.git.run("update-ref", self.synced_ref, tip)

    def put(self, rel: str, data: str | bytes) -> None:
        """Write ``rel`` in the folder and stage it."""
        atomic_write(safe_join(self.root, rel), data)
        self.git.run("add", "--", rel)

    def conflict_copy(self, rel: str, data: bytes, reason: str) -> str:
        """Keep this clone's version of ``rel`` in ``.conflicts/`` (never committed)."""
        return add_copy(self.root, rel, data, reason, host() or dt.date.today().isoformat())


class TeamTree(WorkTree):
    """The team folder as a git work tree, and what the steps of a sync share."""

    def __init__(self, memdir: ProjectMemory, timeout: float) -> None:
        super().__init__(memdir, memdir.layout.team_dir, timeout)

    def team_lock(self) -> AbstractContextManager[None]:
        """The team store's own lock: no store write interleaves with a step."""
        return self.memdir.team.lock()

    def sync_lock(self) -> AbstractContextManager[None]:
        """One sync at a time per team folder."""
        return self._lock("team-sync.lock")

    def _lock(self, name: str) -> AbstractContextManager[None]:
        path = self.memdir.layout.lock_dir / name
        return file_lock(path, timeout=self.memdir.settings.lock_timeout)

    # -- setting up -------------------------------------------------------

    def require_repo(self) -> tuple[str, str]:
        """The remote's URL and the branch, or SyncError naming the next step."""
        if not (self.root / ".git").exists():
            raise SyncError(
                "team memory is not set up for sync",
                path=self.root,
                hint="run `memdir team init --remote URL` first",
            )
        url = self.git.config(f"remote.{REMOTE}.url")
        if url is None:
            raise SyncError(
                f"the team repository has no remote named {REMOTE!r}",
                path=self.root,
                hint="run `memdir team init --remote URL`",
            )
        return url, self.git.current_branch()

    def adopt(self, remote: str) -> bool:
        """For a folder that is already a repository: True when it syncs with ``remote``."""
        current = self.git.config(f"remote.{REMOTE}.url")
        if current is None:
            self.git.run("remote", "add", REMOTE, remote)
            return False
        if current != remote:
            raise SyncError(
                f"the team folder already syncs with {display_url(current)}",
                path=self.root,
                hint=f"to switch remotes run `git -C {self.root} remote set-url {REMOTE} URL`",
            )
        return True

    # -- what an interrupted sync left ------------------------------------

    def recover_first(self, progress: Progress) -> None:
        """:meth:`recover` before anything reads the branch (under the team lock).

        No attribute converts a file from here on (:meth:`Git.ignore_attributes`):
        the recovery's own reset checks files out.
        """
        if (self.root / ".git").is_dir():
            with self.team_lock():
                self.git.ignore_attributes()
                self.recover(progress)

    def recover(self, progress: Progress) -> None:
        """Clear stale locks and a half-done merge or rebase; local work is kept."""
        done = recovery.recover(self.git, rescue_dir=self.rescue_dir)
        if done.cleared:
            progress.recovered.append(done.describe())

    # -- the remote this clone last synced with ----------------------------

    def synced_base(self, branch: str) -> str | None:
        """The remote commit this clone last synced with, or None when unknown.

        A clone that synced before this was recorded still has the
        remote-tracking ref's previous value in its reflog.
        """
        synced = self.git.rev(self.synced_ref)
        if synced is None:
            synced = self.git.rev(f"refs/remotes/{REMOTE}/{branch}@{{1}}")
        return synced


def host() -> str:
    """This machine's short host name, as a file-name-safe tag ("" when unknown)."""
    name = socket.gethostname().split(".", 1)[0].casefold()
    return _TAG_CHARS.sub("-", name).strip("-")[:24]
