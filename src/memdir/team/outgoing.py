"""What a team push would send, checked before it is sent: names, bytes, messages.

Team memory leaves the machine only through ``git push``, so the check that
matters is on what the push carries, not on what the folder holds now: every
commit reachable from ``HEAD`` and from no remote-tracking ref (exactly what
git sends), every blob those commits introduce, the names those commits add
or change, and their messages, each through :mod:`memdir.team.checks`.
"""

from __future__ import annotations

from collections.abc import Iterable

from memdir.team.checks import Problem, display_name, names_problems, scan_blob, scan_blobs
from memdir.team.git import Git

__all__ = ["outgoing_problems"]

_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's empty tree: a root's "before"


def outgoing_problems(git: Git, remote: str, *, memory_names: bool = True) -> list[Problem]:
    """Everything a push of ``HEAD`` would send that must not be sent; ``[]`` when clean.

    ``memory_names=False`` (private sync, whose folder also holds logs and
    sidecars) checks names for secrets only, not for being plain memory names.
    """
    if git.rev("HEAD") is None:
        return []
    outgoing = ["HEAD", "--not", f"--remotes={remote}"]
    commits = git.run("rev-list", *outgoing).stdout.split()
    if not commits:
        return []
    problems: list[Problem] = []
    # One call for every message: "<id>\0<message>\0" per commit.
    listed = git.run_bytes("log", "--format=%H%x00%B%x00", *outgoing).stdout.split(b"\0")
    for raw_id, message in zip(listed[0::2], listed[1::2], strict=False):
        commit = raw_id.strip().decode("ascii", "replace")[:9]
        for finding in scan_blob(message):
            problems.append(
                Problem(file="commit message", line=finding.line, rule=finding.label, commit=commit)
            )
    blobs = _new_blobs(git, outgoing)
    names = _new_names(git, outgoing, blobs.values())
    for found in names_problems(names) if memory_names else _name_secrets(names):
        problems += found
    contents = _contents(git, list(blobs))
    scanned = scan_blobs([data for _, data in contents])
    for (sha, _), findings in zip(contents, scanned, strict=True):
        path = blobs[sha]
        for finding in findings:
            problems.append(
                Problem(
                    file=display_name(path),
                    line=finding.line,
                    rule=finding.label,
                    commit=_introduced_by(git, sha, outgoing),
                )
            )
    return problems


def _name_secrets(names: list[str]) -> list[list[Problem]]:
    """Likely secrets in each name (the file is named, the value redacted)."""
    found = scan_blobs([name.encode("utf-8", "surrogatepass") for name in names])
    return [
        [Problem(file=display_name(name), line=0, rule=f.label) for f in findings]
        for name, findings in zip(names, found, strict=True)
    ]


def _new_blobs(git: Git, outgoing: list[str]) -> dict[str, str]:
    """Blob id -> a path it has, for every blob the push would send."""
    listed = git.run("rev-list", "--objects", "--filter=object:type=blob", *outgoing).stdout
    blobs: dict[str, str] = {}
    for line in listed.split("\n"):
        sha, _, path = line.partition(" ")
        if sha and path:
            blobs[sha] = path
    return blobs


def _new_names(git: Git, outgoing: list[str], blob_paths: Iterable[str]) -> list[str]:
    """Every path added or changed by an outgoing commit (merges aside), or carrying a
    new blob."""
    names = set(blob_paths)
    listed = git.run("rev-list", "--no-merges", "--parents", *outgoing).stdout.splitlines()
    for line in listed:
        commit, *parents = line.split()
        names.update(_added_or_changed(git, parents[0] if parents else _EMPTY_TREE, commit, ""))
    return sorted(names)


def _added_or_changed(git: Git, old: str, new: str, prefix: str) -> list[str]:
    """The paths under ``new`` that ``old`` lacks or holds otherwise, one folder at a time.

    Only folders present in ``new`` are entered: ``git diff -r`` would walk every
    file of a folder the commit removed, and the commit that leaves a teammate's
    hostile tree out (:mod:`memdir.team.remote_tree`) removes one that may name a
    million files.
    """
    found: list[str] = []
    out = git.run(
        "diff-tree", "-z", "--no-renames", "--diff-filter=AMT", f"{old}^{{tree}}", f"{new}^{{tree}}"
    ).paths()
    for meta, name in zip(out[0::2], out[1::2], strict=False):
        _old_mode, new_mode, old_sha, new_sha, _status = meta.lstrip(":").split()
        if new_mode == "040000":
            before = _EMPTY_TREE if set(old_sha) == {"0"} or _old_mode != "040000" else old_sha
            found += _added_or_changed(git, before, new_sha, f"{prefix}{name}/")
        else:
            found.append(prefix + name)
    return found


def _contents(git: Git, shas: list[str]) -> list[tuple[str, bytes]]:
    """Each blob's bytes, read through one ``git cat-file --batch``."""
    if not shas:
        return []
    out = git.run_bytes("cat-file", "--batch", input="\n".join(shas).encode() + b"\n").stdout
    contents, position = [], 0
    for sha in shas:
        end = out.index(b"\n", position)
        header = out[position:end].split()
        size = int(header[2])
        contents.append((sha, out[end + 1 : end + 1 + size]))
        position = end + 1 + size + 1  # the content is followed by a newline
    return contents


def _introduced_by(git: Git, sha: str, outgoing: list[str]) -> str:
    found = git.run("log", "-1", "--format=%h", f"--find-object={sha}", *outgoing, check=False)
    return found.stdout.strip() if found.ok else ""
