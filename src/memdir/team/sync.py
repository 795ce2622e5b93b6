"""Team memory sync through git: commit, fetch, merge, re-scan, re-index, push.

The team folder (``<memory dir>/team``) is a git work tree whose ``origin``
is the team's remote. :func:`sync_team` runs, under the team store's lock
for every step that touches the folder (network steps run outside it, so
writes are not held up by a slow remote; a second lock serialises syncs):

1. commit local changes (refused when one holds a likely secret, in any
   encoding); a file that is no memory (only ``*.md`` memories with plain
   names belong in team memory) is left out, uncommitted, and reported, and
   the memory tool's ``.meta/`` sidecars stay on this machine (a local
   exclude); the message lists the memories changed;
2. fetch, then merge the remote's branch (a normal merge: published history
   is never rewritten and nothing is ever force-pushed). Conflicts never
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
   nothing is pushed in that sync;
3. scan every file committed since the last clean scan (all of them the
   first time): a likely secret or a name that is not a plain memory name
   (a teammate's file is untrusted) is moved to
   ``<project dir>/.quarantine/<date>/``, its index line dropped and its
   removal committed; then the index is checked (a line for every memory,
   none for a missing one) and repaired;
4. check what the push would send (:mod:`memdir.team.outgoing`: every blob,
   name and message of the commits no remote-tracking ref holds): anything
   found refuses the push, the commits stay local and the error names file,
   line, rule and ``memdir team rewrite-unpushed`` (:func:`rewrite_unpushed`
   folds the unpushed commits into one without those files);
5. push; when the remote moved meanwhile, fetch and go back to 2 (bounded).

Network failures raise :class:`SyncError` naming the remote and the next
step; what was committed locally stays for the next sync.
"""

from __future__ import annotations

import datetime as dt
import os
import posixpath
import re
import shutil
import socket
from collections.abc import Callable
from contextlib import AbstractContextManager, suppress
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.errors import MemdirError, SyncError
from memdir.model import Scope
from memdir.storage.codec import (
    memory_from_fields,
    parse_memory,
    read_frontmatter_head,
)
from memdir.storage.fs import atomic_write, ensure_dir, file_lock, safe_join
from memdir.storage.memory_index import INDEX_NAME, parse_entries, remove_entry, upsert_entry
from memdir.storage.pending import pending_count
from memdir.storage.provenance import provenance
from memdir.storage.sidecar import SIDECAR_DIR
from memdir.team import recovery
from memdir.team.conflicts import CONFLICTS_DIR, add_copy, pending_conflicts
from memdir.team.git import (
    NETWORK_TIMEOUT,
    Git,
    GitFailed,
    display_url,
    failure_detail,
    git_message,
    install_pre_commit_hook,
)
from memdir.team.index_union import local_target, union_index
from memdir.team.messages import (
    RETRY_SYNC,
    commit_message,
    refusal,
    repair_message,
    rewrite_message,
)
from memdir.team.outgoing import (
    Problem,
    display_name,
    is_memory_name,
    name_problems,
    names_problems,
    outgoing_problems,
    scan_blob,
    scan_blobs,
)
from memdir.team.reports import (
    ConflictCopy,
    InitResult,
    Progress,
    QuarantinedFile,
    RewriteReport,
    SyncReport,
    TeamStatus,
)
from memdir.team.secrets import Finding, labels_of
from memdir.team.sync_record import recorded
from memdir.team.teammate_rules import hold_pulled

if TYPE_CHECKING:
    from memdir.storage.project import ProjectMemory

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

REMOTE = "origin"
DEFAULT_BRANCH = "main"
MAX_ATTEMPTS = 5
_FALLBACK_EMAIL = "memdir@localhost"
_TAG_CHARS = re.compile(r"[^a-z0-9-]+")
_RETRY_INIT = "memdir team init --remote URL"
# The last commit whose files were all found free of secrets (local, never pushed).
_SCANNED_REF = "refs/memdir/scanned"
# The remote's commit this clone last merged or pushed: a remote whose history
# no longer holds it was rewritten (a purge), and is adopted, never merged.
_SYNCED_REF = "refs/memdir/synced"
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
    team = _Team(memdir, timeout)
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
        team.run(branch, max_attempts, None, progress, start=published)
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
    team = _Team(memdir, timeout)
    with team.sync_lock(), recorded(memdir.layout):
        progress = Progress()
        team.recover_first(progress)  # a half-done rebase leaves no branch checked out
        url, branch = team.require_repo()
        team.run(branch, max_attempts, before_push, progress)
    return progress.report(display_url(url), branch)


