"""The line files the SDK's stdio transport reads and writes when memdir owns stdin and stdout.

The SDK's ``stdio_server`` takes any text file for each side and reads one
JSON-RPC message a line, in a worker thread. :class:`LineInbox` is its stdin:
lines another thread puts in, an empty string at the end. :class:`LineOutbox`
is its stdout: each complete line goes to a file descriptor, under a lock that
other writers of that descriptor share (:meth:`LineOutbox.send`), except a line
the outbox was told to expect (:meth:`LineOutbox.expect`): one already written
for the client, so the SDK's copy of it is dropped.
"""

from __future__ import annotations

import os
import queue
import threading

__all__ = ["LineInbox", "LineOutbox"]


class LineInbox:
    """A readable text file of the lines :meth:`put` gives it, ended by :meth:`close`."""

    def __init__(self) -> None:
        self._lines: queue.SimpleQueue[str] = queue.SimpleQueue()

    def put(self, line: str) -> None:
        """Give the reader one line (with its newline)."""
        self._lines.put(line)

    def close(self) -> None:
        """End the file: the reader gets ``""`` once it has read every line."""
        self._lines.put("")

    def readline(self) -> str:
        """The next line; blocks until there is one, or the end (``""``)."""
        line = self._lines.get()
        if not line:
            self._lines.put(line)  # the end stays the end for every later read
        return line


class LineOutbox:
    """A writable text file whose complete lines go to ``fd``, minus the ones expected."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lock = threading.Lock()
        self._expected: dict[str, int] = {}
        self._partial = ""

    def expect(self, line: str) -> None:
        """Drop the next written line equal to ``line`` (it went out already)."""
        with self._lock:
            self._expected[line] = self._expected.get(line, 0) + 1

    def send(self, line: str) -> None:
        """Write ``line`` and a newline to ``fd`` now, between whole lines of the SDK's."""
        with self._lock:
            self._write(line + "\n")

    def write(self, text: str) -> int:
        """The SDK writes here; whole lines go out as they complete."""
        with self._lock:
            self._partial += text
            while "\n" in self._partial:
                line, _, self._partial = self._partial.partition("\n")
                count = self._expected.pop(line, 0)
                if count:
                    if count > 1:
                        self._expected[line] = count - 1
                    continue
                self._write(line + "\n")
        return len(text)

    def flush(self) -> None:
        """Lines are written as they complete: nothing waits here."""

    def _write(self, text: str) -> None:
        data = text.encode("utf-8")
        while data:
            data = data[os.write(self._fd, data) :]
