"""What an interrupted git command leaves in the team repository, found and cleared.

A ``team sync`` killed mid-merge (or a person's ``git rebase`` left half
done) used to wedge the clone: a stale ``.git/index.lock`` makes every later
git command fail ("Could not reset index file to revision 'HEAD'"), a
leftover ``MERGE_HEAD`` or an unmerged index stops the next merge.
:func:`inspect` finds that state without changing anything (``memdir
doctor`` reports it); :func:`recover` clears it before each sync and on
``memdir doctor --fix``.

* A lock file is **stale** when no running git process works in this
  repository (judged from ``/proc``: a git process whose working folder is the
  team folder, or whose arguments name it). Where ``/proc`` is not available,
  a lock older than :data:`STALE_AGE` counts as stale (memdir's own git calls
  are killed well before that). A lock a live process holds is waited for
  (up to ``wait`` seconds), never removed.
* A **half-done operation** (merge, rebase, cherry-pick, revert, or an index
  with unmerged paths) is undone: the branch goes back to its last commit.
* **Nothing written by a person or an agent is lost.** Before the work tree
  is reset, every file that differs from the last commit is read; a file
  whose bytes git holds in a commit anyway (``HEAD``, the commit being
  merged, the remote's branch, ``ORIG_HEAD``, an unmerged stage) is derived
  and dropped (a staged blob is not: a killed commit's work is in it), every
  other one is written back after the reset, as an uncommitted change the
  next sync commits. A file with git's conflict markers is not written back
  (a marker never reaches team memory): it is saved under
  ``<project dir>/.rescued/<date>/`` and reported.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from dataclasses import dataclass
from pathlib import Path

from memdir.errors import SyncError
from memdir.storage.fs import atomic_write, ensure_dir, safe_join
from memdir.team.git import Git, git_message

__all__ = [
    "STALE_AGE",
    "LockFile",
    "Recovery",
    "Wedge",
    "drop_copy",
    "git_processes",
    "inspect",
    "recover",
    "save_copy",
]

STALE_AGE = 600.0  # seconds: without /proc, a lock this old has no live writer
LOCK_WAIT = 10.0  # seconds to wait for a live git process to let go of its lock
_TOP_LOCKS = (
    "index.lock",
    "HEAD.lock",
    "ORIG_HEAD.lock",
    "FETCH_HEAD.lock",
    "MERGE_HEAD.lock",
    "config.lock",
    "packed-refs.lock",
    "shallow.lock",
)
_OPERATION_FILES = {
    "MERGE_HEAD": "merge",
    "CHERRY_PICK_HEAD": "cherry-pick",
    "REVERT_HEAD": "revert",
}
_REBASE_DIRS = ("rebase-merge", "rebase-apply")
_MARKERS = (b"<<<<<<< ", b">>>>>>> ")


@dataclass(frozen=True, kw_only=True)
class LockFile:
    """A git lock file: where (relative to ``.git``), how old, and who holds it.

    ``holders`` are the pids of live git processes working in the repository
    (``None`` when that cannot be known here).
    """

    path: str
    age: float
    holders: tuple[int, ...] | None

    @property
    def stale(self) -> bool:
        if self.holders is None:
            return self.age >= STALE_AGE
        return not self.holders


@dataclass(frozen=True, kw_only=True)
class Wedge:
    """What stops the next git command or merge (all empty: nothing)."""

    locks: tuple[LockFile, ...] = ()
    operation: str | None = None  # "merge", "rebase", ... left half done
    unmerged: tuple[str, ...] = ()

    @property
    def wedged(self) -> bool:
        return bool(self.locks or self.operation or self.unmerged)

    def describe(self) -> str:
        """One line for a person: what is left and what it blocks."""
        parts = []
        for lock in self.locks:
            who = (
                f"held by git process {', '.join(map(str, lock.holders))}"
                if lock.holders
                else "left by a git command that was killed"
            )
            parts.append(f".git/{lock.path} ({who}, {int(lock.age)} s old)")
        if self.operation:
            parts.append(f"a {self.operation} left half done")
        if self.unmerged:
            shown = ", ".join(self.unmerged[:5]) + (" ..." if len(self.unmerged) > 5 else "")
            parts.append(f"unmerged paths: {shown}")
        return "; ".join(parts)


@dataclass(frozen=True, kw_only=True)
class Recovery:
    """What :func:`recover` cleared: nothing at all when ``cleared`` is False."""

    locks: tuple[str, ...] = ()
    aborted: str | None = None
    restored: tuple[str, ...] = ()  # local files written back after the reset
    rescued: tuple[Path, ...] = ()  # files with conflict markers saved aside

    @property
    def cleared(self) -> bool:
        return bool(self.locks or self.aborted)

    def describe(self) -> str:
        parts = []
        if self.locks:
            parts.append(f"removed stale {', '.join('.git/' + p for p in self.locks)}")
        if self.aborted:
            parts.append(f"undid {self.aborted}")
        if self.restored:
            parts.append(f"kept local changes to {', '.join(self.restored)}")
        if self.rescued:
            parts.append(f"saved files with conflict markers to {self.rescued[0].parent}")
        return "; ".join(parts)


def git_processes(root: Path) -> tuple[int, ...] | None:
    """Pids of live git processes working in ``root``; None without ``/proc``."""
    proc = Path("/proc")
    if not (proc / "self").exists():
        return None
    real = os.path.realpath(root)
    found = []
    for entry in os.scandir(proc):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as handle:
                argv = handle.read().split(b"\0")
            if not argv or not os.path.basename(argv[0]).startswith(b"git"):
                continue
            if _state(entry.name) == "Z":
                continue  # exited, not yet reaped: holds nothing
            cwd = os.readlink(f"/proc/{entry.name}/cwd")
        except OSError:
            continue  # exited meanwhile, or not ours to read
        named = os.fsencode(real) in argv or os.fsencode(str(root)) in argv
        if named or cwd == real or cwd.startswith(real + os.sep):
            found.append(int(entry.name))
    return tuple(found)


def _state(pid: str) -> str:
    with open(f"/proc/{pid}/stat", "rb") as handle:
        stat = handle.read()
    return stat[stat.rfind(b")") + 2 :][:1].decode("ascii", "replace")


def inspect(git: Git) -> Wedge:
    """The repository's wedged state, changing nothing."""
    dot = git.work_tree / ".git"
    if not dot.is_dir():
        return Wedge()
    now = time.time()
    lock_paths = _lock_files(dot)
    holders = git_processes(git.work_tree) if lock_paths else ()
    locks = []
    for rel in lock_paths:
        try:
            age = now - (dot / rel).lstat().st_mtime
        except FileNotFoundError:
            continue
        locks.append(LockFile(path=rel, age=max(age, 0.0), holders=holders))
    operation = _operation(dot)
    unmerged: tuple[str, ...] = ()
    if not any(lock.path == "index.lock" for lock in locks):
        # Reading the index is safe with a lock present, but its content is then stale.
        unmerged = tuple(sorted(git.unmerged()))
    return Wedge(locks=tuple(locks), operation=operation, unmerged=unmerged)


