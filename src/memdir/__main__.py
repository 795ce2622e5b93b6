"""The ``memdir`` command: the fast hooks and the stdio server first, then the click CLI.

``python -m memdir`` runs it when the ``memdir`` script is not on PATH. The
hooks that run on every tool call or prompt are answered by
:func:`memdir.hooks.entry.dispatch` before click is imported, and ``memdir
serve`` on stdio by :func:`memdir.mcp.stdio.main`: a host waits for its first
answers, which come before click, the facade or the MCP SDK are imported.
"""

import sys

from memdir.hooks.entry import dispatch

__all__ = ["main"]


def main() -> None:
    """``memdir``: answer a fast hook, serve stdio, or hand the arguments to the click CLI."""
    status = dispatch(sys.argv[1:])
    if status is None and "serve" in sys.argv[1:4]:  # after --profile P at most
        from memdir.mcp.stdio import main as serve_stdio

        status = serve_stdio(sys.argv[1:])
    if status is not None:
        sys.exit(status)
    from memdir.cli import main as cli_main

    try:
        cli_main()
    finally:
        # Output still buffered when the reader has gone fails at the last flush.
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            from memdir.cli._reporting import quiet_broken_pipe

            quiet_broken_pipe()


if __name__ == "__main__":
    main()
