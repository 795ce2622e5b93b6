"""The consolidation run with a scripted model: merging, dates, trash, index limits, dry run."""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path

import pytest

from consolidation.helpers import (
    NOW,
    lock_file,
    prompt_of,
    results_of,
    tree_snapshot,
    write_ci_duplicates,
    write_memory,
)
from memdir.agents.consolidate.run import consolidate, preview_consolidation
from memdir.api import Memdir
from memdir.llm import Completion, Request
from memdir.storage.dailylog import append_log
from memdir.storage.memory_index import parse_entries
from memdir.testing import ScriptedProvider, tool_use

LOG_TEXT = "yesterday we moved CI from GitHub Actions to Buildkite"


@pytest.fixture
def duplicates(mem: Memdir) -> Memdir:
    """Two memories that say the same thing, and a daily log that updates it."""
    write_ci_duplicates(mem)
    append_log(mem.layout.logs_dir, LOG_TEXT, now=dt.datetime(2026, 3, 4, 9, 15, 0))
    return mem


def merge_with_the_logged_date(request: Request) -> Completion:
    """The model: read the dated log entry, resolve "yesterday", write the merged memory."""
    entry = re.search(
        r"^- (\d{4}-\d{2}-\d{2}) [\d:]+ yesterday we moved CI", prompt_of(request), re.M
    )
    assert entry is not None, "the prompt must carry each log entry with its date"
    moved = dt.date.fromisoformat(entry.group(1)) - dt.timedelta(days=1)
    return tool_use(
        "write_memory",
        {
            "file": "ci_runs.md",
            "name": "CI runs on Buildkite",
            "description": f"CI host: Buildkite since {moved.isoformat()}",
            "type": "project",
            "body": (
                f"CI moved from GitHub Actions to Buildkite on {moved.isoformat()}.\n"
                "**Why:** recorded in the daily log.\n**How to apply:** pipelines live in "
                "Buildkite."
            ),
        },
    )


def test_a_run_gives_the_model_dated_log_entries_and_applies_its_merge_through_the_store(
    duplicates: Memdir,
) -> None:
    # The merge and the date arithmetic are the scripted model's; memdir's part is the
    # dated log entry in the prompt, the write, the trash, the index and the report.
    mem = duplicates
    original_host = (mem.layout.memory_dir / "ci_host.md").read_text()
    original_runs = (mem.layout.memory_dir / "ci_runs.md").read_text()
    provider = ScriptedProvider(
        merge_with_the_logged_date,
        tool_use("delete_memory", {"file": "ci_host.md"}),
        "Merged the two CI memories and dated the move.",
    )

    report = consolidate(mem, provider, now=NOW, force=True)

    assert report.ran and report.error is None
    assert (report.created, report.updated, report.deleted) == (
        (),
        ("ci_runs.md",),
        ("ci_host.md",),
    )
    assert report.improved == 2
    assert report.message == "Improved 2 memories (updated ci_runs.md; deleted ci_host.md)"
    merged = (mem.layout.memory_dir / "ci_runs.md").read_text()
    assert "on 2026-03-03." in merged and "yesterday" not in merged
    assert not (mem.layout.memory_dir / "ci_host.md").exists()
    trashed = list(mem.layout.trash_dir.rglob("ci_host.md"))
    assert len(trashed) == 1 and trashed[0].read_text() == original_host
    # The merge retitled ci_runs.md: its old version is kept in the trash too.
    assert [p.read_text() for p in mem.layout.trash_dir.rglob("ci_runs.md")] == [original_runs]
    assert [e.file for e in parse_entries(mem.private.read_index())] == ["ci_runs.md"]
    assert results_of(provider.requests[1])[0].content == "updated ci_runs.md"
    assert "moved ci_host.md to the trash" in results_of(provider.requests[2])[0].content
    assert report.usage.input_tokens > 0 and report.run is not None and report.run.turns == 3


