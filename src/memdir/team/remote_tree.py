"""A teammate's tree, judged entry by entry before a sync merges it.

A bare remote accepts any tree a client writes with plumbing (``git mktree``,
``git hash-object -t tree``): an entry named ``..``, ``.git`` or ``.GIT``, a
symbolic link, a submodule, the same name twice, a name with a slash in it, a
memory of 100 MB. Merged as it is, such a tree fails the checkout of every
clone for good, or hands git something to act on (a ``.gitattributes`` that
re-encodes what this clone checks out and commits, a ``.gitmodules``), or
costs every prompt and search here. So :func:`screened_tip` reads the
remote's tree before anything is merged, with ``git cat-file`` only (no
checkout, no filter, no attribute), and keeps what a memory folder may hold:

* folders with plain names (:func:`memdir.team.checks.is_plain_part`);
* regular files (mode 100644 or 100755) with a plain memory name or the index
  (:func:`memdir.team.checks.is_memory_name`), no likely secret in the name, at
  most ``max_memory_bytes`` long;
* each name once in its folder, and at most ``max_files`` entries in all (a
  tree that names one subtree a thousand times a level is not walked further).

Every other file's bytes (a symbolic link's are its target) are copied to the
project's quarantine with the reason (:func:`memdir.team.quarantine.keep_blob`,
streamed, whatever the size); what has no bytes here (a submodule, a folder past
the entry limit) is reported as refused. When anything was left out, or the
tree is not in git's own order, the sync merges a commit of its own instead of
the remote's: its parent is the remote's commit, its tree the kept entries
(rebuilt with ``git mktree``), its message the list of what was left out. It is
pushed like any merge, so the remote's branch holds only memories again, for
every clone. An entry the last remote commit this clone merged held already
is left out again without a second report or copy.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from memdir.team.checks import display_name, is_plain_part, names_problems
from memdir.team.quarantine import keep_blob
from memdir.team.reports import Progress, RefusedEntry

if TYPE_CHECKING:
    from memdir.team.git import Git
    from memdir.team.work_tree import TeamTree

__all__ = ["screened_tip"]

_FILE_MODES = (b"100644", b"100755")
_TREE, _LINK, _GITLINK = b"40000", b"120000", b"160000"
_MESSAGE_LINES = 20  # entries left out that a commit message names


@dataclass(frozen=True)
class _Entry:
    """One entry of a tree object: raw mode and name, object id, path from the top."""

    mode: bytes
    name: bytes
    sha: str
    path: str


@dataclass(frozen=True)
class _LeftOut:
    """An entry left out, why, and whether it has bytes to quarantine (a blob)."""

    entry: _Entry
    reason: str
    blob: bool


@dataclass
class _Judged:
    """A tree walked: what is kept, folder by folder, and what is left out and why."""

    kept: dict[str, list[_Entry]] = field(default_factory=dict)  # folder path -> entries
    left_out: list[_LeftOut] = field(default_factory=list)
    reordered: bool = False  # a tree not in git's own order: rebuilt even if all is kept


def screened_tip(tree: TeamTree, tip: str, head: str | None, progress: Progress) -> str:
    """The commit to merge for the remote's ``tip``: ``tip`` itself when its tree
    holds only what a memory folder may, else a child of it without the rest.

    What is left out and was not in the remote commit last merged (the merge
    base with ``head``) is quarantined or reported in ``progress``.
    """
    git = tree.git
    settings = tree.memdir.settings
    limits = (settings.max_memory_bytes, settings.max_files)
    judged = _judge(git, _tree_of(git, tip), *limits)
    if not judged.left_out and not judged.reordered:
        return tip
    known = _known(git, tip, head, limits)
    for out in judged.left_out:
        if (out.entry.path, out.entry.sha) not in known:
            _report(tree, out, progress)
    clean = _rebuild(git, judged)
    message = _message(judged.left_out)
    return git.run("commit-tree", clean, "-p", tip, "-m", message).stdout.strip()


# -- reading and judging the tree --------------------------------------------------


def _tree_of(git: Git, commit: str) -> str:
    return git.run("rev-parse", "--verify", f"{commit}^{{tree}}").stdout.strip()


def _judge(git: Git, root: str, max_bytes: int, max_entries: int) -> _Judged:
    """Walk the tree under ``root``, one folder level at a time (one read per level).

    Everything under a folder left out is left out for the folder's reason, its
    files' bytes quarantined; the walk stops at ``max_entries`` entries in all.
    """
    judged = _Judged()
    budget = max_entries
    level: list[tuple[str, str, str | None]] = [("", root, None)]  # folder, tree, why left out
    while level:
        objects = _read_objects(git, [sha for _, sha, _ in level])
        below: list[tuple[str, str, str | None]] = []
        files: list[tuple[_Entry, str | None]] = []
        for folder, sha, why in level:
            kind, data = objects.get(sha, ("missing", b""))
            parsed = _parse_tree(data, folder, budget) if kind == "tree" else ([], True)
            entries, ordered = parsed
            judged.reordered |= not ordered
            if kind != "tree" or len(entries) > budget:
                past = why or _past_limit(kind, max_entries)
                judged.left_out.append(_LeftOut(_Entry(_TREE, b"", sha, folder), past, False))
                continue
            budget -= len(entries)
            counts = Counter(entry.name for entry in entries)
            for entry in entries:
                reason = why or _entry_reason(entry, counts[entry.name])
                if entry.mode == _TREE:
                    below.append((entry.path, entry.sha, reason))
                    if reason is None:
                        judged.kept.setdefault(folder, []).append(entry)
                elif entry.mode in (*_FILE_MODES, _LINK) or entry.mode.startswith(b"100"):
                    files.append((entry, reason))  # git reads any 100... as a file
                else:
                    judged.left_out.append(_LeftOut(entry, reason or "not a file", False))
        for entry, verdict, blob in _file_reasons(git, files, max_bytes):
            if verdict is None:
                judged.kept.setdefault(_folder_of(entry.path), []).append(entry)
            else:
                judged.left_out.append(_LeftOut(entry, verdict, blob))
        level = below
    return judged


def _folder_of(path: str) -> str:
    return path.rpartition("/")[0]


def _past_limit(kind: str, max_entries: int) -> str:
    if kind != "tree":
        return f"not a folder in this repository ({kind})"
    return f"more entries than a memory folder may hold ({max_entries}, max_files)"


def _entry_reason(entry: _Entry, count: int) -> str | None:
    """Why an entry is left out for its name or mode alone (None: it may stay)."""
    if count > 1:
        return "the folder lists this name more than once"
    if entry.mode == _GITLINK:
        return "a submodule: not a memory"
    if entry.mode == _LINK:
        return "a symbolic link: kept as a file holding its target"
    if entry.mode != _TREE and entry.mode not in _FILE_MODES:
        return f"not a file or folder (mode {entry.mode.decode('ascii', 'replace')})"
    name = entry.name.decode("utf-8", "surrogateescape")
    if is_plain_part(name):
        return None
    if name in ("", ".", ".."):
        return "an empty name, `.` or `..`: a path out of the folder"
    if name.casefold().startswith((".git", "git~")):
        return "a name git acts on (.git, .gitattributes, .gitmodules...)"
    if "/" in name:
        return "a name with a slash in it"
    return "not a memory file (only *.md memories with plain names belong in team memory)"


def _file_reasons(
    git: Git, files: list[tuple[_Entry, str | None]], max_bytes: int
) -> list[tuple[_Entry, str | None, bool]]:
    """Each file with why it is left out (its name, a secret in it, its size) and
    whether its object is a blob (bytes to quarantine)."""
    sizes = _sizes(git, [entry.sha for entry, _ in files])
    problems = names_problems([entry.path for entry, _ in files])
    judged: list[tuple[_Entry, str | None, bool]] = []
    for (entry, reason), found in zip(files, problems, strict=True):
        kind, size = sizes.get(entry.sha, ("missing", 0))
        if reason is None and found:
            reason = ", ".join(dict.fromkeys(p.rule for p in found))
        if kind != "blob":
            reason = f"not a file in this repository ({kind})"
        elif reason is None and size > max_bytes:
            reason = f"{size} bytes: over the limit of a memory ({max_bytes}, max_memory_bytes)"
        judged.append((entry, reason, kind == "blob"))
    return judged


def _parse_tree(data: bytes, folder: str, most: int) -> tuple[list[_Entry], bool]:
    """A tree object's entries (no more than ``most`` and one), and whether they are
    in git's own order."""
    prefix = f"{folder}/" if folder else ""
    entries: list[_Entry] = []
    position, previous, ordered = 0, b"", True
    while position < len(data) and len(entries) <= most:
        space = data.find(b" ", position)
        nul = data.find(b"\0", space + 1)
        if space < 0 or nul < 0 or nul + 21 > len(data):
            return entries, False  # a cut-short object: what was read is judged
        mode, name = data[position:space], data[space + 1 : nul]
        sha = data[nul + 1 : nul + 21].hex()
        position = nul + 21
        key = name + b"/" if mode == _TREE else name
        ordered &= key > previous
        previous = key
        entries.append(_Entry(mode, name, sha, prefix + name.decode("utf-8", "surrogateescape")))
    return entries, ordered


