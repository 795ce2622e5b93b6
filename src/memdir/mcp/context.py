"""What every MCP tool call runs with: the memory the lifespan opened, and its errors.

The server's lifespan opens the project's :class:`~memdir.api.Memdir` once
into a typed :class:`MemdirContext`; a tool reaches it through the request's
context (:func:`state_of`, :func:`memdir_of`). Every tool is wrapped by
:func:`agent_errors`, which records where the call's changes come from (MCP,
the client's name, its session: :mod:`memdir.history.provenance`) and turns
every exception into a :class:`~mcp.server.mcpserver.exceptions.ToolError`
an agent can act on: a :class:`~memdir.errors.MemdirError` (and an
environment failure, through :func:`~memdir.storage.failures.explain_os_error`)
says what went wrong and what to call next, with host paths rewritten
relative to the memory directory; anything else becomes a generic message
that carries neither a path nor a traceback (the traceback goes to the log).
Arguments no memory can hold (a lone surrogate, a path past any file
system's length: :func:`~memdir.mcp.arguments.unusable_argument`) are
refused before the tool runs, with what to send instead.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from memdir.api import Memdir
from memdir.errors import MemdirError
from memdir.history.provenance import provenance
from memdir.mcp._text import Scrubber, agent_error
from memdir.mcp.arguments import unusable_argument
from memdir.storage.failures import explain_os_error

__all__ = ["MemdirContext", "MemdirCtx", "agent_errors", "memdir_of", "state_of"]

logger = logging.getLogger("memdir.mcp")

_P = ParamSpec("_P")
_R = TypeVar("_R")


@dataclass(frozen=True, kw_only=True)
class MemdirContext:
    """What the lifespan opens once for every request: the project's memory."""

    memdir: Memdir
    scrub: Scrubber
    # Recorded as the session of this connection's changes when the transport has no
    # session id of its own (stdio: one client per server process).
    connection: str = ""


MemdirCtx = Context[MemdirContext, Any]


def agent_errors(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Turn every exception into a :class:`ToolError` an agent can act on."""

    @functools.wraps(fn)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        ctx = kwargs.get("ctx")  # the SDK passes the context by its parameter name
        unusable = unusable_argument(fn.__name__, kwargs)
        if unusable is not None:
            raise ToolError(unusable)
        try:
            with provenance(**_origin(ctx)):
                return fn(*args, **kwargs)
        except MemdirError as exc:
            if not isinstance(ctx, Context):
                raise
            raise ToolError(agent_error(exc, state_of(ctx).scrub)) from None
        except OSError as exc:
            if not isinstance(ctx, Context):
                raise
            raise ToolError(agent_error(explain_os_error(exc), state_of(ctx).scrub)) from None
        except ToolError:
            raise
        except Exception:
            logger.exception("memdir tool %s failed", fn.__name__)
            raise ToolError(
                "memdir hit an unexpected error and may not have finished. Next: view the "
                "memory to check its state, retry once, and if it fails again ask the user "
                "to run `memdir doctor`."
            ) from None

    return wrapper


def _origin(ctx: object) -> dict[str, str | None]:
    """Where this call's changes come from: MCP, the client's name, its session."""
    if not isinstance(ctx, Context):
        return {"route": "mcp"}
    client = None
    with contextlib.suppress(AttributeError):
        params = ctx.session.client_params
        client = params.client_info.name if params is not None else None
    headers = getattr(ctx.request_context.request, "headers", None)
    session = headers.get("mcp-session-id") if headers is not None else None
    return {"route": "mcp", "client": client, "session": session or state_of(ctx).connection}


def state_of(ctx: MemdirCtx) -> MemdirContext:
    """What the lifespan opened, for this call."""
    return ctx.request_context.lifespan_context


def memdir_of(ctx: MemdirCtx) -> Memdir:
    """The project's memory, for this call."""
    return state_of(ctx).memdir
