"""What the remote's branch brings in: merged without markers, recorded, re-scanned.

:func:`integrate` is step 2 and 3 of a sync, on the fetched branch:

* the remote's tree is judged entry by entry first
  (:mod:`memdir.team.remote_tree`): what a memory folder may not hold (``..``,
  ``.git``, ``.gitattributes``, a link, a submodule, a memory over the size
  limit) is quarantined or reported and left out, by merging a commit of this
  clone's own on top of the remote's, so nothing of it is ever checked out;
* a normal merge (published history is never rewritten; :mod:`memdir.team.merge`,
  shared with private sync). A conflicted path
  is settled with whole versions, never markers: a memory edited on both
  sides keeps the remote's version in its file and this clone's as a
  conflict copy (:mod:`memdir.team.conflicts`); an edit beats a delete;
  ``MEMORY.md`` takes the union of both sides' lines
  (:func:`memdir.team.index_union.union_index`). Unrelated histories merge
  only on the first sync of ``team init``;
* a remote whose history no longer holds the commit this clone last synced
  with was rewritten (usually to purge a leak): it is adopted as it is
  (``reset --hard``), and what this clone had not pushed is left as conflict
  copies for the user to settle;
* each memory that arrived is screened (:mod:`memdir.screening`): a teammate's
  push is untrusted, so a memory whose text reads as an instruction to the
  agent, hides characters or forges a frame is held for review, whatever the
  team's review mode. Its text becomes a pending version in the history, with
  the findings as its reason and the teammate as its author, and the file is
  put back as it was before the merge (or removed, if it is new), in a commit
  of its own, so it reaches no prompt, recall or search here until a person
  approves it (``memdir review approve``). With history off it is quarantined;
* a memory that arrived, or that this clone's edit kept against the remote's
  delete, and that says what the team forgot (a tombstone in the team's
  ``FORGOTTEN.jsonl``, :mod:`memdir.history.tombstones`, which arrives with
  the merge, and when both sides changed it takes both sides' lines) is held
  the same way, with the reason "re-learns a forgotten memory": a teammate's
  stale copy does not bring it back unseen;
* what else arrived is recorded in the history (one change, each file's author),
  teammates' rules are held for review (:mod:`memdir.team.teammate_rules`),
  files that must not stay are quarantined (:mod:`memdir.team.quarantine`)
  and the index is repaired (:mod:`memdir.team.index_repair`), in a commit
  of its own.

This clone's own excluded files (conflict copies, sidecars) that a merge
would overwrite are saved first and put back.
"""

from __future__ import annotations

import posixpath
from dataclasses import replace
from typing import TYPE_CHECKING

from memdir.history.tombstones import FORGOTTEN_NAME
from memdir.model import Scope
from memdir.storage.fs import atomic_write, safe_join
from memdir.storage.memory_index import INDEX_NAME
from memdir.storage.sidecar import SIDECAR_DIR
from memdir.team import recovery
from memdir.team.checks import is_memory_name
from memdir.team.conflicts import CONFLICTS_DIR
from memdir.team.index_repair import reconcile_index
from memdir.team.merge import merge_whole, record_incoming
from memdir.team.messages import repair_message
from memdir.team.pulled import hold_flagged
from memdir.team.quarantine import mark_scanned, move_out, quarantine
from memdir.team.remote_tree import screened_tip
from memdir.team.reports import ConflictCopy, Progress
from memdir.team.teammate_rules import hold_pulled
from memdir.team.work_tree import REMOTE

if TYPE_CHECKING:
    from pathlib import Path

    from memdir.team.work_tree import TeamTree

__all__ = ["integrate"]

_MERGE_MESSAGE = "memdir: merge team memory"


