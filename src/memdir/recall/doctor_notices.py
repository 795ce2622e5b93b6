"""What doctor counts for a person: the work waiting, each with the command that settles it.

With ``notices``, :func:`~memdir.recall.doctor.diagnose` adds these to its report:
agents' changes awaiting review, memories that expired (or left unused), memories
whose check against the code failed or is old, the index entries a session start
leaves out (``memdir prompt --left-out`` lists them), and team memory synced
without a git identity (its commits then carry a stand-in author). They are
information, never a failure.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from memdir.history.project import ProjectMemory
from memdir.recall.expiry import expired
from memdir.recall.freshness import describe, needs_recheck, read_checks
from memdir.recall.index_fit import LEFT_OUT_COMMAND
from memdir.recall.start_index import StartView

__all__ = ["Notice", "notices"]


@dataclass(frozen=True, kw_only=True)
class Notice:
    """Something waiting for a person: how many, what, and the command that settles it."""

    kind: str  # pending-review, pending-proposal, expired, recheck
    count: int
    message: str
    fix: str
    items: tuple[str, ...] = ()  # the first few, named


_NAMED = 5


def notices(
    memdir: ProjectMemory, *, now: float | None = None, view: StartView | None = None
) -> list[Notice]:
    """What waits for a person: reviews, expired memories, checks to redo, and (given
    the session start's ``view``) the index entries a session start leaves out."""
    from memdir.history.pending import pending_count

    now = time.time() if now is None else now
    waiting = pending_count(memdir)
    gone = expired(memdir)
    left = view.left_out if view is not None else ()
    due = needs_recheck(
        read_checks(memdir.layout.state_dir), now=now, max_age_days=memdir.settings.freshness_days
    )
    found = [
        Notice(
            kind="pending-review",
            count=waiting,
            message=f"{waiting} agent change(s) await review",
            fix="memdir review (then memdir review approve NAME|--all or reject NAME)",
        ),
        Notice(
            kind="expired",
            count=len(gone),
            message=f"{len(gone)} memory(ies) expired: re-validate or delete",
            fix="memdir review lists them; memdir verify NAME or memdir rm NAME",
            items=tuple(f"{e.ref}: {e.reason}" for e in gone[:_NAMED]),
        ),
        Notice(
            kind="recheck",
            count=len(due),
            message=f"{len(due)} memory(ies) citing code: check failed or is old",
            fix="memdir doctor --drift checks them again; memdir verify NAME after reading",
            items=tuple(f"{c.ref}: {describe(c, now)}" for c in due[:_NAMED]),
        ),
        *_identity_notice(memdir),
        Notice(
            kind="left-out",
            count=len(left),
            message=f"{len(left)} index entr{'y is' if len(left) == 1 else 'ies are'} left "
            "out of the session start (agents see them only by searching)",
            fix=f"{LEFT_OUT_COMMAND} lists them; memdir pin NAME loads one at every start",
            items=tuple(entry.ref for entry in left[:_NAMED]),
        ),
    ]
    return [notice for notice in found if notice.count]


def _identity_notice(memdir: ProjectMemory) -> list[Notice]:
    """Team memory synced through git with no git identity to author its commits."""
    team = memdir.layout.team_dir
    if not (team / ".git").exists() or _git_identity(team):
        return []
    return [
        Notice(
            kind="git-identity",
            count=1,
            message="team sync commits carry a stand-in author (memdir on this host): git has "
            "no user.name and user.email here",
            fix='git config --global user.name "Your Name" and git config --global '
            "user.email you@example.com",
        )
    ]


def _git_identity(folder: Path) -> bool:
    """Whether git, run in ``folder``, knows who authors a commit (name and email)."""
    import subprocess

    for key in ("user.name", "user.email"):
        try:
            done = subprocess.run(
                ["git", "config", "--get", key],
                cwd=folder,
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return True  # git cannot answer: nothing to say about its identity
        if done.returncode != 0 or not done.stdout.strip():
            return False
    return True
