"""``memdir ui``: the local web page where a person sees and steers what agents learned.

Parse, open the project's memory, resolve the token (``--token``, else the one
kept 0600 in the memdir home as ``ui-token``, generated on first use), bind
127.0.0.1 (a busy port is one clear line), print the address with the token
(opening it sets a cookie and drops the token from the address bar), open the
browser unless ``--no-browser``, serve until interrupted. The page needs the
``memdir[ui]`` extra; without it the command says how to install it. The
command is where the page meets the hooks' bookkeeping: it hands the app the
reader of the last background runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from memdir.cli._common import install_hint, open_memdir, project_option, server_options

__all__ = ["COMMANDS", "TOKEN_FILE", "ui"]

TOKEN_FILE = "ui-token"
_EXTRA = {"starlette", "uvicorn", "jinja2", "markupsafe"}


@click.command()
@server_options(
    port=8766,
    port_help="Port to serve.",
    token_envvar="MEMDIR_UI_TOKEN",
    token_help="The token the page asks for; default: the one stored in the memdir home.",
)
@click.option("--no-browser", is_flag=True, help="Print the address; do not open a browser.")
@project_option
def ui(port: int, token: str | None, no_browser: bool, project: Path) -> None:
    """Serve a page on 127.0.0.1 to see and steer this project's memory."""
    try:
        from memdir.ui.app import create_app
        from memdir.ui.server import HOST, serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in _EXTRA:
            raise
        raise click.ClickException(f"the page needs the ui extra: {install_hint('ui')}") from None
    from memdir.hooks.background import hooks_dir
    from memdir.hooks.job_status import last_runs
    from memdir.storage.local_server import bind, resolve_token

    mem = open_memdir(project)
    secret = resolve_token(mem.settings.home, token, file=TOKEN_FILE)
    sock = bind(HOST, port)  # a busy port fails here, before the address is printed
    runs_dir = hooks_dir(mem.layout) / "runs"

    def runs() -> Sequence[tuple[str, str]]:
        return [(run.status, run.describe()) for run in last_runs(runs_dir)]

    app = create_app(mem, token=secret, port=port, runs=runs)
    url = f"http://{HOST}:{port}/?token={secret}"
    where = "the --token value" if token else str(mem.settings.home / TOKEN_FILE)
    click.echo(f"memdir ui for {mem.layout.project_root} on {url}", err=True)
    click.echo(f"(token: {where}; Ctrl-C stops it)", err=True)
    if not no_browser:
        import webbrowser

        webbrowser.open(url)
    with sock:
        serve(app, sock)


COMMANDS = [ui]
