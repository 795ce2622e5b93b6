"""A scratch copy of a project's memory, and the diff between two memory folders.

A dry run and a proposal run consolidation on :func:`scratch_copy`: the same
project and settings under a temporary home, the memory folder copied in
(links kept as links; the store refuses any that escape), with a ``manual``
scope made ``auto`` there so the run's changes land in the copy, where they
become the proposal a person reviews. :func:`tree_diff` is the unified diff
from one folder to another, dot-files and dot-folders left out.
"""

from __future__ import annotations

import difflib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from memdir.agents.consolidate.gates import LOCK_NAME
from memdir.config import Settings
from memdir.history.project import ProjectMemory
from memdir.storage.paths import make_layout
from memdir.utils.records import record_fields

__all__ = ["scratch_copy", "tree_diff"]

_NO_NEWLINE = "\\ No newline at end of file"


def scratch_copy(memdir: ProjectMemory, home: Path) -> ProjectMemory:
    """A ProjectMemory with the same project and settings under ``home``, memories copied in."""
    overrides = {name: getattr(memdir.settings, name) for name in record_fields(Settings)}
    overrides["home"] = home
    # The copy applies what a manual scope would hold for review: the run's changes
    # are the proposal a person reviews. A read-only scope stays read-only.
    for key in ("review_private", "review_team"):
        if overrides[key] == "manual":
            overrides[key] = "auto"
    # An empty settings file: every setting is passed explicitly, none is read again.
    settings = Settings(**overrides)
    layout = make_layout(home, memdir.layout.project_root)
    layout.claim()
    scratch = ProjectMemory(
        layout=layout,
        settings=settings,
        env={"MEMDIR_CONFIG": os.devnull},
        team_guard=memdir.team.guard,
        private_guard=memdir.private.guard,
    )
    scratch.private.ensure()
    scratch.team.ensure()
    shutil.copytree(
        memdir.layout.memory_dir,
        scratch.layout.memory_dir,
        symlinks=True,  # links stay links; the store's confinement refuses any that escape
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns(LOCK_NAME, ".*.tmp", ".git"),
    )
    return scratch


def tree_diff(before: Path, after: Path) -> str:
    """The unified diff from ``before`` to ``after`` (dot-files and dot-folders left out)."""
    files = sorted(set(_tree_files(before)) | set(_tree_files(after)))
    chunks = [_file_diff(before, after, rel) for rel in files]
    return "".join(chunk for chunk in chunks if chunk)


def _tree_files(root: Path) -> Iterator[str]:
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if path.is_file() and not any(part.startswith(".") for part in rel.parts):
            yield rel.as_posix()


def _file_diff(before: Path, after: Path, rel: str) -> str:
    old, new = _read_or_none(before / rel), _read_or_none(after / rel)
    if old == new:
        return ""
    if old is not None and new is not None and (b"\0" in old or b"\0" in new):
        return f"Binary files a/{rel} and b/{rel} differ\n"
    lines = difflib.unified_diff(
        _lines(old),
        _lines(new),
        fromfile=f"a/{rel}" if old is not None else "/dev/null",
        tofile=f"b/{rel}" if new is not None else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else f"{line}\n{_NO_NEWLINE}\n" for line in lines)


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None


def _lines(data: bytes | None) -> list[str]:
    return [] if data is None else data.decode("utf-8", "replace").splitlines(keepends=True)
