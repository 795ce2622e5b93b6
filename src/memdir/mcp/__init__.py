"""memdir's MCP server (the ``memdir[mcp]`` extra).

:func:`build_server` makes the server (tools, resources, prompt, lifespan);
:func:`memdir.mcp.http.serve_http` runs it on streamable HTTP behind a bearer
token; :func:`memdir.mcp.stdio.serve_stdio` runs it on stdio, answering a
host's first requests before the SDK is even imported.

The names are imported on first use (PEP 562): ``memdir serve`` loads
:mod:`memdir.mcp.stdio` without the SDK, which this package's server needs.
"""

from __future__ import annotations

TYPE_CHECKING = False  # no typing at run time: `memdir serve` starts here
if TYPE_CHECKING:
    from typing import Any

    from memdir.mcp.server import TOOL_NAMES, MemdirContext, build_server

__all__ = ["TOOL_NAMES", "MemdirContext", "build_server"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'memdir.mcp' has no attribute {name!r}")
    import memdir.mcp.server as server

    value = getattr(server, name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
