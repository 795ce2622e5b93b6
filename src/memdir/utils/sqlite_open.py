"""Opening a SQLite database that other processes may be creating or opening at once.

A connection's busy timeout covers most contention, but SQLite answers "database
is locked" at once, without waiting, where waiting could deadlock: a connection
that read the schema (or the journal mode) and now wants to write it, while
another process already wrote it. Several processes making the same history or
search database at once meet exactly that. The setup statements are harmless to
run again (``IF NOT EXISTS``, pragmas), so the whole opening is tried again,
after a short randomised pause, until the timeout has passed.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["is_busy", "open_database"]

_BUSY_CODES = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def is_busy(exc: sqlite3.OperationalError) -> bool:
    """Whether ``exc`` is SQLite's "database is locked" or "busy" (any extended code); an
    error SQLite did not raise carries no code and is not."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in _BUSY_CODES


def open_database(
    path: Path | str,
    *,
    timeout: float,
    setup: Callable[[sqlite3.Connection], None],
) -> sqlite3.Connection:
    """An autocommit connection to ``path`` on which ``setup`` has run to the end.

    ``setup`` must be safe to run again: a busy answer that SQLite gives without
    waiting closes the connection and opens it anew, for up to ``timeout`` s;
    any other error (and the last busy one) is raised.
    """
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        conn = sqlite3.connect(str(path), timeout=timeout, isolation_level=None)
        try:
            setup(conn)
            return conn
        except sqlite3.OperationalError as exc:
            conn.close()
            if not is_busy(exc) or time.monotonic() >= deadline:
                raise
        except BaseException:
            conn.close()
            raise
        # Randomised so that processes which met once do not meet again in step.
        time.sleep(pause * (0.5 + random.random()))
        pause = min(pause * 2, 0.25)
