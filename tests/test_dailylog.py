"""Append-only daily logs: file layout, the entry format, concurrency, reading back."""

from __future__ import annotations

import datetime as dt
import functools
import multiprocessing
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.errors import InvalidMemory, LimitExceeded, LockTimeout
from memdir.storage.dailylog import (
    LOCK_NAME,
    MAX_ENTRY_BYTES,
    LogEntry,
    append_log,
    iter_logs,
    log_path,
    read_log,
)
from memdir.storage.fs import file_lock

NOON = dt.datetime(2026, 3, 15, 12, 0, 0)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    return tmp_path / "memory" / "logs"


@pytest.fixture
def five_hours_behind_utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # A POSIX TZ string needs no time-zone database.
    monkeypatch.setenv("TZ", "XST+05")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


# --- layout and format ------------------------------------------------------------


def test_log_path_follows_year_month_day(tmp_path: Path) -> None:
    assert log_path(tmp_path, dt.date(2026, 3, 5)) == tmp_path / "2026/03/2026-03-05.md"
    assert log_path(tmp_path, dt.date(987, 1, 2)) == tmp_path / "0987/01/0987-01-02.md"


def test_first_append_creates_the_file_with_a_heading(logs: Path) -> None:
    path = append_log(logs, "deployed v2.3 to staging", now=NOON)
    assert path == logs / "2026" / "03" / "2026-03-15.md"
    assert (
        path.read_text(encoding="utf-8") == "# 2026-03-15\n\n- 12:00:00 deployed v2.3 to staging\n"
    )


def test_the_heading_appears_once_however_many_entries(logs: Path) -> None:
    for minute in range(5):
        path = append_log(logs, f"entry {minute}", now=NOON.replace(minute=minute))
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [line for line in lines if line.startswith("#")] == ["# 2026-03-15"]
    assert lines[2:] == [f"- 12:0{minute}:00 entry {minute}" for minute in range(5)]


def test_multi_line_text_is_folded_into_one_bullet(logs: Path) -> None:
    path = append_log(logs, "flaky upload test:\n\nshared tmp dir\r\n  see issue 812\n", now=NOON)
    body = path.read_text(encoding="utf-8").split("\n\n", 1)[1]
    assert body == "- 12:00:00 flaky upload test:\n  \n  shared tmp dir\n    see issue 812\n"
    (entry,) = read_log(path)
    assert entry.text == "flaky upload test:\n\nshared tmp dir\n  see issue 812"


def test_files_are_private_and_folders_too(logs: Path) -> None:
    path = append_log(logs, "x", now=NOON)
    assert mode_of(path) == 0o600
    for folder in (logs, logs / "2026", logs / "2026" / "03"):
        assert mode_of(folder) == 0o700, folder


def test_midnight_rollover_starts_the_next_days_file(logs: Path) -> None:
    before = append_log(logs, "last of the year", now=dt.datetime(2025, 12, 31, 23, 59, 59))
    after = append_log(logs, "first of the year", now=dt.datetime(2026, 1, 1, 0, 0, 0))
    assert before == logs / "2025/12/2025-12-31.md"
    assert after == logs / "2026/01/2026-01-01.md"
    assert [e.text for e in read_log(before)] == ["last of the year"]
    assert after.read_text(encoding="utf-8").startswith("# 2026-01-01\n\n- 00:00:00 first")


def test_an_aware_time_is_filed_under_the_local_date(
    logs: Path, five_hours_behind_utc: None
) -> None:
    path = append_log(logs, "late call", now=dt.datetime(2026, 1, 1, 2, 30, tzinfo=dt.UTC))
    assert path == logs / "2025/12/2025-12-31.md"
    (entry,) = read_log(path)
    assert entry.at == dt.datetime(2025, 12, 31, 21, 30)


def test_the_lock_file_goes_in_the_lock_folder_when_one_is_given(
    logs: Path, tmp_path: Path
) -> None:
    locks = tmp_path / "state" / "locks"
    append_log(logs, "x", now=NOON, lock_dir=locks)
    assert (locks / LOCK_NAME).exists()
    assert not (logs / f".{LOCK_NAME}").exists()


def test_an_entry_after_a_hand_edit_without_newline_starts_its_own_line(logs: Path) -> None:
    path = append_log(logs, "first", now=NOON)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("- 12:30 written by hand")
    append_log(logs, "second", now=NOON.replace(hour=13))
    assert [e.text for e in read_log(path)] == ["first", "written by hand", "second"]


# --- refusals ---------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\n\r\n\t"])
def test_empty_text_is_refused_with_a_hint(logs: Path, text: str) -> None:
    with pytest.raises(InvalidMemory, match="needs text") as caught:
        append_log(logs, text, now=NOON)
    assert caught.value.hint
    assert not logs.exists(), "nothing is created for a refused entry"


def test_text_with_a_nul_is_refused(logs: Path) -> None:
    with pytest.raises(InvalidMemory, match="NUL"):
        append_log(logs, "a\x00b", now=NOON)


def test_an_oversized_entry_is_refused(logs: Path) -> None:
    with pytest.raises(LimitExceeded):
        append_log(logs, "x" * (MAX_ENTRY_BYTES + 1), now=NOON)


