"""``memdir hook``: commands a coding agent's hooks run, and their installer.

``session-start`` prints the memory prompt in the JSON shape Claude Code adds
to the context; ``user-prompt-submit`` adds the memories recalled for each
prompt; ``pre-tool-use`` answers with the permission decision of the
feedback memories' enforced rules; ``stop``, ``pre-compact`` and ``session-end``
start the session-notes and extraction job in a detached process and return at once.
All of them read the hook's JSON on stdin and never fail the agent: any error
is a note on stderr and exit status 0. The ``memdir`` script answers
``session-start``, ``pre-tool-use`` and ``user-prompt-submit`` before click
loads (:mod:`memdir.hooks.entry`); the commands here are the same
answer for ``--help`` and ``--profile``; ``--host codex`` and ``--host
gemini`` answer in Codex CLI's and Gemini CLI's dialects
(:mod:`memdir.hooks.dialects`). ``install claude`` merges the hook entries into
a Claude Code settings file of the chosen scope, ``install codex`` into Codex's
``hooks.json``, ``install gemini`` into a Gemini ``settings.json`` (session
start, prompts, tool calls), with commands that run this installation whatever
PATH the agent has (``--dry-run`` prints the file and the diff); ``uninstall``
takes them out again.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from memdir.cli._common import profile_option_value, project_option
from memdir.hooks.background import start_background
from memdir.hooks.entry import run_fast
from memdir.hooks.payload import HookInput, parse_hook_input

if TYPE_CHECKING:
    from memdir.hosts.claude_code import InstallResult

# The scope names, here so the options need not import the installer (difflib, json).
SCOPES = ("local", "project", "user")
AGENTS = ("claude", "codex", "gemini")
# Each agent's scopes, the first its default: Codex and Gemini have no unshared file in
# the project.
_AGENT_SCOPES = {"claude": SCOPES, "codex": ("user", "project"), "gemini": ("user", "project")}
# The hook dialects (memdir.hooks.dialects), here so the options need not import it.
HOSTS = ("claude", "codex", "gemini")
_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = ["COMMANDS", "hook", "scope_dry_run_options"]


@click.group()
def hook() -> None:
    """Hooks for coding agents (Claude Code, Codex CLI, Gemini CLI): session start, prompts,
    tool calls."""


_host_option = click.option(
    "--host",
    type=click.Choice(HOSTS),
    default=None,
    help="The agent whose hook format to answer in (default: claude, Claude Code's).",
)


def _never_fail(name: str, action: Callable[[HookInput], str]) -> None:
    # A hook that fails or blocks would get in the agent's way: report, exit 0.
    try:
        text = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
        output = action(parse_hook_input(text))
    except Exception as exc:
        from memdir.storage.failures import describe

        click.echo(f"memdir: hook {name}: {describe(exc)}", err=True)
        return
    if output:
        click.echo(output)


@hook.command("session-start")
@_host_option
def session_start(host: str | None) -> None:
    """Print the memory prompt as SessionStart additionalContext (hook JSON on stdin)."""
    _fast("session-start", host=host)


def _fast(name: str, *, use_model: bool = False, host: str | None = None) -> None:
    text = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    env = dict(os.environ)
    profile = profile_option_value()
    if profile:
        env["MEMDIR_PROFILE"] = profile
    if host is not None:
        from memdir.hooks.dialects import HOST_VARIABLE

        env[HOST_VARIABLE] = host
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
@_host_option
def user_prompt_submit(use_model: bool, host: str | None) -> None:
    """Print the memories recalled for the prompt as additionalContext (JSON on stdin).

    At most five, never one this session was already shown, within its budget.
    """
    _fast("user-prompt-submit", use_model=use_model, host=host)


@hook.command("pre-tool-use")
@_host_option
def pre_tool_use(host: str | None) -> None:
    """Deny, ask or warn when a tool call breaks a feedback memory's rule (JSON on stdin).

    Codex's and Gemini's hooks cannot ask: there a rule that asks denies, and says why.
    """
    _fast("pre-tool-use", host=host)


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


_SCOPE_HELP = (
    "claude: local: .claude/settings.local.json (yours, not committed; the default); project: "
    ".claude/settings.json (shared; teammates without memdir are skipped, never broken); user: "
    "~/.claude/settings.json. codex: user: ~/.codex/hooks.json (every project; the default); "
    "project: .codex/hooks.json (shared). gemini: user: ~/.gemini/settings.json (every "
    "project; the default); project: .gemini/settings.json (shared)"
)
_DRY_RUN_HELP = "Print the file and the diff; write nothing."


def scope_dry_run_options(scopes: Sequence[str], scope_help: str) -> Callable[[_F], _F]:
    """``--scope`` (one of ``scopes``; None when not given) and ``--dry-run``: where an
    installer writes, and whether it only shows what it would write."""

    scope = click.option("--scope", type=click.Choice(scopes), default=None, help=scope_help)
    dry_run = click.option("--dry-run", is_flag=True, help=_DRY_RUN_HELP)

    def decorate(func: _F) -> _F:
        return scope(dry_run(func))

    return decorate


def _scope_for(agent: str, scope: str | None) -> str:
    scopes = _AGENT_SCOPES[agent]
    if scope is None:
        return scopes[0]
    if scope not in scopes:
        raise click.UsageError(f"{agent} has no {scope} scope: use one of {', '.join(scopes)}")
    return scope


@hook.command("install")
@click.argument("agent", type=click.Choice(AGENTS))
@scope_dry_run_options(SCOPES, _SCOPE_HELP)
@click.option(
    "--command",
    "shell",
    default=None,
    help="The shell command that runs memdir (default: this installation's absolute path).",
)
@project_option
def install(agent: str, scope: str | None, dry_run: bool, shell: str | None, project: Path) -> None:
    """Add memdir's hooks to a Claude Code settings file, Codex's hooks.json or a Gemini
    CLI settings.json.

    The commands name this installation by absolute path and carry the
    settings that chose the memory folder (--profile, MEMDIR_HOME,
    MEMDIR_CONFIG), so they run whatever PATH the agent has.
    """
    from memdir.hosts.launch import launch_for

    scope = _scope_for(agent, scope)
    profile = profile_option_value()
    launch = launch_for(os.environ, profile=profile, shell=shell)
    if agent == "codex":
        from memdir.hosts.codex import install_codex_hooks

        result = install_codex_hooks(project, launch, scope=scope, dry_run=dry_run)
    elif agent == "gemini":
        from memdir.hosts.gemini import install_gemini_hooks

        result = install_gemini_hooks(project, launch, scope=scope, dry_run=dry_run)
    else:
        from memdir.config import load_settings
        from memdir.hosts.claude_code import install_claude_hooks

        own_folder = load_settings(os.environ, profile=profile).profile != "claude"
        result = install_claude_hooks(
            project, launch, scope=scope, own_folder=own_folder, dry_run=dry_run
        )
    if dry_run:
        _echo_dry_run(result, "nothing to change: memdir's hooks are already in")
    elif result.added or result.updated:
        done = [f"added {', '.join(result.added)}"] if result.added else []
        done += [f"updated {', '.join(result.updated)}"] if result.updated else []
        click.echo(f"installed memdir's hooks in {result.path} ({'; '.join(done)})")
    else:
        click.echo(f"memdir's hooks are already installed in {result.path}")
    if not dry_run:
        fallback = " (else memdir on PATH, else skipped)" if scope == "project" else ""
        host = agent if agent != "claude" else None
        click.echo(f"hooks run: {launch.hook_command('<event>', host=host)}{fallback}")
    for note in result.notes:
        click.echo(f"note: {note}")


@hook.command("uninstall")
@click.argument("agent", type=click.Choice(AGENTS))
@scope_dry_run_options(SCOPES, _SCOPE_HELP)
@project_option
def uninstall(agent: str, scope: str | None, dry_run: bool, project: Path) -> None:
    """Remove memdir's hooks from a Claude Code settings file, Codex's hooks.json or a
    Gemini CLI settings.json."""
    scope = _scope_for(agent, scope)
    if agent == "codex":
        from memdir.hosts.codex import uninstall_codex_hooks

        result = uninstall_codex_hooks(project, scope=scope, dry_run=dry_run)
    elif agent == "gemini":
        from memdir.hosts.gemini import uninstall_gemini_hooks

        result = uninstall_gemini_hooks(project, scope=scope, dry_run=dry_run)
    else:
        from memdir.hosts.claude_code import uninstall_claude_hooks

        result = uninstall_claude_hooks(project, scope=scope, dry_run=dry_run)
    if dry_run:
        _echo_dry_run(result, "nothing to change: no memdir hooks in")
    elif result.updated:
        click.echo(f"removed memdir's hooks ({', '.join(result.updated)}) from {result.path}")
    else:
        click.echo(f"no memdir hooks in {result.path}")
    for note in result.notes:
        click.echo(f"note: {note}")


def _echo_dry_run(result: InstallResult, unchanged: str) -> None:
    if not result.changed:
        click.echo(f"{unchanged} {result.path}")
        return
    click.echo(f"would {'create' if result.created else 'change'} {result.path}:")
    click.echo(result.diff, nl=not result.diff.endswith("\n"))


@hook.group("server")
def server() -> None:
    """The warm process that answers session start and per-prompt recall.

    The first hook that finds none starts it; it stops after ten minutes without a
    request (MEMDIR_HOOK_SERVER_IDLE seconds), when memdir is upgraded, or on `stop`.
    MEMDIR_HOOK_SERVER=0 keeps every hook in its own process.
    """


@server.command("run")
def server_run() -> None:
    """Run the server in this process until it is idle or stopped."""
    from memdir.hooks.server import serve

    if serve(os.environ) != 0:
        raise click.ClickException("a hook server already runs for this installation")


@server.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
def server_status_command(as_json: bool) -> None:
    """Whether the server runs, its pid, since when and how many hooks it answered."""
    import datetime as dt
    import json

    from memdir.cli._common import to_jsonable
    from memdir.hooks.server import server_status

    status = server_status(os.environ)
    if as_json:
        click.echo(json.dumps(to_jsonable(status)))
        return
    if not status.running:
        click.echo(f"not running (socket {status.socket})")
        return
    since = dt.datetime.fromtimestamp(status.started or 0).isoformat(timespec="seconds")
    click.echo(
        f"running: pid {status.pid}, since {since}, {status.answered} hooks answered "
        f"(socket {status.socket})"
    )


@server.command("stop")
def server_stop() -> None:
    """Stop the server (the next hook does its work itself, and starts another)."""
    from memdir.hooks.server import stop_server

    click.echo("stopped" if stop_server(os.environ) else "not running")


COMMANDS = [hook]
