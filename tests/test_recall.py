"""Recall: selection, session memory of what was shown, budgets, caps, ages and drift."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from gitutil import git
from memdir.api import Memdir
from memdir.cli._reporting import MemdirGroup
from memdir.cli.recall import manifest_command, recall_command
from memdir.errors import LockTimeout, UnsafePath
from memdir.model import Memory, MemoryType, Scope
from memdir.recall.age import memory_age
from memdir.recall.manifest import ManifestEntry, MemoryFile
from memdir.recall.relevant import (
    Candidate,
    LexicalSelector,
    SkipReason,
    cap_body,
    read_session_state,
    recall,
    session_state_path,
)
from memdir.search.catalog import CATALOG_NAME, Catalog
from memdir.storage.codec import render_memory
from openutil import files_opened

TODAY = dt.date(2026, 3, 10)


def run_git(cwd: Path, *args: str) -> None:
    git(cwd, *args)


def save(
    mem: Memdir,
    name: str,
    description: str,
    body: str = "",
    *,
    scope: Scope = Scope.PRIVATE,
    type: MemoryType = MemoryType.PROJECT,
    updated: dt.date | None = dt.date(2026, 3, 1),
    verified: dt.date | None = None,
) -> str:
    """Save through the store with frozen dates; returns the memory's ref."""
    memory = Memory(
        name=name,
        description=description,
        type=type,
        body=body,
        updated=updated,
        verified=verified,
    )
    record = mem.store(scope).write(memory, stamp=False).record
    return f"team/{record.file}" if scope is Scope.TEAM else record.file


def refs(result: object) -> list[str]:
    return [item.ref for item in getattr(result, "items", ())]


# --- what gets skipped ---------------------------------------------------------------


@pytest.mark.parametrize("query", ["database", "  database  ", ""])
def test_single_word_queries_are_skipped_with_a_reason(mem: Memdir, query: str) -> None:
    save(mem, "Database policy", "database tests use a real database")
    result = recall(mem, query, session="s1", today=TODAY)
    assert result.items == ()
    assert result.skipped is SkipReason.SINGLE_WORD
    assert result.reason is not None and "single word" in result.reason
    assert result.render() == ""
    assert not session_state_path(mem.layout, "s1").exists()


def test_disabled_memory_recalls_nothing(mem: Memdir) -> None:
    save(mem, "Database policy", "integration tests use a real database")
    result = recall(mem, "integration tests database", enabled=False, today=TODAY)
    assert (result.items, result.skipped) == ((), SkipReason.DISABLED)


def test_no_match_is_a_result_not_an_error(mem: Memdir) -> None:
    save(mem, "Database policy", "integration tests use a real database")
    result = recall(mem, "kubernetes cluster upgrade", today=TODAY)
    assert (result.items, result.skipped) == ((), SkipReason.NO_MATCH)


# --- ranking and selection -----------------------------------------------------------


@pytest.mark.parametrize("ranker", ["own", "catalog"])
def test_an_exact_description_match_outranks_a_passing_body_mention(
    mem: Memdir, ranker: str
) -> None:
    save(
        mem,
        "Release calendar",
        "When and how releases ship",
        "We ship monthly, on the first Tuesday.\n"
        "Freeze the branch two days before; the checkout test was flaky on CI once.\n"
        "Tag the release and announce it.\n",
    )
    save(mem, "Checkout test", "Flaky checkout test on CI", "Retry it once; see the runbook.\n")
    save(mem, "Dashboards", "Where the latency dashboards are", "Grafana, folder API.\n")
    if ranker == "catalog":
        with Catalog.open(mem.layout) as catalog:
            catalog.refresh()
    result = recall(mem, "flaky checkout test on CI", today=TODAY)
    assert refs(result)[0] == "checkout_test.md"
    assert "dashboards.md" not in refs(result)