def test_the_prompt_walks_the_four_phases_with_dated_logs_and_drift_findings(
    duplicates: Memdir,
) -> None:
    mem = duplicates
    write_memory(
        mem,
        "legacy_payments.md",
        name="Legacy payments module",
        description="Where the old payment code lives",
        body="The old payment flow is in `src/payments/legacy.py`.",
    )
    provider = ScriptedProvider("Nothing to change.")

    consolidate(mem, provider, now=NOW, force=True)

    (request,) = provider.requests
    for phase in ("1. Orient", "2. Gather", "3. Consolidate", "4. Prune and index"):
        assert phase in request.system
    prompt = prompt_of(request)
    assert "Today is 2026-03-05" in prompt and "never been consolidated" in prompt
    assert "### 2026-03-04 (Wednesday)\n- 2026-03-04 09:15:00 " + LOG_TEXT in prompt
    drift = prompt.split("## Drifted memories", 1)[1]
    assert "legacy_payments.md:" in drift and "src/payments/legacy.py" in drift
    assert "ci_runs.md" in prompt.split("## Memories", 1)[1]
    offered = {tool.name for tool in request.tools}
    assert offered == {
        "list_memories",
        "read_memory",
        "search_memories",
        "write_memory",
        "delete_memory",
        "list_logs",
        "read_log",
        "search_transcripts",
    }


def test_logs_before_the_last_run_are_left_out_of_the_prompt(mem: Memdir) -> None:
    append_log(mem.layout.logs_dir, "old news", now=dt.datetime(2026, 2, 1, 8, 0))
    append_log(mem.layout.logs_dir, "fresh news", now=dt.datetime(2026, 3, 4, 8, 0))
    lock_file(mem).write_text("")
    last = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC).timestamp()
    os.utime(lock_file(mem), (last, last))
    provider = ScriptedProvider("ok")

    consolidate(mem, provider, now=NOW, force=True)

    prompt = prompt_of(provider.requests[0])
    assert "fresh news" in prompt and "old news" not in prompt
    assert "The last consolidation ran on 2026-03-02" in prompt


def test_log_transcript_and_memory_tools_answer_the_model(duplicates: Memdir) -> None:
    mem = duplicates
    transcript = mem.layout.project_dir / "abc123.jsonl"
    transcript.write_text('{"role": "user", "content": "upload fails with ECONNRESET"}\n')
    provider = ScriptedProvider(
        tool_use("list_logs"),
        tool_use("read_log", {"date": "2026-03-04"}),
        tool_use("search_transcripts", {"query": "econnreset"}),
        tool_use("search_transcripts", {"query": "a"}),
        tool_use("read_memory", {"file": "ci_host.md"}),
        "done",
    )

    report = consolidate(mem, provider, now=NOW, force=True)

    answers = [results_of(request)[0] for request in provider.requests[1:]]
    assert answers[0].content == "2026-03-04: logs/2026/03/2026-03-04.md"
    assert answers[1].content == f"- 2026-03-04 09:15:00 {LOG_TEXT}"
    assert answers[2].content.startswith("abc123.jsonl:") and "ECONNRESET" in answers[2].content
    assert answers[3].is_error and "narrow term" in answers[3].content
    assert "Our continuous integration is GitHub Actions." in answers[4].content
    assert report.improved == 0


def test_tools_refuse_paths_outside_memories_and_never_touch_logs_or_index(
    duplicates: Memdir,
) -> None:
    mem = duplicates
    log = mem.layout.log_path(dt.date(2026, 3, 4))
    before = (log.read_bytes(), mem.private.read_index())
    provider = ScriptedProvider(
        tool_use("delete_memory", {"file": "../../.memdir-root"}),
        tool_use("delete_memory", {"file": "logs/2026/03/2026-03-04.md"}),
        tool_use("delete_memory", {"file": "MEMORY.md"}),
        tool_use(
            "write_memory",
            {"file": "MEMORY.md", "name": "x", "description": "y", "type": "project", "body": "z"},
        ),
        tool_use("bash", {"command": "rm -rf ~"}),
        "done",
    )

    report = consolidate(mem, provider, now=NOW, force=True)

    answers = [results_of(request)[0] for request in provider.requests[1:]]
    assert all(answer.is_error for answer in answers)
    assert report.run is not None and report.run.refused == 2  # the bad path and the bad tool
    assert "'bash' is not available" in answers[4].content
    assert (log.read_bytes(), mem.private.read_index()) == before
    assert report.improved == 0 and not mem.layout.trash_dir.exists()
    assert (mem.layout.project_dir / ".memdir-root").exists()


