"""Taking an ``flock`` on a descriptor already open, waiting a bounded time.

The session's used log (:mod:`memdir.history.used_log`) and recall's session
state (:mod:`memdir.recall.recall_state`) lock their own file on the hook's
path, where importing ``filelock`` would cost more than the work: they poll a
non-blocking ``flock`` every 2 ms (a holder keeps it for one append or one
small recall) and give up with :class:`~memdir.errors.LockTimeout` naming the
file. POSIX only: a caller without ``fcntl`` does not call it.
"""

from __future__ import annotations

import time
from pathlib import Path

from memdir.errors import LockTimeout

__all__ = ["wait_for_flock"]


def wait_for_flock(fd: int, path: Path, *, timeout: float, hint: str) -> None:
    """``flock`` ``fd`` (the file ``path``), or LockTimeout with ``hint`` after ``timeout`` s."""
    import fcntl

    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise LockTimeout(
                    f"could not take the lock within {timeout:g} s", path=path, hint=hint
                ) from None
            time.sleep(0.002)  # a holder keeps it for milliseconds