def recover(git: Git, *, rescue_dir: Path, wait: float = LOCK_WAIT) -> Recovery:
    """Clear stale locks and undo a half-done operation, keeping every local change.

    Call it with the team store's lock held (no memdir write interleaves).
    Raises :class:`SyncError` when a live git process keeps a lock past
    ``wait`` seconds, or when the repository cannot be brought back.
    """
    wedge = _settled(git, wait)
    live = [lock for lock in wedge.locks if not lock.stale]
    if live:
        pids = sorted({pid for lock in live for pid in lock.holders or ()})
        raise SyncError(
            f"a git process ({', '.join(map(str, pids))}) is working in the team "
            f"repository and holds .git/{live[0].path}",
            path=git.work_tree,
            hint="let it finish (or stop it), then run `memdir team sync` again",
        )
    removed = []
    dot = git.work_tree / ".git"
    for lock in wedge.locks:
        try:
            (dot / lock.path).unlink()
        except FileNotFoundError:
            continue
        removed.append(lock.path)
    operation = _operation(dot)
    # inspect() left the index alone while index.lock was there: read it now.
    unmerged = bool(git.unmerged()) if removed else bool(wedge.unmerged)
    if not removed and operation is None and not unmerged:
        return Recovery()
    # A lock left behind means a git command died mid-way: its half-written work
    # tree is reset too (what it wrote is in git; local work is kept below).
    aborted = operation or ("an unmerged index" if unmerged else "an interrupted git command")
    local = _local_work(git)
    # Saved before the reset: a recovery killed between the reset and the write-back
    # leaves the local files in the rescue folder, never nowhere.
    saved = {rel: save_copy(rescue_dir, rel, data) for rel, data in local.items()}
    _undo(git, dot, operation)
    restored, rescued = _write_back(git, local, saved, rescue_dir)
    return Recovery(
        locks=tuple(removed), aborted=aborted, restored=tuple(restored), rescued=tuple(rescued)
    )


def _settled(git: Git, wait: float) -> Wedge:
    """:func:`inspect`, after waiting up to ``wait`` s for live lock holders to finish."""
    deadline = time.monotonic() + wait
    while True:
        wedge = inspect(git)
        if all(lock.stale for lock in wedge.locks) or time.monotonic() >= deadline:
            return wedge
        time.sleep(0.1)


def _lock_files(dot: Path) -> list[str]:
    found = [name for name in _TOP_LOCKS if os.path.lexists(dot / name)]
    for sub in ("refs", "logs"):
        for folder, _, names in os.walk(dot / sub):
            for name in names:
                if name.endswith(".lock"):
                    found.append((Path(folder) / name).relative_to(dot).as_posix())
    return found


def _operation(dot: Path) -> str | None:
    if any((dot / d).is_dir() for d in _REBASE_DIRS):
        return "rebase"
    for name, what in _OPERATION_FILES.items():
        if (dot / name).exists():
            return what
    if (dot / "sequencer").is_dir():
        return "cherry-pick"
    return None


