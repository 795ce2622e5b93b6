"""Project identity and the layout of a memory home.

A project is identified by its canonical git root, so every worktree of one
repository shares one memory: a ``.git`` *file* points (``gitdir:``) at a
per-worktree directory whose ``commondir`` names the shared ``.git``. A
submodule's ``gitdir`` has no ``commondir``: it is its own project. Outside
git, the directory itself is the project.

The folder's name is the root's slug by Claude Code's rule
(:func:`memdir.storage.claude.slugify`), so the Claude profile reads and
writes the same folders; :mod:`memdir.storage.claude` adds Claude Code's
overrides.
Because two roots can share a slug (``/a/b-c`` and ``/a/b/c``), the folder
records the root it was made for and refuses another.
"""

from __future__ import annotations

import os
from pathlib import Path

from memdir.errors import ProjectMismatch, StorageError
from memdir.storage.claude import claude_location, slugify
from memdir.utils.inputs import note, note_chain
from memdir.utils.records import record

# Not typing.TYPE_CHECKING: every hook process finds its project's folders here.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Mapping

__all__ = ["ROOT_RECORD", "Layout", "find_project_root", "make_layout", "under"]

ROOT_RECORD = ".memdir-root"


def under(path: str, root: str) -> bool:
    """Whether the absolute path ``path`` lies inside the folder ``root`` (plain strings)."""
    return path.startswith(root) and path[len(root) : len(root) + 1] == "/"


def _git_marker(directory: Path) -> bool:
    """Whether ``directory/.git`` marks a repository: a file or folder (links followed)."""
    dotgit = directory / ".git"
    note(dotgit)
    try:
        return dotgit.is_dir() or dotgit.is_file()
    except OSError:
        return False


def _read_small(path: Path, *, follow: bool = False) -> str | None:
    """A small pointer file's trimmed text; None when missing, unreadable, or a link
    (unless ``follow``)."""
    note(path)
    try:
        if (path.is_symlink() and not follow) or not path.is_file():
            return None
        return path.read_text(encoding="utf-8", errors="surrogateescape").strip()
    except OSError:
        return None


def _root_for(directory: Path) -> Path:
    """The main repository root a linked worktree at ``directory`` belongs to.

    The mapping holds only when three pointers agree: the worktree's ``.git``
    file names a ``gitdir`` that lies in ``<common>/worktrees/``, that folder's
    ``commondir`` names ``<common>``, and its ``gitdir`` file points back at this
    worktree's ``.git``. A submodule (no ``commondir``) or a worktree moved by
    hand (pointers disagree) is its own project. For a worktree of a bare
    repository, the root is the bare repository's folder itself.
    """
    text = _read_small(directory / ".git", follow=True)
    if text is None or not text.startswith("gitdir:"):
        return directory
    gitdir = Path(os.path.normpath(directory / text[len("gitdir:") :].strip()))
    common_text = _read_small(gitdir / "commondir")
    back = _read_small(gitdir / "gitdir")
    if not common_text or not back:
        return directory
    common = Path(os.path.normpath(gitdir / common_text))
    if Path(os.path.normpath(gitdir.parent)) != common / "worktrees":
        return directory
    note_chain(gitdir / back)
    note_chain(directory)
    pointed = Path(os.path.realpath(gitdir / back))
    if pointed != Path(os.path.realpath(directory)) / ".git":
        return directory
    if common.name != ".git":
        return directory if _git_marker(common) else common
    return common.parent


def find_project_root(start: str | Path = ".") -> Path:
    """The canonical project root for ``start``: its git root, or itself."""
    note_chain(start)  # what resolving its links depends on
    here = Path(os.path.realpath(Path(start).expanduser()))
    note_chain(here)
    if here.is_file():
        here = here.parent
    for candidate in (here, *here.parents):
        if _git_marker(candidate):
            return _root_for(candidate)
    return here


@record
class Layout:
    """Where everything of one project lives under a memory home."""

    home: Path
    project_root: Path
    slug: str
    # Where the memory itself lives when it is not ``<project_dir>/memory``
    # (Claude Code's autoMemoryDirectory and remote memory folder).
    memory_root: Path | None = None

    @property
    def project_dir(self) -> Path:
        return self.home / "projects" / self.slug

    @property
    def memory_dir(self) -> Path:
        return self.memory_root if self.memory_root is not None else self.project_dir / "memory"

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
    def history_dir(self) -> Path:
        """Every version of every memory: kept, not derived (not under ``state_dir``)."""
        return self.project_dir / "history"

    @property
    def edits_dir(self) -> Path:
        """Where ``memdir edit`` keeps the copy an editor works on (kept if interrupted)."""
        return self.project_dir / "edits"

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

    def claim(self, *, repair: bool = False) -> None:
        """Record this project's root in its folder; refuse a folder made for another.

        A record that cannot be any project's root (not an absolute path, control
        bytes, a path whose folder name is not this one) is damaged, not another
        project's: it is refused with what ``memdir doctor --fix`` does, which
        (``repair``) writes this root in it again.
        """
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
        except IsADirectoryError:
            recorded = None
        damage = self.root_record_damage(recorded)
        if damage is not None:
            if not repair:
                raise StorageError(
                    f"{record} is damaged: {damage}; it should name this project's root, "
                    f"{str(self.project_root)!r}",
                    path=record,
                    hint="run `memdir doctor --fix` to record this project's root in it again",
                )
            if recorded is None:
                from memdir.storage.derived import set_aside

                set_aside(record)
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

    def root_record_damage(self, recorded: bytes | None) -> str | None:
        """What is wrong with ``recorded`` (the root record's bytes, stripped), or None.

        ``None`` (the record is a folder) and anything that cannot be a project
        root this folder was made for are damage; another project's root whose
        folder name is this one's is not (that is a real mismatch).
        """
        if recorded is None:
            return "a folder sits where the file belongs"
        if not recorded:
            return None  # an empty record is claimed by the next writer
        if any(b < 0x20 or b == 0x7F for b in recorded):
            return f"it holds control bytes ({_excerpt(recorded)})"
        if not os.path.isabs(os.fsdecode(recorded)):
            return f"it holds no absolute path ({_excerpt(recorded)})"
        if self.memory_root is None and slugify(os.fsdecode(recorded)) != self.slug:
            return f"its path belongs to another folder name ({_excerpt(recorded)})"
        return None


def _excerpt(data: bytes, limit: int = 48) -> str:
    """The first ``limit`` bytes of ``data``, every byte outside printable ASCII escaped."""
    text = repr(data[:limit])[2:-1]
    return text + ("..." if len(data) > limit else "")


def make_layout(
    home: Path,
    project: str | Path = ".",
    *,
    profile: str = "memdir",
    env: Mapping[str, str] | None = None,
) -> Layout:
    """The layout of ``project`` (any directory inside it) under ``home``.

    With the ``claude`` profile, the folder name and the memory folder follow
    Claude Code's own rules (:mod:`memdir.storage.claude`), environment included.
    """
    root = find_project_root(project)
    if profile != "claude":
        return Layout(home=Path(home), project_root=root, slug=slugify(root))
    where = claude_location(
        root,
        home=Path(home),
        env=os.environ if env is None else env,
        start=Path(os.path.realpath(Path(project).expanduser())),
    )
    return Layout(
        home=Path(home), project_root=root, slug=where.folder, memory_root=where.memory_dir
    )
