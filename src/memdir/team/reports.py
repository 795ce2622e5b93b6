"""What the team commands report: a sync's changes, conflicts, quarantined files, status.

Plain records, shared by :mod:`memdir.team.sync` (which fills them) and the
command line (which renders them as text or ``--json``). Names that came
from a remote are display-safe here (see :func:`memdir.team.checks.display_name`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from memdir.team.checks import display_name, is_memory_name
from memdir.team.conflicts import PendingConflict

__all__ = [
    "ConflictCopy",
    "InitResult",
    "Progress",
    "QuarantinedFile",
    "RefusedEntry",
    "RewriteReport",
    "SyncReport",
    "SyncTally",
    "SyncedFiles",
    "TeamStatus",
]


@dataclass(frozen=True, kw_only=True)
class ConflictCopy:
    """A file both sides changed in ways git could not merge.

    ``file`` holds the remote's version; ``copy`` (when not None) holds the
    local version as a separate memory. ``reason`` says what happened.
    """

    file: str
    copy: str | None
    reason: str


@dataclass(frozen=True, kw_only=True)
class QuarantinedFile:
    """A file that arrived with a likely secret, moved out of the team folder."""

    file: str
    moved_to: Path
    labels: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class RefusedEntry:
    """An entry of a teammate's tree not taken in, with no bytes to keep: a folder no
    memory folder may hold (``.git``, ``..``), a submodule. ``file`` is display-safe."""

    file: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class SyncedFiles:
    """The files one sync moved, team or private (its report's first fields, in order).

    ``committed``: local changes (added, modified, deleted) committed now;
    ``pulled``: files the remote added or changed; ``deleted``: files the
    remote deleted; ``conflicts``: files both sides changed.
    """

    remote: str
    branch: str
    committed: tuple[str, ...] = ()
    pulled: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    conflicts: tuple[ConflictCopy, ...] = ()


@dataclass(frozen=True, kw_only=True)
class SyncReport(SyncedFiles):
    """What one sync did. Paths are relative to the team folder.

    The files as in :class:`SyncedFiles`; ``pushed``: whether commits were
    sent; ``retries``: how many pushes were refused because someone else pushed first;
    ``rewritten``: the remote's history was rewritten (a purge) and adopted,
    nothing was pushed, local unpushed changes are in ``conflicts`` as copies;
    ``recovered``: what was cleared first (a stale lock, a half-done merge);
    ``skipped``: local files that are no memories, left out (display-safe names);
    ``refused``: entries of the remote's tree not taken in that had no bytes to
    quarantine (:mod:`memdir.team.remote_tree`; the rest are in ``quarantined``).
    """

    quarantined: tuple[QuarantinedFile, ...] = ()
    pushed: bool = False
    retries: int = 0
    rewritten: bool = False
    recovered: str = ""
    skipped: tuple[str, ...] = ()
    refused: tuple[RefusedEntry, ...] = ()


@dataclass(frozen=True, kw_only=True)
class RewriteReport:
    """What ``team rewrite-unpushed`` did: commits replaced, files moved out."""

    replaced: int
    quarantined: tuple[QuarantinedFile, ...]
    commit: str | None


@dataclass(frozen=True, kw_only=True)
class InitResult:
    """What ``team init`` did: the remote, whether this clone published the
    first commit, whether the folder was already set up, its first sync."""

    remote: str
    branch: str
    published: bool
    already: bool
    sync: SyncReport
    hook: Path | None = None


@dataclass(frozen=True, kw_only=True)
class TeamStatus:
    """Where the team folder stands against its remote.

    ``ahead``/``behind`` count commits against the remote branch as last
    fetched (``fetched`` says whether that fetch was just now);
    ``unsynced_files`` are changed locally and not yet pushed;
    ``conflicts`` are the conflict copies not settled yet (``memdir team
    resolve``); ``pending_review`` counts agents' team changes awaiting review;
    ``stuck`` says what an interrupted git command left (the next sync clears it).
    """

    initialized: bool
    remote: str | None
    branch: str | None
    ahead: int
    behind: int
    unsynced_files: tuple[str, ...]
    fetched: bool
    conflicts: tuple[PendingConflict, ...] = ()
    pending_review: int = 0
    stuck: str = ""  # what stops the next git command (a stale lock...), "" when nothing


@dataclass(kw_only=True)
class SyncTally:
    """What a sync, team or private, has done so far to the files and with its pushes."""

    committed: list[str] = field(default_factory=list)
    pulled: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    conflicts: list[ConflictCopy] = field(default_factory=list)
    pushed: bool = False
    retries: int = 0


@dataclass(kw_only=True)
class Progress(SyncTally):
    """What a team sync has done so far (the mutable side of :class:`SyncReport`)."""

    quarantined: list[QuarantinedFile] = field(default_factory=list)
    first: bool = False  # the first sync of `team init`: unrelated histories merge
    rewritten: bool = False
    recovered: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # display names
    refused: list[RefusedEntry] = field(default_factory=list)

    def report(self, remote: str, branch: str) -> SyncReport:
        # Names from the remote are untrusted: only plain memory names are
        # listed as they are; every other one was quarantined (and is shown
        # there with control characters escaped and secrets redacted).
        gone = {q.file for q in self.quarantined}
        pulled = [
            p
            for p in dict.fromkeys(self.pulled)
            if p not in gone and is_memory_name(p) and display_name(p) == p
        ]
        conflicts = [
            replace(c, file=display_name(c.file), copy=c.copy and display_name(c.copy))
            for c in self.conflicts
        ]
        return SyncReport(
            remote=remote,
            branch=branch,
            committed=tuple(dict.fromkeys(self.committed)),
            pulled=tuple(pulled),
            deleted=tuple(display_name(p) for p in dict.fromkeys(self.deleted)),
            conflicts=tuple(conflicts),
            quarantined=tuple(self.quarantined),
            pushed=self.pushed,
            retries=self.retries,
            rewritten=self.rewritten,
            recovered="; ".join(self.recovered),
            skipped=tuple(self.skipped),
            refused=tuple(self.refused),
        )
