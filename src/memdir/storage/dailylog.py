"""Append-only daily logs: ``logs/YYYY/MM/YYYY-MM-DD.md``, one bullet per entry.

A long-lived agent records what is worth remembering as it works; a separate
consolidation distils the logs into topic files later. The file of a day is
chosen from the local date of the entry, so a session that crosses midnight
moves to the next file by itself. A file opens with a ``# YYYY-MM-DD`` heading
and is never rewritten::

    # 2026-03-15

    - 09:14:02 deployed v2.3 to staging
    - 11:40:55 the flaky upload test fails only when run after test_auth:
      shared tmp dir, see issue 812

Writing is strict, reading lenient. An entry is one bullet ``- HH:MM:SS text``;
further lines of its text are indented by two spaces. The whole entry goes out
in one ``write`` on an ``O_APPEND`` descriptor while an inter-process lock is
held (the lock also makes sure only the first writer of a day adds the
heading), then the file is fsynced: concurrent writers never interleave and a
crash loses at most the entry being written. The reader also accepts what
agents and people write by hand: ``HH:MM`` times, bullets with no time, prose
under a bullet.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Iterator
from pathlib import Path

from memdir.errors import InvalidMemory, LimitExceeded, MemdirError
from memdir.storage.fs import FILE_MODE, ensure_dir, file_lock, fsync_dir
from memdir.utils.records import record

__all__ = [
    "LOCK_NAME",
    "MAX_ENTRY_BYTES",
    "LogEntry",
    "append_log",
    "format_entry",
    "iter_logs",
    "log_path",
    "read_log",
]

# A log entry is a note, not a document: past this, the text belongs in a
# topic file.
MAX_ENTRY_BYTES = 64 * 1024
LOCK_NAME = "dailylog.lock"
_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\.md$")
_HEADING = re.compile(r"^#\s+(\d{4})-(\d{2})-(\d{2})\s*$")
_BULLET = re.compile(r"^[-*] (?:\[?(\d{1,2}):(\d{2})(?::(\d{2}))?\]? ?)?(.*)$")
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


@record
class LogEntry:
    """One bullet of a daily log.

    ``at`` is the local wall-clock time the entry was written (naive, as the
    file records it), or ``None`` for a bullet written by hand without a time.
    ``line`` is the 1-based line of the bullet in its file.
    """

    day: dt.date
    at: dt.datetime | None
    text: str
    line: int


def log_path(logs_dir: Path, day: dt.date) -> Path:
    """The file that holds the entries of ``day``: ``logs/YYYY/MM/YYYY-MM-DD.md``."""
    return logs_dir / f"{day.year:04d}" / f"{day.month:02d}" / f"{day.isoformat()}.md"


def append_log(
    logs_dir: Path,
    text: str,
    *,
    now: dt.datetime | None = None,
    lock_dir: Path | None = None,
    timeout: float = 30.0,
) -> Path:
    """Append one timestamped entry to the log of its local day; return the file.

    ``now`` defaults to the current time; an aware datetime is converted to
    local time, a naive one is taken as local. The lock file goes in
    ``lock_dir`` when given (derived state, outside the memory directory),
    else in ``logs_dir``. Raises :class:`InvalidMemory` for empty text,
    :class:`LimitExceeded` past :data:`MAX_ENTRY_BYTES`, and
    :class:`~memdir.errors.LockTimeout` when the lock stays busy.
    """
    body = _normalise(text, logs_dir)
    moment = _local(now)
    path = log_path(logs_dir, moment.date())
    entry = format_entry(moment, body)
    ensure_dir(path.parent)  # every missing level 0700, logs_dir included
    lock_path = lock_dir / LOCK_NAME if lock_dir is not None else logs_dir / f".{LOCK_NAME}"
    with file_lock(lock_path, timeout=timeout):
        _append(path, entry, heading=f"# {moment.date().isoformat()}\n\n")
    return path


def format_entry(moment: dt.datetime, text: str) -> str:
    """The bullet for ``text`` at ``moment``: later lines indented by two spaces."""
    first, *rest = text.split("\n")
    lines = [f"- {moment:%H:%M:%S} {first}", *(f"  {line}" for line in rest)]
    return "\n".join(lines) + "\n"


def read_log(path: Path) -> list[LogEntry]:
    """The entries of one daily-log file, in file order; ``[]`` when it does not exist.

    The day comes from the file name (``YYYY-MM-DD.md``), else from its
    ``# YYYY-MM-DD`` heading. Raises :class:`MemdirError` when the file cannot
    be read, :class:`InvalidMemory` when no day can be found.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise MemdirError(
            f"cannot read daily log: {exc.strerror or exc}",
            path=path,
            hint="check the file's permissions",
        ) from exc
    lines = data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    day = _day_of(path, lines)
    return _Parser(day).run(lines)


def iter_logs(logs_dir: Path, since: dt.date | None = None) -> Iterator[tuple[dt.date, Path]]:
    """Every daily-log file under ``logs_dir`` (from ``since`` on), oldest first."""
    found: list[tuple[dt.date, Path]] = []
    for year in _subdirs(logs_dir, 4):
        for month in _subdirs(year, 2):
            found.extend(_logs_in(month))
    found.sort()
    for day, path in found:
        if since is None or day >= since:
            yield day, path


