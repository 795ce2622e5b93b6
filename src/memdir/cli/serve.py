"""``memdir serve``: the MCP server on stdio, or on streamable HTTP with ``--http``.

Parse, open the project's memory, serve it. On stdio the server answers a
host's first requests before the MCP SDK is imported, and SIGINT and SIGTERM
stop it cleanly (:mod:`memdir.mcp.stdio`; ``memdir serve`` usually gets there
without click, from ``memdir.__main__``). HTTP binds to loopback
unless ``--host`` says otherwise and always requires a bearer token:
``--token``/``MEMDIR_MCP_TOKEN``, else the one stored (0600) in the memdir
home, generated on first use. The server needs the ``memdir[mcp]`` extra;
without it the command says how to install it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import click

from memdir.cli._common import (
    install_hint,
    open_memdir,
    profile_option_value,
    project_option,
    server_options,
)

__all__ = ["COMMANDS", "serve"]

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@click.command()
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (HTTP).")
@server_options(
    port=8765,
    port_help="Port (HTTP).",
    token_envvar="MEMDIR_MCP_TOKEN",
    token_help="Bearer token clients must send (HTTP); default: the one stored in the memdir home.",
)
@project_option
def serve(use_http: bool, host: str, port: int, token: str | None, project: Path) -> None:
    """Run memdir's MCP server for this project (stdio unless --http)."""
    if importlib.util.find_spec("mcp") is None:
        raise click.ClickException(f"the MCP server needs the mcp extra: {install_hint('mcp')}")
    mem = open_memdir(project)  # fail here, with a clear error, rather than in the server
    if not use_http:
        from memdir.mcp.stdio import serve_stdio

        # Until the client closes stdin, or SIGINT / SIGTERM.
        status = serve_stdio(mem.layout.project_root, profile=profile_option_value(), check=False)
        if status:
            raise SystemExit(status)
        return
    from memdir.mcp.http import TOKEN_FILE, bind, resolve_token, serve_http
    from memdir.mcp.server import build_server

    server = build_server(mem.layout.project_root, profile=profile_option_value())
    secret = resolve_token(mem.settings.home, token)
    sock = bind(host, port)  # a busy port fails here, before the banner says we serve
    if host not in _LOOPBACK:
        click.echo(f"memdir: warning: serving on {host}, reachable beyond this machine", err=True)
    where = "the --token value" if token else f"{mem.settings.home / TOKEN_FILE}"
    click.echo(f"memdir MCP server on http://{host}:{port}/mcp (bearer token: {where})", err=True)
    with sock:
        serve_http(server, token=secret, host=host, port=port, sock=sock)


COMMANDS = [serve]
