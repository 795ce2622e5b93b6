"""Committed team files that must not stay: found by a scan, moved to the quarantine.

A teammate's file is untrusted, and so is one a person committed by hand:
after every merge, :func:`quarantine` reads each file committed since the
last commit found clean (``refs/memdir/scanned``, local, never pushed; all
files the first time). A file with a likely secret in its bytes (any
encoding, :func:`memdir.team.checks.scan_blobs`) or a name that is no plain
memory name (or carries a secret) is moved by :func:`move_out` to
``<project dir>/.quarantine/<date>/`` under a name safe on any file system,
its removal staged and its index line dropped, so a hostile name never
reaches an index line. The ref survives an interrupted sync: a file that
arrived then is still scanned by the next one. :func:`keep_blob` copies there
a teammate's tree entry that was never taken in (:mod:`memdir.team.remote_tree`).

:func:`scan_files` is the one reader of the folder's bytes for secrets; the
commit of local changes uses it too (:mod:`memdir.team.local_commits`).
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
from contextlib import suppress
from typing import TYPE_CHECKING

from memdir.storage.fs import atomic_write, ensure_dir, safe_join
from memdir.storage.memory_index import INDEX_NAME, remove_entry
from memdir.team.checks import display_name, is_memory_name, names_problems, scan_blobs
from memdir.team.reports import QuarantinedFile
from memdir.team.secrets import Finding, labels_of

if TYPE_CHECKING:
    from pathlib import Path

    from memdir.team.work_tree import TeamTree

__all__ = ["keep_blob", "mark_scanned", "move_out", "quarantine", "scan_files"]

# The last commit whose files were all found free of secrets (local, never pushed).
_SCANNED_REF = "refs/memdir/scanned"


def quarantine(tree: TeamTree) -> list[QuarantinedFile]:
    """Move every committed file holding a likely secret out of the folder.

    Only files changed since the last commit found clean are read (all of
    them the first time): the ref survives an interrupted sync, so a file
    that arrived then is still scanned by the next one.
    """
    head = tree.git.rev("HEAD")
    if head is None:
        return []
    clean = tree.git.rev(_SCANNED_REF)
    if clean is None:
        paths = tree.git.run("ls-files", "-z").paths()
    else:
        paths = [p for status, p in tree.git.changed(clean, head) if status != "D"]
    moved = []
    for rel, problems in zip(paths, names_problems(paths), strict=True):
        # A teammate's name is untrusted: one that is no plain memory name
        # (or carries a secret) never reaches an index line.
        if problems and rel != INDEX_NAME:
            moved.append(move_out(tree, rel, tuple(dict.fromkeys(p.rule for p in problems))))
    paths = [rel for rel in paths if rel == INDEX_NAME or is_memory_name(rel)]
    moved += [move_out(tree, rel, labels_of(found)) for rel, found in scan_files(tree.root, paths)]
    return moved


def mark_scanned(tree: TeamTree) -> None:
    """Record ``HEAD`` as the last commit whose files were all found clean."""
    head = tree.git.rev("HEAD")
    if head is not None:
        tree.git.run("update-ref", _SCANNED_REF, head)


def scan_files(root: Path, paths: list[str]) -> list[tuple[str, list[Finding]]]:
    """Each regular file among ``paths`` (symlinks skipped) with likely secrets.

    Bytes are decoded whatever their encoding (binary included), all files
    in one scan; names are checked by :func:`memdir.team.checks.names_problems`.
    """
    read: list[tuple[str, bytes]] = []
    for rel in paths:
        path = root / rel
        if path.is_file() and not path.is_symlink():
            with suppress(FileNotFoundError):  # deleted since the listing
                read.append((rel, path.read_bytes()))
    found = scan_blobs([data for _, data in read])
    return [(rel, fs) for (rel, _), fs in zip(read, found, strict=True) if fs]


def move_out(tree: TeamTree, rel: str, labels: tuple[str, ...]) -> QuarantinedFile:
    """Move a committed file out of the team folder, into the project's quarantine."""
    target = _free_target(tree, rel)
    source = tree.root / rel
    if source.exists() or source.is_symlink():
        shutil.move(source, target)
    tree.git.run("rm", "--quiet", "--cached", "--ignore-unmatch", "--", rel)
    index = tree.memdir.team.read_index()
    if index:
        atomic_write(tree.memdir.team.index_path, remove_entry(index, file=rel))
    return QuarantinedFile(file=display_name(rel), moved_to=target, labels=labels)


def keep_blob(tree: TeamTree, rel: str, sha: str, labels: tuple[str, ...]) -> QuarantinedFile:
    """Copy a blob the folder never held (a teammate's tree entry) into the quarantine.

    Read with ``git cat-file``, streamed: no checkout, no attribute, any size.
    """
    target = _free_target(tree, rel)
    tree.git.blob_to(sha, target)
    return QuarantinedFile(file=display_name(rel), moved_to=target, labels=labels)


def _free_target(tree: TeamTree, rel: str) -> Path:
    """A free path for ``rel`` under today's quarantine folder, its folder made."""
    day = tree.memdir.layout.project_dir / ".quarantine" / dt.date.today().isoformat()
    safe = _quarantine_name(rel)
    target, n = safe_join(day, safe), 2
    while os.path.lexists(target):
        target, n = safe_join(day, f"{safe}.{n}"), n + 1
    ensure_dir(target.parent)
    return target


def _quarantine_name(rel: str) -> str:
    """A plain relative path under the quarantine folder for any file name from git."""
    parts = []
    for part in display_name(rel).replace("\\", "_").split("/"):
        part = "".join(ch if ch.isprintable() and ch not in "<>:|" else "_" for ch in part)
        parts.append(("_" + part if part.startswith(".") or not part else part)[:80])
    return "/".join(parts)
