"""Derived state set aside: what sits where a cache, journal or catalog belongs.

Everything under a project's state folder (``.memdir/``) is made from the
memory files and can be made again. When something else occupies one of its
names (a folder where the catalog belongs, a link, a FIFO), memdir neither
deletes it (it may hold someone's files) nor gives up on the cache for good:
:func:`set_aside` moves it into ``.memdir/set-aside/`` under a dated name, and
the file is written afresh.
"""

from __future__ import annotations

import datetime as dt
import os
import stat
from pathlib import Path

from memdir.storage.fs import ensure_dir

__all__ = ["SET_ASIDE_DIR", "is_misplaced", "set_aside"]

SET_ASIDE_DIR = "set-aside"


def is_misplaced(path: Path) -> bool:
    """Whether ``path`` exists and is not a regular file (a folder, a link, a FIFO)."""
    try:
        return not stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


def set_aside(path: Path) -> Path:
    """Move ``path`` into ``set-aside/`` beside it, under a dated name; returns where to.

    A rename: it takes no disk space and keeps what the thing holds.
    """
    folder = ensure_dir(path.parent / SET_ASIDE_DIR)
    stamp = dt.datetime.now().strftime("%Y%m%dT%H%M%S")
    target = folder / f"{path.name}.{stamp}-{os.urandom(3).hex()}"
    os.rename(path, target)
    return target
