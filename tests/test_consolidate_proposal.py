"""Consolidation as a proposal: previewed, applied whole or in part, rolled back byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from consolidation.helpers import NOW, results_of, snapshot
from consolidation.stub_openai import stub_openai
from memdir.agents.consolidate.changeset import proposals_dir
from memdir.agents.consolidate.proposal import (
    apply_proposal,
    list_proposals,
    load_proposal,
    pending_proposals,
    propose_consolidation,
    reject_proposal,
    rollback_proposal,
)
from memdir.agents.consolidate.run import consolidate
from memdir.api import Memdir
from memdir.cli import main
from memdir.errors import Conflict, InvalidMemory, MemdirError, MemoryNotFound
from memdir.testing import ScriptedProvider, tool_use
from proposalutil import rewrite_ci, write_ci_memories


@pytest.fixture
def ci(mem: Memdir) -> Memdir:
    write_ci_memories(mem)
    mem.write(name="Tabs", description="Indentation", type="feedback", body="Use tabs.")
    return mem


def merge_run() -> ScriptedProvider:
    """The model: rewrite one CI memory, delete its duplicate, add a new one."""
    return ScriptedProvider(
        rewrite_ci(reason="the 2026-03-04 log says CI moved", sources=["2026-03-04", "ci_host.md"]),
        tool_use(
            "delete_memory",
            {"file": "ci_host.md", "reason": "merged into ci_runs_on_github.md"},
        ),
        tool_use(
            "write_memory",
            {
                "name": "Release day",
                "description": "Releases go out on Tuesdays",
                "type": "project",
                "body": "Release on Tuesdays.",
            },
        ),
        "Merged the CI memories and noted release day.",
    )


def test_a_proposal_touches_nothing_and_lists_each_change_with_its_reason_and_sources(
    ci: Memdir,
) -> None:
    before = snapshot(ci)

    proposal = propose_consolidation(ci, merge_run(), now=NOW)

    assert snapshot(ci) == before
    assert proposal.status == "pending"
    assert proposal.summary == "Merged the CI memories and noted release day."
    assert [(c.index, c.kind, c.name) for c in proposal.changes] == [
        (1, "update", "CI runs on Buildkite"),
        (2, "delete", "CI host"),
        (3, "create", "Release day"),
    ]
    update, delete, create = proposal.changes
    assert update.reason == "the 2026-03-04 log says CI moved"
    assert update.sources == ("2026-03-04", "ci_host.md")
    assert delete.reason == "merged into ci_runs_on_github.md" and delete.after is None
    assert create.before is None and create.reason == ""
    assert update.before == before["ci_runs_on_github.md"].decode()
    assert "-GHA\n" in update.diff() and "+CI moved to Buildkite.\n" in update.diff()
    assert delete.diff().startswith("--- a/private/ci_host.md\n+++ /dev/null\n")
    assert list_proposals(ci) == [proposal]
    assert load_proposal(ci, proposal.id) == proposal


def test_applying_a_whole_proposal_then_rolling_back_leaves_the_folder_byte_identical(
    ci: Memdir,
) -> None:
    index = ci.private.index_path
    index.write_text(index.read_text() + "- [Dangling](nowhere.md) — gone\n")  # doctor fixes it
    before = snapshot(ci)
    proposal = propose_consolidation(ci, merge_run(), now=NOW)

    applied = apply_proposal(ci, proposal.id)

    assert applied.status == "applied" and all(c.applied for c in applied.changes)
    assert not (ci.layout.memory_dir / "ci_host.md").exists()
    assert "Buildkite" in (ci.layout.memory_dir / "ci_runs_on_github.md").read_text()
    assert (ci.layout.memory_dir / "release_day.md").exists()
    assert "nowhere.md" not in index.read_text()
    versions = ci.history("CI host")
    assert versions[0].route == "consolidation" and versions[0].action == "delete"
    assert ci.history_db is not None
    runs = {v.change for v in ci.history_db.versions() if v.route == "consolidation"}
    assert len(runs) == 1

    rolled = rollback_proposal(ci, proposal.id)

    assert rolled.status == "rolled-back" and not any(c.applied for c in rolled.changes)
    assert snapshot(ci) == before
    with pytest.raises(MemdirError, match="rolled-back"):
        apply_proposal(ci, proposal.id)


def test_a_subset_applies_alone_and_the_rest_can_follow(ci: Memdir) -> None:
    proposal = propose_consolidation(ci, merge_run(), now=NOW)

    partial = apply_proposal(ci, proposal.id, only=[3])

    assert partial.status == "partial"
    assert [c.applied for c in partial.changes] == [False, False, True]
    assert (ci.layout.memory_dir / "ci_host.md").exists()
    assert (ci.layout.memory_dir / "release_day.md").exists()
    assert pending_proposals(ci) == [partial]

    done = apply_proposal(ci, proposal.id)

    assert done.status == "applied" and not (ci.layout.memory_dir / "ci_host.md").exists()
    assert pending_proposals(ci) == []


def test_a_proposal_applied_in_two_steps_rolls_back_in_one(ci: Memdir) -> None:
    before = snapshot(ci)
    proposal = propose_consolidation(ci, merge_run(), now=NOW)
    apply_proposal(ci, proposal.id, only=[2])
    apply_proposal(ci, proposal.id)
    assert snapshot(ci) != before

    rollback_proposal(ci, proposal.id)

    assert snapshot(ci) == before


def test_apply_refuses_and_changes_nothing_when_a_memory_changed_since(ci: Memdir) -> None:
    proposal = propose_consolidation(ci, merge_run(), now=NOW)
    ci.write(name="CI host", description="The CI service", type="project", body="now Jenkins")
    before = snapshot(ci)

    with pytest.raises(Conflict, match=r"private:ci_host.md changed since proposal"):
        apply_proposal(ci, proposal.id)

    assert snapshot(ci) == before
    assert load_proposal(ci, proposal.id).status == "pending"
    assert apply_proposal(ci, proposal.id, only=[1, 3]).status == "partial"


def test_unknown_changes_and_malformed_ids_are_refused_clearly(ci: Memdir) -> None:
    proposal = propose_consolidation(ci, merge_run(), now=NOW)
    with pytest.raises(InvalidMemory, match="has no change 7"):
        apply_proposal(ci, proposal.id, only=[7])
    for bad in ("../../etc/passwd", "x", f"{proposal.id}/../x", ""):
        with pytest.raises(InvalidMemory, match="is not a proposal id"):
            load_proposal(ci, bad)
    with pytest.raises(MemoryNotFound, match="no consolidation proposal"):
        load_proposal(ci, "20990101-000000-abcdef")


def test_a_rejected_proposal_is_never_applied(ci: Memdir) -> None:
    before = snapshot(ci)
    proposal = propose_consolidation(ci, merge_run(), now=NOW)

    assert reject_proposal(ci, proposal.id).status == "rejected"

    with pytest.raises(MemdirError, match="rejected"):
        apply_proposal(ci, proposal.id)
    assert snapshot(ci) == before and pending_proposals(ci) == []


def test_proposals_are_kept_as_json_under_the_derived_state(ci: Memdir) -> None:
    proposal = propose_consolidation(ci, merge_run(), now=NOW)
    path = proposals_dir(ci) / f"{proposal.id}.json"
    data = json.loads(path.read_text())
    assert data["status"] == "pending" and len(data["changes"]) == 3
    assert path.parent == ci.layout.state_dir / "proposals"
    assert not list(path.parent.glob("*.tmp"))


def test_a_run_that_changes_nothing_keeps_no_proposal(ci: Memdir) -> None:
    proposal = propose_consolidation(ci, ScriptedProvider("Nothing to change."), now=NOW)
    assert proposal.changes == () and proposal.id == ""
    assert list_proposals(ci) == []


# --- the gated run under each review mode ---------------------------------------------


def test_under_manual_review_a_run_only_proposes(project: Path) -> None:
    mem = Memdir.open(project, review_private="manual")
    write_ci_memories(mem)
    before = snapshot(mem)

    report = consolidate(mem, merge_run(), now=NOW, force=True)

    assert report.ran and report.error is None
    assert snapshot(mem) == before
    assert report.proposal is not None and report.improved == 0
    assert len(report.awaiting) == 3
    assert report.message == (
        f"Proposed 3 changes for review: `memdir consolidate show {report.proposal}`"
    )
    (pending,) = pending_proposals(mem)
    assert pending.id == report.proposal and pending.status == "pending"
    assert mem.review() == []  # held as one proposal, not as loose pending versions

    applied = apply_proposal(mem, pending.id)

    assert applied.status == "applied"
    assert not (mem.layout.memory_dir / "ci_host.md").exists()
    rollback_proposal(mem, pending.id)
    assert snapshot(mem) == before


def test_with_team_memory_under_manual_the_private_part_applies_and_the_team_part_waits(
    project: Path,
) -> None:
    mem = Memdir.open(project, team=True)  # private auto, team manual: the defaults
    mem.write(name="Old fact", description="a fact", type="project", body="old")
    mem.write(name="Deploys", description="How deploys go", type="project", body="x", scope="team")
    provider = ScriptedProvider(
        tool_use("delete_memory", {"file": "old_fact.md", "reason": "stale"}),
        tool_use("delete_memory", {"file": "team/deploys.md", "reason": "moved to the wiki"}),
        "done",
    )

    report = consolidate(mem, provider, now=NOW, force=True)

    assert report.deleted == ("old_fact.md",) and report.awaiting == ("team/deploys.md",)
    assert not (mem.layout.memory_dir / "old_fact.md").exists()
    assert (mem.layout.team_dir / "deploys.md").exists()
    assert report.proposal is not None
    proposal = load_proposal(mem, report.proposal)
    assert proposal.status == "partial"
    assert [(c.scope, c.applied) for c in proposal.changes] == [("private", True), ("team", False)]

    applied = apply_proposal(mem, proposal.id)  # a person applies the team part

    assert applied.status == "applied"
    assert not (mem.layout.team_dir / "deploys.md").exists()
    (deleted, *_) = mem.history("Deploys", scope="team")
    assert deleted.route == "consolidation" and deleted.status is None  # applied, not held


def test_under_auto_a_run_applies_in_place_and_rolls_back_as_one_applied_proposal(
    ci: Memdir,
) -> None:
    before = snapshot(ci)

    report = consolidate(ci, merge_run(), now=NOW, force=True)

    assert report.improved == 3 and report.proposal is not None and report.awaiting == ()
    proposal = load_proposal(ci, report.proposal)
    assert proposal.status == "applied"
    assert [(c.kind, c.applied) for c in proposal.changes] == [
        ("update", True),
        ("delete", True),
        ("create", True),
    ]
    assert proposal.changes[0].reason == "the 2026-03-04 log says CI moved"
    assert proposal.changes[1].before == before["ci_host.md"].decode()

    rollback_proposal(ci, proposal.id)

    assert snapshot(ci) == before


# --- the commands -----------------------------------------------------------------------


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_the_commands_list_show_apply_and_roll_back_a_proposal(ci: Memdir, project: Path) -> None:
    before = snapshot(ci)
    proposal = propose_consolidation(ci, merge_run(), now=NOW)
    where = ("--project", str(project))

    code, out, err = cli("consolidate", "proposals", *where)
    assert code == 0, err
    assert out.startswith(f"{proposal.id}  pending") and "3 changes (0 applied)" in out
    code, out, _ = cli("consolidate", "proposals", "--json", *where)
    (listed,) = json.loads(out)
    assert listed["id"] == proposal.id and listed["changes"][1]["file"] == "ci_host.md"

    code, out, _ = cli("consolidate", "show", proposal.id, *where)
    assert code == 0
    assert "[1] update private:ci_runs_on_github.md 'CI runs on Buildkite' (not applied)" in out
    assert "    reason: the 2026-03-04 log says CI moved\n" in out
    assert "    sources: 2026-03-04, ci_host.md\n" in out
    assert "+CI moved to Buildkite.\n" in out and "--- a/private/ci_host.md\n+++ /dev/null" in out
    assert f"memdir consolidate apply {proposal.id}" in out

    code, out, err = cli("consolidate", "apply", proposal.id, "--only", "2,3", *where)
    assert code == 0, err
    assert "now partial" in out and "[2] delete private:ci_host.md 'CI host' (applied)" in out
    assert not (ci.layout.memory_dir / "ci_host.md").exists()

    code, out, err = cli("consolidate", "rollback", proposal.id, *where)
    assert code == 0, err
    assert "rolled back proposal" in out and snapshot(ci) == before


def test_memdir_undo_after_an_applied_proposal_leaves_the_folder_byte_identical(
    ci: Memdir, project: Path
) -> None:
    before = snapshot(ci)
    proposal = propose_consolidation(ci, merge_run(), now=NOW)
    assert cli("consolidate", "apply", proposal.id, "--project", str(project))[0] == 0
    assert snapshot(ci) != before

    code, out, err = cli("undo", "--project", str(project))

    assert code == 0, err
    assert "consolidation" in out
    assert snapshot(ci) == before


def test_the_commands_say_clearly_what_is_wrong(ci: Memdir, project: Path) -> None:
    where = ("--project", str(project))
    code, _, err = cli("consolidate", "show", "../../secrets", *where)
    assert code == 1 and "is not a proposal id" in err
    proposal = propose_consolidation(ci, merge_run(), now=NOW)
    code, _, err = cli("consolidate", "apply", proposal.id, "--only", "one", *where)
    assert code == 2 and "not a list of change numbers" in err
    code, _, err = cli("consolidate", "rollback", proposal.id, *where)
    assert code == 1 and "nothing of it is applied" in err
    code, out, err = cli("consolidate", "reject", proposal.id, *where)
    assert code == 0 and "now rejected" in out
    code, _, err = cli("consolidate", "reject", proposal.id, *where)
    assert code == 1 and "nothing to reject" in err


def test_consolidate_propose_runs_the_configured_model_and_changes_nothing(
    ci: Memdir, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = snapshot(ci)
    replies = [
        ("tool", "delete_memory", {"file": "ci_host.md", "reason": "a duplicate"}),
        ("text", "Removed a duplicate."),
    ]
    with stub_openai(replies) as server:
        for var, value in (
            ("MEMDIR_PROVIDER", "openai"),
            ("OPENAI_BASE_URL", server.base_url),
            ("MEMDIR_MODEL", "stub"),
        ):
            monkeypatch.setenv(var, value)
        code, out, err = cli("consolidate", "--propose", "--project", str(project))

    assert code == 0, err
    (proposal,) = list_proposals(ci)
    assert out.strip() == f"Proposed 1 change for review: `memdir consolidate show {proposal.id}`"
    assert proposal.changes[0].reason == "a duplicate" and snapshot(ci) == before
    schema = {t["function"]["name"]: t for t in server.requests[0]["tools"]}["delete_memory"]
    assert {"reason", "sources"} <= set(schema["function"]["parameters"]["properties"])


def test_under_manual_with_history_off_a_run_changes_nothing_and_says_why(project: Path) -> None:
    mem = Memdir.open(project, review_private="manual", history=False)
    mem.write(name="Old fact", description="a fact", type="project", body="old")
    before = snapshot(mem)
    provider = ScriptedProvider(tool_use("delete_memory", {"file": "old_fact.md"}), "done")

    report = consolidate(mem, provider, now=NOW, force=True)

    assert report.error is None and report.proposal is None and report.improved == 0
    assert snapshot(mem) == before
    (answer,) = results_of(provider.requests[1])
    assert answer.is_error and "needs review, and history is off" in answer.content


# --- rollback: recorded once complete, never "rolled back" when nothing changed -------------


def test_a_rollback_that_reverses_nothing_says_so_instead_of_rolled_back(
    ci: Memdir, project: Path
) -> None:
    before = snapshot(ci)
    proposal = propose_consolidation(ci, merge_run(), now=NOW)
    where = ("--project", str(project))
    assert cli("consolidate", "apply", proposal.id, *where)[0] == 0
    assert cli("undo", *where)[0] == 0  # reverses the applied proposal first
    assert snapshot(ci) == before

    code, out, err = cli("consolidate", "rollback", proposal.id, *where)

    assert code == 1 and "rolled back proposal" not in out
    assert "reversed already" in err and "this rollback changed nothing" in err
    assert load_proposal(ci, proposal.id).status == "rolled-back"  # what it is, recorded
    assert snapshot(ci) == before


def test_a_rollback_cut_short_is_not_marked_and_running_it_again_completes_it(
    ci: Memdir, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memdir.history import reverse

    before = snapshot(ci)
    proposal = propose_consolidation(ci, merge_run(), now=NOW)
    apply_proposal(ci, proposal.id, only=[2])
    apply_proposal(ci, proposal.id)  # two change sets: rolled back newest first
    real, calls = reverse.apply_step, [0]

    def cut(*args: object, **kwargs: object) -> bool:
        calls[0] += 1
        if calls[0] == 2:  # the first change set's second file: a full disk, say
            raise OSError(28, "No space left on device", "injected")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    with monkeypatch.context() as patch:
        patch.setattr(reverse, "apply_step", cut)
        with pytest.raises(MemdirError, match="stopped half way"):
            rollback_proposal(ci, proposal.id)
    assert load_proposal(ci, proposal.id).status == "applied"

    rolled = rollback_proposal(ci, proposal.id)

    assert rolled.status == "rolled-back"
    assert snapshot(ci) == before