def test_team_files_are_deleted_through_the_team_store(project: Path) -> None:
    mem = Memdir.open(project, team=True, review_team="auto")
    mem.write(
        name="Deploy runbook",
        description="How to deploy",
        type="reference",
        body="See the wiki.",
        scope="team",
        file="deploy.md",
    )
    provider = ScriptedProvider(tool_use("delete_memory", {"file": "team/deploy.md"}), "done")

    report = consolidate(mem, provider, now=NOW, force=True)

    assert report.deleted == ("team/deploy.md",)
    assert not (mem.layout.team_dir / "deploy.md").exists()
    assert list(mem.layout.trash_dir.rglob("team/deploy.md"))


# --- the index after the run ------------------------------------------------------------


def test_an_index_over_its_line_limit_is_brought_under_by_the_repair_after_the_run(
    duplicates: Memdir,
) -> None:
    mem = duplicates
    stale = "".join(f"- [Gone {n}](gone_{n}.md) — removed long ago\n" for n in range(210))
    mem.private.index_path.write_text(mem.private.read_index() + stale)
    assert len(mem.private.read_index().splitlines()) > mem.settings.max_index_lines
    provider = ScriptedProvider("The index is the only problem; memdir repairs pointers.")

    report = consolidate(mem, provider, now=NOW, force=True)

    assert "MEMORY.md (212 lines" in prompt_of(provider.requests[0])
    lines = mem.private.read_index().splitlines()
    assert len(lines) <= mem.settings.max_index_lines
    assert [e.file for e in parse_entries("\n".join(lines))] == ["ci_runs.md", "ci_host.md"]
    assert len(report.repaired) == 210 and "gone_0.md" in report.repaired[0]
    assert report.index_problems == ()


def test_an_index_still_over_its_limits_after_the_repair_is_reported(project: Path) -> None:
    mem = Memdir.open(project, max_index_lines=3)
    for n in range(5):
        write_memory(mem, f"fact_{n}.md", name=f"Fact {n}", description=f"fact {n}", body="x")

    report = consolidate(mem, ScriptedProvider("Nothing to merge."), now=NOW, force=True)

    (problem,) = report.index_problems
    assert problem.startswith("MEMORY.md is 5 lines") and "limits 3 lines" in problem
    assert len(mem.private.files()) == 5  # reported, never dropped


# --- dry run ------------------------------------------------------------------------------


def test_a_dry_run_touches_nothing_and_returns_the_diff(duplicates: Memdir) -> None:
    mem = duplicates
    project_dir = mem.layout.project_dir
    before = tree_snapshot(project_dir)
    provider = ScriptedProvider(
        merge_with_the_logged_date,
        tool_use("delete_memory", {"file": "ci_host.md"}),
        "Merged.",
    )

    preview = preview_consolidation(mem, provider, now=NOW)

    assert tree_snapshot(project_dir) == before
    assert not lock_file(mem).exists() and not mem.layout.trash_dir.exists()
    report = preview.report
    assert (report.updated, report.deleted) == (("ci_runs.md",), ("ci_host.md",))
    diff = preview.diff
    assert "--- a/ci_runs.md\n+++ b/ci_runs.md\n" in diff
    assert "+CI moved from GitHub Actions to Buildkite on 2026-03-03.\n" in diff
    assert "-CI runs on GitHub Actions.\n" in diff
    assert "--- a/ci_host.md\n+++ /dev/null\n" in diff
    assert "-- [Continuous integration host](ci_host.md)" in diff  # the index line goes too
    assert "logs/" not in diff


def test_a_dry_run_of_disabled_memory_calls_no_model(mem: Memdir) -> None:
    provider = ScriptedProvider()
    preview = preview_consolidation(mem, provider, now=NOW, enabled=False)
    assert preview.report.skipped_reason is not None and preview.diff == ""
    assert provider.requests == []