def test_a_catalog_is_used_when_its_file_exists_and_never_created(mem: Memdir) -> None:
    save(mem, "Checkout test", "Flaky checkout test on CI")
    recall(mem, "flaky checkout test", today=TODAY)
    assert not (mem.layout.state_dir / CATALOG_NAME).exists()
    with Catalog.open(mem.layout, auto_refresh=False) as stale:
        stale.refresh()
        save(mem, "Checkout retries", "Flaky checkout test retries on CI")
        # A catalog passed in is trusted as it is: this one has not seen the new memory.
        assert refs(recall(mem, "flaky checkout retries", today=TODAY, catalog=stale)) == [
            "checkout_test.md"
        ]
        assert refs(recall(mem, "checkout retries", today=TODAY, catalog=None))[0] == (
            "checkout_retries.md"
        )


def test_at_most_five_memories_are_recalled(mem: Memdir) -> None:
    for n in range(8):
        save(mem, f"Cache note {n}", f"redis cache eviction note number {n}")
    result = recall(mem, "redis cache eviction", today=TODAY)
    assert len(result.items) == mem.settings.recall_max_memories == 5


class RecordingSelector:
    """A stand-in for a model: records what it was shown, answers from a script."""

    def __init__(self, answer: list[str]) -> None:
        self.answer = answer
        self.seen: list[Candidate] = []
        self.limit = -1

    def select(self, query: str, candidates: Sequence[Candidate], limit: int) -> list[str]:
        self.seen = list(candidates)
        self.limit = limit
        return self.answer


def test_a_selector_sees_names_descriptions_types_and_ages_and_may_pick_any(
    mem: Memdir,
) -> None:
    save(mem, "Redis cache", "redis cache eviction policy", updated=dt.date(2026, 3, 9))
    unrelated = save(
        mem, "Oncall", "who carries the pager", scope=Scope.TEAM, type=MemoryType.REFERENCE
    )
    selector = RecordingSelector([unrelated, "nonexistent.md", unrelated])
    result = recall(mem, "redis cache eviction", selector=selector, today=TODAY)
    assert refs(result) == ["team/oncall.md"]
    assert selector.limit == 5
    first, second = selector.seen
    assert (first.ref, first.age_label, first.score > 0) == ("redis_cache.md", "yesterday", True)
    assert (second.ref, second.scope, second.type, second.score) == (
        "team/oncall.md",
        Scope.TEAM,
        MemoryType.REFERENCE,
        0.0,
    )
    assert second.description == "who carries the pager"


def test_an_empty_selection_is_a_fine_answer(mem: Memdir) -> None:
    save(mem, "Redis cache", "redis cache eviction policy")
    result = recall(mem, "redis cache eviction", selector=RecordingSelector([]), today=TODAY)
    assert (result.items, result.skipped) == ((), SkipReason.NONE_SELECTED)


def test_the_lexical_selector_drops_matches_far_below_the_best() -> None:
    def candidate(ref: str, score: float) -> Candidate:
        found = MemoryFile(ref=ref, file=ref, scope=Scope.PRIVATE, location=ref, mtime=0.0)
        entry = ManifestEntry(found=found, name=ref, description="", type=None, date=TODAY)
        return Candidate(
            entry=entry, age=memory_age(today=TODAY, mtime=0.0, updated=TODAY), score=score
        )

    pool = [candidate("a.md", 4.0), candidate("b.md", 2.0), candidate("c.md", 0.5)]
    pool.append(candidate("d.md", 0.0))
    assert LexicalSelector().select("q w", pool, 5) == ["a.md", "b.md"]
    assert LexicalSelector(min_share=0.0).select("q w", pool, 2) == ["a.md", "b.md"]


# --- sessions ------------------------------------------------------------------------


def test_surfaced_memories_are_not_returned_twice_in_a_session(mem: Memdir) -> None:
    save(mem, "Redis cache", "redis cache eviction policy")
    first = recall(mem, "redis cache eviction", session="s1", today=TODAY)
    again = recall(mem, "redis cache eviction", session="s1", today=TODAY)
    other = recall(mem, "redis cache eviction", session="s2", today=TODAY)
    assert refs(first) == ["redis_cache.md"]
    assert (again.items, again.skipped) == ((), SkipReason.NO_MEMORIES)
    assert refs(other) == ["redis_cache.md"]


