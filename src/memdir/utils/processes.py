"""Ending a child process memdir started: give it time to go, then make it go.

A server memdir starts (the local model, an MCP server under test by ``doctor``)
is first asked to stop its own way (its input closed, or a terminate signal);
:func:`reap` then waits for it and kills it only when it does not exit in time,
so no child outlives the command that started it.
"""

from __future__ import annotations

import subprocess
from typing import Any

__all__ = ["reap"]


def reap(process: subprocess.Popen[Any], *, timeout: float) -> None:
    """Wait up to ``timeout`` seconds for ``process`` to exit; kill it if it has not."""
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
