"""``memdir hook``: commands a coding agent's hooks run, and their installer.

``session-start`` prints the memory prompt in the JSON shape Claude Code adds
to the context; ``stop`` and ``pre-compact`` start the session-notes and
extraction job in a detached process and return at once. All three read the
hook's JSON on stdin and never fail the agent: any error is a note on stderr
and exit status 0. ``install claude`` merges the hook entries into the
project's ``.claude/settings.json`` (``--dry-run`` prints the diff).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import click

from memdir.cli._common import project_option
from memdir.integrations.hooks import (
    HookInput,
    parse_hook_input,
    session_start_output,
    start_background,
)
from memdir.storage.paths import find_project_root

__all__ = ["COMMANDS", "hook"]


@click.group()
def hook() -> None:
    """Hooks for coding agents (Claude Code): session start, stop, pre-compact."""


def _never_fail(name: str, action: Callable[[HookInput], str]) -> None:
    # A hook that fails or blocks would get in the agent's way: report, exit 0.
    try:
        text = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
        output = action(parse_hook_input(text))
    except Exception as exc:
        click.echo(f"memdir: hook {name}: {exc}", err=True)
        return
    if output:
        click.echo(output)


@hook.command("session-start")
def session_start() -> None:
    """Print the memory prompt as SessionStart additionalContext (hook JSON on stdin)."""
    _never_fail("session-start", lambda payload: session_start_output(payload, env=os.environ))


@hook.command("stop")
def stop() -> None:
    """Start session notes and extraction in the background (hook JSON on stdin)."""
    _never_fail("stop", lambda p: _started(start_background("stop", p, env=os.environ)))


@hook.command("pre-compact")
def pre_compact() -> None:
    """Bring session notes up to date in the background before compaction (JSON on stdin)."""
    _never_fail(
        "pre-compact", lambda p: _started(start_background("pre-compact", p, env=os.environ))
    )


def _started(_: object) -> str:
    return ""  # Claude Code shows a Stop hook's stdout nowhere useful: stay quiet


@hook.command("install")
@click.argument("agent", type=click.Choice(["claude"]))
@click.option("--dry-run", is_flag=True, help="Print the change as a diff; write nothing.")
@click.option(
    "--command",
    "executable",
    default="memdir",
    show_default=True,
    help="How the agent should invoke memdir (e.g. a full path).",
)
@project_option
def install(agent: str, dry_run: bool, executable: str, project: Path) -> None:
    """Add memdir's hooks to the agent's project settings (.claude/settings.json)."""
    from memdir.integrations.claude_settings import install_claude_hooks  # difflib: install only

    result = install_claude_hooks(
        find_project_root(project), executable=executable, dry_run=dry_run
    )
    if dry_run:
        click.echo(result.diff or "nothing to change: memdir's hooks are already there", nl=False)
        if not result.diff:
            click.echo()
    elif result.changed:
        click.echo(f"added memdir hooks ({', '.join(result.added)}) to {result.path}")
    else:
        click.echo(f"memdir hooks already installed in {result.path}")


COMMANDS = [hook]
