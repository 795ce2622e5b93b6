"""The facade's prompt and log: the enable chain, mode choice, settings, the CLI."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from click.testing import CliRunner

from memdir import Memdir
from memdir.cli import main


def test_prompt_is_none_when_memory_is_disabled(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMDIR_DISABLE", "1")
    assert Memdir.open(project).prompt() is None
    monkeypatch.setenv("MEMDIR_DISABLE", "0")
    assert Memdir.open(project, enabled=False).prompt() is not None  # explicit 0 forces on


def test_auto_mode_is_individual_until_team_memory_holds_something(mem: Memdir) -> None:
    mem.write(name="Mine", description="private hook", type="user")
    individual = mem.prompt()
    assert individual is not None and str(mem.layout.team_dir) not in individual
    mem.write(name="Ours", description="shared hook", type="project", scope="team")
    combined = mem.prompt()
    assert combined is not None
    assert str(mem.layout.team_dir) in combined
    assert "private hook" in combined and "shared hook" in combined


def test_daily_log_setting_selects_daily_log_mode(project: Path) -> None:
    text = Memdir.open(project, daily_log=True).prompt()
    assert text is not None and "logs/YYYY/MM/YYYY-MM-DD.md" in text


def test_extra_guidelines_come_from_the_environment_and_the_call(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMDIR_EXTRA_GUIDELINES", "Never store customer names.")
    text = Memdir.open(project).prompt(extra_guidelines=["Prefer team scope for runbooks."])
    assert text is not None
    assert "Never store customer names." in text and "Prefer team scope for runbooks." in text


def test_prompt_index_respects_the_line_limit_setting(project: Path) -> None:
    mem = Memdir.open(project, max_index_lines=3)
    for i in range(5):
        mem.write(name=f"m{i}", description=f"hook {i}", type="project")
    text = mem.prompt()
    assert text is not None and "hook 2" in text and "hook 3" not in text
    assert "5 lines (limit: 3)" in text


def test_log_appends_to_the_local_days_file(mem: Memdir) -> None:
    path = mem.log("shipped the fix", now=dt.datetime(2026, 3, 4, 9, 30, 0))
    assert path == mem.layout.log_path(dt.date(2026, 3, 4))
    assert "- 09:30:00 shipped the fix" in path.read_text()
    assert mem.private.files() == []  # logs are not memories


def test_cli_prompt_and_log(project: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["log", "--project", str(project), "note one"])
    assert result.exit_code == 0 and "logged to" in result.output
    result = runner.invoke(main, ["prompt", "--project", str(project), "--mode", "daily-log"])
    assert result.exit_code == 0 and "YYYY-MM-DD" in result.output
    result = runner.invoke(main, ["prompt", "--project", str(project), "--skip-index"])
    assert result.exit_code == 0 and "MEMORY.md" not in result.output
