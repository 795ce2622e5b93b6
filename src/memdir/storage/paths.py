"""Project identity and the layout of a memory home.

A project is identified by its canonical git root, so every worktree of one
repository shares one memory: a ``.git`` *file* points (``gitdir:``) at a
per-worktree directory whose ``commondir`` names the shared ``.git``. A
submodule's ``gitdir`` has no ``commondir``: it is its own project. Outside
git, the directory itself is the project.

The slug follows Claude Code's rule byte for byte (every character outside
``[A-Za-z0-9]`` becomes ``-``; past 200 characters, the first 200 plus ``-``
and a base-36 djb2 hash of the full path), so the Claude profile reads and
writes the same folders. Because two roots can share a slug (``/a/b-c`` and
``/a/b/c``), the folder records the root it was made for and refuses another.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from dataclasses import dataclass
from pathlib import Path

from memdir.errors import ProjectMismatch

__all__ = ["ROOT_RECORD", "Layout", "find_project_root", "make_layout", "slugify"]

MAX_SLUG = 200
ROOT_RECORD = ".memdir-root"
_NON_ALNUM = re.compile(r"[^A-Za-z0-9]")


def _djb2_base36(text: str) -> str:
    value = 0
    data = text.encode("utf-16-le")  # JavaScript hashes UTF-16 code units
    for i in range(0, len(data), 2):
        code = data[i] | (data[i + 1] << 8)
        value = ((value << 5) - value + code) & 0xFFFFFFFF
    if value >= 0x80000000:
        value -= 0x100000000
    value = abs(value)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        value, rem = divmod(value, 36)
        out = digits[rem] + out
        if value == 0:
            return out


def slugify(path: str | Path) -> str:
    """The project folder name for ``path`` (Claude Code's ``sanitizePath``)."""
    text = str(path)
    slug = _NON_ALNUM.sub("-", text)
    if len(slug) <= MAX_SLUG:
        return slug
    return f"{slug[:MAX_SLUG]}-{_djb2_base36(text)}"


def _read_gitdir(dotgit: Path) -> Path | None:
    try:
        text = dotgit.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    return (dotgit.parent / target).resolve() if not target.is_absolute() else target.resolve()


def _root_for(directory: Path) -> Path:
    dotgit = directory / ".git"
    if dotgit.is_dir():
        return directory
    gitdir = _read_gitdir(dotgit)
    if gitdir is None:
        return directory
    commondir_file = gitdir / "commondir"
    try:
        common = Path(commondir_file.read_text(encoding="utf-8").strip())
    except OSError:
        return directory  # a submodule or a plain gitdir link: its own project
    common = (gitdir / common).resolve() if not common.is_absolute() else common.resolve()
    return common.parent if common.name == ".git" else directory


def find_project_root(start: str | Path = ".") -> Path:
    """The canonical project root for ``start``: its git root, or itself."""
    here = Path(os.path.realpath(Path(start).expanduser()))
    if here.is_file():
        here = here.parent
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return Path(os.path.realpath(_root_for(candidate)))
    return here


@dataclass(frozen=True, kw_only=True)
class Layout:
    """Where everything of one project lives under a memory home."""

    home: Path
    project_root: Path
    slug: str

    @property
    def project_dir(self) -> Path:
        return self.home / "projects" / self.slug

    @property
    def memory_dir(self) -> Path:
        return self.project_dir / "memory"

    @property
    def team_dir(self) -> Path:
        return self.memory_dir / "team"

    @property
    def logs_dir(self) -> Path:
        return self.memory_dir / "logs"

    @property
    def private_excluded(self) -> frozenset[str]:
        """Folders inside the memory directory that the private scope does not own."""
        return frozenset(
            p.relative_to(self.memory_dir).as_posix() for p in (self.team_dir, self.logs_dir)
        )

    @property
    def sessions_dir(self) -> Path:
        return self.project_dir / "sessions"

    @property
    def state_dir(self) -> Path:
        """Derived, rebuildable state (search index, caches, locks)."""
        return self.project_dir / ".memdir"

    @property
    def trash_dir(self) -> Path:
        return self.project_dir / ".trash"

    @property
    def lock_dir(self) -> Path:
        return self.state_dir / "locks"

    def session_dir(self, session_id: str) -> Path:
        from memdir.storage.fs import safe_join

        return safe_join(self.sessions_dir, session_id)

    def session_notes_path(self, session_id: str) -> Path:
        return self.session_dir(session_id) / "session-memory" / "summary.md"

    def log_path(self, day: dt.date) -> Path:
        from memdir.storage.dailylog import log_path

        return log_path(self.logs_dir, day)

    def claim(self) -> None:
        """Record this project's root in its folder; refuse a folder made for another."""
        from memdir.storage.fs import atomic_write, ensure_dir

        record = self.project_dir / ROOT_RECORD
        # As bytes: a project path need not be UTF-8 (os.fsencode keeps its bytes).
        root = os.fsencode(self.project_root)
        try:
            recorded = record.read_bytes().strip()
        except FileNotFoundError:
            ensure_dir(self.project_dir)
            atomic_write(record, root + b"\n")
            return
        if recorded and recorded != root:
            raise ProjectMismatch(
                f"this memory folder belongs to {os.fsdecode(recorded)!r}, not "
                f"{str(self.project_root)!r} "
                "(both map to the same folder name)",
                path=self.project_dir,
                hint="open memdir with a different MEMDIR_HOME for one of the two projects",
            )


def make_layout(home: Path, project: str | Path = ".") -> Layout:
    """The layout of ``project`` (any directory inside it) under ``home``."""
    root = find_project_root(project)
    return Layout(home=Path(home), project_root=root, slug=slugify(root))
