"""``memdir session show`` and ``memdir session update``."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from memdir.agents.session.notes import ensure_notes_file
from memdir.agents.session.template import DEFAULT_TEMPLATE
from memdir.api import Memdir
from memdir.cli._reporting import MemdirGroup
from memdir.cli.session import COMMANDS

PROVIDER_VARS = ("MEMDIR_PROVIDER", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL")


@click.group(cls=MemdirGroup)
def cli() -> None:
    """A stand-in for the top-level group."""


for command in COMMANDS:
    cli.add_command(command)


@pytest.fixture(autouse=True)
def no_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in PROVIDER_VARS:
        monkeypatch.delenv(var, raising=False)


def test_show_prints_the_latest_sessions_notes(mem: Memdir, project: Path) -> None:
    ensure_notes_file(mem.layout.session_notes_path("older"), "# Session Title\n_t_\nold\n")
    path = mem.layout.session_notes_path("newer")
    ensure_notes_file(path, DEFAULT_TEMPLATE)
    older = mem.layout.session_notes_path("older")
    import os

    os.utime(older, (1, 1))
    result = CliRunner().invoke(cli, ["session", "show", "--project", str(project)])
    assert result.exit_code == 0, result.output
    assert result.output == DEFAULT_TEMPLATE


def test_show_by_id_as_json(mem: Memdir, project: Path) -> None:
    ensure_notes_file(mem.layout.session_notes_path("s1"), DEFAULT_TEMPLATE)
    result = CliRunner().invoke(
        cli, ["session", "show", "--session", "s1", "--project", str(project), "--json"]
    )
    data = json.loads(result.output)
    assert data["session"] == "s1" and data["notes"] == DEFAULT_TEMPLATE


def test_show_without_notes_says_how_to_make_them(project: Path) -> None:
    result = CliRunner().invoke(cli, ["session", "show", "--project", str(project)])
    assert result.exit_code == 1
    assert "no session has notes yet" in result.output and "session update" in result.output


def test_update_without_a_provider_says_how_to_configure_one(project: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "chat.jsonl"
    transcript.write_text('{"role": "user", "content": "hi"}\n')
    result = CliRunner().invoke(
        cli,
        ["session", "update", "--session", "s1", "--transcript", str(transcript),
         "--project", str(project)],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "no model provider is configured" in result.output
    assert "MEMDIR_PROVIDER=anthropic" in result.output and "MEMDIR_PROVIDER=local" in result.output


def test_every_session_command_has_help() -> None:
    for args in (["session", "--help"], ["session", "show", "--help"],
                 ["session", "update", "--help"]):  # fmt: skip
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0 and "Usage:" in result.output


def test_a_transcript_given_as_dash_is_read_from_standard_input(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io
    import sys

    from memdir.cli.session import _turns

    lines = '{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "hello"}\n'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(lines.encode())))
    turns = _turns(Path("-"))
    assert [(t.role, t.text) for t in turns] == [("user", "hi"), ("assistant", "hello")]
