"""The ``git`` command, run for team sync: isolated, non-interactive, bounded.

Every call is ``git -C <work tree> ...`` in a subprocess (no library binding),
with an environment and ``-c`` overrides that make it safe to run unattended
inside someone else's setup:

* no prompt can block: ``GIT_TERMINAL_PROMPT=0``, no editor, no ssh askpass,
  and a new session (no controlling terminal, so ssh cannot ask either);
* nothing from the caller's git context leaks in (``GIT_DIR``,
  ``GIT_INDEX_FILE``... are dropped: memdir may run inside a project's hook),
  and git never climbs above the team folder to find a repository;
* no hook or signing set in the user's global config runs or blocks
  (``core.hooksPath=/dev/null``, ``commit.gpgSign=false``...), symlinks are
  checked out as plain files, and rerere never replays an old resolution;
* no attribute changes a file's bytes on their way in or out: the user's
  global attributes file is ignored (``core.attributesFile=/dev/null``), line
  endings are never converted (``core.autocrlf=false``), and the repository's
  own ``.git/info/attributes``, which outranks any ``.gitattributes``, unsets
  every converting attribute for every path (:meth:`Git.ignore_attributes`):
  a ``.gitattributes`` that got into the folder (by a hand ``git pull``; a sync
  never takes one in, :mod:`memdir.team.remote_tree`) re-encodes, filters or
  converts nothing, so what this clone commits is the bytes memdir wrote. Blobs
  are read with ``git cat-file``, which applies no attribute;
* every call has a timeout (short for network operations); on expiry the
  whole process group is killed and :class:`~memdir.errors.SyncError` raised.

Failures the caller expects (a merge with conflicts, a rejected push) come
back as a :class:`GitResult` with ``check=False``; the rest raise.

The pre-commit hook memdir can install in the team repository lives here
too: ``python -m memdir.team.git --pre-commit`` scans what is staged (the
index, not the work tree) with :mod:`memdir.team.checks` (any encoding, file
names too) and refuses the commit when a likely secret or a file that is not
a memory is found, naming file, line and rule only.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Literal, Protocol

from memdir.errors import SyncError
from memdir.storage.fs import atomic_write, ensure_dir
from memdir.team.checks import Problem, display_name, name_problems, scan_blob

if TYPE_CHECKING:
    from memdir.team.reports import SyncTally

__all__ = [
    "HOOK_MARKER",
    "NETWORK_TIMEOUT",
    "Git",
    "GitFailed",
    "GitResult",
    "PushOutcome",
    "PushPlan",
    "SyncedTree",
    "display_url",
    "failure_detail",
    "git_message",
    "install_pre_commit_hook",
    "last_line",
    "main",
    "push_until_landed",
    "scan_staged",
    "unreachable",
]

NETWORK_TIMEOUT = 60.0
LOCAL_TIMEOUT = 300.0
HOOK_MARKER = "# memdir pre-commit hook"
PushOutcome = Literal["pushed", "up-to-date", "raced"]

# Variables through which a surrounding git process (a hook, `git rebase -x`)
# would point our commands at another repository or index.
_CONTEXT_VARS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_QUARANTINE_PATH",
)
_OVERRIDES = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.symlinks=false",
    "core.attributesFile=/dev/null",
    "core.autocrlf=false",
    "core.quotePath=false",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "push.gpgSign=false",
    "merge.verifySignatures=false",
    "rerere.enabled=false",
    "advice.detachedHead=false",
)
# What .git/info/attributes sets for every path: each attribute that changes bytes
# between a blob and its file (encoding, filters, line endings, keywords) unspecified,
# whatever a .gitattributes says ("!" outranks it there).
_NEUTRAL_ATTRIBUTES = (
    "# memdir: team memory files are stored byte for byte; no attribute converts them\n"
    "* !text !eol !crlf !working-tree-encoding !filter !ident\n"
)
_USERINFO = re.compile(r"(?<=://)[^/@\s]*@")


def display_url(url: str) -> str:
    """``url`` without credentials (``https://user:token@host`` -> ``https://host``)."""
    return _USERINFO.sub("", url)


@dataclass(frozen=True, kw_only=True)
class GitResult:
    """What one git call printed and its exit status."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def paths(self) -> list[str]:
        """``stdout`` as NUL-separated paths (output of a ``-z`` command)."""
        return [p for p in self.stdout.split("\0") if p]


class GitFailed(SyncError):
    """A git command failed; ``detail`` is git's whole error output (credentials hidden)."""

    def __init__(
        self, message: str, *, detail: str, path: str | Path | None = None, hint: str | None = None
    ) -> None:
        super().__init__(message, path=path, hint=hint)
        self.detail = detail


def failure_detail(stderr: bytes | str) -> str:
    """git's error output as it printed it, credentials hidden (for the sync record)."""
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    return display_url(text).strip()


class Git:
    """Runs git in one work tree."""

    def __init__(
        self,
        work_tree: Path,
        *,
        network_timeout: float = NETWORK_TIMEOUT,
        isolate: bool = True,
        identity: tuple[str, str] | None = None,
    ) -> None:
        """``isolate=False`` keeps the caller's git context (used inside a git hook).

        ``identity`` (name, email) is used for commits when git has none configured.
        """
        self.work_tree = work_tree
        self.network_timeout = network_timeout
        self._env = _environment(work_tree, isolate, identity)

    def run(
        self,
        *args: str,
        check: bool = True,
        remote: str | None = None,
        input: bytes | None = None,
    ) -> GitResult:
        """Run ``git <args>``; raise :class:`SyncError` on failure when ``check``.

        ``remote`` (the URL a network command talks to) selects the network
        timeout and is named in the error when it expires.
        """
        result = self.run_bytes(*args, check=check, remote=remote, input=input)
        return GitResult(
            returncode=result.returncode,
            stdout=result.stdout.decode("utf-8", "surrogateescape"),
            stderr=result.stderr.decode("utf-8", "replace"),
        )

    def run_bytes(
        self,
        *args: str,
        check: bool = True,
        remote: str | None = None,
        input: bytes | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        """Like :meth:`run`, with stdout left as bytes (file contents)."""
        command = ["git", "-C", str(self.work_tree)]
        for override in _OVERRIDES:
            command += ["-c", override]
        command += args
        timeout = self.network_timeout if remote is not None else LOCAL_TIMEOUT
        result = _spawn(command, self._env, timeout, input)
        if result is None:
            talking_to = f" with {display_url(remote)}" if remote is not None else ""
            raise SyncError(
                f"`git {args[0]}`{talking_to} did not finish within {timeout:g} s",
                path=self.work_tree,
                hint="check the network and the remote, then run the command again; "
                "local memories and commits are kept",
            )
        if check and result.returncode != 0:
            raise GitFailed(
                f"git {args[0]} failed: {git_message(result.stderr)}",
                detail=failure_detail(result.stderr),
                path=self.work_tree,
                hint=f"inspect the team repository with `git -C {self.work_tree} status`",
            )
        return result

    def blob(self, spec: str) -> bytes:
        """The content of a blob (``<sha>``, ``:2:path``, ``HEAD:path``)."""
        return self.run_bytes("cat-file", "blob", spec).stdout

    def config(self, key: str) -> str | None:
        """A configuration value as git sees it here, or None when unset."""
        result = self.run("config", "--get", key, check=False)
        value = result.stdout.strip()
        return value if result.ok and value else None

    def rev(self, ref: str) -> str | None:
        """The commit ``ref`` names, or None when it does not exist."""
        result = self.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
        return result.stdout.strip() if result.ok else None

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """Whether ``ancestor`` is reachable from ``descendant``."""
        return self.run("merge-base", "--is-ancestor", ancestor, descendant, check=False).ok

    def changed(self, old: str | None, new: str) -> list[tuple[str, str]]:
        """(status letter, path) for each file that differs between two commits."""
        base = old if old is not None else _EMPTY_TREE
        return _name_status(self.run("diff", "--name-status", "--no-renames", "-z", base, new))

    def staged(self) -> list[tuple[str, str]]:
        """(status letter, path) for each change in the index against ``HEAD``."""
        base = "HEAD" if self.rev("HEAD") is not None else _EMPTY_TREE
        return _name_status(
            self.run("diff", "--cached", "--name-status", "--no-renames", "-z", base)
        )

    def changed_staged(self, old: str | None) -> list[tuple[str, str]]:
        """(status letter, path) for each file the index holds differently from ``old``."""
        base = old if old is not None else _EMPTY_TREE
        return _name_status(
            self.run("diff", "--cached", "--name-status", "--no-renames", "-z", base)
        )

    def dirty(self) -> list[str]:
        """Paths with uncommitted changes (untracked files included)."""
        out = self.run("status", "--porcelain", "-z", "-uall", "--no-renames").paths()
        return [entry[3:] for entry in out]

    def unmerged(self) -> dict[str, dict[int, str]]:
        """Conflicted paths after a merge: path -> {stage: blob id}."""
        stages: dict[str, dict[int, str]] = {}
        for entry in self.run("ls-files", "--unmerged", "-z").paths():
            meta, path = entry.split("\t", 1)
            _mode, sha, stage = meta.split()
            stages.setdefault(path, {})[int(stage)] = sha
        return stages

    def current_branch(self) -> str:
        """The branch checked out; SyncError on a detached HEAD."""
        result = self.run("symbolic-ref", "--quiet", "--short", "HEAD", check=False)
        if not result.ok:
            raise SyncError(
                "the repository is not on a branch",
                path=self.work_tree,
                hint=f"run `git -C {self.work_tree} switch <branch>`",
            )
        return result.stdout.strip()

    def default_branch(self, url: str, fallback: str, *, retry: str) -> tuple[str, bool]:
        """The branch a clone of ``url`` checks out, and whether it exists yet.

        An empty remote has none: ``(fallback, False)``. ``retry`` is the
        command an unreachable remote's error tells the user to run again.
        """
        result = self.run("ls-remote", "--symref", url, check=False, remote=url)
        if not result.ok:
            raise unreachable(url, result.stderr, self.work_tree, retry)
        heads: set[str] = set()
        head: str | None = None
        for line in result.stdout.splitlines():
            target, _, ref = line.partition("\t")
            if target.startswith("ref: ") and ref == "HEAD":
                head = target.removeprefix("ref: refs/heads/")
            elif ref.startswith("refs/heads/"):
                heads.add(ref.removeprefix("refs/heads/"))
        for candidate in (head, fallback, "master", *sorted(heads)):
            if candidate in heads:
                return candidate, True
        return fallback, False

    def fetch(self, remote: str, url: str, *, retry: str) -> None:
        """Fetch ``remote``'s branches; SyncError naming ``url`` when it fails."""
        result = self.run(
            "fetch", "--quiet", "--prune", "--no-tags", remote, check=False, remote=url
        )
        if not result.ok:
            raise unreachable(url, result.stderr, self.work_tree, retry)

    def commit(self, message: str, *, allow_empty: bool = False) -> None:
        """Commit what is staged (or conclude a merge) with ``message``."""
        extra = ["--allow-empty"] if allow_empty else []
        self.run("commit", "--quiet", "--no-verify", *extra, "-m", message)

    def exclude(self, pattern: str, *, why: str) -> None:
        """Ignore ``pattern`` in this clone only (``.git/info/exclude``)."""
        path = self.work_tree / ".git" / "info" / "exclude"
        text = path.read_text("utf-8") if path.exists() else ""
        if pattern not in text.splitlines():
            atomic_write(path, f"{text}# memdir: {why}\n{pattern}\n")

    def ignore_attributes(self) -> None:
        """Unset every converting attribute for every path (``.git/info/attributes``)."""
        path = self.work_tree / ".git" / "info" / "attributes"
        try:
            current = path.read_text("utf-8")
        except (FileNotFoundError, UnicodeDecodeError):
            current = None
        if current != _NEUTRAL_ATTRIBUTES:
            ensure_dir(path.parent)
            atomic_write(path, _NEUTRAL_ATTRIBUTES)

    def blob_to(self, sha: str, target: Path) -> None:
        """Write blob ``sha``'s bytes to ``target``, streamed (a blob of any size)."""
        ensure_dir(target.parent)
        temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        command = ["git", "-C", str(self.work_tree), "cat-file", "blob", sha]
        try:
            with open(temp, "wb") as handle:
                result = _spawn(command, self._env, LOCAL_TIMEOUT, None, stdout=handle)
            if result is None or result.returncode != 0:
                why = "timed out" if result is None else git_message(result.stderr)
                raise GitFailed(
                    f"git cat-file failed: {why}",
                    detail=failure_detail(b"" if result is None else result.stderr),
                    path=self.work_tree,
                    hint=f"inspect the team repository with `git -C {self.work_tree} status`",
                )
            os.replace(temp, target)
        finally:
            temp.unlink(missing_ok=True)

    def push(self, remote: str, url: str, branch: str, *, retry: str) -> PushOutcome:
        """Publish HEAD on ``branch``: never forced, so a remote that moved refuses it.

        ``"raced"`` means someone pushed first (fetched again: merge, retry).
        """
        head = self.rev("HEAD")
        tracking = f"refs/remotes/{remote}/{branch}"
        if head is None or head == self.rev(tracking):
            return "up-to-date"
        refspec = f"HEAD:refs/heads/{branch}"
        result = self.run("push", "--quiet", remote, refspec, check=False, remote=url)
        if result.ok:
            self.run("update-ref", tracking, head)
            return "pushed"
        # Trigger: push refused. Why: a race (someone pushed first) is retried,
        # anything else (auth, hooks, network) is not. Outcome: decide on the
        # refs, never on git's message text.
        self.fetch(remote, url, retry=retry)
        tip = self.rev(tracking)
        if tip is not None and not self.is_ancestor(tip, "HEAD"):
            return "raced"
        raise GitFailed(
            f"pushing to {display_url(url)} failed: {git_message(result.stderr)}",
            detail=failure_detail(result.stderr),
            path=self.work_tree,
            hint=f"check your write access to the remote, then run `{retry}` again; "
            "your changes are committed locally",
        )

    def divergence(self, head: str | None, tip: str | None) -> tuple[int, int, tuple[str, ...]]:
        """Commits ``head`` has that ``tip`` lacks and the reverse, and the files
        changed locally (uncommitted, or committed since the common ancestor)."""
        unsynced = set(self.dirty())
        if head is None:
            return 0, self._count(tip), tuple(sorted(unsynced))
        if tip is None:
            unsynced.update(self.run("ls-files", "-z").paths())
            return self._count(head), 0, tuple(sorted(unsynced))
        counts = self.run("rev-list", "--left-right", "--count", f"{head}...{tip}").stdout
        ahead, behind = (int(n) for n in counts.split())
        unsynced.update(self.run("diff", "--name-only", "-z", f"{tip}...{head}").paths())
        return ahead, behind, tuple(sorted(unsynced))

    def _count(self, ref: str | None) -> int:
        if ref is None:
            return 0
        return int(self.run("rev-list", "--count", ref).stdout.strip())


def _name_status(result: GitResult) -> list[tuple[str, str]]:
    """(status letter, path) pairs from ``git diff --name-status -z``."""
    out = result.paths()
    return [(out[i][0], out[i + 1]) for i in range(0, len(out) - 1, 2)]


# The id of git's empty tree: the "before" of a repository's first commit.
_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def _environment(
    work_tree: Path, isolate: bool, identity: tuple[str, str] | None
) -> dict[str, str]:
    env = dict(os.environ)
    if isolate:
        for var in _CONTEXT_VARS:
            env.pop(var, None)
        # Never discover a repository above the team folder (a home kept in git).
        env["GIT_CEILING_DIRECTORIES"] = str(work_tree.parent)
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GCM_INTERACTIVE="never",
        SSH_ASKPASS_REQUIRE="never",
        GIT_EDITOR="true",
        GIT_MERGE_AUTOEDIT="no",
        GIT_PAGER="cat",
    )
    if identity is not None:
        name, email = identity
        for role in ("AUTHOR", "COMMITTER"):
            env.setdefault(f"GIT_{role}_NAME", name)
            env.setdefault(f"GIT_{role}_EMAIL", email)
    return env


def _spawn(
    command: list[str],
    env: dict[str, str],
    timeout: float,
    input: bytes | None,
    *,
    stdout: IO[bytes] | None = None,
) -> subprocess.CompletedProcess[bytes] | None:
    """Run ``command``; None when it outlived ``timeout`` (its process group is killed).

    ``stdout``: a file its output goes to instead of memory (``stdout`` is then b"").
    """
    try:
        # A new session: no controlling terminal for ssh to prompt on, and one
        # process group to kill on timeout (git's children included).
        process = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE if stdout is None else stdout,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise SyncError(
            "the `git` command was not found", hint="install git and run the command again"
        ) from None
    try:
        out, stderr = process.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return None
    return subprocess.CompletedProcess(command, process.returncode, out or b"", stderr)


def unreachable(url: str, stderr: str, root: Path, retry: str) -> SyncError:
    """The error for a remote that cannot be reached or refuses us."""
    return GitFailed(
        f"cannot reach the team remote {display_url(url)}: {git_message(stderr)}",
        detail=failure_detail(stderr),
        path=root,
        hint=f"check the network, the URL and your access to it (ssh key or credential "
        f"helper), then run `{retry}` again; local memories and commits are kept",
    )


class SyncedTree(Protocol):
    """What a sync's push loop needs of the work tree it syncs (team or private)."""

    @property
    def root(self) -> Path: ...

    @property
    def git(self) -> Git: ...

    def mark_synced(self, tip: str | None) -> None: ...


@dataclass(frozen=True, kw_only=True)
class PushPlan:
    """How one kind of sync pushes: to ``remote``, and its words when every push was beaten:
    who else keeps pushing (``others``: ``"others keep"``), the command to try again (``retry``)."""

    remote: str
    retry: str
    others: str


def push_until_landed(
    tree: SyncedTree,
    url: str,
    branch: str,
    tally: SyncTally,
    ready: Callable[[int], bool],
    plan: PushPlan,
    *,
    attempts: int,
) -> None:
    """A sync's last steps, ``attempts`` times at most: get ready, then push until one lands.

    ``ready(attempt)`` commits what was written meanwhile, takes in what was
    fetched and checks what would leave; False from it ends the loop with
    nothing pushed. A push another machine beat (git fetched what beat it) is
    counted in ``tally.retries`` and the loop goes round again; one that
    landed, or had nothing to send, hands the remote's tip as this clone now
    tracks it to ``tree.mark_synced``. When every push was beaten, SyncError.
    """
    for attempt in range(attempts):
        if not ready(attempt):
            return
        outcome = tree.git.push(plan.remote, url, branch, retry=plan.retry)
        if outcome != "raced":
            tally.pushed = outcome == "pushed"
            tree.mark_synced(tree.git.rev(f"refs/remotes/{plan.remote}/{branch}"))
            return
        tally.retries += 1
    raise _push_rejected(url, attempts, others=plan.others, root=tree.root, retry=plan.retry)


def _push_rejected(url: str, attempts: int, *, others: str, root: Path, retry: str) -> SyncError:
    """The error for a sync whose every push was beaten by ``others`` pushing first."""
    return SyncError(
        f"the push to {display_url(url)} was rejected {attempts} times: {others} pushing",
        path=root,
        hint=f"run `{retry}` again; your changes are committed locally",
    )


_GIT_PREFIX = re.compile(r"^(fatal|error|warning|hint|remote):\s*", re.I)
_MAX_MESSAGE = 600


def git_message(stderr: bytes | str) -> str:
    """git's whole error message on one line, the URL's credentials hidden.

    git words one error over several lines ("Could not read from remote repository.",
    "Please make sure you have the correct access rights", "and the repository
    exists."): the last line alone says nothing. Each ``fatal:``/``error:`` line
    starts a new clause; continuation lines join the one before.
    """
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    text = display_url(text)
    clauses: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if _GIT_PREFIX.match(line) or not clauses:
            clauses.append(_GIT_PREFIX.sub("", line))
        else:
            clauses[-1] = f"{clauses[-1]} {line}"
    message = "; ".join(dict.fromkeys(clauses)) or "no error message"
    return message if len(message) <= _MAX_MESSAGE else message[: _MAX_MESSAGE - 1] + "…"


def last_line(stderr: bytes | str) -> str:
    """The most telling line of git's error output (its last non-empty one)."""
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    text = display_url(text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no error message"


# -- the pre-commit hook -------------------------------------------------------


def install_pre_commit_hook(git: Git) -> Path:
    """Write the secret-scanning pre-commit hook into ``git``'s repository.

    The repository's own ``core.hooksPath`` is set, so a global one does not
    bypass it. A pre-commit hook that memdir did not write is left alone.
    """
    hooks = ensure_dir(git.work_tree / ".git" / "hooks")
    path = hooks / "pre-commit"
    if path.exists() and HOOK_MARKER not in path.read_text("utf-8", "replace"):
        raise SyncError(
            "the team repository already has a pre-commit hook",
            path=path,
            hint=f"add `{_hook_command()}` to it by hand",
        )
    script = (
        "#!/bin/sh\n"
        f"{HOOK_MARKER}: refuse commits that add likely secrets to team memory.\n"
        "# Installed by `memdir team init --hook`; delete this file to turn it off.\n"
        f"exec {_hook_command()}\n"
    )
    atomic_write(path, script, mode=0o700)
    git.run("config", "core.hooksPath", str(hooks))
    return path


def _hook_command() -> str:
    return f"{shlex.quote(sys.executable)} -m memdir.team.git --pre-commit"


def scan_staged(work_tree: Path) -> list[Problem]:
    """What the next commit must not hold: secrets (in names too) and non-memory files.

    Blobs are scanned whatever their encoding; file names are display-safe.
    """
    git = Git(work_tree, isolate=False)  # inside a hook: keep git's index and dir
    problems: list[Problem] = []
    for status, path in git.staged():
        if status == "D":
            continue
        problems += name_problems(path)
        shown = display_name(path)
        for finding in scan_blob(git.blob(f":{path}")):
            problems.append(Problem(file=shown, line=finding.line, rule=finding.label))
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m memdir.team.git --pre-commit``: the hook's entry point."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args != ["--pre-commit"]:
        print("usage: python -m memdir.team.git --pre-commit", file=sys.stderr)
        return 2
    found = scan_staged(Path.cwd())
    for problem in found:
        print(f"memdir: {problem.describe()}", file=sys.stderr)
    if found:
        print(
            "memdir: commit refused: remove the values and name where they live instead "
            "(an environment variable, a secret manager), keep only *.md memories in team "
            "memory; rotate any secret that was shared",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