def integrate(tree: TeamTree, branch: str, progress: Progress) -> None:
    """Merge the fetched branch, quarantine secrets, repair the index."""
    tip = tree.git.rev(f"refs/remotes/{REMOTE}/{branch}")
    before = tree.git.rev("HEAD")
    if tip is not None and before is not None and _rewritten(tree, tip, before, branch, progress):
        # What a memory folder may not hold is left out first (remote_tree): never checked out.
        taken = screened_tip(tree, tip, before, progress)
        _adopt_rewritten(tree, taken, before, branch, progress)
        _hold_screened(tree, before, tree.git.changed(before, taken), progress)
        hold_pulled(tree.git, tree.memdir.layout, before, tree.git.changed(before, taken))
        progress.quarantined += quarantine(tree)
        reconcile_index(tree.memdir.team)  # left uncommitted with the copies, for review
        mark_scanned(tree)
        tree.mark_synced(tip)
        return
    kept_here: dict[str, tuple[bytes, Path]] = {}
    if tip is not None and (before is None or not tree.git.is_ancestor(tip, before)):
        taken = screened_tip(tree, tip, before, progress)
        kept_here = _local_only_at_risk(tree, taken)
        conflicts = merge_whole(
            tree,
            taken,
            unrelated=before is None or progress.first,
            message=_MERGE_MESSAGE,
            lines_union=_is_tombstones,
        )
        after = tree.git.rev("HEAD") or taken
        incoming: list[tuple[str, str]] = []
        for status, path in tree.git.changed(before, after):
            if posixpath.basename(path) == INDEX_NAME:
                continue
            (progress.deleted if status == "D" else progress.pulled).append(path)
            incoming.append((status, path))
        stale = _kept_against_a_delete(tree, taken, conflicts)
        held = _hold_screened(tree, before, [*incoming, *stale], progress)
        progress.conflicts += [_forgotten_conflict(c, held) for c in conflicts]
        kept = [c for c in incoming if c[1] not in held]
        record_incoming(tree.memdir.history_db, tree.git, Scope.TEAM, (before, after), kept)
        hold_pulled(tree.git, tree.memdir.layout, before, incoming)
    quarantined = quarantine(tree)
    progress.quarantined += quarantined
    for rel, (data, saved) in kept_here.items():  # the pushed one was quarantined
        atomic_write(safe_join(tree.root, rel), data)
        recovery.drop_copy(saved, tree.rescue_dir)
    if reconcile_index(tree.memdir.team) or quarantined:
        # The index only (quarantined files are unstaged already): a file sync
        # leaves out (a .txt note) must not ride along in the repair commit.
        tree.git.run("add", "--all", "--", INDEX_NAME, check=False)
        if tree.git.staged():
            tree.git.commit(repair_message(quarantined))
    mark_scanned(tree)
    if tip is not None and tree.git.is_ancestor(tip, "HEAD"):
        tree.mark_synced(tip)


def _hold_screened(
    tree: TeamTree, before: str | None, changes: list[tuple[str, str]], progress: Progress
) -> dict[str, str]:
    """Hold each memory that arrived and that screening flags (:mod:`memdir.team.pulled`);
    returns path -> reason. With history off it is quarantined."""

    def keep_aside(path: str, data: bytes, reason: str) -> None:
        progress.quarantined.append(move_out(tree, path, (f"held for review: {reason}",)))

    held = hold_flagged(
        tree,
        tree.memdir,
        Scope.TEAM,
        before,
        changes,
        is_memory=is_memory_name,
        keep_aside=keep_aside,
    )
    progress.pulled[:] = [p for p in progress.pulled if p not in held]
    return held


def _is_tombstones(path: str) -> bool:
    """The team's tombstones: two clones' concurrent additions merge as both sides' lines."""
    return path == FORGOTTEN_NAME


