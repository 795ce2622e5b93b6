"""A merge settled with whole versions, never markers, and what it brought recorded.

Shared by team sync (:mod:`memdir.team.incoming`) and private sync
(:mod:`memdir.sync`): both merge a fetched branch into a memory folder that is
a git work tree, and both settle a conflicted path the same way:

* ``MEMORY.md`` (at any depth) takes the union of both sides' lines
  (:func:`memdir.team.index_union.union_index`);
* a file edited on both sides keeps the remote's version in its file and
  this side's as a conflict copy (:mod:`memdir.team.conflicts`);
* an edit beats a delete; a file deleted on both sides stays deleted.

The folder is anything with a ``root``, a :class:`~memdir.team.git.Git`, and
ways to write a file and keep a conflict copy (:class:`MergeTree`):
:class:`~memdir.team.work_tree.TeamTree` and the private folder's tree both
are. :func:`record_incoming` writes what a merge brought into the history, as
one change with each file's author.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from memdir.errors import MemdirError
from memdir.history.provenance import provenance
from memdir.storage.codec import parse_memory
from memdir.storage.memory_index import INDEX_NAME
from memdir.storage.store_apply import FileChange
from memdir.team.git import Git, GitFailed, failure_detail, git_message
from memdir.team.index_union import union_index
from memdir.team.reports import ConflictCopy

if TYPE_CHECKING:
    from pathlib import Path

    from memdir.history.versions import History
    from memdir.model import Scope

__all__ = ["MergeTree", "memory_name", "merge_whole", "record_incoming"]

_BOTH_EDITED = (
    "edited on both sides: the remote's version is in the file, yours in the "
    "copy (not shared until you settle it)"
)


class MergeTree(Protocol):
    """A memory folder that is a git work tree, as a merge needs it."""

    @property
    def root(self) -> Path: ...

    @property
    def git(self) -> Git: ...

    def put(self, rel: str, data: str | bytes) -> None: ...

    def conflict_copy(self, rel: str, data: bytes, reason: str) -> str: ...


def merge_whole(
    tree: MergeTree,
    tip: str,
    *,
    unrelated: bool,
    message: str,
    lines_union: Callable[[str], bool] | None = None,
) -> list[ConflictCopy]:
    """Merge ``tip`` into ``HEAD``; each conflicted path settled whole. The conflicts.

    ``lines_union(path)``: besides ``MEMORY.md``, the files that take the union
    of both sides' lines (a daily log appended to on two machines).
    """
    args = ["merge", "--quiet", "--no-edit", "--ff", "-m", message]
    if unrelated:
        # Only on a first sync: a folder that held memories before has its own history.
        args.append("--allow-unrelated-histories")
    result = tree.git.run(*args, tip, check=False)
    if result.ok:
        return []
    unmerged = tree.git.unmerged()
    if not unmerged:
        tree.git.run("merge", "--abort", check=False)
        raise GitFailed(
            f"merging the remote's changes failed: {git_message(result.stderr)}",
            detail=failure_detail(result.stderr),
            path=tree.root,
            hint=f"inspect `git -C {tree.root} status`; your changes are committed locally",
        )
    resolved = []
    for path, stages in sorted(unmerged.items()):
        conflict = _resolve(tree, path, stages, lines_union)
        if conflict is not None:
            resolved.append(conflict)
    lines = "\n".join(
        f"kept both: {c.file}" + (f" -> {c.copy}" if c.copy else "") for c in resolved
    )
    tree.git.commit(f"{message}\n\n{lines}".rstrip())
    return resolved


def _resolve(
    tree: MergeTree,
    path: str,
    stages: dict[int, str],
    lines_union: Callable[[str], bool] | None,
) -> ConflictCopy | None:
    """Resolve one conflicted path with whole versions, never markers."""
    ours, theirs = stages.get(2), stages.get(3)
    union = lines_union is not None and lines_union(path)
    if posixpath.basename(path) == INDEX_NAME or (union and ours and theirs):
        texts = [tree.git.blob(s).decode("utf-8", "replace") for s in (theirs, ours) if s]
        tree.put(path, union_index(texts))
        return None
    if ours is not None and theirs is not None:
        copy = tree.conflict_copy(path, tree.git.blob(ours), _BOTH_EDITED)
        tree.put(path, tree.git.blob(theirs))
        return ConflictCopy(file=path, copy=copy, reason=_BOTH_EDITED)
    kept = ours or theirs
    if kept is None:  # deleted on both sides
        tree.git.run("rm", "--quiet", "--cached", "--ignore-unmatch", "--", path)
        return None
    tree.put(path, tree.git.blob(kept))
    side = "the remote" if ours is not None else "this clone"
    return ConflictCopy(
        file=path,
        copy=None,
        reason=f"deleted by {side} but edited by the other: the edit was kept",
    )


def record_incoming(
    history: History | None,
    git: Git,
    scope: Scope,
    span: tuple[str | None, str],
    changes: list[tuple[str, str]],
    *,
    wanted: Callable[[str], bool] = lambda path: path.endswith(".md"),
) -> None:
    """Record what a merge brought in the history: one change, each file's author.

    ``span`` is (our commit before the merge, the merge commit): the text
    before comes from the first, the text after from the second (what git
    holds, whatever later steps move out). Only paths ``wanted`` says are
    memories are recorded.
    """
    before, after = span
    if history is None or not changes:
        return
    with provenance(route="sync"), history.change_set("sync"):
        for status, path in changes:
            if not wanted(path):
                continue
            old = None if before is None or status == "A" else git.blob(f"{before}:{path}")
            new = None if status == "D" else git.blob(f"{after}:{path}")
            author = git.run(
                "log", "-1", "--format=%an <%ae>", after, "--", path, check=False
            ).stdout.strip()
            with provenance(user=author or None):
                history.record(
                    FileChange(
                        scope=scope,
                        file=path,
                        action="sync",
                        name=memory_name(new if new is not None else old),
                        before=old,
                        after=new,
                    )
                )


def memory_name(data: bytes | None) -> str | None:
    """The name in a memory file's frontmatter, for the history (None when unreadable)."""
    if data is None:
        return None
    try:
        return parse_memory(data.decode("utf-8"), path="memory").name or None
    except (MemdirError, UnicodeDecodeError):
        return None
