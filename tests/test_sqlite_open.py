"""Opening a SQLite database while other processes make or change it."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from memdir.utils.sqlite_open import is_busy, open_database


def _table(db: Path) -> None:
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE TABLE t (n INTEGER)")


def test_a_busy_answer_sqlite_gives_without_waiting_is_met_by_opening_again(
    tmp_path: Path,
) -> None:
    db = tmp_path / "d.sqlite"
    _table(db)
    attempts: list[int] = []

    def setup(conn: sqlite3.Connection) -> None:
        attempts.append(len(attempts))
        conn.execute("BEGIN")
        conn.execute("SELECT count(*) FROM t").fetchone()  # a read snapshot
        if len(attempts) == 1:  # another process writes after that snapshot
            with closing(sqlite3.connect(db, isolation_level=None)) as other:
                other.execute("INSERT INTO t VALUES (1)")
        # Upgrading a stale snapshot to a write: refused at once, the busy timeout unused.
        conn.execute("INSERT INTO t VALUES (2)")
        conn.execute("COMMIT")

    with closing(open_database(db, timeout=30, setup=setup)) as conn:
        assert sorted(row[0] for row in conn.execute("SELECT n FROM t")) == [1, 2]
    assert attempts == [0, 1]


def test_the_same_refusal_without_the_retry_is_the_error_people_saw(tmp_path: Path) -> None:
    db = tmp_path / "d.sqlite"
    _table(db)
    with closing(sqlite3.connect(db, timeout=30, isolation_level=None)) as conn:
        conn.execute("BEGIN")
        conn.execute("SELECT count(*) FROM t").fetchone()
        with closing(sqlite3.connect(db, isolation_level=None)) as other:
            other.execute("INSERT INTO t VALUES (1)")
        with pytest.raises(sqlite3.OperationalError, match="database is locked") as caught:
            conn.execute("INSERT INTO t VALUES (2)")
    assert is_busy(caught.value)


def test_any_other_error_is_raised_at_once(tmp_path: Path) -> None:
    attempts: list[int] = []

    def setup(conn: sqlite3.Connection) -> None:
        attempts.append(1)
        conn.execute("SELECT * FROM missing")  # not contention

    with pytest.raises(sqlite3.OperationalError, match="no such table") as caught:
        open_database(tmp_path / "d.sqlite", timeout=30, setup=setup)
    assert not is_busy(caught.value)
    assert attempts == [1]


def test_a_lock_held_past_the_timeout_gives_the_busy_error(tmp_path: Path) -> None:
    db = tmp_path / "d.sqlite"
    _table(db)
    with closing(sqlite3.connect(db, isolation_level=None)) as holder:
        holder.execute("BEGIN IMMEDIATE")
        holder.execute("INSERT INTO t VALUES (1)")

        def setup(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO t VALUES (2)")

        with pytest.raises(sqlite3.OperationalError) as caught:
            open_database(db, timeout=0.3, setup=setup)
        assert is_busy(caught.value)
        holder.execute("ROLLBACK")
