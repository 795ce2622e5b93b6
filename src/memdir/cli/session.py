"""Commands on session notes: ``session show`` and ``session update``.

``memdir session show [--session ID]`` prints a session's notes (without an
id, the most recently updated session's). ``memdir session update --session ID
--transcript PATH`` reads a transcript and runs one notes update now, with
the provider the environment configures; without one it says how to set one
(exit status 1).
"""

from __future__ import annotations

from pathlib import Path

import click

from memdir.agents.session.notes import SessionNotes
from memdir.cli._common import (
    close_provider,
    emit,
    json_option,
    open_memdir,
    project_option,
    read_stdin_text,
    require_provider,
    to_jsonable,
)
from memdir.errors import MemdirError
from memdir.storage.paths import Layout
from memdir.transcripts.reader import read_transcript
from memdir.transcripts.turns import Turn

__all__ = ["COMMANDS", "session"]


@click.group()
def session() -> None:
    """Session notes: the running summary of a conversation."""


def _latest_session(layout: Layout) -> str | None:
    found = sorted(
        layout.sessions_dir.glob("*/session-memory/summary.md"),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )
    return found[0].parent.parent.name if found else None


@session.command(name="show")
@click.option("--session", "session_id", default=None, help="Session id (default: the latest).")
@project_option
@json_option
def show(session_id: str | None, project: Path, as_json: bool) -> None:
    """Print a session's notes."""
    mem = open_memdir(project)
    session_id = session_id or _latest_session(mem.layout)
    if session_id is None:
        raise MemdirError(
            "no session has notes yet",
            path=mem.layout.sessions_dir,
            hint="run `memdir session update --session ID --transcript PATH`",
        )
    path = mem.layout.session_notes_path(session_id)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MemdirError(
            f"session {session_id!r} has no notes yet",
            path=path,
            hint="run `memdir session update` for it first",
        ) from None
    data = {"session": session_id, "path": path, "notes": text}
    emit(as_json, data, lambda: click.echo(text, nl=False))


def _turns(transcript: Path) -> tuple[Turn, ...]:
    """The transcript's turns; ``-`` reads it from standard input (through a private
    temporary file: the reader streams a file)."""
    if str(transcript) != "-":
        return read_transcript(transcript).turns
    import tempfile

    text = read_stdin_text("the transcript (JSONL)")
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        return read_transcript(handle.name).turns


@session.command(name="update")
@click.option("--session", "session_id", required=True, help="Session id.")
@click.option(
    "--transcript",
    "transcript",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The conversation: Claude Code or plain JSONL ('-' reads standard input).",
)
@project_option
@json_option
def update(session_id: str, transcript: Path, project: Path, as_json: bool) -> None:
    """Run one notes update from a transcript, with the configured model."""
    mem = open_memdir(project)
    provider = require_provider(mem)
    turns = _turns(transcript)
    notes = SessionNotes.for_session(
        layout=mem.layout, settings=mem.settings, provider=provider, session_id=session_id
    )
    try:
        result = notes.update(turns)
    finally:
        close_provider(provider)
    run = result.run

    def human() -> None:
        if run is None:
            click.echo(f"nothing new to summarise; notes at {result.path}")
            return
        verdict = "updated" if result.accepted else "not updated"
        click.echo(
            f"notes {verdict}: {result.path}\n"
            f"{result.messages} messages, {run.turns} model turns, {run.tool_calls} tool calls "
            f"({run.refused} refused), {run.usage.input_tokens} tokens in, "
            f"{run.usage.output_tokens} out, stopped: {run.stop_reason.value}"
        )
        if result.missing:
            click.echo(f"rejected: the run dropped {', '.join(result.missing)}", err=True)
        if run.error:
            click.echo(f"error: {run.error}", err=True)

    emit(as_json, to_jsonable(result), human)
    if not result.accepted:
        raise click.exceptions.Exit(1)


COMMANDS = [session]
