"""Private sync's health, for ``memdir doctor``: what an interrupted sync left, the last
failure, unsettled conflict copies, and where this machine stands.

:func:`check_private` asks :func:`memdir.sync.run.private_status` without fetching
(doctor makes no network call) and says, in team sync's terms
(:class:`memdir.team.health.TeamFinding`):

* ``stuck``: an interrupted git command's leftovers (the next ``memdir sync``
  clears them, keeping local work);
* ``sync-failed``: the last sync failed, with its message and when;
* ``conflict-copy``: a copy of this machine's version not settled yet;
* ``sync-status`` (information): commits ahead and behind as last fetched,
  files changed here and not synced, when the last sync succeeded.

Nothing is said when private sync was never set up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memdir.errors import MemdirError
from memdir.sync.run import PrivateStatus, private_status
from memdir.team.health import TeamFinding, sync_time

if TYPE_CHECKING:
    from memdir.history.project import ProjectMemory

__all__ = ["check_private"]


def check_private(memdir: ProjectMemory) -> list[TeamFinding]:
    """What is wrong with (or worth knowing about) this machine's private sync."""
    try:
        status = private_status(memdir, fetch=False)
    except MemdirError as exc:
        return [TeamFinding(problem="sync-broken", message=exc.message, fix=exc.hint or "")]
    if not status.initialized:
        return []
    out: list[TeamFinding] = []
    if status.stuck:
        out.append(
            TeamFinding(
                problem="stuck",
                message=f"the private memory repository is stuck: {status.stuck}",
                fix="`memdir sync` clears it and keeps every local change",
            )
        )
    if status.failure:
        out.append(
            TeamFinding(
                problem="sync-failed",
                message=f"the last private sync failed at {sync_time(status.last_failure)} "
                f"(last success: {sync_time(status.last_success)}): {status.failure}",
                fix="run `memdir sync` again",
            )
        )
    for conflict in status.conflicts:
        out.append(
            TeamFinding(
                problem="conflict-copy",
                message=f"{conflict.copy} is an unsettled conflict copy of {conflict.file} "
                f"(kept on this machine, never synced): {conflict.reason}",
                fix=f"`memdir sync resolve {conflict.file} --keep mine|theirs|both`",
            )
        )
    out.append(_standing(status))
    return out


def _standing(status: PrivateStatus) -> TeamFinding:
    where = f"{status.remote or 'its remote'}" + (f" ({status.branch})" if status.branch else "")
    unsynced = len(status.unsynced_files)
    return TeamFinding(
        problem="sync-status",
        message=f"private sync with {where}: {status.ahead} ahead, {status.behind} behind as "
        f"last fetched, {unsynced} file{'' if unsynced == 1 else 's'} changed here and not "
        f"synced; last success {sync_time(status.last_success)}",
        info=True,
    )
