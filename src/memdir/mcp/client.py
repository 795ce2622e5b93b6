"""A one-shot MCP client: start a server over stdio, call one tool, return its text.

Used by the demo to show a real MCP round trip, and handy for smoke checks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

__all__ = ["call_tool_over_stdio"]


def call_tool_over_stdio(
    command: Sequence[str],
    tool: str,
    arguments: Mapping[str, Any],
    *,
    env: Mapping[str, str] | None = None,
) -> str:
    """Start ``command`` as an MCP stdio server, call ``tool``, return the text it answered."""
    params = StdioServerParameters(
        command=command[0], args=list(command[1:]), env=dict(env) if env is not None else None
    )

    async def call() -> str:
        async with Client(params) as client:
            result = await client.call_tool(tool, dict(arguments))
            return "\n".join(block.text for block in result.content if block.type == "text")

    return anyio.run(call)
