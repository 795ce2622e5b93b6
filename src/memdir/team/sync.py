"""Team memory sync through git: commit, fetch, merge, re-scan, re-index, push.

The team folder (``<memory dir>/team``) is a git work tree whose ``origin``
is the team's remote. :func:`sync_team` runs, under the team store's lock
for every step that touches the folder (network steps run outside it, so
writes are not held up by a slow remote; a second lock serialises syncs):

1. rebuild the held list of teammates' rules if it was lost
   (:mod:`memdir.team.teammate_rules`), then commit local changes (refused
   when one holds a likely secret, in any encoding); a file that is no
   memory (only ``*.md`` memories with plain names belong in team memory) is
   left out, uncommitted, and reported, and the memory tool's ``.meta/``
   sidecars stay on this machine (a local exclude); the message lists the
   memories changed (:mod:`memdir.team.local_commits`);
2. fetch, read the remote's tree entry by entry (:mod:`memdir.team.remote_tree`:
   what a memory folder may not hold, such as ``..``, ``.git``, a
   ``.gitattributes``, a link, a submodule or a memory over
   ``max_memory_bytes``, is quarantined or reported and left out by a commit
   of this clone's own on top of the remote's, never checked out), then merge
   (a normal merge: published history is never rewritten and nothing is
   ever force-pushed). Conflicts never
   leave a marker in a file: a memory edited on both sides keeps the
   remote's version in its file and the local one as a conflict copy in
   ``.conflicts/`` (:mod:`memdir.team.conflicts`: never committed or pushed,
   settled with ``memdir team resolve``); an edit beats a delete;
   ``MEMORY.md`` takes the union of both sides' lines (hand-written ones
   included). Unrelated histories merge only on ``team init``. A remote
   whose history no longer holds the commit this clone last synced with
   (``refs/memdir/synced``) was rewritten, usually to purge a leak: it is
   adopted as it is (``reset --hard``), never merged, and what this clone had
   not pushed is left as conflict copies for the user to settle;
   nothing is pushed in that sync (:mod:`memdir.team.incoming`);
3. scan every file committed since the last clean scan (all of them the
   first time): a likely secret or a name that is not a plain memory name
   (a teammate's file is untrusted) is moved to
   ``<project dir>/.quarantine/<date>/``, its index line dropped and its
   removal committed (:mod:`memdir.team.quarantine`); then the index is
   checked (a line for every memory, none for a missing one) and repaired
   (:mod:`memdir.team.index_repair`);
4. check what the push would send (:mod:`memdir.team.outgoing`: every blob,
   name and message of the commits no remote-tracking ref holds): anything
   found refuses the push, the commits stay local and the error names file,
   line, rule and ``memdir team rewrite-unpushed`` (:func:`rewrite_unpushed`
   folds the unpushed commits into one without those files);
5. push; when the remote moved meanwhile, fetch and go back to 2 (bounded).

This module holds the public entry points and the loop; the folder, its
locks and refs are :class:`~memdir.team.work_tree.TeamTree`, and ``memdir
team status`` is :mod:`memdir.team.status` (re-exported here). Network
failures raise :class:`SyncError` naming the remote and the next step; what
was committed locally stays for the next sync.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.errors import SyncError
from memdir.storage.sidecar import SIDECAR_DIR
from memdir.sync.tree import refuse_private_remote
from memdir.team import recovery
from memdir.team.conflicts import CONFLICTS_DIR
from memdir.team.git import (
    NETWORK_TIMEOUT,
    PushPlan,
    display_url,
    install_pre_commit_hook,
    push_until_landed,
)
from memdir.team.incoming import integrate
from memdir.team.local_commits import commit_local, rewrite
from memdir.team.messages import RETRY_SYNC, refusal
from memdir.team.outgoing import outgoing_problems
from memdir.team.reports import (
    ConflictCopy,
    InitResult,
    Progress,
    QuarantinedFile,
    RewriteReport,
    SyncReport,
    TeamStatus,
)
from memdir.team.status import team_status
from memdir.team.sync_record import recorded
from memdir.team.teammate_rules import ensure_held
from memdir.team.work_tree import REMOTE, TeamTree

if TYPE_CHECKING:
    from memdir.history.project import ProjectMemory

__all__ = [
    "MAX_ATTEMPTS",
    "ConflictCopy",
    "InitResult",
    "QuarantinedFile",
    "RewriteReport",
    "SyncReport",
    "TeamStatus",
    "init_team",
    "install_hook",
    "recover_team",
    "rewrite_unpushed",
    "sync_team",
    "team_status",
]

DEFAULT_BRANCH = "main"
MAX_ATTEMPTS = 5
_RETRY_INIT = "memdir team init --remote URL"
_PUSH = PushPlan(remote=REMOTE, retry=RETRY_SYNC, others="others keep")
_TEMP_FILES = ".*.tmp"  # memdir.storage.fs.atomic_write's temp names: .<name>.<random>.tmp


# -- public API ------------------------------------------------------------


def init_team(
    memdir: ProjectMemory,
    remote: str,
    *,
    hook: bool = False,
    timeout: float = NETWORK_TIMEOUT,
    max_attempts: int = MAX_ATTEMPTS,
) -> InitResult:
    """Make the team folder a git work tree of ``remote`` and sync it once.

    An empty remote gets this folder's memories (or an empty first commit);
    a remote with history is merged with them: nothing local is lost. Running
    it again with the same remote just syncs. ``hook`` installs a pre-commit
    hook that refuses commits with likely secrets.
    """
    refuse_private_remote(memdir, remote)  # private memory's own remote is no team's
    team = TeamTree(memdir, timeout)
    with team.sync_lock(), recorded(memdir.layout):
        recovered = Progress()
        if (team.root / ".git").exists():
            team.recover_first(recovered)
            already = team.adopt(remote)
            branch, published = team.git.current_branch(), False
        else:
            branch, exists = team.git.default_branch(remote, DEFAULT_BRANCH, retry=_RETRY_INIT)
            team.create(remote, branch)
            already, published = False, not exists
        progress = Progress(first=not already, recovered=recovered.recovered)
        _run(team, branch, max_attempts, None, progress, start=published)
        team.git.run("branch", "-q", f"--set-upstream-to={REMOTE}/{branch}", check=False)
    hook_path = install_hook(memdir) if hook else None
    return InitResult(
        remote=display_url(remote),
        branch=branch,
        published=published,
        already=already,
        sync=progress.report(display_url(remote), branch),
        hook=hook_path,
    )


def sync_team(
    memdir: ProjectMemory,
    *,
    max_attempts: int = MAX_ATTEMPTS,
    timeout: float = NETWORK_TIMEOUT,
    before_push: Callable[[int], None] | None = None,
) -> SyncReport:
    """Commit local changes, merge the remote's, re-scan, re-index, push.

    ``before_push(attempt)`` runs just before each push (attempt 0, 1...):
    a seam for tests that need another clone to push first.
    """
    team = TeamTree(memdir, timeout)
    with team.sync_lock(), recorded(memdir.layout):
        progress = Progress()
        team.recover_first(progress)  # a half-done rebase leaves no branch checked out
        url, branch = team.require_repo()
        _run(team, branch, max_attempts, before_push, progress)
    return progress.report(display_url(url), branch)


def rewrite_unpushed(memdir: ProjectMemory, *, timeout: float = NETWORK_TIMEOUT) -> RewriteReport:
    """Replace the unpushed commits by one without secrets or non-memory files.

    Everything not yet on the remote (commits and uncommitted changes) is
    folded into one commit on the last remote commit they share; files that
    hold a likely secret, carry one in their name or are not memory files are
    moved to ``<project dir>/.quarantine/<date>/`` first. What the remote has
    is never touched; the old commits stay only in this clone's reflog.
    """
    team = TeamTree(memdir, timeout)
    with team.sync_lock():
        team.recover_first(Progress())
        url, branch = team.require_repo()
        with suppress(SyncError):  # offline: the last fetched state is the base
            team.git.fetch(REMOTE, url, retry=RETRY_SYNC)
        with team.team_lock():
            return rewrite(team, branch)


def recover_team(memdir: ProjectMemory) -> recovery.Recovery:
    """Clear what an interrupted sync or git command left (``memdir doctor --fix``).

    Runs under the sync lock and the team store's lock, like a sync; local
    work is kept (see :mod:`memdir.team.recovery`).
    """
    team = TeamTree(memdir, NETWORK_TIMEOUT)
    if not (team.root / ".git").is_dir():
        return recovery.Recovery()
    with team.sync_lock(), team.team_lock():
        team.git.ignore_attributes()
        return recovery.recover(team.git, rescue_dir=team.rescue_dir)


def install_hook(memdir: ProjectMemory) -> Path:
    """Install the pre-commit secret scan in the team repository; returns its path.

    A pre-commit hook that memdir did not write is left alone (SyncError).
    """
    team = TeamTree(memdir, NETWORK_TIMEOUT)
    team.require_repo()
    return install_pre_commit_hook(team.git)


# -- the sync loop ----------------------------------------------------------


def _run(
    team: TeamTree,
    branch: str,
    max_attempts: int,
    before_push: Callable[[int], None] | None,
    progress: Progress,
    *,
    start: bool = False,
) -> None:
    """Steps 1 to 5 (see above): commit, fetch, then merge and push until a push lands."""

    def ready(attempt: int) -> bool:
        with team.team_lock():
            progress.committed += commit_local(team, progress)  # written while we fetched
            integrate(team, branch, progress)
        if progress.rewritten:
            return False  # the user reviews the copies first; nothing old goes back
        problems = outgoing_problems(team.git, REMOTE)
        if problems:
            raise refusal(team.root, problems, committed=True)
        if before_push is not None:
            before_push(attempt)
        return True

    url = team.git.config(f"remote.{REMOTE}.url") or REMOTE
    memdir = team.memdir
    with team.team_lock():
        # What an interrupted sync (or git by hand) left was cleared by recover_first.
        team.git.exclude(_TEMP_FILES, why="temp files of atomic writes")
        team.git.exclude(f"/{CONFLICTS_DIR}/", why="conflict copies, until settled")
        # The memory tool's sidecars (a note's fields): local, the note's text is shared.
        team.git.exclude(f"{SIDECAR_DIR}/", why="memory-tool sidecars stay on this machine")
        # The held rules are derived: a lost list is rebuilt before anything is pulled.
        ensure_held(team.git, memdir.layout)
        progress.committed += commit_local(team, progress)
        if start and team.git.rev("HEAD") is None:
            team.git.commit("memdir: start team memory", allow_empty=True)
    team.git.fetch(REMOTE, url, retry=RETRY_SYNC)
    push_until_landed(team, url, branch, progress, ready, _PUSH, attempts=max_attempts)
