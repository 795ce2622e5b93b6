"""`memdir serve` on stdio stops at once and cleanly on SIGINT and SIGTERM.

An MCP host stops its stdio server by closing stdin, or with a signal: Claude Code
sends SIGINT at the end of a session and SIGTERM when that does not work. The
server here is the real `memdir serve` child process; its stdin stays open, so only
the signal can end it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from memdir.api import Memdir

pytest.importorskip("mcp")

DEADLINE = 60.0
SRC = str(Path(__file__).resolve().parent.parent / "src")


def _request(id: int, method: str, params: Mapping[str, object]) -> bytes:
    message = {"jsonrpc": "2.0", "id": id, "method": method, "params": params}
    return (json.dumps(message) + "\n").encode()


INITIALIZE = _request(
    1,
    "initialize",
    {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
)
INITIALIZED = b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n'


def serve(project: Path) -> subprocess.Popen[bytes]:
    path = os.environ.get("PYTHONPATH", "")
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{path}" if path else SRC}
    return subprocess.Popen(
        [sys.executable, "-m", "memdir", "serve", "--project", str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def answer(child: subprocess.Popen[bytes]) -> dict[str, object]:
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line, child.stderr.read().decode() if child.stderr else ""
    data: dict[str, object] = json.loads(line)
    return data


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_the_stdio_server_cleanly_while_its_client_keeps_stdin_open(
    project: Path, signum: signal.Signals
) -> None:
    with serve(project) as child:
        assert child.stdin is not None and child.stderr is not None
        try:
            child.stdin.write(INITIALIZE)
            child.stdin.flush()
            assert answer(child)["id"] == 1
            child.stdin.write(INITIALIZED)
            # A tool call first: the server has opened and used the memory it must close.
            write = {
                "name": "write",
                "arguments": {
                    "name": "Signals",
                    "description": "The server stops on SIGINT and SIGTERM",
                    "type": "project",
                    "body": "Stop cleanly.\n",
                },
            }
            child.stdin.write(_request(2, "tools/call", write))
            child.stdin.flush()
            assert answer(child)["id"] == 2
            child.send_signal(signum)
            status = child.wait(timeout=DEADLINE)  # stdin is still open: only the signal ends it
            stderr = child.stderr.read().decode()
        finally:
            if child.poll() is None:
                child.kill()
    assert status == 0, stderr
    assert "Traceback" not in stderr
    index = Memdir.open(project).layout.memory_dir / "MEMORY.md"
    assert "[Signals](signals.md)" in index.read_text()


def test_closing_stdin_still_ends_the_server(project: Path) -> None:
    with serve(project) as child:
        assert child.stdin is not None
        child.stdin.write(INITIALIZE)
        child.stdin.flush()
        assert answer(child)["id"] == 1
        child.stdin.close()
        assert child.wait(timeout=DEADLINE) == 0
