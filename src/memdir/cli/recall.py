"""Commands that read memory for an agent: recall and manifest.

``memdir recall QUERY`` prints the memory blocks an agent gets for a request
(nothing, and the reason on stderr, when recall is skipped: that is an
answer, exit status 0). ``memdir manifest`` prints one line per memory,
newest first, or ranked for ``--query``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from memdir.cli._common import (
    NO_PROVIDER_HINT,
    configured_provider,
    emit,
    json_option,
    open_memdir,
    project_option,
    to_jsonable,
)
from memdir.errors import ConfigError

if TYPE_CHECKING:  # the model layer loads with --model only
    from memdir.api import Memdir
    from memdir.recall.selector import ModelSelector

__all__ = ["COMMANDS"]


@click.command(name="recall")
@click.argument("query")
@click.option(
    "--session",
    default=None,
    help="Session id: memories it has seen are not repeated, and its byte budget applies.",
)
@click.option(
    "--model",
    "use_model",
    is_flag=True,
    help="Let the configured language model choose (falls back to lexical ranking).",
)
@project_option
@json_option
def recall_command(
    query: str, session: str | None, use_model: bool, project: Path, as_json: bool
) -> None:
    """Print the memories that may help with QUERY (at most 5)."""
    mem = open_memdir(project)
    selector = _model_selector(mem) if use_model else None
    result = mem.recall(query, session=session, selector=selector)

    def human() -> None:
        if result.items:
            click.echo(result.render(), nl=False)
        else:
            click.echo(f"nothing recalled: {result.reason}", err=True)

    emit(as_json, {**to_jsonable(result), "rendered": result.render()}, human)


def _model_selector(mem: Memdir) -> ModelSelector:
    from memdir.recall.selector import ModelSelector

    provider = configured_provider(mem)
    if provider is None:
        raise ConfigError(
            "--model needs a language model, and none is configured", hint=NO_PROVIDER_HINT
        )
    return ModelSelector(provider)


@click.command(name="manifest")
@click.option("--query", "-q", default=None, help="Rank memories for this request.")
@click.option("--limit", type=click.IntRange(min=0), default=None, help="At most this many.")
@project_option
@json_option
def manifest_command(query: str | None, limit: int | None, project: Path, as_json: bool) -> None:
    """List memories one per line: [type] file (date): description."""
    result = open_memdir(project).manifest(query=query, limit=limit)

    def human() -> None:
        if result.text:
            click.echo(result.text, nl=False)
        else:
            click.echo("no memories yet", err=True)

    emit(as_json, result, human)


COMMANDS = [recall_command, manifest_command]