def _known_blobs(git: Git) -> set[tuple[str, str]]:
    """(path, blob id) for each version of a file a commit holds (nothing to keep)."""
    known: set[tuple[str, str]] = set()
    remotes = git.run("for-each-ref", "--format=%(refname)", "refs/remotes", check=False)
    refs = ["HEAD", "MERGE_HEAD", "ORIG_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD"]
    for ref in [*refs, *remotes.stdout.split()]:
        if git.rev(ref) is None:
            continue
        for entry in git.run("ls-tree", "-r", "-z", ref, check=False).paths():
            head, _, path = entry.partition("\t")
            meta = head.split()
            if len(meta) == 3:
                known.add((path, meta[2]))
    # The index's unmerged stages only (base, ours, theirs: all in commits). A staged
    # blob (stage 0) may be local work a killed `git add` or commit never committed.
    for entry in git.run("ls-files", "--stage", "-z", check=False).paths():
        head, _, path = entry.partition("\t")
        meta = head.split()
        if len(meta) == 3 and meta[2] != "0":
            known.add((path, meta[1]))
    return known


def _local_work(git: Git) -> dict[str, bytes]:
    """The files whose bytes exist nowhere in git: what a reset would destroy."""
    status = git.run("status", "--porcelain", "-z", "-uall", "--no-renames", check=False)
    paths = sorted({entry[3:] for entry in status.paths()})
    files: dict[str, bytes] = {}
    for rel in paths:
        path = git.work_tree / rel
        if path.is_file() and not path.is_symlink():
            try:
                files[rel] = path.read_bytes()
            except OSError:
                continue
    if not files:
        return {}
    names = list(files)
    hashed = git.run(
        "hash-object", "--no-filters", "--stdin-paths", input="\n".join(names).encode() + b"\n"
    ).stdout.split()
    known = _known_blobs(git)
    return {
        rel: files[rel] for rel, sha in zip(names, hashed, strict=True) if (rel, sha) not in known
    }


def _undo(git: Git, dot: Path, operation: str | None) -> None:
    """Back to the branch's last commit: index and tracked files as committed."""
    if operation == "rebase":
        head_name = _rebase_branch(dot)
        if not git.run("rebase", "--abort", check=False).ok:
            git.run("rebase", "--quit", check=False)
            if head_name:
                git.run("symbolic-ref", "HEAD", head_name, check=False)
    elif operation in ("cherry-pick", "revert"):
        git.run(operation, "--quit", check=False)
    if git.rev("HEAD") is None:  # an unborn branch: nothing committed to go back to
        git.run("read-tree", "--empty")
        for name in ("MERGE_HEAD", "MERGE_MSG", "MERGE_MODE"):
            (dot / name).unlink(missing_ok=True)
        return
    result = git.run("reset", "--quiet", "--hard", "HEAD", check=False)
    if not result.ok:
        raise SyncError(
            f"cannot bring the team repository back to its last commit: "
            f"{git_message(result.stderr)}",
            path=git.work_tree,
            hint=f"inspect `git -C {git.work_tree} status`; no local file was changed",
        )


def _rebase_branch(dot: Path) -> str | None:
    for folder in _REBASE_DIRS:
        path = dot / folder / "head-name"
        if path.is_file():
            name = path.read_text("utf-8", "replace").strip()
            if name.startswith("refs/heads/"):
                return name
    return None


def save_copy(rescue_dir: Path, rel: str, data: bytes) -> Path:
    """A copy of a local file under ``<rescue_dir>/<date>/`` (a free name)."""
    day = rescue_dir / dt.date.today().isoformat()
    target, n = safe_join(day, rel), 2
    while os.path.lexists(target):
        target, n = safe_join(day, f"{rel}.{n}"), n + 1
    ensure_dir(target.parent)
    atomic_write(target, data)
    return target


def _write_back(
    git: Git, local: dict[str, bytes], saved: dict[str, Path], rescue_dir: Path
) -> tuple[list[str], list[Path]]:
    """Local files back in the work tree; those with conflict markers stay rescued."""
    restored, rescued = [], []
    for rel, data in local.items():
        if all(marker in data for marker in _MARKERS):
            rescued.append(saved[rel])
            continue
        path = safe_join(git.work_tree, rel)
        ensure_dir(path.parent)
        atomic_write(path, data)
        restored.append(rel)
        drop_copy(saved[rel], rescue_dir)  # back where it belongs
    return restored, rescued


def drop_copy(saved: Path, rescue_dir: Path) -> None:
    """Remove a copy :func:`save_copy` made, and the folders it leaves empty."""
    saved.unlink(missing_ok=True)
    _prune(saved.parent, rescue_dir)


def _prune(folder: Path, top: Path) -> None:
    """Remove ``folder`` and its empty parents, up to ``top`` (included)."""
    while folder.is_relative_to(top):
        try:
            folder.rmdir()
        except OSError:
            return  # not empty: what is left there stays
        if folder == top:
            return
        folder = folder.parent
