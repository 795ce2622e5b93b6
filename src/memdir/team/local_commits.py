"""This clone's own changes on their way out: committed only when safe to push.

Step 1 of a sync, :func:`commit_local`, commits what changed in the team
folder (the index repaired first, :mod:`memdir.team.index_repair`), with a
message listing the memories changed. A file that is no memory (only
``*.md`` memories with plain names belong in team memory) is left out,
uncommitted, and reported: it never blocks the memories beside it. The
commit is refused when a file holds a likely secret, in any encoding, or
carries one in its name (:mod:`memdir.team.checks`): nothing is committed
then, and the error names file, line and rule.

When commits that hold a secret were made anyway (by hand, or before a rule
knew the token), the push refuses them and :func:`rewrite` (``memdir team
rewrite-unpushed``) folds every unpushed commit into one without those
files, which go to the quarantine (:mod:`memdir.team.quarantine`). What the
remote has is never touched.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from memdir.storage.memory_index import INDEX_NAME
from memdir.team.checks import (
    Problem,
    display_name,
    is_memory_name,
    name_problems,
    names_problems,
    scan_blob,
)
from memdir.team.index_repair import reconcile_index
from memdir.team.messages import commit_message, refusal, rewrite_message
from memdir.team.outgoing import outgoing_problems
from memdir.team.quarantine import mark_scanned, move_out, scan_files
from memdir.team.reports import Progress, RewriteReport
from memdir.team.secrets import labels_of
from memdir.team.teammate_rules import record_own
from memdir.team.work_tree import REMOTE

if TYPE_CHECKING:
    from memdir.team.work_tree import TeamTree

__all__ = ["commit_local", "rewrite"]


def commit_local(tree: TeamTree, progress: Progress) -> list[str]:
    """Commit what changed in the folder; returns the paths committed.

    A file that is no memory (a ``.txt`` note, a name with a control
    character) is left out, uncommitted, and listed in ``progress.skipped``:
    it never blocks the memories beside it, and is never sent.
    """
    reconcile_index(tree.memdir.team)
    dirty = tree.git.dirty()
    if not dirty:
        return []
    # A deleted file's deletion is committed whatever its name.
    skipped = [rel for rel in dirty if not is_memory_name(rel) and os.path.lexists(tree.root / rel)]
    for rel in skipped:
        shown = display_name(rel)
        if shown not in progress.skipped:
            progress.skipped.append(shown)
    left_out = set(skipped)
    kept = [rel for rel in dirty if rel not in left_out]
    if not kept:
        return []
    _refuse_secrets(tree, kept)
    if skipped:
        # Literal pathspecs, from standard input: any name, any number of them.
        paths = b"".join(os.fsencode(rel) + b"\0" for rel in kept)
        tree.git.run(
            "--literal-pathspecs",
            "add",
            "--all",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
            input=paths,
        )
    else:
        tree.git.run("add", "--all")
    changes = tree.git.staged()
    if not changes:
        return []
    tree.git.commit(commit_message(changes))
    # What this clone commits is this user's: its rules are never held as a teammate's.
    record_own(tree.git, tree.memdir.layout, changes)
    return [path for _, path in changes]


def _refuse_secrets(tree: TeamTree, paths: list[str]) -> None:
    """Refuse to commit a local file that is not a memory or holds a likely secret."""
    problems: list[Problem] = []
    present = [p for p in paths if (tree.root / p).exists() or (tree.root / p).is_symlink()]
    for found in names_problems(present):
        problems += found
    for rel, findings in scan_files(tree.root, paths):
        shown = display_name(rel)
        problems += [Problem(file=shown, line=f.line, rule=f.label) for f in findings]
    if problems:
        raise refusal(tree.root, problems, committed=False)


def rewrite(tree: TeamTree, branch: str) -> RewriteReport:
    """Fold the commits the remote lacks (and what is uncommitted) into one, made safe.

    Run under the team lock, on the last fetched state: the new commit's
    parent is the last remote commit the old ones share.
    """
    head = tree.git.rev("HEAD")
    if head is None:
        return RewriteReport(replaced=0, quarantined=(), commit=None)
    tip = tree.git.rev(f"refs/remotes/{REMOTE}/{branch}")
    base = None
    if tip is not None:
        base = tree.git.run("merge-base", head, tip, check=False).stdout.strip() or None
    outgoing = ["HEAD", "--not", f"--remotes={REMOTE}"]
    replaced = len(tree.git.run("rev-list", *outgoing).stdout.split())
    tree.git.run("add", "--all")
    if replaced == 0 and not tree.git.staged():
        return RewriteReport(replaced=0, quarantined=(), commit=None)  # nothing unpushed
    changed = [rel for status, rel in tree.git.changed_staged(base) if status != "D"]
    moved = []
    for rel in changed:
        labels = [p.rule for p in name_problems(rel)] if rel != INDEX_NAME else []
        path = tree.root / rel
        if not labels and path.is_file() and not path.is_symlink():
            labels = list(labels_of(scan_blob(path.read_bytes())))
        if labels:
            moved.append(move_out(tree, rel, tuple(dict.fromkeys(labels))))
    reconcile_index(tree.memdir.team)
    tree.git.run("add", "--all")
    snapshot = tree.git.run("write-tree").stdout.strip()
    parents = ["-p", base] if base is not None else []
    message = rewrite_message(replaced, moved)
    commit = tree.git.run("commit-tree", snapshot, *parents, "-m", message).stdout.strip()
    tree.git.run("reset", "--quiet", "--soft", commit)
    record_own(tree.git, tree.memdir.layout, tree.git.changed(base, commit))
    mark_scanned(tree)
    left = outgoing_problems(tree.git, REMOTE)
    if left:  # cannot happen unless the folder changed under the lock
        raise refusal(tree.root, left, committed=True)
    return RewriteReport(replaced=replaced, quarantined=tuple(moved), commit=commit)
