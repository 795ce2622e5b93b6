"""The MCP server on stdio, stopped promptly and cleanly by SIGINT and SIGTERM.

The SDK reads stdin in a worker thread, and a thread blocked in ``read()`` can be
neither cancelled nor interrupted: on SIGINT the event loop cancels its tasks and
then waits for that read until the client writes again or closes the pipe. A client
that stops its server with SIGINT (Claude Code does, at the end of every session)
waits out its own timeout and falls back to SIGTERM, whose default action kills the
server with its memory still open.

So the server reads a pipe memdir owns: a daemon thread copies the client's stdin
into it, and SIGINT or SIGTERM ends that pipe, which is what closing stdin does (the
way MCP has a client stop a stdio server). The SDK sees the end of its input, the
session ends, the lifespan closes the project's memory and ``serve`` returns, so
the process exits 0. A second signal during that shutdown ends the process the
default way. Where this cannot be set up (not POSIX, not the main thread, no
stdin), the server runs as the SDK runs it.
"""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType
from typing import Any

from mcp.server.mcpserver import MCPServer

__all__ = ["serve_stdio"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_CHUNK = 1 << 16


def serve_stdio(server: MCPServer[Any]) -> None:
    """Run ``server`` on stdin/stdout until the client closes stdin or a signal stops it."""
    try:
        relay = _StdinRelay()
    except (OSError, ImportError):
        server.run("stdio")
        return
    try:
        previous = {sig: signal.signal(sig, relay.on_signal) for sig in _SIGNALS}
    except ValueError:  # signal handlers belong to the main thread
        relay.restore()
        server.run("stdio")
        return
    try:
        server.run("stdio")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        relay.restore()


class _StdinRelay:
    """fd 0 becomes a pipe fed from the client's stdin by a daemon thread; a signal ends it."""

    def __init__(self) -> None:
        import fcntl  # POSIX only: elsewhere the SDK's own stdio runs

        # The client's stdin, kept above the standard descriptors and out of children.
        self._source = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
        read_end, self._sink = os.pipe()
        os.dup2(read_end, 0)
        os.close(read_end)
        self._lock = threading.Lock()
        self._sink_open = True
        self._stopping = False
        threading.Thread(target=self._copy, name="memdir-stdin-relay", daemon=True).start()

    def _copy(self) -> None:
        """Copy the client's input into the pipe until it ends (or the pipe does)."""
        while True:
            try:
                data = os.read(self._source, _CHUNK)
            except OSError:
                data = b""
            if not data:
                break
            try:
                while data:
                    data = data[os.write(self._sink, data) :]
            except OSError:  # the server stopped reading: nothing more to pass on
                break
        self._end(stopping=False)

    def on_signal(self, signum: int, frame: FrameType | None) -> None:
        """End the server's input; a second signal gets the default action."""
        if self._stopping:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        self._end(stopping=True)

    def _end(self, *, stopping: bool) -> None:
        with self._lock:
            self._stopping = self._stopping or stopping
            if not self._sink_open:
                return
            self._sink_open = False
            if stopping:
                # Trigger: a signal, while the copy thread may be writing to the pipe.
                # Why: closing the descriptor could hand its number to the next open
                # file, which that thread would then write into.
                # Outcome: the number is pointed at /dev/null instead (one atomic dup2),
                # which closes the pipe's only write end: the server reads end of input.
                null = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
                os.dup2(null, self._sink, inheritable=False)
                os.close(null)
            else:
                os.close(self._sink)

    def restore(self) -> None:
        """Give fd 0 back the client's stdin (the copy thread may still be reading it)."""
        os.dup2(self._source, 0)
