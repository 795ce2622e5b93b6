"""Team memory sync through git: commit, fetch, merge, re-scan, re-index, push.

The team folder (``<memory dir>/team``) is a git work tree whose ``origin``
is the team's remote. :func:`sync_team` runs, under the team store's lock
for every step that touches the folder (network steps run outside it, so
writes are not held up by a slow remote; a second lock serialises syncs):

1. commit local changes (refused with :class:`SecretDetected` when one holds
   a likely secret); the message lists the memories changed;
2. fetch, then merge the remote's branch (a normal merge: published history
   is never rewritten and nothing is ever force-pushed). Conflicts never
   leave a marker in a file: a memory edited on both sides keeps the
   remote's version in its file and the local one as
   ``<stem>.conflict-<host>.md`` named "... (local copy)"; an edit beats a
   delete; ``MEMORY.md`` takes the union of both sides' lines;
3. scan every file committed since the last clean scan (all of them the
   first time): a likely secret (it came from the remote, or from a commit
   made by hand) is moved to ``<project dir>/.quarantine/<date>/``, its
   index line dropped and its removal committed; then the index is checked
   (a line for every memory, none for a missing one) and repaired;
4. push; when the remote moved meanwhile, fetch and go back to 2 (bounded).

Network failures raise :class:`SyncError` naming the remote and the next
step; what was committed locally stays for the next sync.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
import shutil
import socket
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.errors import MemdirError, SecretDetected, SyncError
from memdir.storage.codec import parse_memory, read_frontmatter_head, render_memory
from memdir.storage.fs import atomic_write, ensure_dir, file_lock, safe_join
from memdir.storage.memory_index import INDEX_NAME, parse_entries, remove_entry, upsert_entry
from memdir.team.git import NETWORK_TIMEOUT, Git, display_url, install_pre_commit_hook, last_line
from memdir.team.secrets import Finding, labels_of, scan_file

if TYPE_CHECKING:
    from memdir.storage.project import ProjectMemory

__all__ = [
    "MAX_ATTEMPTS",
    "ConflictCopy",
    "InitResult",
    "QuarantinedFile",
    "SyncReport",
    "TeamStatus",
    "init_team",
    "install_hook",
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
_TEMP_FILES = ".*.tmp"  # memdir.storage.fs.atomic_write's temp names: .<name>.<random>.tmp
_RETRY_SYNC = "memdir team sync"


@dataclass(frozen=True, kw_only=True)
class ConflictCopy:
    """A file both sides changed in ways git could not merge.

    ``file`` holds the remote's version; ``copy`` (when not None) holds the
    local version as a separate memory. ``reason`` says what happened.
    """

    file: str
    copy: str | None
    reason: str


@dataclass(frozen=True, kw_only=True)
class QuarantinedFile:
    """A file that arrived with a likely secret, moved out of the team folder."""

    file: str
    moved_to: Path
    labels: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class SyncReport:
    """What one sync did. Paths are relative to the team folder.

    ``committed``: local changes (added, modified, deleted) committed now;
    ``pulled``: files the remote added or changed; ``deleted``: files the
    remote deleted; ``pushed``: whether commits were sent; ``retries``: how
    many pushes were refused because someone else pushed first.
    """

    remote: str
    branch: str
    committed: tuple[str, ...] = ()
    pulled: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    conflicts: tuple[ConflictCopy, ...] = ()
    quarantined: tuple[QuarantinedFile, ...] = ()
    pushed: bool = False
    retries: int = 0


@dataclass(frozen=True, kw_only=True)
class InitResult:
    """What ``team init`` did: the remote, whether this clone published the
    first commit, whether the folder was already set up, its first sync."""

    remote: str
    branch: str
    published: bool
    already: bool
    sync: SyncReport
    hook: Path | None = None


@dataclass(frozen=True, kw_only=True)
class TeamStatus:
    """Where the team folder stands against its remote.

    ``ahead``/``behind`` count commits against the remote branch as last
    fetched (``fetched`` says whether that fetch was just now);
    ``unsynced_files`` are changed locally and not yet pushed.
    """

    initialized: bool
    remote: str | None
    branch: str | None
    ahead: int
    behind: int
    unsynced_files: tuple[str, ...]
    fetched: bool


@dataclass(kw_only=True)
class _Progress:
    committed: list[str] = field(default_factory=list)
    pulled: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    conflicts: list[ConflictCopy] = field(default_factory=list)
    quarantined: list[QuarantinedFile] = field(default_factory=list)
    created: set[str] = field(default_factory=set)  # conflict copies this sync wrote
    pushed: bool = False
    retries: int = 0

    def report(self, remote: str, branch: str) -> SyncReport:
        gone = {q.file for q in self.quarantined}
        return SyncReport(
            remote=remote,
            branch=branch,
            committed=tuple(dict.fromkeys(self.committed)),
            pulled=tuple(p for p in dict.fromkeys(self.pulled) if p not in gone),
            deleted=tuple(dict.fromkeys(self.deleted)),
            conflicts=tuple(self.conflicts),
            quarantined=tuple(self.quarantined),
            pushed=self.pushed,
            retries=self.retries,
        )


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
    with team.sync_lock():
        if (team.root / ".git").exists():
            already = team.adopt(remote)
            branch, published = team.git.current_branch(), False
        else:
            branch, exists = team.git.default_branch(remote, DEFAULT_BRANCH, retry=_RETRY_INIT)
            team.create(remote, branch)
            already, published = False, not exists
        progress = _Progress()
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
    with team.sync_lock():
        url, branch = team.require_repo()
        progress = _Progress()
        team.run(branch, max_attempts, before_push, progress)
    return progress.report(display_url(url), branch)


def team_status(
    memdir: ProjectMemory, *, fetch: bool = True, timeout: float = NETWORK_TIMEOUT
) -> TeamStatus:
    """Ahead/behind counts and unsynced files; an unreachable remote is not an error."""
    team = _Team(memdir, timeout)
    if not (team.root / ".git").exists():
        return TeamStatus(
            initialized=False,
            remote=None,
            branch=None,
            ahead=0,
            behind=0,
            unsynced_files=tuple(memdir.team.files()),
            fetched=False,
        )
    url, branch = team.require_repo()
    fetched = False
    if fetch:
        try:
            team.git.fetch(REMOTE, url, retry=_RETRY_SYNC)
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
    )


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
        progress: _Progress,
        *,
        start: bool = False,
    ) -> None:
        url = self.git.config(f"remote.{REMOTE}.url") or REMOTE
        with self.team_lock():
            self.git.abort_merge()  # one an interrupted sync left behind
            self.git.exclude(_TEMP_FILES, why="temp files of atomic writes")
            progress.committed += self.commit_local()
            if start and self.git.rev("HEAD") is None:
                self.git.commit("memdir: start team memory", allow_empty=True)
        self.git.fetch(REMOTE, url, retry=_RETRY_SYNC)
        for attempt in range(max_attempts):
            with self.team_lock():
                progress.committed += self.commit_local()  # written while we fetched
                self.integrate(branch, progress)
            if before_push is not None:
                before_push(attempt)
            outcome = self.git.push(REMOTE, url, branch, retry=_RETRY_SYNC)
            if outcome != "raced":
                progress.pushed = outcome == "pushed"
                return
            progress.retries += 1
        raise SyncError(
            f"the push to {display_url(url)} was rejected {max_attempts} times: "
            "others keep pushing",
            path=self.root,
            hint="run `memdir team sync` again; your changes are committed locally",
        )

    # -- local changes ----------------------------------------------------

    def commit_local(self) -> list[str]:
        """Commit what changed in the folder; returns the paths committed."""
        self.reconcile_index()
        dirty = self.git.dirty()
        if not dirty:
            return []
        self.refuse_secrets(dirty)
        self.git.run("add", "--all")
        changes = self.git.staged()
        if not changes:
            return []
        self.git.commit(_commit_message(changes))
        return [path for _, path in changes]

    def scan(self, paths: list[str]) -> Iterator[tuple[str, list[Finding]]]:
        """Each regular file among ``paths`` (symlinks skipped) with likely secrets, lazily."""
        for rel in paths:
            path = self.root / rel
            if path.is_file() and not path.is_symlink():
                findings = scan_file(path)
                if findings:
                    yield rel, findings

    def refuse_secrets(self, paths: list[str]) -> None:
        found = dict(self.scan(paths))
        if not found:
            return
        described = "; ".join(f"{rel} ({', '.join(labels_of(fs))})" for rel, fs in found.items())
        raise SecretDetected(
            f"refused to sync: likely secrets in team memory: {described}",
            path=self.root / next(iter(found)),
            labels=labels_of(f for fs in found.values() for f in fs),
            hint="remove the values (name where they live instead) and run `memdir team "
            "sync` again; those files were not committed",
        )

    # -- what arrives -----------------------------------------------------

    def integrate(self, branch: str, progress: _Progress) -> None:
        """Merge the fetched branch, quarantine secrets, repair the index."""
        tip = self.git.rev(f"refs/remotes/{REMOTE}/{branch}")
        before = self.git.rev("HEAD")
        if tip is not None and (before is None or not self.git.is_ancestor(tip, before)):
            self.merge(tip, before is None, progress)
            after = self.git.rev("HEAD") or tip
            for status, path in self.git.changed(before, after):
                if posixpath.basename(path) == INDEX_NAME or path in progress.created:
                    continue
                (progress.deleted if status == "D" else progress.pulled).append(path)
        quarantined = self.quarantine()
        progress.quarantined += quarantined
        if self.reconcile_index() or quarantined:
            self.git.run("add", "--all")
            if self.git.staged():
                self.git.commit(_repair_message(quarantined))
        self.mark_scanned()

    def merge(self, tip: str, unborn: bool, progress: _Progress) -> None:
        args = ["merge", "--quiet", "--no-edit", "--ff", "-m", "memdir: merge team memory"]
        if not unborn:
            # A folder that held memories before `team init` has its own history.
            args.append("--allow-unrelated-histories")
        result = self.git.run(*args, tip, check=False)
        if result.ok:
            return
        unmerged = self.git.unmerged()
        if not unmerged:
            self.git.run("merge", "--abort", check=False)
            raise SyncError(
                f"merging the remote's changes failed: {last_line(result.stderr)}",
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

    def resolve(
        self, path: str, stages: dict[int, str], progress: _Progress
    ) -> ConflictCopy | None:
        """Resolve one conflicted path with whole versions, never markers."""
        ours, theirs = stages.get(2), stages.get(3)
        if posixpath.basename(path) == INDEX_NAME:
            texts = [self.git.blob(s).decode("utf-8", "replace") for s in (theirs, ours) if s]
            self.put(path, _union_index(texts))
            return None
        if ours is not None and theirs is not None:
            self.put(path, self.git.blob(theirs))
            copy = self.conflict_copy(path, self.git.blob(ours))
            progress.created.add(copy)
            reason = "edited on both sides: the remote's version is in the file, yours in the copy"
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

    def conflict_copy(self, rel: str, data: bytes) -> str:
        stem, ext = posixpath.splitext(rel)
        tag = _host() or dt.date.today().isoformat()
        copy, n = f"{stem}.conflict-{tag}{ext}", 2
        while (self.root / copy).exists():
            copy, n = f"{stem}.conflict-{tag}-{n}{ext}", n + 1
        self.put(copy, _local_copy(data) if ext == ".md" else data)
        return copy

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
        # Lazily: a file is scanned after the moves before it have edited the index.
        return [self.move_out(rel, findings) for rel, findings in self.scan(paths)]

    def mark_scanned(self) -> None:
        head = self.git.rev("HEAD")
        if head is not None:
            self.git.run("update-ref", _SCANNED_REF, head)

    def move_out(self, rel: str, findings: list[Finding]) -> QuarantinedFile:
        day = self.memdir.layout.project_dir / ".quarantine" / dt.date.today().isoformat()
        target, n = safe_join(day, rel), 2
        while target.exists():
            target, n = safe_join(day, f"{rel}.{n}"), n + 1
        ensure_dir(target.parent)
        shutil.move(self.root / rel, target)
        self.git.run("rm", "--quiet", "--cached", "--ignore-unmatch", "--", rel)
        index = self.memdir.team.read_index()
        if index:
            atomic_write(self.memdir.team.index_path, remove_entry(index, file=rel))
        return QuarantinedFile(file=rel, moved_to=target, labels=labels_of(findings))

    # -- the index --------------------------------------------------------

    def reconcile_index(self) -> bool:
        """A line for every memory file, none for a missing one; True when changed."""
        store = self.memdir.team
        text = store.read_index()
        files = store.files()
        present = set(files)
        new = text
        for entry in parse_entries(text):
            target = _local_target(entry.file)
            if target is not None and target not in present:
                new = remove_entry(new, file=entry.file)
        indexed = {_local_target(e.file) for e in parse_entries(new)}
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
            fields = read_frontmatter_head(self.root / rel)
        except (MemdirError, OSError):  # unreadable, or deleted since the listing
            fields = {}
        title = str(fields.get("name") or posixpath.splitext(posixpath.basename(rel))[0])
        description = " ".join(str(fields.get("description") or "").split())
        return title, self.memdir.team.index_hook(title, rel, description)


# -- helpers -------------------------------------------------------------------


def _host() -> str:
    """This machine's short host name, as a file-name-safe tag ("" when unknown)."""
    name = socket.gethostname().split(".", 1)[0].casefold()
    return _TAG_CHARS.sub("-", name).strip("-")[:24]