def test_surfaced_memories_are_excluded_before_ranking(mem: Memdir) -> None:
    for n in range(7):
        save(mem, f"Cache note {n}", f"redis cache eviction note number {n}")
    first = recall(mem, "redis cache eviction", session="s1", today=TODAY)
    second = recall(mem, "redis cache eviction", session="s1", today=TODAY)
    assert len(first.items) == 5
    assert len(second.items) == 2
    assert not set(refs(first)) & set(refs(second))


def test_the_session_record_is_shared_by_two_memdir_objects(project: Path) -> None:
    one, two = Memdir.open(project), Memdir.open(project)
    save(one, "Redis cache", "redis cache eviction policy")
    save(one, "Redis keys", "redis cache key naming")
    first = recall(one, "redis cache", session="shared", today=TODAY)
    second = recall(two, "redis cache", session="shared", today=TODAY)
    assert len(first.items) == 2
    assert second.skipped is SkipReason.NO_MEMORIES
    state = read_session_state(two.layout, "shared")
    assert sorted(state.surfaced) == ["redis_cache.md", "redis_keys.md"]
    assert state.bytes_used == first.budget_used == sum(i.bytes for i in first.items)


def test_the_session_record_persists_across_processes(mem: Memdir, project: Path) -> None:
    save(mem, "Redis cache", "redis cache eviction policy")
    save(mem, "Deploy freeze", "release branch frozen before the deploy")
    script = (
        "import sys; from memdir.api import Memdir; from memdir.recall.relevant import recall\n"
        "r = recall(Memdir.open(sys.argv[1]), 'redis cache eviction', session='proc')\n"
        "print(','.join(i.ref for i in r.items))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(project)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout.strip() == "redis_cache.md"
    again = recall(
        mem, "redis cache eviction before the deploy freeze", session="proc", today=TODAY
    )
    assert refs(again) == ["deploy_freeze.md"]


def test_session_state_lives_in_the_session_folder_as_json(mem: Memdir) -> None:
    save(mem, "Redis cache", "redis cache eviction policy")
    result = recall(mem, "redis cache eviction", session="abc-123", today=TODAY)
    path = mem.layout.sessions_dir / "abc-123" / "recall.json"
    data = json.loads(path.read_text())
    assert data["surfaced"] == ["redis_cache.md"]
    assert data["bytes_used"] == result.budget_used
    assert path.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("session", ["../escape", "/abs/path", "a/../../b"])
def test_session_ids_cannot_leave_the_sessions_folder(mem: Memdir, session: str) -> None:
    save(mem, "Redis cache", "redis cache eviction policy")
    with pytest.raises(UnsafePath):
        recall(mem, "redis cache eviction", session=session, today=TODAY)


def test_a_damaged_session_record_starts_over(mem: Memdir) -> None:
    save(mem, "Redis cache", "redis cache eviction policy")
    path = session_state_path(mem.layout, "s1")
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    assert refs(recall(mem, "redis cache eviction", session="s1", today=TODAY)) == [
        "redis_cache.md"
    ]


# --- budgets and caps ----------------------------------------------------------------


def test_the_session_budget_stops_recall(project: Path) -> None:
    mem = Memdir.open(project, recall_session_budget=5000)
    for n in range(8):
        body = f"Eviction detail {n}: " + "keys expire after the TTL. " * 60 + "\n"
        save(mem, f"Cache note {n}", f"redis cache eviction note number {n}", body)
    results = [recall(mem, "redis cache eviction", session="s", today=TODAY) for _ in range(4)]
    delivered = [item for r in results for item in r.items]
    assert 0 < len(delivered) < 8
    assert sum(item.bytes for item in delivered) <= 5000
    assert results[-1].items == ()
    assert results[-1].skipped is SkipReason.BUDGET_SPENT
    assert results[-1].reason == "this session's recall budget is spent"
    assert read_session_state(mem.layout, "s").bytes_used <= 5000


def test_a_spent_budget_recalls_nothing_even_for_new_memories(project: Path) -> None:
    mem = Memdir.open(project, recall_session_budget=600)
    save(mem, "Cache note", "redis cache eviction", "keys expire after the TTL\n" * 10)
    first = recall(mem, "redis cache eviction", session="s", today=TODAY)
    save(mem, "Cache more", "redis cache eviction again", "keys expire after the TTL\n" * 10)
    second = recall(mem, "redis cache eviction", session="s", today=TODAY)
    assert len(first.items) == 1
    assert first.budget_used + first.budget_left == 600
    assert second.skipped is SkipReason.BUDGET_SPENT


def test_a_ten_thousand_line_body_is_capped_at_a_line_boundary_with_a_note(
    mem: Memdir,
) -> None:
    body = "".join(f"step {n}: run the migration for shard {n}\n" for n in range(10_000))
    memory = Memory(
        name="Shard migration",
        description="how to migrate the database shards",
        type=MemoryType.PROJECT,
        body=body,
    )
    # Larger than the store accepts: written by hand, as an agent with file tools would.
    (mem.layout.memory_dir / "shard_migration.md").write_text(render_memory(memory))
    (item,) = recall(mem, "migrate database shards", today=TODAY).items
    block_body = item.text.split("\n\n", 1)[1]
    shown = [line for line in block_body.splitlines() if line.startswith("step ")]
    assert 0 < len(shown) <= 200
    assert len("".join(s + "\n" for s in shown).encode()) <= 4096
    assert shown == [f"step {n}: run the migration for shard {n}" for n in range(len(shown))]
    assert item.truncated
    assert f"{len(shown)} of 10000 lines shown" in item.text
    assert "`memdir show shard_migration.md`" in item.text
    assert str(mem.layout.memory_dir / "shard_migration.md") in item.text


def test_a_team_memory_note_names_the_team_scope(mem: Memdir) -> None:
    body = "".join(f"line {n} of the runbook\n" for n in range(500))
    save(mem, "Runbook", "database failover runbook", body, scope=Scope.TEAM)
    (item,) = recall(mem, "database failover runbook", today=TODAY).items
    assert "`memdir show runbook.md --scope team`" in item.text
    assert 'scope="team"' in item.text


def test_cap_body_keeps_short_bodies_whole() -> None:
    capped = cap_body("one\ntwo\n", max_lines=200, max_bytes=4096)
    assert (capped.text, capped.truncated, capped.shown_lines) == ("one\ntwo\n", False, 2)


def test_cap_body_cuts_an_overlong_first_line_on_a_character_boundary() -> None:
    capped = cap_body("é" * 3000 + "\nrest\n", max_lines=200, max_bytes=101)
    assert capped.text == "é" * 50 + "\n"
    assert capped.truncated


@given(
    st.lists(st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=40)),
    st.integers(min_value=1, max_value=30),
    st.integers(min_value=1, max_value=400),
)
def test_cap_body_returns_whole_leading_lines_within_both_limits(
    lines: list[str], max_lines: int, max_bytes: int
) -> None:
    body = "".join(line.replace("\n", " ").replace("\r", " ") + "\n" for line in lines)
    capped = cap_body(body, max_lines=max_lines, max_bytes=max_bytes)
    assert capped.shown_lines <= max_lines
    assert capped.shown_bytes <= max_bytes
    assert capped.truncated == (capped.shown_bytes < len(body.encode()))
    if capped.text and body.startswith(capped.text):
        assert capped.text.endswith("\n")


