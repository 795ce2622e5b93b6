"""Team sync health, for ``memdir doctor``: wedged state, failures, where the clone stands.

:func:`check_team` looks at the team repository without any network call:

* ``wedged``: a stale git lock, a half-done merge or rebase, an unmerged
  index (:mod:`memdir.team.recovery`); ``fix`` clears it, keeping local work;
* ``sync-failed``: the last sync failed (:mod:`memdir.team.sync_record`),
  with its message, git's whole error output and the next step;
* ``conflict-copy``: a conflict copy not settled yet (``memdir team resolve``);
* ``sync-status`` (information): commits ahead of and behind the remote
  branch as last fetched, and when the last sync succeeded.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memdir.errors import MemdirError
from memdir.team import recovery
from memdir.team.conflicts import pending_conflicts
from memdir.team.git import Git
from memdir.team.sync import REMOTE, recover_team
from memdir.team.sync_record import read_record

if TYPE_CHECKING:
    from memdir.storage.project import ProjectMemory

__all__ = ["TeamFinding", "check_team"]


@dataclass(frozen=True, kw_only=True)
class TeamFinding:
    """One thing doctor says about team sync; ``info`` ones never fail the report."""

    problem: str
    message: str
    fix: str = ""
    fixed: bool = False
    info: bool = False

    @property
    def ok(self) -> bool:
        return self.fixed or self.info


def _when(stamp: float | None) -> str:
    if stamp is None:
        return "never"
    return dt.datetime.fromtimestamp(stamp, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def check_team(memdir: ProjectMemory, *, fix: bool = False) -> list[TeamFinding]:
    """What is wrong with (or worth knowing about) this clone's team sync."""
    root = memdir.layout.team_dir
    if not (root / ".git").is_dir():
        return []
    git = Git(root)
    out: list[TeamFinding] = []
    wedge = recovery.inspect(git)
    if wedge.wedged and fix:
        try:
            done = recover_team(memdir)
        except MemdirError as exc:
            out.append(
                TeamFinding(
                    problem="wedged",
                    message=f"{wedge.describe()}: {exc.message}",
                    fix=exc.hint or "",
                )
            )
        else:
            out.append(
                TeamFinding(
                    problem="wedged",
                    message=f"the team repository was stuck ({wedge.describe()}): "
                    f"{done.describe() or 'cleared'}",
                    fixed=True,
                )
            )
    elif wedge.wedged:
        out.append(
            TeamFinding(
                problem="wedged",
                message=f"the team repository is stuck: {wedge.describe()}",
                fix="`memdir doctor --fix` (or the next `memdir team sync`) clears it and "
                "keeps every local change",
            )
        )
    record = read_record(memdir.layout)
    if record.failing:
        said = f"; git said: {record.detail}" if record.detail else ""
        out.append(
            TeamFinding(
                problem="sync-failed",
                message=f"the last team sync failed at {_when(record.last_failure)} "
                f"(last success: {_when(record.last_success)}): {record.message}{said}",
                fix=record.hint or "run `memdir team sync` again",
            )
        )
    for conflict in pending_conflicts(root):
        out.append(
            TeamFinding(
                problem="conflict-copy",
                message=f"{conflict.copy} is an unsettled conflict copy of {conflict.file} "
                f"(kept here, never pushed): {conflict.reason}",
                fix=f"`memdir team resolve {conflict.copy} --keep mine|theirs|both`",
            )
        )
    out.append(_standing(git, record.last_success))
    return out


def _standing(git: Git, last_success: float | None) -> TeamFinding:
    """Ahead/behind against the remote branch as last fetched (no network)."""
    branch = git.run("symbolic-ref", "--quiet", "--short", "HEAD", check=False).stdout.strip()
    tip = git.rev(f"refs/remotes/{REMOTE}/{branch}") if branch else None
    head = git.rev("HEAD")
    if tip is None or head is None:
        where = "nothing shared yet"
    else:
        counts = git.run("rev-list", "--left-right", "--count", f"{head}...{tip}", check=False)
        ahead, behind = (int(n) for n in (counts.stdout.split() or ["0", "0"]))
        where = f"{ahead} ahead, {behind} behind {REMOTE}/{branch} as last fetched"
    return TeamFinding(
        problem="sync-status",
        message=f"team sync: {where}; last success {_when(last_success)}",
        info=True,
    )
