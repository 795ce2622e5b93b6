"""Storage failures as memdir errors (memdir.storage.failures), on real files and SQLite.

The full-disk behaviour itself runs on a small tmpfs (tests/test_disk_full.py, as root);
these check the judgement that does not need one: damage or not, and the words.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from memdir.errors import DiskFull, MemdirError, StorageError
from memdir.storage.failures import (
    describe,
    ensure_room,
    free_bytes,
    is_damage,
    is_disk_full,
    storage_error,
    translated,
)


def _error(action: str, path: Path) -> sqlite3.Error:
    with pytest.raises(sqlite3.Error) as caught:
        conn = sqlite3.connect(path, timeout=0.01, isolation_level=None)
        try:
            conn.execute(action)
        finally:
            conn.close()
    return caught.value


def test_a_file_that_is_no_database_is_damage(tmp_path: Path) -> None:
    path = tmp_path / "garbage.sqlite"
    path.write_bytes(b"\x00not a database\xff" * 200)
    exc = _error("SELECT * FROM sqlite_master", path)
    assert is_damage(exc)
    assert not is_disk_full(exc, path)


def test_a_locked_database_is_not_damage(tmp_path: Path) -> None:
    path = tmp_path / "busy.sqlite"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        exc = _error("INSERT INTO t VALUES (1)", path)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert isinstance(exc, sqlite3.OperationalError)
    assert not is_damage(exc)  # deleting it would lose it for nothing
    error = storage_error(exc, path)
    assert isinstance(error, StorageError) and error.path == str(path)


def test_a_full_disk_reads_as_one_line_naming_the_file(tmp_path: Path) -> None:
    temp = tmp_path / "memory" / ".MEMORY.md.0123abcd.tmp"  # an atomic write's temp file
    error = storage_error(OSError(errno.ENOSPC, "No space left on device", str(temp)))
    assert isinstance(error, DiskFull)
    assert str(error).startswith(f"no space left on device writing {tmp_path}/memory/MEMORY.md")
    staged = tmp_path / "memory" / ".staging" / ".topic.md.0123abcd.tmp"
    error = storage_error(OSError(errno.ENOSPC, "No space left on device", str(staged)))
    assert error.path == str(tmp_path / "memory" / "topic.md")
    full = sqlite3.OperationalError("database or disk is full")
    assert isinstance(storage_error(full, tmp_path / "x.sqlite"), DiskFull)
    assert describe(OSError(errno.ENOSPC, "No space left on device")).startswith(
        "no space left on device"
    )


def test_translated_lets_memdir_errors_through_and_turns_the_rest(tmp_path: Path) -> None:
    with pytest.raises(MemdirError, match="mine"), translated(tmp_path):
        raise MemdirError("mine")
    with pytest.raises(StorageError) as caught, translated(tmp_path):
        (tmp_path / "missing" / "file").read_text()
    assert "missing" in str(caught.value)
    with pytest.raises(ValueError), translated(tmp_path):
        raise ValueError("not storage")


def test_ensure_room_refuses_what_would_take_the_reserve(tmp_path: Path) -> None:
    free = free_bytes(tmp_path / "not" / "made" / "yet")
    assert free is not None and free > 0
    ensure_room(tmp_path, 1, "a small write", reserve=0)
    with pytest.raises(DiskFull, match="a huge write needs about"):
        ensure_room(tmp_path, free + (1 << 30), "a huge write", reserve=0)