def _read_objects(git: Git, shas: list[str]) -> dict[str, tuple[str, bytes]]:
    """sha -> (type, bytes) of each object, through one ``git cat-file --batch``."""
    wanted = list(dict.fromkeys(shas))
    out = git.run_bytes("cat-file", "--batch", input="".join(f"{s}\n" for s in wanted).encode())
    found: dict[str, tuple[str, bytes]] = {}
    position = 0
    for sha in wanted:
        end = out.stdout.index(b"\n", position)
        header = out.stdout[position:end].split()
        if len(header) != 3:  # "<sha> missing"
            position = end + 1
            continue
        size = int(header[2])
        found[sha] = (header[1].decode("ascii"), out.stdout[end + 1 : end + 1 + size])
        position = end + 1 + size + 1  # the content is followed by a newline
    return found


def _sizes(git: Git, shas: list[str]) -> dict[str, tuple[str, int]]:
    """sha -> (type, size) of each object, through one ``git cat-file --batch-check``."""
    if not shas:
        return {}
    wanted = "".join(f"{sha}\n" for sha in dict.fromkeys(shas)).encode()
    out = git.run("cat-file", "--batch-check", input=wanted).stdout
    sizes: dict[str, tuple[str, int]] = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3:
            sizes[fields[0]] = (fields[1], int(fields[2]))
    return sizes