# --- writing --------------------------------------------------------------------


def _normalise(text: str, logs_dir: Path) -> str:
    """Entry text with newlines unified and outer blank space removed; refused if unusable."""
    body = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not body:
        raise InvalidMemory(
            "a daily-log entry needs text",
            path=logs_dir,
            hint="pass what happened in a sentence, e.g. 'deployed v2.3 to staging'",
        )
    if "\x00" in body:
        raise InvalidMemory(
            "a daily-log entry cannot contain a NUL character",
            path=logs_dir,
            hint="pass plain text",
        )
    try:
        size = len(body.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidMemory(
            "a daily-log entry must be valid Unicode text (it has a lone surrogate)",
            path=logs_dir,
            hint="pass text that encodes as UTF-8",
        ) from None
    if size > MAX_ENTRY_BYTES:
        raise LimitExceeded(
            f"a daily-log entry is {size} bytes, more than {MAX_ENTRY_BYTES}",
            path=logs_dir,
            hint="log a short note and put the detail in a topic memory",
        )
    return body


def _local(now: dt.datetime | None) -> dt.datetime:
    if now is None:
        return dt.datetime.now()
    if now.tzinfo is None:
        return now
    return now.astimezone().replace(tzinfo=None)


def _append(path: Path, entry: str, *, heading: str) -> None:
    """Write ``entry`` at the end of ``path`` in one write; the caller holds the lock."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | _CLOEXEC, FILE_MODE)
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            os.chmod(path, FILE_MODE)
            payload = heading + entry
        elif _last_byte(fd) != b"\n":
            payload = "\n" + entry  # a hand edit left the last line open
        else:
            payload = entry
        _write_all(fd, payload.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    if size == 0:
        fsync_dir(path.parent)


def _last_byte(fd: int) -> bytes:
    os.lseek(fd, -1, os.SEEK_END)
    return os.read(fd, 1)


def _write_all(fd: int, data: bytes) -> None:
    # A regular file takes the whole buffer in one write; the loop only
    # matters if a signal interrupts it midway, and the lock keeps other
    # writers out meanwhile.
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


# --- reading --------------------------------------------------------------------


def _day_of(path: Path, lines: list[str]) -> dt.date:
    for pattern, text in [(_NAME, path.name), *((_HEADING, line) for line in lines[:5])]:
        match = pattern.match(text)
        if match is not None:
            try:
                return dt.date(*(int(part) for part in match.groups()))
            except ValueError:
                continue
    raise InvalidMemory(
        "not a daily log: neither the file name nor a heading gives its date",
        path=path,
        hint="daily logs are named YYYY-MM-DD.md and open with '# YYYY-MM-DD'",
    )


class _Parser:
    """Folds lines into entries: a bullet opens one, indented or prose lines extend it."""

    def __init__(self, day: dt.date) -> None:
        self.day = day
        self.entries: list[LogEntry] = []
        self._open: tuple[int, dt.datetime | None, list[str]] | None = None
        self._blanks = 0

    def run(self, lines: list[str]) -> list[LogEntry]:
        for number, line in enumerate(lines, start=1):
            self._line(number, line)
        self._close()
        return self.entries

    def _line(self, number: int, line: str) -> None:
        if not line.strip() and not line.startswith("  "):
            self._blanks += 1
            return
        if line.startswith("  ") or line[0].isspace():
            self._extend(number, line[2:] if line.startswith("  ") else line.lstrip())
            return
        bullet = _BULLET.match(line)
        if bullet is not None:
            self._close()
            self._open = (number, self._time(bullet), [bullet.group(4)])
        elif line.startswith("#"):
            self._close()
        else:
            self._extend(number, line)
        self._blanks = 0

    def _extend(self, number: int, text: str) -> None:
        if self._open is None:
            self._open = (number, None, [])
        parts = self._open[2]
        if parts:
            parts.extend([""] * self._blanks)
        parts.append(text)
        self._blanks = 0

    def _close(self) -> None:
        if self._open is not None:
            number, at, parts = self._open
            text = "\n".join(parts)
            if text.strip():
                self.entries.append(LogEntry(day=self.day, at=at, text=text, line=number))
        self._open = None
        self._blanks = 0

    def _time(self, bullet: re.Match[str]) -> dt.datetime | None:
        hour, minute, second = bullet.group(1, 2, 3)
        if hour is None:
            return None
        try:
            moment = dt.time(int(hour), int(minute), int(second or 0))
        except ValueError:
            return None
        return dt.datetime.combine(self.day, moment)


def _subdirs(folder: Path, width: int) -> list[Path]:
    try:
        children = list(folder.iterdir())
    except OSError:
        return []
    return [c for c in children if len(c.name) == width and c.name.isdigit() and c.is_dir()]


def _logs_in(folder: Path) -> Iterator[tuple[dt.date, Path]]:
    try:
        children = list(folder.iterdir())
    except OSError:
        return
    for child in children:
        match = _NAME.match(child.name)
        if match is None or not child.is_file():
            continue
        try:
            yield dt.date(*(int(part) for part in match.groups())), child
        except ValueError:
            continue