def test_a_busy_lock_times_out_with_lock_timeout(logs: Path, tmp_path: Path) -> None:
    locks = tmp_path / "locks"
    with file_lock(locks / LOCK_NAME), pytest.raises(LockTimeout):
        append_log(logs, "x", now=NOON, lock_dir=locks, timeout=0.05)
    assert not log_path(logs, NOON.date()).exists()


# --- reading ----------------------------------------------------------------------


def test_read_log_gives_day_time_text_and_line(logs: Path) -> None:
    append_log(logs, "one", now=NOON)
    path = append_log(logs, "two\nmore", now=NOON.replace(hour=14, second=9))
    append_log(logs, "three", now=NOON.replace(hour=15))
    assert read_log(path) == [
        LogEntry(day=NOON.date(), at=NOON, text="one", line=3),
        LogEntry(day=NOON.date(), at=dt.datetime(2026, 3, 15, 14, 0, 9), text="two\nmore", line=4),
        LogEntry(day=NOON.date(), at=dt.datetime(2026, 3, 15, 15), text="three", line=6),
    ]


def test_read_log_accepts_what_people_write_by_hand(tmp_path: Path) -> None:
    path = tmp_path / "2026-03-15.md"
    path.write_text(
        "# 2026-03-15\n\n"
        "- 09:05 short time\n"
        "- [10:00] bracketed\n"
        "- no time at all\n"
        "prose under the bullet\n\n"
        "  after a blank line\n"
        "- 25:99:00 impossible time\n",
        encoding="utf-8",
    )
    entries = read_log(path)
    assert [(e.at.time() if e.at else None, e.text) for e in entries] == [
        (dt.time(9, 5), "short time"),
        (dt.time(10, 0), "bracketed"),
        (None, "no time at all\nprose under the bullet\n\nafter a blank line"),
        (None, "impossible time"),
    ]


def test_read_log_of_a_missing_file_is_empty(tmp_path: Path) -> None:
    assert read_log(tmp_path / "2026-03-15.md") == []


def test_read_log_takes_the_day_from_the_heading_when_the_name_has_none(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# 2026-02-01\n\n- 08:00:00 x\n", encoding="utf-8")
    assert read_log(path)[0].at == dt.datetime(2026, 2, 1, 8)


def test_read_log_refuses_a_file_without_a_date(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("- 08:00:00 x\n", encoding="utf-8")
    with pytest.raises(InvalidMemory, match="not a daily log"):
        read_log(path)


def test_iter_logs_lists_days_in_order_from_since(logs: Path) -> None:
    days = [dt.date(2026, 1, 2), dt.date(2025, 12, 31), dt.date(2026, 1, 10), dt.date(2024, 6, 1)]
    for day in days:
        append_log(logs, "x", now=dt.datetime.combine(day, dt.time(9)))
    (logs / "2026" / "01" / "notes.md").write_text("stray", encoding="utf-8")
    (logs / "misc").mkdir()
    assert [day for day, _ in iter_logs(logs)] == sorted(days)
    listed = list(iter_logs(logs, since=dt.date(2026, 1, 2)))
    assert listed == [
        (dt.date(2026, 1, 2), log_path(logs, dt.date(2026, 1, 2))),
        (dt.date(2026, 1, 10), log_path(logs, dt.date(2026, 1, 10))),
    ]


def test_iter_logs_of_a_missing_folder_is_empty(tmp_path: Path) -> None:
    assert list(iter_logs(tmp_path / "nope")) == []


# --- properties and concurrency ---------------------------------------------------


entry_text = st.text().filter(lambda t: t.strip() != "" and "\x00" not in t)


@settings(max_examples=100, deadline=None)
@given(entry_text)
def test_any_text_reads_back_as_written_between_neighbours(text: str) -> None:
    expected = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    with tempfile.TemporaryDirectory() as folder:
        logs = Path(folder)
        append_log(logs, "before", now=NOON)
        path = append_log(logs, text, now=NOON.replace(second=1))
        append_log(logs, "after", now=NOON.replace(second=2))
        entries = read_log(path)
    assert [e.text for e in entries] == ["before", expected, "after"]
    assert [e.at for e in entries] == [NOON, NOON.replace(second=1), NOON.replace(second=2)]


WRITERS = 4
PER_WRITER = 500


@pytest.mark.slow
def test_concurrent_writers_never_interleave(logs: Path, tmp_path: Path) -> None:
    texts = [
        f"w{n % WRITERS} #{n:04d} " + "abcdefghij" * (n % 9 * 60) + " end"
        for n in range(WRITERS * PER_WRITER)
    ]
    append = functools.partial(append_log, logs, now=NOON, lock_dir=tmp_path / "locks")
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(WRITERS)
    with context.Pool(WRITERS, initializer=start.wait, initargs=(120,)) as pool:
        paths = set(pool.map(append, texts, chunksize=1))
    assert paths == {log_path(logs, NOON.date())}
    lines = log_path(logs, NOON.date()).read_text(encoding="utf-8").split("\n")
    assert lines[:2] == ["# 2026-03-15", ""]
    assert lines[-1] == ""
    body = lines[2:-1]
    assert len(body) == WRITERS * PER_WRITER
    assert all(line.startswith("- 12:00:00 w") and line.endswith(" end") for line in body)
    assert sorted(line.removeprefix("- 12:00:00 ") for line in body) == sorted(texts)
    assert max(len(line) for line in body) > 4096, "entries larger than an atomic pipe write"
