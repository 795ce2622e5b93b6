"""memdir's MCP server: thin, typed tools over the memdir API.

:func:`build_server` returns a :class:`MemdirServer` (the SDK's
:class:`~mcp.server.mcpserver.MCPServer`, with memdir's argument errors) whose
lifespan opens the project's :class:`~memdir.api.Memdir` once into a typed
:class:`~memdir.mcp.context.MemdirContext`, and registers the tools of
:mod:`memdir.mcp.tools` (each a typed function making one call into memdir;
argument aliases and the sentences for bad arguments are
:mod:`memdir.mcp.arguments`, the context and the errors an agent acts on
:mod:`memdir.mcp.context`). The server answers arguments that fail
validation with :func:`~memdir.mcp.arguments.argument_errors` instead of the
validator's dump, which echoes the input.

Resources: ``memdir://index/private`` and ``memdir://index/team`` (the two
MEMORY.md files). Prompt: ``memory``, the memory section of a system prompt
in its ``tools='memdir'`` variant; served over HTTP it names no host path
(the client is not on this machine), over stdio it keeps the absolute paths.

:meth:`MemdirServer.serve_lines` runs one connection on the SDK's stdio
transport over line files memdir hands it (not the process's own stdin and
stdout): :mod:`memdir.mcp.stdio` feeds it, and :mod:`memdir.mcp.recording`
records its answers there without opening any memory.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any, Protocol, cast

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.runner import serve_dual_era_loop
from mcp.server.stdio import stdio_server
from pydantic import ValidationError

from memdir import __version__
from memdir.api import Memdir
from memdir.mcp._text import Scrubber
from memdir.mcp.arguments import argument_errors
from memdir.mcp.context import MemdirContext, MemdirCtx, state_of
from memdir.mcp.tools import TOOL_NAMES, TOOLS
from memdir.model import Scope

__all__ = [
    "TOOL_NAMES",
    "MemdirContext",
    "MemdirServer",
    "ReadsLines",
    "WritesLines",
    "argument_errors",
    "build_server",
]


class ReadsLines(Protocol):
    """What :meth:`MemdirServer.serve_lines` reads: one line a call, ``""`` at the end."""

    def readline(self) -> str: ...


class WritesLines(Protocol):
    """What :meth:`MemdirServer.serve_lines` writes its answers to."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


def build_server(
    project: str | Path = ".",
    *,
    home: str | Path | None = None,
    profile: str | None = None,
    env: Mapping[str, str] | None = None,
) -> MemdirServer:
    """The MCP server for the project containing ``project``; nothing opens until it runs."""
    holder: dict[str, MemdirContext] = {}
    environ = os.environ if env is None else env

    @asynccontextmanager
    async def lifespan(_: MCPServer[MemdirContext]) -> AsyncIterator[MemdirContext]:
        memdir = Memdir.open(project, home=home, profile=profile, env=environ)
        state = MemdirContext(
            memdir=memdir,
            scrub=Scrubber(memdir.layout.memory_dir, [(memdir.layout.home, "<memdir home>")]),
            connection=f"mcp-{uuid.uuid4().hex[:12]}",
        )
        holder["state"] = state
        # A long-lived server embeds the store (hybrid search) while it waits for calls.
        # Counting what is missing first brings the search index up to date here: a
        # search that came in while the embedding thread caught the index up found
        # nothing. On stdio the host's first answers went out before this runs.
        if memdir.vectors_missing():
            memdir.embed_in_background()
        try:
            yield state
        finally:
            memdir.stop_embedding()  # before the process ends, never inside native code

    server = MemdirServer(
        "memdir",
        version=__version__,
        instructions="Persistent, file-based memory for this project. Call view with no "
        "path to read the index, search or recall to find memories, write/edit/delete to "
        "keep them current.",
        lifespan=lifespan,
        log_level="WARNING",
    )
    for fn, hints in TOOLS:
        server.add_tool(fn, annotations=hints, structured_output=False)
    _add_resources(server, holder)
    _add_prompt(server)
    return server


def _add_resources(server: MCPServer[MemdirContext], holder: dict[str, MemdirContext]) -> None:
    # Static resources get no request context in the SDK, so they read the
    # Memdir the lifespan stored in ``holder``.
    for scope in Scope:
        server.resource(
            f"memdir://index/{scope.value}",
            name=f"{scope.value}-index",
            title=f"{scope.value.capitalize()} MEMORY.md",
            description=f"The index of the {scope.value} memories: one line per memory.",
            mime_type="text/markdown",
        )(_index_reader(holder, scope))


def _index_reader(holder: dict[str, MemdirContext], scope: Scope) -> Callable[[], str]:
    def read() -> str:
        state = holder.get("state")
        if state is None:
            return "(the memory is not open yet)\n"
        return state.memdir.store(scope).read_index() or "(empty)\n"

    return read


def _add_prompt(server: MCPServer[MemdirContext]) -> None:
    def memory(ctx: MemdirCtx) -> str:
        """The memory section of a system prompt, for agents that use memdir's tools."""
        # Over HTTP the request carries the transport's request object; over
        # stdio it is None, and that client runs on this machine.
        remote = ctx.request_context.request is not None
        state = state_of(ctx)
        text = state.memdir.prompt(tools="memdir", host_paths=not remote)
        if text is None:
            return "Memory is disabled for this project."
        return state.scrub(text) if remote else text

    server.prompt(name="memory", title="memdir memory prompt")(memory)


class MemdirServer(MCPServer[MemdirContext]):
    """The SDK's server, with argument errors an agent can act on."""

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        context: Context[MemdirContext, Any] | None = None,
    ) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ValidationError):
                raise
            tool = self._tool_manager.get_tool(name)
            schema = tool.parameters if tool is not None else {}
            raise ToolError(argument_errors(name, cause, schema)) from cause

    async def serve_lines(
        self, inbox: ReadsLines, outbox: WritesLines, *, lifespan: bool = True
    ) -> None:
        """Serve one connection: JSON-RPC lines read from ``inbox``, answers written to ``outbox``.

        The SDK's own stdio transport parses and writes the lines, as on the
        process's stdin and stdout. Without ``lifespan`` nothing is opened: the
        requests that need no memory (the handshake, the lists) are answered as
        they would be by a running server.
        """
        lowlevel = self._lowlevel_server
        options = lowlevel.create_initialization_options()
        # anyio wraps any object with the methods the transport calls.
        stdin = anyio.wrap_file(cast("IO[str]", inbox))
        stdout = anyio.wrap_file(cast("IO[str]", outbox))
        async with stdio_server(stdin, stdout) as (read, write):
            if lifespan:
                await lowlevel.run(read, write, options)
                return
            # No lifespan, so no MemdirContext: the list handlers never read it.
            state = cast(MemdirContext, None)
            await serve_dual_era_loop(
                lowlevel, read, write, lifespan_state=state, init_options=options
            )
