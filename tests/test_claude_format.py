"""Claude Code's current memory format in memdir: read as typed everywhere, written in its shape.

The Claude Code folder is ``fixtures/claude_code/memory``: files exactly as Claude Code
2.1.332 wrote them (``metadata.type``, a slug ``name``, ``modified``, ``[[name]]`` links,
one to a memory not written yet). The memdir folder is ``fixtures/memdir_format/memory``.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memdir.api import Memdir
from memdir.cli import main
from memdir.model import FrontmatterStyle, Memory, MemoryType, Scope
from memdir.recall.doctor import Problem, diagnose
from memdir.recall.manifest import build_manifest
from memdir.search.catalog import Catalog
from memdir.storage.codec import parse_memory, render_memory
from memdir.storage.memory_index import parse_entries

FIXTURES = Path(__file__).parent / "fixtures"
CLAUDE = FIXTURES / "claude_code" / "memory"
MEMDIR = FIXTURES / "memdir_format" / "memory"
TYPES = {
    "user_role.md": MemoryType.USER,
    "feedback_testing.md": MemoryType.FEEDBACK,
    "project_deploy_freeze.md": MemoryType.PROJECT,
    "reference_dashboards.md": MemoryType.REFERENCE,
    "reference_ci_runbook.md": MemoryType.REFERENCE,
}
TODAY = dt.date(2026, 12, 3)  # two days after the fixtures' `modified`


@pytest.fixture
def claude_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    return config


def claude_copy(project: Path) -> Memdir:
    """The claude profile over a copy of the Claude Code folder."""
    mem = Memdir.open(project, profile="claude")
    for path in CLAUDE.iterdir():
        shutil.copy(path, mem.layout.memory_dir / path.name)
    return mem


def claude_copy_with(project: Path, monkeypatch: pytest.MonkeyPatch, setting: str) -> Memdir:
    """:func:`claude_copy` under a config file of one ``setting`` line."""
    monkeypatch.setenv("MEMDIR_CONFIG", str(write_config(project.parent, setting)))
    return claude_copy(project)


@pytest.fixture
def claude_mem(project: Path, claude_env: Path) -> Iterator[Memdir]:
    """The claude profile over a copy of the Claude Code folder."""
    mem = claude_copy(project)
    yield mem
    mem.close()


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


# --- reading -------------------------------------------------------------------------


def test_claude_code_files_list_typed_with_their_slug_names(claude_mem: Memdir) -> None:
    records = {r.file: r for r in claude_mem.list()}
    assert {file: r.memory.type for file, r in records.items()} == TYPES
    assert records["project_deploy_freeze.md"].memory.name == "deploy-freeze"
    assert all(r.memory.style is FrontmatterStyle.CLAUDE for r in records.values())


def test_the_cli_lists_and_shows_claude_code_files_typed(claude_mem: Memdir, project: Path) -> None:
    code, output = cli("--profile", "claude", "list", "--json", "--project", str(project))
    assert code == 0, output
    assert {row["file"]: row["type"] for row in json.loads(output)} == {
        file: kind.value for file, kind in TYPES.items()
    }
    # By slug, and by the title its index line gives it.
    for name in ("deploy-freeze", "Deploy freeze"):
        code, output = cli("--profile", "claude", "show", name, "--project", str(project))
        assert code == 0 and "  type: project" in output and "2026-12-10" in output


def test_the_manifest_lists_every_claude_code_file_with_its_type(claude_mem: Memdir) -> None:
    for manifest in (
        build_manifest(claude_mem, catalog=None),
        build_manifest(claude_mem, catalog=Catalog.open(claude_mem.layout)),
    ):
        lines = manifest.text.splitlines()
        assert len(lines) == len(TYPES) and "untyped" not in manifest.text
        assert "[project] project_deploy_freeze.md (2026-12-01): Merge freeze" in manifest.text
        assert {e.file: e.type for e in manifest.entries} == TYPES


def test_search_finds_claude_code_files_with_their_types(claude_mem: Memdir) -> None:
    hits = claude_mem.search("latency dashboard grafana")
    assert hits[0].ref == "reference_dashboards.md" and hits[0].type is MemoryType.REFERENCE
    only = claude_mem.search("database", types=["feedback"])
    assert [h.ref for h in only] == ["feedback_testing.md"]


def test_recall_renders_the_type_and_ages_by_modified(claude_mem: Memdir) -> None:
    result = claude_mem.recall("integration tests against the database", today=TODAY)
    first = result.items[0]
    assert first.file == "feedback_testing.md" and first.type is MemoryType.FEEDBACK
    assert 'type="feedback"' in first.text and "untyped" not in result.render()
    modified = dt.datetime(2026, 12, 1, 21, 31, 8, tzinfo=dt.UTC).astimezone().date()
    assert first.age_days == (TODAY - modified).days


def test_recall_offers_the_memories_a_recalled_one_links_to_next(claude_mem: Memdir) -> None:
    result = claude_mem.recall("integration tests against the database", today=TODAY)
    # feedback_testing links [[deploy-freeze]] (written) and [[ci-database-setup]] (not yet).
    assert [i.file for i in result.items] == ["feedback_testing.md", "project_deploy_freeze.md"]
    assert result.items[1].candidate.score == 0


def test_linked_memories_stay_within_the_recall_limit(
    project: Path, claude_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = claude_copy_with(project, monkeypatch, "recall_max_memories = 1")
    result = mem.recall("integration tests against the database", today=TODAY)
    assert [i.file for i in result.items] == ["feedback_testing.md"]


def test_a_linked_memory_the_session_has_seen_is_not_offered_again(claude_mem: Memdir) -> None:
    first = claude_mem.recall("freeze on merges for mobile", session="s1", today=TODAY)
    assert [i.file for i in first.items][:1] == ["project_deploy_freeze.md"]
    again = claude_mem.recall("integration tests against the database", session="s1", today=TODAY)
    assert "project_deploy_freeze.md" not in [i.file for i in again.items]


def test_linked_memories_stop_where_the_session_budget_does(
    project: Path, claude_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = claude_copy_with(project, monkeypatch, "recall_session_budget = 1200")
    result = mem.recall("integration tests against the database", session="s", today=TODAY)
    assert [i.file for i in result.items] == ["feedback_testing.md"]
    assert result.budget_used <= 1200


def write_config(folder: Path, text: str) -> Path:
    path = folder / "memdir-config.toml"
    path.write_text(text + "\n")
    return path


def test_doctor_is_clean_on_the_claude_code_folder(claude_mem: Memdir, project: Path) -> None:
    report = diagnose(claude_mem)
    assert report.ok
    assert [(f.problem, f.file) for f in report.findings] == [
        (Problem.UNWRITTEN_LINK, "feedback_testing.md")
    ]
    assert "[[ci-database-setup]]" in report.findings[0].message
    code, output = cli("--profile", "claude", "doctor", "--project", str(project))
    assert code == 0, output
    assert "missing-type" not in output and "not written yet" in output


def test_doctor_still_fails_a_file_with_no_type_in_either_shape(claude_mem: Memdir) -> None:
    (claude_mem.layout.memory_dir / "bare.md").write_text(
        "---\nname: bare\ndescription: no type\nmetadata:\n  node_type: memory\n---\nx\n"
    )
    report = diagnose(claude_mem)
    assert not report.ok
    (missing,) = [f for f in report.findings if f.problem is Problem.MISSING_TYPE]
    assert missing.file == "bare.md" and "metadata: type:" in missing.message


def test_team_memory_in_claude_codes_shape_is_typed_for_mcp_and_sync(
    project: Path, claude_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memdir.mcp._text import listing
    from memdir.team.index_repair import reconcile_index

    monkeypatch.setenv("MEMDIR_TEAM", "1")
    mem = Memdir.open(project, profile="claude")
    shutil.copy(CLAUDE / "reference_dashboards.md", mem.layout.team_dir / "dashboards.md")
    assert mem.team.get("latency-dashboard").memory.type is MemoryType.REFERENCE
    lines = listing(mem.layout.team_dir, "team/")
    assert "team/dashboards.md [reference] Where the API latency dashboard" in "\n".join(lines)
    # Team sync writes the index line a pulled file lacks from its frontmatter.
    assert reconcile_index(mem.team)
    assert (mem.layout.team_dir / "MEMORY.md").read_text() == (
        "- [latency-dashboard](dashboards.md) — "
        "Where the API latency dashboard lives (Grafana, oncall board)\n"
    )


# --- writing -------------------------------------------------------------------------

# The memory both profiles' writers start from; each test gives it a body of its own.
RELEASE: dict[str, Any] = {
    "name": "Release checklist",
    "description": "Run the smoke suite, then tag, then announce",
    "type": "project",
}
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")


def test_a_write_under_the_claude_profile_has_claude_codes_shape(
    project: Path, claude_env: Path
) -> None:
    mem = Memdir.open(project, profile="claude")
    result = mem.write(
        **RELEASE,
        body="Run the smoke suite, then tag, then announce.\n**Why:** a tag without the "
        "suite shipped a broken build.\n**How to apply:** every release; see [[deploy-freeze]].",
        anchors=["scripts/release.sh"],
    )
    assert result.record.file == "release-checklist.md"
    text = (mem.layout.memory_dir / "release-checklist.md").read_text()
    head, body = text.split("\n---\n\n", 1)
    lines = head.splitlines()
    assert lines[:6] == [
        "---",
        "name: release-checklist",
        'description: "Run the smoke suite, then tag, then announce"',
        "metadata:",
        "  node_type: memory",
        "  type: project",
    ]
    assert lines[6:9] == [f"  created: {dt.date.today()}", "  anchors:", "    - scripts/release.sh"]
    assert TIMESTAMP.fullmatch(lines[-1].removeprefix("  modified: "))
    assert body.startswith("Run the smoke suite")
    # Read back the same, typed; the index keeps the human title.
    again = mem.get("Release checklist")
    assert again.memory == parse_memory(text) and again.memory.type is MemoryType.PROJECT
    assert (mem.layout.memory_dir / "MEMORY.md").read_text() == (
        "- [Release checklist](release-checklist.md) — "
        "Run the smoke suite, then tag, then announce\n"
    )


def test_an_update_of_a_claude_code_file_keeps_its_shape_and_claude_codes_keys(
    claude_mem: Memdir,
) -> None:
    before = (CLAUDE / "project_deploy_freeze.md").read_text()
    claude_mem.write(
        name="deploy-freeze",
        description="Merge freeze for non-critical changes from 2026-12-10 "
        "while mobile cuts a release",
        type="project",
        body="No non-critical merges from 2026-12-10 to 2026-12-17.",
    )
    after = (claude_mem.layout.memory_dir / "project_deploy_freeze.md").read_text()
    old_lines, new_lines = before.splitlines(), after.splitlines()
    assert new_lines[:6] == old_lines[:6]  # name, description, metadata, node_type, type
    assert "  originSessionId: 2cbb7a91-1d47-4e3c-9a75-dfcc4015286b" in new_lines
    assert new_lines[new_lines.index("---", 1) - 1] != old_lines[old_lines.index("---", 1) - 1]
    assert after.endswith("---\n\nNo non-critical merges from 2026-12-10 to 2026-12-17.\n")
    # The index line keeps the title the model gave it.
    assert (
        "- [Deploy freeze](project_deploy_freeze.md)"
        in (claude_mem.layout.memory_dir / "MEMORY.md").read_text()
    )


def test_an_update_by_title_finds_the_claude_code_file(claude_mem: Memdir) -> None:
    result = claude_mem.write(
        name="Deploy freeze", description="Freeze from 2026-12-10", type="project", body="x"
    )
    assert not result.created and result.record.file == "project_deploy_freeze.md"
    assert len(claude_mem.list()) == len(TYPES)


def test_a_claude_code_file_keeps_its_shape_under_memdirs_own_profile(mem: Memdir) -> None:
    shutil.copy(CLAUDE / "user_role.md", mem.layout.memory_dir / "user_role.md")
    mem.write(name="user-role", description="Backend engineer", type="user", body="Backend.")
    memory = mem.get("user-role").memory
    assert memory.style is FrontmatterStyle.CLAUDE and memory.type is MemoryType.USER
    assert memory.extra == {"originSessionId": "2cbb7a91-1d47-4e3c-9a75-dfcc4015286b"}


def test_memdir_format_files_keep_memdirs_shape_under_the_claude_profile(
    project: Path, claude_env: Path
) -> None:
    mem = Memdir.open(project, profile="claude")
    shutil.copy(MEMDIR / "deploy_freeze.md", mem.layout.memory_dir / "deploy_freeze.md")
    mem.write(
        name="Deploy freeze",
        description="Merge freeze for non-critical changes from 2026-12-10",
        type="project",
        body="Frozen.",
    )
    text = (mem.layout.memory_dir / "deploy_freeze.md").read_text()
    assert text == (
        "---\nname: Deploy freeze\ndescription: Merge freeze for non-critical changes from "
        f"2026-12-10\ntype: project\ncreated: 2026-11-30\nupdated: {dt.date.today()}\n---\n"
        "Frozen.\n"
    )


def test_memdirs_own_profile_writes_exactly_what_it_wrote_before(mem: Memdir) -> None:
    for entry in parse_entries((MEMDIR / "MEMORY.md").read_text()):  # in the index's order
        path = MEMDIR / entry.file
        memory = parse_memory(path.read_text())
        if memory.type is None:
            continue  # a legacy file: memdir never writes one
        result = mem.private.write(memory, file=path.name, stamp=False)
        assert result.record.memory.style is FrontmatterStyle.MEMDIR
        assert (mem.layout.memory_dir / path.name).read_text() == path.read_text()
    assert (mem.layout.memory_dir / "MEMORY.md").read_text() == "".join(
        line + "\n"
        for line in (MEMDIR / "MEMORY.md").read_text().splitlines()
        if "legacy_note" not in line
    )


def test_a_claude_shaped_memory_renders_as_claude_code_would_restamp_it() -> None:
    memory = Memory(
        name="Ship it",
        description="Deploys go out on Tuesdays, never Fridays",
        type=MemoryType.FEEDBACK,
        body="Deploy on Tuesdays.",
        modified="2026-01-02T03:04:05.006Z",
        extra={"originSessionId": "2cbb7a91-1d47-4e3c-9a75-dfcc4015286b"},
        style=FrontmatterStyle.CLAUDE,
    )
    assert render_memory(memory) == (
        '---\nname: ship-it\ndescription: "Deploys go out on Tuesdays, never Fridays"\n'
        "metadata:\n  node_type: memory\n  type: feedback\n"
        "  originSessionId: 2cbb7a91-1d47-4e3c-9a75-dfcc4015286b\n"
        "  modified: 2026-01-02T03:04:05.006Z\n---\n\nDeploy on Tuesdays.\n"
    )


def test_team_scope_under_the_claude_profile_writes_claude_codes_shape_too(
    project: Path, claude_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMDIR_TEAM", "1")
    mem = Memdir.open(project, profile="claude")
    result = mem.write(
        name="Review rota", description="Who reviews what", type="reference", scope=Scope.TEAM
    )
    assert result.record.memory.style is FrontmatterStyle.CLAUDE
    assert result.record.memory.name == "review-rota"


# --- with the real Claude Code CLI ---------------------------------------------------


def _claude_cli() -> str:
    from claude_code import claude_binary  # skips (fails under CI=true) without the CLI

    return str(claude_binary())


@pytest.mark.claude_code
def test_claude_code_and_memdir_keep_each_others_files_in_one_shape(
    project: Path, claude_env: Path, tmp_path: Path
) -> None:
    from claude_api import Turn, run_stand_in

    mem = Memdir.open(project, profile="claude")
    written = mem.write(
        **RELEASE,
        body="Run the smoke suite, then tag.",
        anchors=["scripts/release.sh"],
    ).record
    path = mem.layout.memory_dir / written.file
    new_path = mem.layout.memory_dir / "claude_new.md"
    turns = [
        Turn(tool="Read", tool_input={"file_path": str(path)}),
        Turn(
            tool="Edit",
            tool_input={
                "file_path": str(path),
                "old_string": "then tag.",
                "new_string": "then tag, then announce.",
            },
        ),
        Turn(
            tool="Write",
            tool_input={
                "file_path": str(new_path),
                "content": "---\nname: Flaky test list\ndescription: Tests known to flake\n"
                "metadata:\n  type: reference\n---\n\nSee [[release-checklist]].\n",
            },
        ),
        Turn(text="Saved."),
    ]
    with run_stand_in(turns) as server:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(tmp_path / "home"),
            "CLAUDE_CONFIG_DIR": str(claude_env),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "sk-test",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        (tmp_path / "home").mkdir()
        run = subprocess.run(
            [_claude_cli(), "-p", "remember", "--permission-mode", "acceptEdits"],
            cwd=project, env=env, capture_output=True, text=True, timeout=180,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr
    # Claude Code restamped memdir's file: same shape, memdir's fields where they were.
    edited = mem.get("release-checklist").memory
    assert edited.style is FrontmatterStyle.CLAUDE and edited.type is MemoryType.PROJECT
    assert edited.anchors == ("scripts/release.sh",) and edited.body.endswith("announce.\n")
    assert edited.modified != written.memory.modified and "originSessionId" in edited.extra
    # memdir updates Claude Code's file in its shape, keeping Claude Code's keys.
    claude_written = mem.get("flaky-test-list").memory
    assert claude_written.type is MemoryType.REFERENCE
    mem.write(
        name="flaky-test-list", description="Tests known to flake", type="reference", body="x"
    )
    again = parse_memory(new_path.read_text())
    assert again.style is FrontmatterStyle.CLAUDE and again.extra == claude_written.extra


def test_a_sync_conflict_copy_of_a_claude_code_file_gets_a_slug_of_its_own() -> None:
    from memdir.team.conflicts import local_copy

    copy = parse_memory(local_copy((CLAUDE / "project_deploy_freeze.md").read_bytes()).decode())
    assert copy.name == "deploy-freeze-local-copy" and copy.style is FrontmatterStyle.CLAUDE
    assert copy.type is MemoryType.PROJECT