def _local_target(file: str) -> str | None:
    """The team-relative memory file an index line points at; None for a URL."""
    if "://" in file or file.startswith(("#", "/")) or not file.endswith(".md"):
        return None
    return posixpath.normpath(file)


def _union_index(texts: list[str]) -> str:
    """The first text, plus every line of the others pointing at a file it lacks."""
    if not texts:
        return ""
    lines = texts[0].rstrip("\n").splitlines()
    known = {entry.file for entry in parse_entries(texts[0])}
    for text in texts[1:]:
        for entry in parse_entries(text):
            if entry.file not in known:
                known.add(entry.file)
                lines.append(entry.raw)
    return "\n".join(lines).strip("\n") + "\n" if lines else ""


def _local_copy(data: bytes) -> bytes:
    """A memory file's text with " (local copy)" appended to its name."""
    try:
        memory = parse_memory(data.decode("utf-8"))
    except (MemdirError, UnicodeDecodeError):
        return data
    if not memory.name:
        return data
    return render_memory(replace(memory, name=f"{memory.name} (local copy)")).encode("utf-8")


_VERBS = {"A": "added", "D": "deleted"}


def _commit_message(changes: list[tuple[str, str]]) -> str:
    memories = [path for _, path in changes if posixpath.basename(path) != INDEX_NAME]
    if not memories:
        return "memdir: update the team index"
    shown = ", ".join(memories[:3]) + (
        f" and {len(memories) - 3} more" if len(memories) > 3 else ""
    )
    noun = "memory" if len(memories) == 1 else "memories"
    body = "\n".join(f"{_VERBS.get(status, 'modified')}: {path}" for status, path in changes)
    return f"memdir: {len(memories)} team {noun} changed: {shown}\n\n{body}"


def _repair_message(quarantined: list[QuarantinedFile]) -> str:
    if not quarantined:
        return "memdir: repair the team index"
    lines = "\n".join(f"{q.file}: {', '.join(q.labels)}" for q in quarantined)
    return f"memdir: quarantine {len(quarantined)} file(s) holding likely secrets\n\n{lines}"