def team_status(
    memdir: ProjectMemory, *, fetch: bool = True, timeout: float = NETWORK_TIMEOUT
) -> TeamStatus:
    """Ahead/behind counts and unsynced files; an unreachable remote is not an error."""
    team = _Team(memdir, timeout)
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
    fetched = False
    if fetch:
        try:
            team.git.fetch(REMOTE, url, retry=RETRY_SYNC)
            fetched = True
        except SyncError:
            fetched = False  # offline: report against the last fetched state
    head, tip = team.git.rev("HEAD"), team.git.rev(f"refs/remotes/{REMOTE}/{branch}")
    ahead, behind, unsynced = team.git.divergence(head, tip)
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


def rewrite_unpushed(memdir: ProjectMemory, *, timeout: float = NETWORK_TIMEOUT) -> RewriteReport:
    """Replace the unpushed commits by one without secrets or non-memory files.

    Everything not yet on the remote (commits and uncommitted changes) is
    folded into one commit on the last remote commit they share; files that
    hold a likely secret, carry one in their name or are not memory files are
    moved to ``<project dir>/.quarantine/<date>/`` first. What the remote has
    is never touched; the old commits stay only in this clone's reflog.
    """
    team = _Team(memdir, timeout)
    with team.sync_lock():
        team.recover_first(Progress())
        url, branch = team.require_repo()
        with suppress(SyncError):  # offline: the last fetched state is the base
            team.git.fetch(REMOTE, url, retry=RETRY_SYNC)
        with team.team_lock():
            return team.rewrite(branch)


def recover_team(memdir: ProjectMemory) -> recovery.Recovery:
    """Clear what an interrupted sync or git command left (``memdir doctor --fix``).

    Runs under the sync lock and the team store's lock, like a sync; local
    work is kept (see :mod:`memdir.team.recovery`).
    """
    team = _Team(memdir, NETWORK_TIMEOUT)
    if not (team.root / ".git").is_dir():
        return recovery.Recovery()
    with team.sync_lock(), team.team_lock():
        return recovery.recover(team.git, rescue_dir=team.rescue_dir)


def install_hook(memdir: ProjectMemory) -> Path:
    """Install the pre-commit secret scan in the team repository; returns its path.

    A pre-commit hook that memdir did not write is left alone (SyncError).
    """
    team = _Team(memdir, NETWORK_TIMEOUT)
    team.require_repo()
    return install_pre_commit_hook(team.git)


# -- the work ----------------------------------------------------------------


