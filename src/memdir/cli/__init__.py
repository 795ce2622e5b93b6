"""The ``memdir`` command line: one module per area, registered here."""

from __future__ import annotations

import click

from memdir.cli._common import MemdirGroup
from memdir.cli.consolidate import COMMANDS as CONSOLIDATE_COMMANDS
from memdir.cli.demo import demo
from memdir.cli.enforce import COMMANDS as ENFORCE_COMMANDS
from memdir.cli.export import COMMANDS as EXPORT_COMMANDS
from memdir.cli.hook import COMMANDS as HOOK_COMMANDS
from memdir.cli.install import COMMANDS as INSTALL_COMMANDS
from memdir.cli.memory import COMMANDS as MEMORY_COMMANDS
from memdir.cli.prompt import COMMANDS as PROMPT_COMMANDS
from memdir.cli.recall import COMMANDS as RECALL_COMMANDS
from memdir.cli.scan import COMMANDS as SCAN_COMMANDS
from memdir.cli.search import COMMANDS as SEARCH_COMMANDS
from memdir.cli.serve import COMMANDS as SERVE_COMMANDS
from memdir.cli.session import COMMANDS as SESSION_COMMANDS
from memdir.cli.team import team
from memdir.config import PROFILES

__all__ = ["main"]


@click.group(cls=MemdirGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--profile",
    type=click.Choice(PROFILES),
    default=None,
    envvar="MEMDIR_PROFILE",
    help="'claude' reads and writes Claude Code's own memory folders.",
)
@click.version_option(package_name="memdir")
@click.pass_context
def main(ctx: click.Context, profile: str | None) -> None:
    """memdir: layered, file-based memory for LLM agents."""
    ctx.obj = {"profile": profile}


for _command in [
    *MEMORY_COMMANDS,
    *PROMPT_COMMANDS,
    *RECALL_COMMANDS,
    *SEARCH_COMMANDS,
    *SCAN_COMMANDS,
    team,
    *SERVE_COMMANDS,
    *HOOK_COMMANDS,
    *ENFORCE_COMMANDS,
    *EXPORT_COMMANDS,
    *INSTALL_COMMANDS,
    *SESSION_COMMANDS,
    *CONSOLIDATE_COMMANDS,
    demo,
]:
    main.add_command(_command)