def _known(git: Git, tip: str, head: str | None, limits: tuple[int, int]) -> set[tuple[str, str]]:
    """(path, id) of what the remote commit last merged left out too: reported then."""
    if head is None:
        return set()
    base = git.run("merge-base", head, tip, check=False).stdout.strip()
    if not base:
        return set()
    judged = _judge(git, _tree_of(git, base), *limits)
    return {(out.entry.path, out.entry.sha) for out in judged.left_out}


# -- what is left out, and the tree without it ----------------------------------------


def _report(tree: TeamTree, out: _LeftOut, progress: Progress) -> None:
    """Quarantine a left-out file's bytes; report what has none here."""
    shown = _shown(out.entry)
    if out.blob:
        kept = keep_blob(tree, out.entry.path or "_", out.entry.sha, (out.reason,))
        progress.quarantined.append(replace(kept, file=shown))
    else:
        progress.refused.append(RefusedEntry(file=shown, reason=out.reason))


def _shown(entry: _Entry) -> str:
    """An entry's path as a report names it (display-safe)."""
    if entry.path:
        return display_name(entry.path)
    return "(the whole tree)" if entry.mode == _TREE else "(an empty name)"


def _rebuild(git: Git, judged: _Judged) -> str:
    """The tree of the kept entries, folder by folder from the deepest (``git mktree``)."""
    built: dict[str, str | None] = {}
    for folder in sorted(judged.kept, key=lambda f: f.count("/") + bool(f), reverse=True):
        built[folder] = _mktree(git, judged.kept[folder], built)
    return built.get("") or _mktree(git, [], built) or ""


def _mktree(git: Git, entries: list[_Entry], built: dict[str, str | None]) -> str | None:
    """One folder's tree (None when nothing in it was kept: the folder goes)."""
    lines: list[bytes] = []
    for entry in entries:
        if entry.mode == _TREE:
            sha = built.get(entry.path)
            if sha is not None:
                lines.append(b"040000 tree " + sha.encode() + b"\t" + entry.name + b"\0")
        else:
            kind = b" blob "
            lines.append(entry.mode + kind + entry.sha.encode() + b"\t" + entry.name + b"\0")
    if not lines and entries:
        return None
    return git.run("mktree", "-z", input=b"".join(lines)).stdout.strip()


def _message(left_out: list[_LeftOut]) -> str:
    """The commit's message: how many entries were left out, and (some of) them."""
    lines = [f"{_shown(out.entry)}: {out.reason}" for out in left_out[:_MESSAGE_LINES]]
    if not left_out:
        return "memdir: write the team's tree again in git's own order"
    if len(left_out) > len(lines):
        lines.append(f"and {len(left_out) - len(lines)} more")
    head = f"memdir: leave out {len(left_out)} entries of the team's tree no memory folder may hold"
    return f"{head}\n\n" + "\n".join(lines)
