"""``memdir consolidate``: status, a run and a dry run through a real provider on loopback."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from consolidation.helpers import (
    add_sessions,
    live_process,
    lock_file,
    tree_snapshot,
    write_ci_duplicates,
    write_lock,
)
from consolidation.stub_openai import StubServer, stub_openai
from memdir.api import Memdir
from memdir.cli._reporting import MemdirGroup
from memdir.cli.consolidate import COMMANDS
from memutil import save_ledger_notes

PROVIDER_VARS = (
    "MEMDIR_PROVIDER",
    "MEMDIR_MODEL",
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
)


@pytest.fixture(autouse=True)
def no_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in PROVIDER_VARS:
        monkeypatch.delenv(var, raising=False)


def cli(*args: str) -> tuple[int, str, str]:
    group = MemdirGroup(name="memdir")
    for command in COMMANDS:
        group.add_command(command)
    result = CliRunner().invoke(group, list(args))
    return result.exit_code, result.stdout, result.stderr


def use_stub(monkeypatch: pytest.MonkeyPatch, server: StubServer) -> None:
    monkeypatch.setenv("MEMDIR_PROVIDER", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("MEMDIR_MODEL", "stub")


@pytest.fixture
def duplicates(mem: Memdir) -> Memdir:
    write_ci_duplicates(mem)
    return mem


def test_consolidate_without_a_provider_says_how_to_set_one(project: Path) -> None:
    code, out, err = cli("consolidate", "--force", "--project", str(project))
    assert code == 1 and out == ""
    assert "no model provider is configured" in err
    for var in ("MEMDIR_PROVIDER", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        assert var in err


def test_status_shows_every_gate_without_needing_a_provider(mem: Memdir, project: Path) -> None:
    add_sessions(mem, 5, at=dt.datetime.now(dt.UTC))
    with live_process() as holder:
        write_lock(mem, pid=holder, at=dt.datetime.now(dt.UTC) - dt.timedelta(hours=2))

        code, out, _ = cli("consolidate", "--status", "--project", str(project))
        json_code, json_out, _ = cli("consolidate", "--status", "--json", "--project", str(project))

    assert code == 0
    assert "last run:" in out and "(2.0 h ago); at most every 24 h" in out
    assert "sessions since:  5 (needs 5)" in out
    assert f"lock holder:     PID {holder} (alive)" in out and "(held)" not in out
    assert "last scan:       never" in out
    assert "verdict:         blocked by the time gate" in out
    data = json.loads(json_out)
    assert json_code == 0 and data["ready"] is False
    assert data["lock_holder"] == holder and data["holder_alive"] is True
    assert [c["gate"] for c in data["checks"]] == [
        "enabled",
        "time",
        "throttle",
        "sessions",
        "lock",
    ]


def test_a_run_goes_through_the_configured_provider_and_reports_the_files(
    duplicates: Memdir, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replies = [("tool", "delete_memory", {"file": "ci_host.md"}), ("text", "Removed a duplicate.")]
    with stub_openai(replies) as server:
        use_stub(monkeypatch, server)
        code, out, err = cli("consolidate", "--force", "--project", str(project))

    assert code == 0, err
    assert out.strip() == "Improved 1 memory (deleted ci_host.md)"
    assert "2 model turns, 1 tool calls (0 refused)" in err
    tools = {tool["function"]["name"] for tool in server.requests[0]["tools"]}
    assert {"write_memory", "delete_memory", "read_log", "search_transcripts"} <= tools
    assert list(duplicates.layout.trash_dir.rglob("ci_host.md"))
    assert lock_file(duplicates).exists()


def test_a_gated_run_says_which_gate_stopped_it(
    duplicates: Memdir, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_lock(duplicates, pid=None, at=dt.datetime.now(dt.UTC) - dt.timedelta(hours=1))
    with stub_openai([]) as server:
        use_stub(monkeypatch, server)
        code, out, _ = cli("consolidate", "--project", str(project))
    assert code == 0 and out.startswith("Consolidation skipped: time gate: 1.0 h since")
    assert server.requests == []


def test_a_dry_run_prints_the_diff_and_changes_nothing(
    duplicates: Memdir, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tree_snapshot(duplicates.layout.project_dir)
    merged = {
        "file": "ci_runs.md",
        "name": "CI runs on GitHub Actions",
        "description": "Where the project's CI runs",
        "type": "project",
        "body": "CI runs on GitHub Actions (merged from ci_host.md).",
    }
    replies = [
        ("tool", "write_memory", merged),
        ("tool", "delete_memory", {"file": "ci_host.md"}),
        ("text", "Merged."),
    ]
    with stub_openai(replies) as server:
        use_stub(monkeypatch, server)
        code, out, err = cli("consolidate", "--dry-run", "--project", str(project))

    assert code == 0, err
    assert "+CI runs on GitHub Actions (merged from ci_host.md).\n" in out
    assert "--- a/ci_host.md\n+++ /dev/null\n" in out
    assert "dry run: Improved 2 memories (updated ci_runs.md; deleted ci_host.md)" in err
    assert tree_snapshot(duplicates.layout.project_dir) == before
    assert not lock_file(duplicates).exists()


def test_the_command_documents_its_options() -> None:
    code, out, _ = cli("consolidate", "--help")
    assert code == 0
    for option in ("--force", "--dry-run", "--status", "--session", "--project", "--json"):
        assert option in out


def test_status_says_a_model_is_needed_when_none_is_configured(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMDIR_PROVIDER", "none")
    code, out, _ = cli("consolidate", "--status", "--project", str(project))
    assert code == 0 and "model:           none configured" in out
    assert "consolidation needs a model to run" in out and "ANTHROPIC_API_KEY" in out
    _, json_out, _ = cli("consolidate", "--status", "--json", "--project", str(project))
    assert json.loads(json_out)["model"] is None


def test_status_names_the_configured_model(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMDIR_PROVIDER", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMDIR_MODEL", "stub")
    code, out, _ = cli("consolidate", "--status", "--project", str(project))
    assert code == 0 and "model:           OpenAICompat (stub)" in out
    assert "needs a model" not in out


@pytest.mark.slow
def test_propose_on_the_embedded_local_model_gives_a_proposal_or_a_one_line_reason(
    project: Path, mem: Memdir
) -> None:
    import os
    import subprocess
    import sys

    from llm_local import missing_reason, skip_or_fail

    reason = missing_reason()
    if reason is not None:
        skip_or_fail(reason)
    save_ledger_notes(mem, 3)
    env = {k: v for k, v in os.environ.items() if k != "MEMDIR_LOCAL_MODEL"}  # the bundled one
    done = subprocess.run(
        [sys.executable, "-m", "memdir", "consolidate", "--propose", "--project", str(project)],
        env={**env, "MEMDIR_PROVIDER": "local", "MEMDIR_LOCAL_BASE_URL": ""},
        capture_output=True,
        text=True,
        timeout=600,
    )
    said = done.stdout.strip()
    assert "HTTP" not in said + done.stderr, said + done.stderr
    if done.returncode == 0:
        assert "memdir consolidate show" in said or said.startswith("Improved"), said
    else:
        (line,) = said.splitlines()
        assert "too small for this job" in line
        assert "embedded local model SmolLM2-135M" in line
