"""The memory tool's tests' shared parts: a command that must work, one that must fail.

Used by the backend tests and the SDK-shape tests (``from memtoolutil import ok, error``).
"""

from __future__ import annotations

from typing import Any

from memdir.hosts.memory_tool import MemoryToolBackend


def ok(tool: MemoryToolBackend, **command: Any) -> str:
    """Run ``command``; its reply, which must not be an error."""
    reply = tool.execute(command)
    assert not reply.startswith("Error:"), reply
    return reply


def error(tool: MemoryToolBackend, **command: Any) -> str:
    """Run ``command``; its reply, which must be an error."""
    reply = tool.execute(command)
    assert reply.startswith("Error:"), reply
    return reply
