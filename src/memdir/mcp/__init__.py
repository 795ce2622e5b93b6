"""memdir's MCP server (the ``memdir[mcp]`` extra).

:func:`build_server` makes the server (tools, resources, prompt, lifespan);
:func:`memdir.mcp.http.serve_http` runs it on streamable HTTP behind a bearer
token; ``server.run()`` runs it on stdio.
"""

from memdir.mcp.server import TOOL_NAMES, MemdirContext, build_server

__all__ = ["TOOL_NAMES", "MemdirContext", "build_server"]