def _kept_against_a_delete(
    tree: TeamTree, tip: str, conflicts: list[ConflictCopy]
) -> list[tuple[str, str]]:
    """The files this clone's edit kept though the remote (``tip``) deleted them, as new.

    Judged as if they arrived: one the team forgot in the meantime is this
    clone's stale copy, and is held rather than pushed back.
    """
    kept = []
    for conflict in conflicts:
        if conflict.copy is not None or not (tree.root / conflict.file).is_file():
            continue
        present = tree.git.run("cat-file", "-e", f"{tip}:{conflict.file}", check=False)
        if not present.ok:
            kept.append(("A", conflict.file))
    return kept


def _forgotten_conflict(conflict: ConflictCopy, held: dict[str, str]) -> ConflictCopy:
    """The conflict as the report says it: a stale copy of a forgotten memory is held."""
    reason = held.get(conflict.file)
    if conflict.copy is not None or reason is None:
        return conflict
    return replace(
        conflict,
        reason=f"deleted by the remote, edited here: held for review, as it {reason}",
    )


def _local_only_at_risk(tree: TeamTree, tip: str) -> dict[str, tuple[bytes, Path]]:
    """This clone's own excluded files (conflict copies, sidecars) the remote also has.

    git treats an ignored file as expendable and overwrites it when a merge
    brings a file of that name (only a hand-made push can: such names are
    quarantined). Their bytes are kept, saved to the rescue folder first,
    and put back once the pushed file is quarantined.
    """
    names = tree.git.run("ls-tree", "-r", "-z", "--name-only", tip).paths()
    head = tree.git.rev("HEAD")
    ours = set(tree.git.run("ls-tree", "-r", "-z", "--name-only", head).paths()) if head else set()
    kept = {}
    for rel in names:
        parts = rel.split("/")
        if not any(p in (CONFLICTS_DIR, SIDECAR_DIR) for p in parts[:-1]) or rel in ours:
            continue
        path = tree.root / rel
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            kept[rel] = (data, recovery.save_copy(tree.rescue_dir, rel, data))
    return kept


def _rewritten(tree: TeamTree, tip: str, head: str, branch: str, progress: Progress) -> bool:
    """Whether the remote's history no longer holds what this clone last synced with.

    Without a record of that (a clone never synced by this version), only
    unrelated histories count, and they are merged only on the first sync
    of ``team init`` (a folder that held memories before it).
    """
    synced = tree.synced_base(branch)
    if synced is not None:
        return not tree.git.is_ancestor(synced, tip)
    if progress.first:
        return False
    return tree.git.run("merge-base", head, tip, check=False).stdout.strip() == ""


def _adopt_rewritten(
    tree: TeamTree, tip: str, before: str, branch: str, progress: Progress
) -> None:
    """Take the rewritten remote as it is; local unpushed changes become copies.

    The copies are left uncommitted: the user reviews them (a purge may
    have removed that very content) before the next sync shares them.
    """
    synced = tree.synced_base(branch)
    if synced is None:
        found = tree.git.run("merge-base", before, tip, check=False).stdout.strip()
        synced = found or None
    kept: list[tuple[str, bytes]] = []
    for status, rel in tree.git.changed(synced, before):
        if status == "D" or posixpath.basename(rel) == INDEX_NAME:
            continue
        ours = tree.git.run("rev-parse", f"{before}:{rel}").stdout.strip()
        theirs = tree.git.run("rev-parse", "--verify", "--quiet", f"{tip}:{rel}", check=False)
        if theirs.stdout.strip() != ours and is_memory_name(rel):
            kept.append((rel, tree.git.blob(ours)))
    # The copies first: they live in the excluded .conflicts/ folder, which the
    # reset leaves alone, so a sync killed between the two loses no local version.
    reason = (
        "the remote's history was rewritten; your unpushed version is in the copy, "
        "not shared: settle it with `memdir team resolve FILE --keep mine|theirs|both`"
    )
    for rel, data in kept:
        copy = tree.conflict_copy(rel, data, reason)
        progress.conflicts.append(ConflictCopy(file=rel, copy=copy, reason=reason))
    tree.git.run("reset", "--quiet", "--hard", tip)
    progress.rewritten = True
