"""The README's code runs, and its quickstart is exactly the two Makefile targets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_memory_in_10_lines_example_runs(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    section = README.read_text().split("## Memory in 10 lines", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    monkeypatch.chdir(project)
    namespace: dict[str, object] = {}
    exec(compile(code, str(README), "exec"), namespace)
    assert "Testing policy" in capsys.readouterr().out
    assert "Integration tests hit a real database" in str(namespace["system_prompt"])
    assert namespace["hits"]


def test_the_quickstart_shows_exactly_two_commands() -> None:
    text = README.read_text()
    block = text.split("## Quickstart", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ["make demo", "make test"]
    makefile = (README.parent / "Makefile").read_text()
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    # CI runs the README's test command, not a variant of its own.
    assert re.search(r"^make test$", (README.parent / ".ci" / "run").read_text(), re.M)


def test_pre_commit_runs_the_venvs_ruff_and_mypy_as_local_hooks() -> None:
    config = yaml.safe_load((README.parent / ".pre-commit-config.yaml").read_text())
    (repo,) = config["repos"]
    assert repo["repo"] == "local"  # nothing to fetch
    entries = {hook["id"]: hook["entry"] for hook in repo["hooks"]}
    assert entries == {
        "ruff": ".venv/bin/ruff check --force-exclude",
        "ruff-format": ".venv/bin/ruff format --force-exclude",
        "mypy": ".venv/bin/mypy",
    }
    assert all(hook["language"] == "system" for hook in repo["hooks"])
