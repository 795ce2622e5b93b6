"""Private memory across one person's machines: commit, fetch, merge, check, push.

The private memory folder is a git work tree (:class:`~memdir.sync.tree.PrivateTree`)
whose ``origin`` is a repository its owner keeps (a bare repository on a disk
or server, a private hosted one). ``memdir sync init REMOTE`` sets it up: the
first machine publishes its memories, the next ones join and merge what they
have with what is there (the only merge of unrelated histories). ``memdir
sync`` (:func:`sync_private`) then runs, one sync at a time per project, the
steps that touch the folder under the private store's lock:

1. clear what a killed sync or git command left (:mod:`memdir.team.recovery`:
   stale locks, a half-done merge; local work is written back, never lost);
2. commit what changed here (the index repaired first). A likely secret in
   what would be committed stops the sync before anything leaves the
   machine, naming file, line and rule (never the value), unless the owner
   passes ``allow_secrets`` for that sync: the remote is theirs, the choice
   is theirs;
3. fetch; refuse a remote tree that holds what a memory folder may not
   (:func:`~memdir.sync.tree.screen_tip`); merge with team sync's own code
   (:func:`memdir.team.merge.merge_whole`): a memory edited on both machines
   keeps the remote's version in its file and this machine's as a conflict
   copy in ``.conflicts/`` (never committed), an edit beats a delete,
   ``MEMORY.md`` and the daily logs take the union of both sides' lines;
   a memory that arrived and that screening flags (an instruction aimed at
   the agent: another machine's agent may have saved it past any gate) or
   that a tombstone here forgot is held for review and the file put back
   (:mod:`memdir.team.pulled`); what else arrived is recorded in the history
   (a deletion included);
4. check what the push would send (:func:`memdir.team.outgoing.outgoing_problems`,
   secrets in every unpushed blob, name and message) unless ``allow_secrets``,
   and that no team file is in it; push, never forced; when another machine
   pushed first, fetch and go back to 3 (bounded).

A remote that is also the team's is refused at every step that names it.
What a sync did last is recorded in the repository (``.git/``), never in the
derived state folder.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from memdir.errors import SecretDetected, SyncError
from memdir.model import Scope
from memdir.storage.memory_index import INDEX_NAME
from memdir.sync.tree import REMOTE, SYNCED_REF, PrivateTree, screen_tip
from memdir.team import recovery
from memdir.team.checks import Problem, display_name, scan_blobs
from memdir.team.conflicts import PendingConflict, pending_conflicts
from memdir.team.git import NETWORK_TIMEOUT, PushPlan, display_url, push_until_landed
from memdir.team.index_repair import reconcile_index
from memdir.team.merge import merge_whole, record_incoming
from memdir.team.outgoing import outgoing_problems
from memdir.team.pulled import hold_flagged
from memdir.team.reports import SyncedFiles, SyncTally
from memdir.team.status import compare_with_remote
from memdir.team.sync_record import read_record, recorded

if TYPE_CHECKING:
    from memdir.history.project import ProjectMemory

__all__ = [
    "MAX_ATTEMPTS",
    "PrivateInit",
    "PrivateStatus",
    "PrivateSyncReport",
    "init_private",
    "private_status",
    "sync_private",
]

DEFAULT_BRANCH = "main"
MAX_ATTEMPTS = 5
_RETRY = "memdir sync"
_RETRY_INIT = "memdir sync init REMOTE"
_VERBS = {"A": "added", "D": "deleted"}
_PUSH = PushPlan(remote=REMOTE, retry=_RETRY, others="another machine keeps")


@dataclass(frozen=True, kw_only=True)
class PrivateSyncReport(SyncedFiles):
    """What one private sync did; paths are relative to the memory folder.

    The files as in :class:`~memdir.team.reports.SyncedFiles` (a conflict: a
    memory changed on both sides, the remote's version in the file, this
    machine's in the copy); ``pushed``: whether commits were sent; ``retries``:
    pushes refused because another machine pushed first; ``recovered``: what a
    killed sync had left.
    """

    pushed: bool = False
    retries: int = 0
    recovered: str = ""


@dataclass(frozen=True, kw_only=True)
class PrivateInit:
    """What ``sync init`` did: whether this machine published the first commit,
    whether it was already set up, and its first sync."""

    remote: str
    branch: str
    published: bool
    already: bool
    sync: PrivateSyncReport


@dataclass(frozen=True, kw_only=True)
class PrivateStatus:
    """Where private memory stands against its remote (as last fetched, or now).

    ``unsynced_files`` changed here and not pushed; ``conflicts`` not settled;
    ``stuck``: what an interrupted git command left (the next sync clears it);
    ``last_success``/``last_failure`` (Unix seconds) and ``failure`` from the record.
    """

    initialized: bool
    remote: str | None
    branch: str | None
    ahead: int = 0
    behind: int = 0
    unsynced_files: tuple[str, ...] = ()
    fetched: bool = False
    conflicts: tuple[PendingConflict, ...] = ()
    stuck: str = ""
    last_success: float | None = None
    last_failure: float | None = None
    failure: str = ""


@dataclass(kw_only=True)
class _Progress(SyncTally):
    recovered: str = ""

    def report(self, url: str, branch: str) -> PrivateSyncReport:
        return PrivateSyncReport(
            remote=display_url(url),
            branch=branch,
            committed=tuple(dict.fromkeys(self.committed)),
            pulled=tuple(dict.fromkeys(self.pulled)),
            deleted=tuple(dict.fromkeys(self.deleted)),
            conflicts=tuple(self.conflicts),
            pushed=self.pushed,
            retries=self.retries,
            recovered=self.recovered,
        )


# -- public API ------------------------------------------------------------


def init_private(
    memdir: ProjectMemory,
    remote: str,
    *,
    allow_secrets: bool = False,
    timeout: float = NETWORK_TIMEOUT,
) -> PrivateInit:
    """Make the private folder a git work tree of ``remote`` and sync it once.

    An empty remote gets this machine's memories; a remote with history is
    merged with them: nothing on either side is lost. Again with the same
    remote, it just syncs; a remote that is the team's is refused.
    """
    tree = PrivateTree(memdir, timeout)
    tree.refuse_team_remote(remote)
    with tree.sync_lock():
        if tree.initialized:
            _recover(tree, _Progress())
            with tree.store_lock():
                tree.adopt(remote)
            already = tree.git.rev(SYNCED_REF) is not None
            branch, published = tree.git.current_branch(), False
        else:
            branch, exists = tree.git.default_branch(remote, DEFAULT_BRANCH, retry=_RETRY_INIT)
            with tree.store_lock():
                tree.create(remote, branch)
            already, published = False, not exists
        progress = _Progress()
        with recorded(memdir.layout, tree.record_path):
            _run(tree, remote, branch, progress, allow_secrets)
        tree.git.run("branch", "-q", f"--set-upstream-to={REMOTE}/{branch}", check=False)
    return PrivateInit(
        remote=display_url(remote),
        branch=branch,
        published=published,
        already=already,
        sync=progress.report(remote, branch),
    )


def sync_private(
    memdir: ProjectMemory,
    *,
    allow_secrets: bool = False,
    max_attempts: int = MAX_ATTEMPTS,
    timeout: float = NETWORK_TIMEOUT,
    before_push: Callable[[int], None] | None = None,
) -> PrivateSyncReport:
    """Commit here, merge the remote's, push; ``before_push(attempt)`` is a test seam."""
    tree = PrivateTree(memdir, timeout)
    with tree.sync_lock():
        progress = _Progress()
        if tree.initialized:
            _recover(tree, progress)  # a half-done merge leaves no branch to read
        url, branch = tree.require_repo()
        with recorded(memdir.layout, tree.record_path):
            tree.refuse_team_remote(url)
            _run(tree, url, branch, progress, allow_secrets, max_attempts, before_push)
    return progress.report(url, branch)


def private_status(
    memdir: ProjectMemory, *, fetch: bool = True, timeout: float = NETWORK_TIMEOUT
) -> PrivateStatus:
    """Ahead/behind, unsynced files, conflict copies; an unreachable remote is no error."""
    tree = PrivateTree(memdir, timeout)
    conflicts = tuple(pending_conflicts(tree.root))
    if not tree.initialized:
        return PrivateStatus(initialized=False, remote=None, branch=None, conflicts=conflicts)
    record = read_record(memdir.layout, tree.record_path)
    stuck = recovery.inspect(tree.git).describe()
    url = tree.git.config(f"remote.{REMOTE}.url")
    known = PrivateStatus(
        initialized=True,
        remote=display_url(url) if url else None,
        branch=None,
        conflicts=conflicts,
        stuck=stuck,
        last_success=record.last_success,
        last_failure=record.last_failure,
        failure=record.message if record.failing else "",
    )
    try:
        url, branch = tree.require_repo()
    except SyncError:
        if not stuck:
            raise
        return known  # a half-done merge or rebase: say so rather than fail
    ahead, behind, unsynced, fetched = compare_with_remote(
        tree.git, REMOTE, url, branch, fetch=fetch, retry=_RETRY
    )
    return replace(
        known, branch=branch, ahead=ahead, behind=behind, unsynced_files=unsynced, fetched=fetched
    )


# -- the steps ----------------------------------------------------------------


def _recover(tree: PrivateTree, progress: _Progress) -> None:
    with tree.store_lock():
        tree.git.ignore_attributes()  # the recovery's own reset checks files out
        done = recovery.recover(tree.git, rescue_dir=tree.rescue_dir)
    if done.cleared:
        progress.recovered = done.describe()


def _run(
    tree: PrivateTree,
    url: str,
    branch: str,
    progress: _Progress,
    allow_secrets: bool,
    max_attempts: int = MAX_ATTEMPTS,
    before_push: Callable[[int], None] | None = None,
) -> None:
    """Commit, fetch, then merge and push until a push lands (see the module's steps)."""

    def ready(attempt: int) -> bool:
        with tree.store_lock():
            progress.committed += _commit_local(tree, allow_secrets)  # written while we fetched
            _integrate(tree, branch, progress)
        _check_outgoing(tree, allow_secrets)
        if before_push is not None:
            before_push(attempt)
        return True

    with tree.store_lock():
        tree.prepare()
        progress.committed += _commit_local(tree, allow_secrets)
        if tree.git.rev("HEAD") is None:
            tree.git.commit("memdir: start private memory", allow_empty=True)
    tree.git.fetch(REMOTE, url, retry=_RETRY)
    push_until_landed(tree, url, branch, progress, ready, _PUSH, attempts=max_attempts)


def _commit_local(tree: PrivateTree, allow_secrets: bool) -> list[str]:
    """Commit what changed in the folder (a likely secret stops it); the paths committed."""
    reconcile_index(tree.memdir.private)
    if not tree.git.dirty():
        return []
    tree.git.run("add", "--all")
    changes = tree.git.staged()
    if not changes:
        return []
    if not allow_secrets:
        problems = _staged_secrets(tree, changes)
        if problems:
            # Unstaged again: the files stay as they are, nothing is committed.
            head = tree.git.rev("HEAD")
            tree.git.run("read-tree", *([head] if head else ["--empty"]))
            raise _secret_refusal(tree, problems, committed=False)
    tree.git.commit(_commit_message(changes))
    return [path for _, path in changes]


def _staged_secrets(tree: PrivateTree, changes: list[tuple[str, str]]) -> list[Problem]:
    paths = [path for status, path in changes if status != "D"]
    found = scan_blobs([tree.git.blob(f":{path}") for path in paths])
    return [
        Problem(file=display_name(path), line=f.line, rule=f.label)
        for path, findings in zip(paths, found, strict=True)
        for f in findings
    ]


def _integrate(tree: PrivateTree, branch: str, progress: _Progress) -> None:
    """Merge the fetched branch when it holds what this clone lacks; repair the index.

    Unrelated histories merge only until this clone's first sync completes (a
    machine joining with memories of its own, or a join that was interrupted).
    """
    tip = tree.git.rev(f"refs/remotes/{REMOTE}/{branch}")
    before = tree.git.rev("HEAD")
    if tip is not None and (before is None or not tree.git.is_ancestor(tip, before)):
        screen_tip(tree, tip)
        progress.conflicts += merge_whole(
            tree,
            tip,
            unrelated=before is None or tree.git.rev(SYNCED_REF) is None,
            message="memdir: merge private memory",
            lines_union=_is_log,
        )
        after = tree.git.rev("HEAD") or tip
        changes = tree.git.changed(before, after)
        held = _hold_flagged(tree, before, changes)
        changes = [c for c in changes if c[1] not in held]
        for status, path in changes:
            if posixpath.basename(path) != INDEX_NAME:
                (progress.deleted if status == "D" else progress.pulled).append(path)
        history = tree.memdir.history_db
        span = (before, after)
        record_incoming(history, tree.git, Scope.PRIVATE, span, changes, wanted=_is_memory)
    if reconcile_index(tree.memdir.private):
        tree.git.run("add", "--", INDEX_NAME)
        if tree.git.staged():
            tree.git.commit("memdir: repair the private index")


def _hold_flagged(
    tree: PrivateTree, before: str | None, changes: list[tuple[str, str]]
) -> dict[str, str]:
    """Hold each memory the merge brought that screening or a tombstone flags
    (:mod:`memdir.team.pulled`); with history off its text is kept as a conflict copy."""

    def keep_aside(path: str, data: bytes, reason: str) -> None:
        tree.conflict_copy(path, data, f"held for review: {reason}")

    return hold_flagged(
        tree,
        tree.memdir,
        Scope.PRIVATE,
        before,
        changes,
        is_memory=_is_memory,
        keep_aside=keep_aside,
    )


def _check_outgoing(tree: PrivateTree, allow_secrets: bool) -> None:
    """Refuse a push carrying a likely secret (unless allowed) or any team file."""
    team = tree.memdir.layout.team_dir.relative_to(tree.root).as_posix()
    if tree.git.run("ls-tree", "--name-only", "HEAD", "--", team).stdout.strip():
        raise SyncError(
            f"refused to push private memory: the commit holds the team folder ({team}/)",
            path=tree.root,
            hint=f"remove it with `git -C {tree.root} rm -r --cached {team}` and commit, "
            "then run `memdir sync` again; team memory syncs with `memdir team sync`",
        )
    if allow_secrets:
        return
    problems = outgoing_problems(tree.git, REMOTE, memory_names=False)
    if problems:
        raise _secret_refusal(tree, problems, committed=True)


def _secret_refusal(
    tree: PrivateTree, problems: list[Problem], *, committed: bool
) -> SecretDetected:
    shown = "; ".join(p.describe() for p in problems[:20])
    more = f" and {len(problems) - 20} more" if len(problems) > 20 else ""
    where = "unpushed commits" if committed else "what would be committed"
    state = "committed here, not pushed" if committed else "nothing was committed or pushed"
    labels = tuple(dict.fromkeys(p.rule for p in problems))
    return SecretDetected(
        f"refused to push private memory: likely secrets in {where}: {shown}{more}",
        path=tree.root,
        hint=f"{state}; remove the values (name where they live instead) and run "
        "`memdir sync` again, or send them to your own remote this once with "
        "`memdir sync --allow-secrets`",
        labels=labels,
    )


def _commit_message(changes: list[tuple[str, str]]) -> str:
    memories = [path for _, path in changes if _is_memory(path)]
    head = f"memdir: {len(memories)} private memory file(s) changed" if memories else None
    body = "\n".join(f"{_VERBS.get(status, 'modified')}: {path}" for status, path in changes)
    return f"{head or 'memdir: private memory folder changed'}\n\n{body}"


def _is_memory(path: str) -> bool:
    """A private memory file (not the index, a log, a sidecar)."""
    parts = path.split("/")
    return (
        path.endswith(".md")
        and parts[-1] != INDEX_NAME
        and parts[0] != "logs"
        and not any(p.startswith(".") for p in parts)
    )


def _is_log(path: str) -> bool:
    """A daily log: lines appended on two machines merge as the union of both."""
    return path.startswith("logs/") and path.endswith(".md")
