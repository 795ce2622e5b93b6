"""memdir's section of AGENTS.md and Cursor's rule file: idempotent, around the user's text."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from gitutil import git
from memdir.api import Memdir
from memdir.cli import main
from memdir.errors import ConfigError
from memdir.hosts.agents_md import BEGIN, END, export_agents_md, export_cursor_rules
from memutil import save_rule

USER_TOP = "# Shop\n\nRun `make test` before pushing.\n"
USER_BOTTOM = "\n## Deploys\n\nOnly on Tuesdays.\n"
NPM = {"tool": "Bash", "match": r"\bnpm (install|i|run)\b", "action": "deny"}


@pytest.fixture
def stocked(mem: Memdir) -> Memdir:
    body = "Use pnpm.\n**Why:** npm rewrote the lockfile.\n"
    description = "package installs go through pnpm"
    save_rule(mem, "Use pnpm, never npm", NPM, description=description, body=body)
    mem.write(
        name="Staging is shared",
        description="staging database is shared with QA",
        type="project",
        scope="team",
    )
    return mem


def test_the_section_is_added_after_the_users_text_and_rewritten_in_place(
    stocked: Memdir, project: Path
) -> None:
    agents = project / "AGENTS.md"
    agents.write_text(USER_TOP)
    os.chmod(agents, 0o664)
    assert export_agents_md(stocked, include_private=True).changed
    text = agents.read_text()
    assert text.startswith(USER_TOP)
    section = text[text.index(BEGIN) : text.index(END)]
    # The files live in memdir's folder, not the repository: named, never linked.
    assert "- Use pnpm, never npm (`use_pnpm_never_npm.md`)" in section
    assert "- Staging is shared (`staging_is_shared.md`)" in section
    assert "](" not in section
    assert r"Never run a command matching `\bnpm (install|i|run)\b`" in section
    assert 'The memory\'s words on why: "npm rewrote the lockfile."' in section
    assert '."."' not in section and '.".\n' not in section  # one stop, not two
    assert stat.S_IMODE(agents.stat().st_mode) == 0o664

    # The user writes more below the section; memory changes; the export runs again.
    agents.write_text(agents.read_text() + USER_BOTTOM)
    stocked.write(name="Oncall", description="oncall rotation is weekly", type="project")
    assert export_agents_md(stocked, include_private=True).changed
    again = agents.read_text()
    assert again.startswith(USER_TOP) and again.endswith(USER_BOTTOM)
    assert again.count(BEGIN) == 1 and again.count(END) == 1
    assert "- Oncall (`oncall.md`)" in again

    # Nothing changed: nothing is written.
    mtime = agents.stat().st_mtime_ns
    assert not export_agents_md(stocked, include_private=True).changed
    assert agents.read_text() == again and agents.stat().st_mtime_ns == mtime


def test_private_memory_is_left_out_unless_asked_for(stocked: Memdir, project: Path) -> None:
    export_agents_md(stocked)
    text = (project / "AGENTS.md").read_text()
    assert "Staging is shared" in text
    assert "Use pnpm" not in text and "Private memory index" not in text
    export_cursor_rules(stocked)
    assert "Use pnpm" not in (project / ".cursor" / "rules" / "memdir.mdc").read_text()


@pytest.mark.parametrize(
    "damaged",
    [f"{BEGIN}\nhalf a section\n", f"{BEGIN}\na\n{END}\n{BEGIN}\nb\n{END}\n", f"{END}\n{BEGIN}\n"],
)
def test_damaged_markers_are_refused_and_the_file_left_alone(
    stocked: Memdir, project: Path, damaged: str
) -> None:
    agents = project / "AGENTS.md"
    agents.write_text(USER_TOP + damaged)
    with pytest.raises(ConfigError, match="damaged memdir markers"):
        export_agents_md(stocked)
    assert agents.read_text() == USER_TOP + damaged


def test_cursor_rules_are_written_once_and_a_foreign_file_is_refused(
    stocked: Memdir, project: Path
) -> None:
    result = export_cursor_rules(stocked, include_private=True)
    text = result.path.read_text()
    assert result.path == project / ".cursor" / "rules" / "memdir.mdc"
    assert text.startswith("---\n") and "alwaysApply: true" in text
    assert "Use pnpm, never npm" in text
    assert not export_cursor_rules(stocked, include_private=True).changed
    result.path.write_text("---\nalwaysApply: true\n---\nsomeone else's rule\n")
    with pytest.raises(ConfigError, match="not written by memdir"):
        export_cursor_rules(stocked)


def test_the_export_command_reports_what_it_changed(stocked: Memdir, project: Path) -> None:
    runner = CliRunner()
    args = ["export", "agents-md", "--cursor", "--project", str(project)]
    first = runner.invoke(main, args)
    assert first.exit_code == 0, first.output
    assert first.stdout.count("created: ") == 2  # neither file was there
    second = runner.invoke(main, args)
    assert second.stdout.count("unchanged: ") == 2


def test_filling_a_file_git_tracks_with_private_memory_draws_a_warning(
    stocked: Memdir, project: Path
) -> None:
    (project / "AGENTS.md").write_text(USER_TOP)
    runner = CliRunner()
    args = ["export", "agents-md", "--project", str(project)]
    untracked = runner.invoke(main, [*args, "--include-private"])
    assert untracked.exit_code == 0 and "warning" not in untracked.stderr
    git(project, "add", "AGENTS.md")
    git(project, "commit", "-q", "-m", "agents")
    tracked = runner.invoke(main, [*args, "--include-private"])
    assert tracked.exit_code == 0
    assert "git tracks AGENTS.md" in tracked.stderr
    assert "without --include-private" in tracked.stderr
    assert "Use pnpm" in (project / "AGENTS.md").read_text()
    default = runner.invoke(main, args)
    assert default.exit_code == 0 and "warning" not in default.stderr
    assert "Use pnpm" not in (project / "AGENTS.md").read_text()  # private rule left out


def test_the_old_team_only_flag_still_works_and_says_it_is_the_default(
    stocked: Memdir, project: Path
) -> None:
    runner = CliRunner()
    args = ["export", "agents-md", "--project", str(project)]
    old = runner.invoke(main, [*args, "--team-only"])
    assert old.exit_code == 0 and "--team-only is the default now" in old.stderr
    assert "Use pnpm" not in (project / "AGENTS.md").read_text()
    both = runner.invoke(main, [*args, "--team-only", "--include-private"])
    assert both.exit_code == 2


# -- Gemini CLI, which reads GEMINI.md unless told ---------------------------------------------


def _export(project: Path) -> str:
    result = CliRunner().invoke(main, ["export", "agents-md", "--project", str(project)])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_export_says_whether_gemini_reads_agents_md_and_points_a_set_up_gemini_at_it(
    stocked: Memdir, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "gemini-user" / ".gemini"
    monkeypatch.setenv("GEMINI_CLI_HOME", str(user.parent))
    assert "Gemini" not in _export(project)  # no sign of Gemini on this machine: not a word
    user.mkdir(parents=True)
    (user / "settings.json").write_text("{}")
    assert "Gemini CLI reads GEMINI.md, not AGENTS.md" in _export(project)
    assert not (project / ".gemini").exists()  # a project without Gemini's folder is left be

    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n    "theme": "x"\n}\n')
    said = _export(project)
    assert "Gemini CLI now reads GEMINI.md, AGENTS.md" in said
    assert json.loads(settings.read_text()) == {
        "theme": "x",
        "context": {"fileName": ["GEMINI.md", "AGENTS.md"]},
    }
    assert settings.read_text().startswith('{\n    "theme"')  # its own indentation
    assert "Gemini CLI reads it too" in _export(project)


def test_an_export_is_written_even_when_geminis_settings_cannot_be_read(
    stocked: Memdir, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "gemini-user"))
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"context": ')
    said = _export(project)
    assert "Gemini CLI's settings were left as they are" in said
    assert BEGIN in (project / "AGENTS.md").read_text()
    assert settings.read_text() == '{"context": '
