"""The ``memdir`` command line: one module per area, loaded when its command runs.

The top-level group knows every command by name and the module that defines
it, and imports that module only when the command is looked up (click's
``get_command``), so ``memdir search`` pays for search alone and not for the
model layer, consolidation or team sync. ``memdir --help`` lists (and so
loads) them all.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import click

from memdir import __version__
from memdir.cli._common import PROJECT_PATH
from memdir.cli._reporting import MemdirGroup
from memdir.config import PROFILES

__all__ = ["main"]

# Command name -> (module, attribute). A test checks that this lists every command.
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("memdir.cli.memory", "init"),
    "add": ("memdir.cli.memory", "add"),
    "list": ("memdir.cli.memory", "list_"),
    "show": ("memdir.cli.memory", "show"),
    "edit": ("memdir.cli.memory", "edit"),
    "rm": ("memdir.cli.memory", "rm"),
    "doctor": ("memdir.cli.memory", "doctor"),
    "path": ("memdir.cli.memory", "path"),
    "prompt": ("memdir.cli.prompt", "prompt"),
    "log": ("memdir.cli.prompt", "log"),
    "recall": ("memdir.cli.recall", "recall_command"),
    "manifest": ("memdir.cli.recall", "manifest_command"),
    "search": ("memdir.cli.search", "search"),
    "reindex": ("memdir.cli.search", "reindex"),
    "index": ("memdir.cli.search", "index"),
    "scan": ("memdir.cli.scan", "scan"),
    "team": ("memdir.cli.team", "team"),
    "sync": ("memdir.cli.sync", "sync"),
    "serve": ("memdir.cli.serve", "serve"),
    "hook": ("memdir.cli.hook", "hook"),
    "enforce": ("memdir.cli.enforce", "enforce"),
    "export": ("memdir.cli.export", "export"),
    "install": ("memdir.cli.install", "install"),
    "session": ("memdir.cli.session", "session"),
    "consolidate": ("memdir.cli.consolidate", "consolidate_command"),
    "demo": ("memdir.cli.demo", "demo"),
    "history": ("memdir.cli.history", "history"),
    "restore": ("memdir.cli.history", "restore"),
    "undo": ("memdir.cli.history", "undo"),
    "redact": ("memdir.cli.history", "redact"),
    "why": ("memdir.cli.history", "why"),
    "review": ("memdir.cli.review", "review"),
    "ui": ("memdir.cli.ui", "ui"),
    "verify": ("memdir.cli.review", "verify"),
    "pin": ("memdir.cli.pins", "pin"),
    "unpin": ("memdir.cli.pins", "unpin"),
    "used": ("memdir.cli.used", "used"),
    "forget": ("memdir.cli.forget", "forget"),
    "unforget": ("memdir.cli.forget", "unforget"),
}


class LazyGroup(MemdirGroup):
    """A group whose subcommands are imported when looked up, not at start."""

    def __init__(self, *args: object, lazy: dict[str, tuple[str, str]], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            module, attribute = self.lazy[cmd_name]
            command = getattr(importlib.import_module(module), attribute)
            if not isinstance(command, click.Command):
                raise TypeError(f"{module}.{attribute} is not a click command")
            self.commands[cmd_name] = command
        return self.commands.get(cmd_name)


@click.group(
    cls=LazyGroup,
    lazy=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option(
    "--profile",
    type=click.Choice(PROFILES),
    default=None,
    envvar="MEMDIR_PROFILE",
    help="'claude' reads and writes Claude Code's own memory folders.",
)
@click.option(
    "--project",
    type=PROJECT_PATH,
    default=None,
    help="The project, for every command that takes --project (default: here).",
)
@click.version_option(__version__, "--version", "-V", prog_name="memdir")
@click.pass_context
def main(ctx: click.Context, profile: str | None, project: Path | None) -> None:
    """memdir: layered, file-based memory for LLM agents."""
    ctx.obj = {"profile": profile, "project": project}