# --- the block: age, staleness, drift ------------------------------------------------


def test_the_block_header_carries_file_scope_type_and_age(mem: Memdir) -> None:
    save(mem, "Redis cache", "redis cache eviction policy", "Use allkeys-lru.\n")
    (item,) = recall(mem, "redis cache eviction", today=dt.date(2026, 3, 1)).items
    assert item.text.splitlines()[:2] == [
        '<memory file="redis_cache.md" scope="private" type="project" saved="today">',
        "Redis cache: redis cache eviction policy",
    ]
    assert "days old" not in item.text
    assert item.text.endswith("Use allkeys-lru.\n</memory>")


@pytest.mark.parametrize(
    ("today", "label", "note"),
    [
        (dt.date(2026, 3, 1), "today", False),
        (dt.date(2026, 3, 2), "yesterday", False),
        (dt.date(2026, 3, 3), "2 days ago", True),
    ],
)
def test_age_label_and_staleness_note_at_the_day_boundaries(
    mem: Memdir, today: dt.date, label: str, note: bool
) -> None:
    save(mem, "Redis cache", "redis cache eviction policy", updated=dt.date(2026, 3, 1))
    (item,) = recall(mem, "redis cache eviction", today=today).items
    assert f'saved="{label}"' in item.text
    assert item.age_label == label
    assert ("This memory is 2 days old." in item.text) is note


