"""Where this clone's team memory stands against the remote: ``memdir team status``.

:func:`team_status` counts the commits this clone has that the remote lacks
and the other way round, lists the files not yet shared, the conflict copies
waiting to be settled (:mod:`memdir.team.conflicts`), the teammates'
changes waiting for review, and what an interrupted git command left
(:mod:`memdir.team.recovery`). It fetches first unless told not to; an
unreachable remote is not an error (the counts are against the last fetched
state). It reads only (and fetches): no file of the folder is changed.
:func:`compare_with_remote` is that fetch and count, for private sync's status too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.errors import SyncError
from memdir.history.pending import pending_count
from memdir.model import Scope
from memdir.team import recovery
from memdir.team.conflicts import pending_conflicts
from memdir.team.git import NETWORK_TIMEOUT, Git, display_url
from memdir.team.messages import RETRY_SYNC
from memdir.team.reports import TeamStatus
from memdir.team.work_tree import REMOTE, TeamTree

if TYPE_CHECKING:
    from memdir.history.project import ProjectMemory

__all__ = ["compare_with_remote", "team_status"]


def team_status(
    memdir: ProjectMemory, *, fetch: bool = True, timeout: float = NETWORK_TIMEOUT
) -> TeamStatus:
    """Ahead/behind counts and unsynced files; an unreachable remote is not an error."""
    team = TeamTree(memdir, timeout)
    conflicts = tuple(pending_conflicts(team.root))
    review = pending_count(memdir, Scope.TEAM)
    if not (team.root / ".git").exists():
        return TeamStatus(
            initialized=False,
            remote=None,
            branch=None,
            ahead=0,
            behind=0,
            unsynced_files=tuple(memdir.team.files()),
            fetched=False,
            conflicts=conflicts,
            pending_review=review,
        )
    stuck = recovery.inspect(team.git).describe()
    try:
        url, branch = team.require_repo()
    except SyncError:
        if not stuck:
            raise
        # A half-done rebase leaves no branch checked out: say so rather than fail.
        url = team.git.config(f"remote.{REMOTE}.url") or REMOTE
        return TeamStatus(
            initialized=True,
            remote=display_url(url),
            branch=None,
            ahead=0,
            behind=0,
            unsynced_files=(),
            fetched=False,
            conflicts=conflicts,
            pending_review=review,
            stuck=stuck,
        )
    ahead, behind, unsynced, fetched = compare_with_remote(
        team.git, REMOTE, url, branch, fetch=fetch, retry=RETRY_SYNC
    )
    return TeamStatus(
        initialized=True,
        remote=display_url(url),
        branch=branch,
        ahead=ahead,
        behind=behind,
        unsynced_files=unsynced,
        fetched=fetched,
        conflicts=conflicts,
        pending_review=review,
        stuck=stuck,
    )


def compare_with_remote(
    git: Git, remote: str, url: str, branch: str, *, fetch: bool, retry: str
) -> tuple[int, int, tuple[str, ...], bool]:
    """Commits ahead, commits behind, unsynced files, and whether ``remote`` was reached.

    Fetches first when ``fetch``; offline, the counts are against the last fetched
    state (team status and private sync status alike). ``retry`` names the command
    to run again in an error.
    """
    fetched = False
    if fetch:
        try:
            git.fetch(remote, url, retry=retry)
            fetched = True
        except SyncError:
            fetched = False  # offline: report against the last fetched state
    head, tip = git.rev("HEAD"), git.rev(f"refs/remotes/{remote}/{branch}")
    ahead, behind, unsynced = git.divergence(head, tip)
    return ahead, behind, unsynced, fetched
