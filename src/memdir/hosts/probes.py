"""Run what a host would run, once, and say why it does not answer: for ``memdir doctor``.

:func:`run_hook` gives a hook command ``{}`` on stdin in the project and wants exit 0
with nothing on stderr (a hook that skips says why there); :func:`start_server` starts
an MCP server as the host would (its ``env`` added) and wants an answer to MCP's
``initialize``, then closes its input, its way to stop. Each returns None when the
command answers, else one phrase saying what went wrong. Every wait has a deadline;
a server's stderr goes to a file, so a chatty one never blocks on a pipe.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from memdir.utils.processes import reap

__all__ = ["HOOK_TIMEOUT", "INITIALIZE", "SERVER_TIMEOUT", "run_hook", "start_server"]

HOOK_TIMEOUT = 20.0  # seconds for a probe hook to exit (it answers in well under one)
SERVER_TIMEOUT = 30.0  # seconds for a server to answer initialize (it starts in about one)
INITIALIZE = {  # MCP's first request, as doctor's probe sends it
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "memdir-doctor", "version": "0"},
    },
}


def run_hook(
    argv: list[str], extra: Mapping[str, str], root: Path, env: Mapping[str, str]
) -> str | None:
    """Why ``argv`` does not answer an empty pre-tool-use call, or None when it does."""
    try:
        done = subprocess.run(
            argv,
            input="{}",
            capture_output=True,
            text=True,
            cwd=root,
            env={**env, **extra, "CLAUDE_PROJECT_DIR": str(root)},
            timeout=HOOK_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"did not answer within {HOOK_TIMEOUT:.0f} s"
    except OSError as exc:
        return f"cannot run: {exc.strerror}"
    stderr = done.stderr.strip().splitlines()
    if done.returncode != 0:
        said = f": {stderr[-1]}" if stderr else ""
        return f"exits {done.returncode}{said}"
    if stderr:
        return f"says: {stderr[-1]}"
    return None


def start_server(entry: dict[str, Any], root: Path, env: Mapping[str, str]) -> str | None:
    """Why the server of ``entry`` does not answer ``initialize``, or None when it does."""
    extra = entry.get("env")
    extra = extra if isinstance(extra, dict) else {}
    argv = [entry["command"], *(str(a) for a in entry.get("args", []))]
    # stderr to a file: a chatty server must never block on a pipe nobody reads.
    with tempfile.TemporaryFile() as stderr:
        try:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                cwd=root,
                env={**env, **{str(k): str(v) for k, v in extra.items()}},
            )
        except OSError as exc:
            return f"cannot start: {argv[0]}: {exc.strerror}"
        try:
            return _initialize(process, stderr)
        finally:
            _stop(process)


def _initialize(process: subprocess.Popen[bytes], stderr: IO[bytes]) -> str | None:
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        process.stdin.flush()
    except OSError:
        pass  # it exited already: its status and stderr say why
    deadline = time.monotonic() + SERVER_TIMEOUT
    buffer = b""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while b"\n" not in buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return f"did not answer initialize within {SERVER_TIMEOUT:.0f} s"
            if not selector.select(timeout=left):
                continue
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                return _exit_reason(process, stderr)
            buffer += chunk
    try:
        answer = json.loads(buffer.split(b"\n", 1)[0])
    except ValueError:
        return "answered initialize with something that is not JSON"
    if not isinstance(answer, dict) or "result" not in answer:
        return f"refused initialize: {str(answer)[:200]}"
    return None


def _exit_reason(process: subprocess.Popen[bytes], stderr: IO[bytes]) -> str:
    try:
        status = process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        return "closed its output without answering initialize"
    stderr.seek(0)
    lines = stderr.read().decode("utf-8", "replace").strip().splitlines()
    said = f": {lines[-1]}" if lines else ""
    return f"exited with status {status} before answering{said}"


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Close the server's input (its way to stop), then make sure it is gone."""
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    reap(process, timeout=5)
