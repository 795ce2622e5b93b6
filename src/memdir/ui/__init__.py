"""``memdir ui``: a page on this machine where a person sees and steers what agents learned.

An adapter, like the CLI and the MCP server: it composes the layers below
(history, provenance, review, search, recall) into pages served by Starlette on
127.0.0.1, behind a token (:mod:`memdir.ui.guard`). It needs the ``memdir[ui]``
extra (Starlette, uvicorn, Jinja2); :func:`memdir.ui.app.create_app` builds it.
"""
