"""``memdir hook``: commands a coding agent's hooks run, and their installer.

``session-start`` prints the memory prompt in the JSON shape Claude Code adds
to the context; ``user-prompt-submit`` adds the memories recalled for each
prompt; ``pre-tool-use`` answers with the permission decision of the
feedback memories' enforced rules; ``stop``, ``pre-compact`` and ``session-end``
start the session-notes and extraction job in a detached process and return at once.
All of them read the hook's JSON on stdin and never fail the agent: any error
is a note on stderr and exit status 0. The ``memdir`` script answers
``session-start``, ``pre-tool-use`` and ``user-prompt-submit`` before click
loads (:mod:`memdir.integrations.hook_entry`); the commands here are the same
answer for ``--help`` and ``--profile``. ``install claude`` merges the hook
entries into the project's ``.claude/settings.json`` (``--dry-run`` prints
the diff).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import click

from memdir.cli._common import profile_option_value, project_option
from memdir.integrations.hook_entry import run_fast
from memdir.integrations.hooks import HookInput, parse_hook_input, start_background
from memdir.storage.paths import find_project_root

__all__ = ["COMMANDS", "hook"]


@click.group()
def hook() -> None:
    """Hooks for coding agents (Claude Code): session start, prompts, tool calls, stop."""


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
    _fast("session-start")


def _fast(name: str, *, use_model: bool = False) -> None:
    text = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    env = dict(os.environ)
    profile = profile_option_value()
    if profile:
        env["MEMDIR_PROFILE"] = profile
    run_fast(
        name,
        stdin_text=text,
        env=env,
        use_model=use_model,
        write=lambda t: click.echo(t, nl=False),
        warn=lambda t: click.echo(t, nl=False, err=True),
    )


@hook.command("user-prompt-submit")
@click.option(
    "--model",
    "use_model",
    is_flag=True,
    help="Let the configured language model choose (falls back to lexical ranking).",
)
def user_prompt_submit(use_model: bool) -> None:
    """Print the memories recalled for the prompt as additionalContext (JSON on stdin).

    At most five, never one this session was already shown, within its budget.
    """
    _fast("user-prompt-submit", use_model=use_model)


@hook.command("pre-tool-use")
def pre_tool_use() -> None:
    """Deny, ask or warn when a tool call breaks a feedback memory's rule (JSON on stdin)."""
    _fast("pre-tool-use")


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


@hook.command("session-end")
def session_end() -> None:
    """Bring session notes and memories up to date in the background as the session ends."""
    _never_fail(
        "session-end", lambda p: _started(start_background("session-end", p, env=os.environ))
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