def test_verified_dates_the_memory_before_its_mtime(mem: Memdir) -> None:
    save(mem, "Redis cache", "redis cache eviction", updated=None, verified=dt.date(2026, 2, 8))
    (item,) = recall(mem, "redis cache eviction", today=TODAY).items
    assert item.age_days == 30
    assert "This memory is 30 days old." in item.text


def test_drift_findings_appear_in_the_block(mem: Memdir, project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "api.py").write_text("def handle_request():\n    return 1\n")
    run_git(project, "add", ".")
    run_git(project, "commit", "-q", "-m", "api")
    save(
        mem,
        "API entry point",
        "where HTTP requests are handled",
        "Requests enter through `src/api.py`, in `handle_request()`.\n",
    )
    before = recall(mem, "where are HTTP requests handled", today=TODAY).items[0]
    assert before.drift == ()
    run_git(project, "rm", "-q", "src/api.py")
    run_git(project, "commit", "-q", "-m", "drop api")
    (item,) = recall(mem, "where are HTTP requests handled", today=TODAY).items
    messages = [finding.message for finding in item.drift]
    assert "`src/api.py` no longer exists" in messages
    assert any("handle_request" in m for m in messages)
    assert "- `src/api.py` no longer exists" in item.text


def test_render_gives_the_blocks_and_the_drift_caveat(mem: Memdir) -> None:
    save(mem, "Redis cache", "redis cache eviction policy")
    save(mem, "Redis keys", "redis cache key naming")
    result = recall(mem, "redis cache eviction policy and key naming", today=TODAY)
    text = result.render()
    assert text.startswith("Memories recalled for this request:\n\n<memory ")
    assert text.count("<memory ") == 2 == text.count("</memory>")
    assert "point-in-time record" in text


# --- the commands --------------------------------------------------------------------


def test_the_recall_command_prints_the_blocks_and_json(mem: Memdir, project: Path) -> None:
    save(mem, "Redis cache", "redis cache eviction policy", "Use allkeys-lru.\n")
    runner = CliRunner()
    args = ["redis cache eviction", "--project", str(project)]
    text = runner.invoke(recall_command, args)
    assert text.exit_code == 0, text.output
    assert '<memory file="redis_cache.md"' in text.output
    data = json.loads(runner.invoke(recall_command, [*args, "--json"]).output)
    assert data["items"][0]["ref"] == "redis_cache.md"
    assert data["rendered"].startswith("Memories recalled for this request:")


def test_the_recall_command_reports_a_skip_on_stderr_with_status_zero(
    mem: Memdir, project: Path
) -> None:
    result = CliRunner().invoke(recall_command, ["redis", "--project", str(project)])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "nothing recalled: the query is a single word" in result.stderr


