"""Every secret rule enforced on team writes; memdir scan on files and folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memdir import Memdir, SecretDetected
from memdir.cli import main
from test_secrets import CASE_IDS, CASES, NEAR_MISSES, Case


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_a_team_write_with_each_rules_secret_is_refused_and_leaves_no_file(
    mem: Memdir, case: Case
) -> None:
    with pytest.raises(SecretDetected) as info:
        mem.write(name="Creds", description="d", type="reference", scope="team", body=case.text)
    assert case.secret not in str(info.value)
    assert mem.team.files() == [] and mem.team.read_index() == ""
    assert not list(mem.layout.team_dir.glob(".*.tmp"))


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_a_team_write_with_a_near_miss_is_accepted(mem: Memdir, text: str) -> None:
    result = mem.write(name="Notes", description="d", type="reference", scope="team", body=text)
    assert result.record.file == "notes.md"


def test_scan_reports_rule_and_line_and_exits_1(mem: Memdir, tmp_path: Path) -> None:
    case = CASES[0]
    (tmp_path / "leak.md").write_text(case.text)
    (tmp_path / "clean.md").write_text("nothing here\n")
    result = CliRunner().invoke(main, ["scan", str(tmp_path), "--json"])
    assert result.exit_code == 1
    (finding,) = json.loads(result.stdout)
    assert finding["rule"] == case.rule_id and finding["line"] == 4
    assert case.secret not in result.stdout


def test_scan_defaults_to_the_memory_folder_and_passes_when_clean(mem: Memdir) -> None:
    mem.write(name="Fine", description="d", type="project", body="no secrets")
    project = str(mem.layout.project_root)
    result = CliRunner().invoke(main, ["scan", "--project", project])
    assert result.exit_code == 0 and "no secrets found" in result.stdout