class _Team:
    """The team folder as a git work tree, and the steps of a sync."""

    def __init__(self, memdir: ProjectMemory, timeout: float) -> None:
        self.memdir = memdir
        self.root = memdir.layout.team_dir
        ensure_dir(self.root)
        probe = Git(self.root, network_timeout=timeout)
        configured = probe.config("user.name") and probe.config("user.email")
        identity = (
            None if configured else (f"memdir on {_host() or 'unknown host'}", _FALLBACK_EMAIL)
        )
        self.git = Git(self.root, network_timeout=timeout, identity=identity)

    @property
    def rescue_dir(self) -> Path:
        """Where files with conflict markers an interrupted merge left are saved."""
        return self.memdir.layout.project_dir / ".rescued"

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

    def create(self, remote: str, branch: str) -> None:
        # No template: nothing from the user's init.templateDir (hooks) comes along.
        self.git.run("init", "--quiet", "--template=", f"--initial-branch={branch}")
        self.git.run("remote", "add", REMOTE, remote)

    # -- the sync loop ----------------------------------------------------

    def run(
        self,
        branch: str,
        max_attempts: int,
        before_push: Callable[[int], None] | None,
        progress: Progress,
        *,
        start: bool = False,
    ) -> None:
        url = self.git.config(f"remote.{REMOTE}.url") or REMOTE
        with self.team_lock():
            # What an interrupted sync (or git by hand) left was cleared by recover_first.
            self.git.exclude(_TEMP_FILES, why="temp files of atomic writes")
            self.git.exclude(f"/{CONFLICTS_DIR}/", why="conflict copies, until settled")
            # The memory tool's sidecars (a note's fields): local, the note's text is shared.
            self.git.exclude(f"{SIDECAR_DIR}/", why="memory-tool sidecars stay on this machine")
            progress.committed += self.commit_local(progress)
            if start and self.git.rev("HEAD") is None:
                self.git.commit("memdir: start team memory", allow_empty=True)
        self.git.fetch(REMOTE, url, retry=RETRY_SYNC)
        for attempt in range(max_attempts):
            with self.team_lock():
                progress.committed += self.commit_local(progress)  # written while we fetched
                self.integrate(branch, progress)
            if progress.rewritten:
                return  # the user reviews the copies first; nothing old goes back
            problems = outgoing_problems(self.git, REMOTE)
            if problems:
                raise refusal(self.root, problems, committed=True)
            if before_push is not None:
                before_push(attempt)
            outcome = self.git.push(REMOTE, url, branch, retry=RETRY_SYNC)
            if outcome != "raced":
                progress.pushed = outcome == "pushed"
                self.mark_synced(self.git.rev(f"refs/remotes/{REMOTE}/{branch}"))
                return
            progress.retries += 1
        raise SyncError(
            f"the push to {display_url(url)} was rejected {max_attempts} times: "
            "others keep pushing",
            path=self.root,
            hint="run `memdir team sync` again; your changes are committed locally",
        )

    def recover_first(self, progress: Progress) -> None:
        """:meth:`recover` before anything reads the branch (under the team lock)."""
        if (self.root / ".git").is_dir():
            with self.team_lock():
                self.recover(progress)

    def recover(self, progress: Progress) -> None:
        """Clear stale locks and a half-done merge or rebase; local work is kept."""
        done = recovery.recover(self.git, rescue_dir=self.rescue_dir)
        if done.cleared:
            progress.recovered.append(done.describe())

    # -- local changes ----------------------------------------------------

    def commit_local(self, progress: Progress) -> list[str]:
        """Commit what changed in the folder; returns the paths committed.

        A file that is no memory (a ``.txt`` note, a name with a control
        character) is left out, uncommitted, and listed in ``progress.skipped``:
        it never blocks the memories beside it, and is never sent.
        """
        self.reconcile_index()
        dirty = self.git.dirty()
        if not dirty:
            return []
        # A deleted file's deletion is committed whatever its name.
        skipped = [
            rel for rel in dirty if not is_memory_name(rel) and os.path.lexists(self.root / rel)
        ]
        for rel in skipped:
            shown = display_name(rel)
            if shown not in progress.skipped:
                progress.skipped.append(shown)
        left_out = set(skipped)
        kept = [rel for rel in dirty if rel not in left_out]
        if not kept:
            return []
        self.refuse_secrets(kept)
        if skipped:
            # Literal pathspecs, from standard input: any name, any number of them.
            paths = b"".join(os.fsencode(rel) + b"\0" for rel in kept)
            self.git.run(
                "--literal-pathspecs",
                "add",
                "--all",
                "--pathspec-from-file=-",
                "--pathspec-file-nul",
                input=paths,
            )
        else:
            self.git.run("add", "--all")
        changes = self.git.staged()
        if not changes:
            return []
        self.git.commit(commit_message(changes))
        return [path for _, path in changes]

    def scan(self, paths: list[str]) -> list[tuple[str, list[Finding]]]:
        """Each regular file among ``paths`` (symlinks skipped) with likely secrets.

        Bytes are decoded whatever their encoding (binary included), all files
        in one scan; names are checked by :func:`memdir.team.outgoing.names_problems`.
        """
        read: list[tuple[str, bytes]] = []
        for rel in paths:
            path = self.root / rel
            if path.is_file() and not path.is_symlink():
                with suppress(FileNotFoundError):  # deleted since the listing
                    read.append((rel, path.read_bytes()))
        found = scan_blobs([data for _, data in read])
        return [(rel, fs) for (rel, _), fs in zip(read, found, strict=True) if fs]

    def refuse_secrets(self, paths: list[str]) -> None:
        """Refuse to commit a local file that is not a memory or holds a likely secret."""
        problems: list[Problem] = []
        present = [p for p in paths if (self.root / p).exists() or (self.root / p).is_symlink()]
        for found in names_problems(present):
            problems += found
        for rel, findings in self.scan(paths):
            shown = display_name(rel)
            problems += [Problem(file=shown, line=f.line, rule=f.label) for f in findings]
        if problems:
            raise refusal(self.root, problems, committed=False)

    # -- what arrives -----------------------------------------------------

    def integrate(self, branch: str, progress: Progress) -> None:
        """Merge the fetched branch, quarantine secrets, repair the index."""
        tip = self.git.rev(f"refs/remotes/{REMOTE}/{branch}")
        before = self.git.rev("HEAD")
        if tip is not None and before is not None and self.rewritten(tip, before, branch, progress):
            self.adopt_rewritten(tip, before, branch, progress)
            hold_pulled(self.git, self.memdir.layout, before, self.git.changed(before, tip))
            progress.quarantined += self.quarantine()
            self.reconcile_index()  # left uncommitted with the copies, for review
            self.mark_scanned()
            self.mark_synced(tip)
            return
        kept_here: dict[str, tuple[bytes, Path]] = {}
        if tip is not None and (before is None or not self.git.is_ancestor(tip, before)):
            kept_here = self.local_only_at_risk(tip)
            self.merge(tip, before is None or progress.first, progress)
            after = self.git.rev("HEAD") or tip
            incoming: list[tuple[str, str]] = []
            for status, path in self.git.changed(before, after):
                if posixpath.basename(path) == INDEX_NAME:
                    continue
                (progress.deleted if status == "D" else progress.pulled).append(path)
                incoming.append((status, path))
            self.keep_incoming(before, after, incoming)
            hold_pulled(self.git, self.memdir.layout, before, incoming)
        quarantined = self.quarantine()
        progress.quarantined += quarantined
        for rel, (data, saved) in kept_here.items():  # the pushed one was quarantined
            atomic_write(safe_join(self.root, rel), data)
            recovery.drop_copy(saved, self.rescue_dir)
        if self.reconcile_index() or quarantined:
            # The index only (quarantined files are unstaged already): a file sync
            # leaves out (a .txt note) must not ride along in the repair commit.
            self.git.run("add", "--all", "--", INDEX_NAME, check=False)
            if self.git.staged():
                self.git.commit(repair_message(quarantined))
        self.mark_scanned()
        if tip is not None and self.git.is_ancestor(tip, "HEAD"):
            self.mark_synced(tip)

    def local_only_at_risk(self, tip: str) -> dict[str, tuple[bytes, Path]]:
        """This clone's own excluded files (conflict copies, sidecars) the remote also has.

        git treats an ignored file as expendable and overwrites it when a merge
        brings a file of that name (only a hand-made push can: such names are
        quarantined). Their bytes are kept, saved to the rescue folder first,
        and put back once the pushed file is quarantined.
        """
        names = self.git.run("ls-tree", "-r", "-z", "--name-only", tip).paths()
        head = self.git.rev("HEAD")
        ours = (
            set(self.git.run("ls-tree", "-r", "-z", "--name-only", head).paths()) if head else set()
        )
        kept = {}
        for rel in names:
            parts = rel.split("/")
            if not any(p in (CONFLICTS_DIR, SIDECAR_DIR) for p in parts[:-1]) or rel in ours:
                continue
            path = self.root / rel
            if path.is_file() and not path.is_symlink():
                data = path.read_bytes()
                kept[rel] = (data, recovery.save_copy(self.rescue_dir, rel, data))
        return kept

    def keep_incoming(self, before: str | None, after: str, changes: list[tuple[str, str]]) -> None:
        """Record what the merge brought in the history: one change, each file's author.

        The text before comes from our commit before the merge, the text after
        from the merge commit (what git holds, whatever later steps move out).
        """
        history = self.memdir.history_db
        if history is None or not changes:
            return
        with provenance(route="sync"), history.change_set("sync"):
            for status, path in changes:
                if not path.endswith(".md"):
                    continue
                old = None if before is None or status == "A" else self.git.blob(f"{before}:{path}")
                new = None if status == "D" else self.git.blob(f"{after}:{path}")
                author = self.git.run(
                    "log", "-1", "--format=%an <%ae>", after, "--", path, check=False
                ).stdout.strip()
                with provenance(user=author or None):
                    history.record(
                        scope=Scope.TEAM,
                        file=path,
                        action="sync",
                        name=_memory_name(new if new is not None else old),
                        before=old,
                        after=new,
                    )

    def rewritten(self, tip: str, head: str, branch: str, progress: Progress) -> bool:
        """Whether the remote's history no longer holds what this clone last synced with.

        Without a record of that (a clone never synced by this version), only
        unrelated histories count, and they are merged only on the first sync
        of ``team init`` (a folder that held memories before it).
        """
        synced = self.synced_base(branch)
        if synced is not None:
            return not self.git.is_ancestor(synced, tip)
        if progress.first:
            return False
        return self.git.run("merge-base", head, tip, check=False).stdout.strip() == ""

    def synced_base(self, branch: str) -> str | None:
        """The remote commit this clone last synced with, or None when unknown.

        A clone that synced before this was recorded still has the
        remote-tracking ref's previous value in its reflog.
        """
        synced = self.git.rev(_SYNCED_REF)
        if synced is None:
            synced = self.git.rev(f"refs/remotes/{REMOTE}/{branch}@{{1}}")
        return synced

    def adopt_rewritten(self, tip: str, before: str, branch: str, progress: Progress) -> None:
        """Take the rewritten remote as it is; local unpushed changes become copies.

        The copies are left uncommitted: the user reviews them (a purge may
        have removed that very content) before the next sync shares them.
        """
        synced = self.synced_base(branch)
        if synced is None:
            found = self.git.run("merge-base", before, tip, check=False).stdout.strip()
            synced = found or None
        kept: list[tuple[str, bytes]] = []
        for status, rel in self.git.changed(synced, before):
            if status == "D" or posixpath.basename(rel) == INDEX_NAME:
                continue
            ours = self.git.run("rev-parse", f"{before}:{rel}").stdout.strip()
            theirs = self.git.run("rev-parse", "--verify", "--quiet", f"{tip}:{rel}", check=False)
            if theirs.stdout.strip() != ours and is_memory_name(rel):
                kept.append((rel, self.git.blob(ours)))
        # The copies first: they live in the excluded .conflicts/ folder, which the
        # reset leaves alone, so a sync killed between the two loses no local version.
        reason = (
            "the remote's history was rewritten; your unpushed version is in the copy, "
            "not shared: settle it with `memdir team resolve FILE --keep mine|theirs|both`"
        )
        for rel, data in kept:
            copy = self.conflict_copy(rel, data, reason)
            progress.conflicts.append(ConflictCopy(file=rel, copy=copy, reason=reason))
        self.git.run("reset", "--quiet", "--hard", tip)
        progress.rewritten = True

    def mark_synced(self, tip: str | None) -> None:
        if tip is not None:
            self.git.run("update-ref", _SYNCED_REF, tip)

    def merge(self, tip: str, unrelated: bool, progress: Progress) -> None:
        args = ["merge", "--quiet", "--no-edit", "--ff", "-m", "memdir: merge team memory"]
        if unrelated:
            # Only on `team init`: a folder that held memories before has its own history.
            args.append("--allow-unrelated-histories")
        result = self.git.run(*args, tip, check=False)
        if result.ok:
            return
        unmerged = self.git.unmerged()
        if not unmerged:
            self.git.run("merge", "--abort", check=False)
            raise GitFailed(
                f"merging the remote's changes failed: {git_message(result.stderr)}",
                detail=failure_detail(result.stderr),
                path=self.root,
                hint=f"inspect `git -C {self.root} status`; your changes are committed locally",
            )
        resolved = []
        for path, stages in sorted(unmerged.items()):
            conflict = self.resolve(path, stages, progress)
            if conflict is not None:
                resolved.append(conflict)
        progress.conflicts += resolved
        lines = "\n".join(
            f"kept both: {c.file}" + (f" -> {c.copy}" if c.copy else "") for c in resolved
        )
        self.git.commit(f"memdir: merge team memory\n\n{lines}".rstrip())

    def resolve(self, path: str, stages: dict[int, str], progress: Progress) -> ConflictCopy | None:
        """Resolve one conflicted path with whole versions, never markers."""
        ours, theirs = stages.get(2), stages.get(3)
        if posixpath.basename(path) == INDEX_NAME:
            texts = [self.git.blob(s).decode("utf-8", "replace") for s in (theirs, ours) if s]
            self.put(path, union_index(texts))
            return None
        if ours is not None and theirs is not None:
            reason = (
                "edited on both sides: the remote's version is in the file, yours in the "
                "copy (not shared until you settle it)"
            )
            copy = self.conflict_copy(path, self.git.blob(ours), reason)
            self.put(path, self.git.blob(theirs))
            return ConflictCopy(file=path, copy=copy, reason=reason)
        kept = ours or theirs
        if kept is None:  # deleted on both sides
            self.git.run("rm", "--quiet", "--cached", "--ignore-unmatch", "--", path)
            return None
        self.put(path, self.git.blob(kept))
        side = "the remote" if ours is not None else "this clone"
        return ConflictCopy(
            file=path,
            copy=None,
            reason=f"deleted by {side} but edited by the other: the edit was kept",
        )

    def put(self, rel: str, data: str | bytes) -> None:
        atomic_write(safe_join(self.root, rel), data)
        self.git.run("add", "--", rel)

    def conflict_copy(self, rel: str, data: bytes, reason: str) -> str:
        """Keep this clone's version of ``rel`` in ``.conflicts/`` (never committed)."""
        return add_copy(self.root, rel, data, reason, _host() or dt.date.today().isoformat())

    def quarantine(self) -> list[QuarantinedFile]:
        """Move every committed file holding a likely secret out of the folder.

        Only files changed since the last commit found clean are read (all of
        them the first time): the ref survives an interrupted sync, so a file
        that arrived then is still scanned by the next one.
        """
        head = self.git.rev("HEAD")
        if head is None:
            return []
        clean = self.git.rev(_SCANNED_REF)
        if clean is None:
            paths = self.git.run("ls-files", "-z").paths()
        else:
            paths = [p for status, p in self.git.changed(clean, head) if status != "D"]
        moved = []
        for rel, problems in zip(paths, names_problems(paths), strict=True):
            # A teammate's name is untrusted: one that is no plain memory name
            # (or carries a secret) never reaches an index line.
            if problems and rel != INDEX_NAME:
                moved.append(self.move_out(rel, tuple(dict.fromkeys(p.rule for p in problems))))
        paths = [rel for rel in paths if rel == INDEX_NAME or is_memory_name(rel)]
        moved += [self.move_out(rel, labels_of(found)) for rel, found in self.scan(paths)]
        return moved

    def mark_scanned(self) -> None:
        head = self.git.rev("HEAD")
        if head is not None:
            self.git.run("update-ref", _SCANNED_REF, head)

    def move_out(self, rel: str, labels: tuple[str, ...]) -> QuarantinedFile:
        """Move a committed file out of the team folder, into the project's quarantine."""
        day = self.memdir.layout.project_dir / ".quarantine" / dt.date.today().isoformat()
        safe = _quarantine_name(rel)
        target, n = safe_join(day, safe), 2
        while target.exists():
            target, n = safe_join(day, f"{safe}.{n}"), n + 1
        ensure_dir(target.parent)
        source = self.root / rel
        if source.exists() or source.is_symlink():
            shutil.move(source, target)
        self.git.run("rm", "--quiet", "--cached", "--ignore-unmatch", "--", rel)
        index = self.memdir.team.read_index()
        if index:
            atomic_write(self.memdir.team.index_path, remove_entry(index, file=rel))
        return QuarantinedFile(file=display_name(rel), moved_to=target, labels=labels)

    # -- rewriting unpushed commits -------------------------------------------

    def rewrite(self, branch: str) -> RewriteReport:
        head = self.git.rev("HEAD")
        if head is None:
            return RewriteReport(replaced=0, quarantined=(), commit=None)
        tip = self.git.rev(f"refs/remotes/{REMOTE}/{branch}")
        base = None
        if tip is not None:
            base = self.git.run("merge-base", head, tip, check=False).stdout.strip() or None
        outgoing = ["HEAD", "--not", f"--remotes={REMOTE}"]
        replaced = len(self.git.run("rev-list", *outgoing).stdout.split())
        self.git.run("add", "--all")
        if replaced == 0 and not self.git.staged():
            return RewriteReport(replaced=0, quarantined=(), commit=None)  # nothing unpushed
        changed = [rel for status, rel in self.git.changed_staged(base) if status != "D"]
        moved = []
        for rel in changed:
            labels = [p.rule for p in name_problems(rel)] if rel != INDEX_NAME else []
            path = self.root / rel
            if not labels and path.is_file() and not path.is_symlink():
                labels = list(labels_of(scan_blob(path.read_bytes())))
            if labels:
                moved.append(self.move_out(rel, tuple(dict.fromkeys(labels))))
        self.reconcile_index()
        self.git.run("add", "--all")
        tree = self.git.run("write-tree").stdout.strip()
        parents = ["-p", base] if base is not None else []
        message = rewrite_message(replaced, moved)
        commit = self.git.run("commit-tree", tree, *parents, "-m", message).stdout.strip()
        self.git.run("reset", "--quiet", "--soft", commit)
        self.mark_scanned()
        left = outgoing_problems(self.git, REMOTE)
        if left:  # cannot happen unless the folder changed under the lock
            raise refusal(self.root, left, committed=True)
        return RewriteReport(replaced=replaced, quarantined=tuple(moved), commit=commit)

    # -- the index --------------------------------------------------------

    def reconcile_index(self) -> bool:
        """A line for every memory file, none for a missing one; True when changed."""
        store = self.memdir.team
        text = store.read_index()
        files = [rel for rel in store.files() if is_memory_name(rel)]
        present = set(files)
        new = text
        for entry in parse_entries(text):
            target = local_target(entry.file)
            if target is not None and target not in present:
                new = remove_entry(new, file=entry.file)
        indexed = {local_target(e.file) for e in parse_entries(new)}
        for rel in files:
            if rel not in indexed:
                title, hook = self.describe(rel)
                new = upsert_entry(new, title=title, file=rel, hook=hook)
        if new == text:
            return False
        atomic_write(store.index_path, new)
        return True

    def describe(self, rel: str) -> tuple[str, str]:
        """Title and hook for a file's index line, from its frontmatter."""
        try:
            head = memory_from_fields(read_frontmatter_head(self.root / rel), "")
            name, description = head.name, head.description
        except (MemdirError, OSError):  # unreadable, or deleted since the listing
            name, description = "", ""
        title = name or posixpath.splitext(posixpath.basename(rel))[0]
        return title, self.memdir.team.index_hook(title, rel, description)


# -- helpers -------------------------------------------------------------------


def _memory_name(data: bytes | None) -> str | None:
    """The name in a memory file's frontmatter, for the history (None when unreadable)."""
    if data is None:
        return None
    try:
        return parse_memory(data.decode("utf-8"), path="team").name or None
    except (MemdirError, UnicodeDecodeError):
        return None


def _host() -> str:
    """This machine's short host name, as a file-name-safe tag ("" when unknown)."""
    name = socket.gethostname().split(".", 1)[0].casefold()
    return _TAG_CHARS.sub("-", name).strip("-")[:24]


def _quarantine_name(rel: str) -> str:
    """A plain relative path under the quarantine folder for any file name from git."""
    parts = []
    for part in display_name(rel).replace("\\", "_").split("/"):
        part = "".join(ch if ch.isprintable() and ch not in "<>:|" else "_" for ch in part)
        parts.append(("_" + part if part.startswith(".") or not part else part)[:80])
    return "/".join(parts)