def test_the_recall_command_honours_memdir_disable(
    mem: Memdir, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save(mem, "Redis cache", "redis cache eviction policy")
    monkeypatch.setenv("MEMDIR_DISABLE", "1")
    args = ["redis cache eviction", "--project", str(project), "--json"]
    data = json.loads(CliRunner().invoke(recall_command, args).output)
    assert (data["items"], data["skipped"]) == ([], "disabled")


def test_the_recall_command_turns_a_bad_session_id_into_an_error(
    mem: Memdir, project: Path
) -> None:
    group = MemdirGroup(commands={"recall": recall_command})
    args = ["recall", "redis cache", "--session", "../x", "--project", str(project)]
    result = CliRunner().invoke(group, args)
    assert result.exit_code == 1
    assert "memdir: error: unsafe path" in result.stderr


def test_the_manifest_command_prints_lines_and_json(mem: Memdir, project: Path) -> None:
    save(mem, "Redis cache", "redis cache eviction policy")
    save(mem, "Oncall", "who carries the pager", scope=Scope.TEAM)
    runner = CliRunner()
    text = runner.invoke(manifest_command, ["--project", str(project)])
    assert text.exit_code == 0, text.output
    assert "[project, team] team/oncall.md (2026-03-01): who carries the pager" in text.output
    ranked = runner.invoke(manifest_command, ["-q", "pager oncall", "--project", str(project)])
    assert ranked.output.splitlines()[0].endswith("who carries the pager")
    data = json.loads(runner.invoke(manifest_command, ["--json", "--project", str(project)]).output)
    assert {e["ref"] for e in data["entries"]} == {"redis_cache.md", "team/oncall.md"}


# --- what recall reads ----------------------------------------------------------------


def garble_in_place(path: Path) -> None:
    """Overwrite a file with a frontmatter that does not parse, keeping its size and mtime.

    The catalog's freshness checks compare size and mtime, so it still holds
    the file's old facts: only a reader that opens the file sees the damage.
    """
    info = path.stat()
    head, tail = b"---\nname: [", b"\n---\n"
    path.write_bytes(head + b"x" * (info.st_size - len(head) - len(tail)) + tail)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def memory_files_opened(mem: Memdir, opened: list[str]) -> set[str]:
    root = os.path.realpath(mem.layout.memory_dir)
    inside = (p for p in opened if p.startswith(root + os.sep) and p.endswith(".md"))
    return {os.path.relpath(p, root) for p in inside}


def catalogued(mem: Memdir) -> None:
    with Catalog.open(mem.layout) as catalog:
        catalog.refresh()


def test_with_a_catalog_recall_opens_only_the_memories_it_chooses(mem: Memdir) -> None:
    chosen = {save(mem, f"Cache note {n}", f"redis cache eviction note {n}") for n in range(2)}
    others = [save(mem, f"Deploy note {n}", f"deploy freeze calendar {n}") for n in range(4)]
    catalogued(mem)
    for ref in others:
        garble_in_place(mem.layout.memory_dir / ref)
    with files_opened() as opened:
        result = recall(mem, "redis cache eviction", today=TODAY)
    assert set(refs(result)) == chosen
    assert memory_files_opened(mem, opened) == chosen


def test_a_chosen_memory_garbled_since_it_was_catalogued_is_read_and_left_out(
    mem: Memdir,
) -> None:
    broken = save(mem, "Cache eviction", "redis cache eviction policy")
    fine = save(mem, "Cache sizing", "redis cache eviction sizing")
    save(mem, "Deploy calendar", "deploy freeze calendar")
    catalogued(mem)
    garble_in_place(mem.layout.memory_dir / broken)
    with files_opened() as opened:
        result = recall(mem, "redis cache eviction", today=TODAY)
    assert refs(result) == [fine]
    assert memory_files_opened(mem, opened) == {broken, fine}


def test_a_session_another_recall_holds_times_out_with_an_error_naming_its_lock(
    project: Path,
) -> None:
    import fcntl

    mem = Memdir.open(project, lock_timeout=0.1)
    save(mem, "Redis cache", "redis cache eviction policy")
    lock = session_state_path(mem.layout, "s").with_name("recall.lock")
    lock.parent.mkdir(parents=True)
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # what a recall in another process holds
        with pytest.raises(LockTimeout) as caught:
            recall(mem, "redis cache eviction", session="s", today=TODAY)
    assert caught.value.path == str(lock)
    assert read_session_state(mem.layout, "s").surfaced == ()
    assert refs(recall(mem, "redis cache eviction", session="s", today=TODAY)) == ["redis_cache.md"]


def test_a_memory_whose_frontmatter_broke_is_not_called_a_spent_budget(mem: Memdir) -> None:
    save(mem, "Cache note", "redis cache eviction policy", "keys expire after the TTL\n")
    path = mem.layout.memory_dir / "cache_note.md"
    path.write_text("---\nname: [Cache note\ndescription: redis cache eviction policy\n---\nx\n")
    result = recall(mem, "redis cache eviction policy", session="s", today=TODAY)
    assert result.items == ()
    assert result.skipped is SkipReason.UNREADABLE
    assert result.reason is not None and "cannot be read" in result.reason
    assert "budget" not in result.reason
    assert result.budget_used == 0
