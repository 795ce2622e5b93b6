"""Serving the page: uvicorn on a socket already bound to loopback.

The command binds the socket first (:func:`memdir.storage.local_server.bind`),
so a port in use is one clear line before anything says the page is up;
:func:`serve` then runs the app on it until interrupted.
"""

from __future__ import annotations

import socket

from starlette.types import ASGIApp

__all__ = ["HOST", "serve"]

HOST = "127.0.0.1"


def serve(app: ASGIApp, sock: socket.socket) -> None:
    """Serve ``app`` on the bound listening socket ``sock`` until interrupted."""
    import uvicorn

    host, port = sock.getsockname()[:2]
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
