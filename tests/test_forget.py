"""Forgetting that sticks: a forgotten memory is not learned again without a person's review."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from background.helpers import chat, tool_results
from consolidation.helpers import NOW
from embedutil import needs_embeddings_extra
from memdir.agents.consolidate.run import consolidate
from memdir.agents.extract import MemoryExtractor
from memdir.api import Memdir
from memdir.cli import main
from memdir.errors import MemdirError
from memdir.history.provenance import provenance
from memdir.history.tombstones import FORGOTTEN_NAME, PRIVATE_NAME
from memdir.llm import Completion
from memdir.model import Memory, MemoryType
from memdir.storage.codec import render_memory
from memdir.storage.dailylog import append_log
from memdir.team.checks import is_memory_name, name_problems
from memdir.team.sync import sync_team
from memdir.testing import ScriptedProvider, tool_use
from teamutil import Clone, push_by_hand, remote_files

# Git under a throwaway HOME for every test here (teamutil's fixtures, via conftest.py).
pytestmark = pytest.mark.usefixtures("git_home")

DEPLOYS: dict[str, Any] = {
    "name": "Deploys use blue-green",
    "description": "Production deploys switch the load balancer between blue and green stacks",
    "type": "project",
    "body": "Deploy to the idle stack, run the smoke tests, then flip the load balancer.",
}
# The same fact in other words: what a model writes when it learns it again.
REWORDED: dict[str, Any] = {
    "name": "Blue-green production deploys",
    "description": "Deploying to production flips the load balancer from the blue stack to green",
    "type": "project",
    "body": "Ship to the idle stack first and flip the balancer after smoke testing.",
}
OTHER: dict[str, Any] = {
    "name": "Release tags",
    "description": "How production releases are tagged",
    "type": "project",
    "body": "Releases are tagged vX.Y.Z on main and built by CI.",
}
TRANSCRIPT = ("we deploy blue-green: idle stack first, smoke tests, then flip the LB", "noted")
RELEARNS = "re-learns a forgotten memory (forgotten on "


def write(**args: object) -> Completion:
    return tool_use("write_memory", args)


def cli(mem: Memdir, *args: str, input: str | None = None) -> Result:
    """``memdir ARGS --project <mem's project>`` in ``mem``'s home."""
    env = {"MEMDIR_HOME": str(mem.layout.home)}
    project = ["--project", str(mem.layout.project_root)]
    return CliRunner().invoke(main, [*args, *project], env=env, input=input)


def learned(mem: Memdir, session: str = "s1") -> str:
    """Extraction over the transcript (in ``session``) saves the deploy fact; its file."""
    provider = ScriptedProvider(write(**DEPLOYS), "saved it")
    report = MemoryExtractor(mem, provider, session).extract(chat(*TRANSCRIPT))
    (file,) = report.saved
    return file


def held_reasons(mem: Memdir) -> list[str]:
    return [p.version.reason or "" for p in mem.review()]


def test_forget_deletes_the_memory_and_leaves_a_tombstone_forget_list_shows(mem: Memdir) -> None:
    file = learned(mem)

    result = cli(mem, "forget", "Deploys use blue-green", "--reason", "we moved to canaries")

    assert result.exit_code == 0, result.output
    assert f"forgot {file}" in result.output
    assert not (mem.layout.memory_dir / file).exists()
    assert "blue-green" not in mem.private.read_index()
    # Durable state beside the history, not under the derived .memdir/.
    stored = mem.layout.history_dir / PRIVATE_NAME
    (line,) = stored.read_text().splitlines()
    assert json.loads(line)["reason"] == "we moved to canaries"
    assert "smoke tests" not in line  # the body's text is not kept, only its fingerprint
    listing = cli(mem, "forget", "--list")
    today = dt.date.today().isoformat()
    assert f"{today}  Deploys use blue-green ({file})" in listing.output
    assert "we moved to canaries" in listing.output
    (shown,) = json.loads(cli(mem, "forget", "--list", "--json").output)["tombstones"]
    assert shown["name"] == "Deploys use blue-green" and shown["scope"] == "private"


@pytest.mark.parametrize("again", [DEPLOYS, REWORDED], ids=["same words", "other words"])
def test_extraction_over_the_source_transcript_does_not_learn_a_forgotten_memory_again(
    mem: Memdir, again: dict[str, Any]
) -> None:
    file = learned(mem)
    mem.forget(file)

    provider = ScriptedProvider(write(**again), "saved it")
    report = MemoryExtractor(mem, provider, "s2").extract(chat(*TRANSCRIPT))

    assert mem.private.files() == []
    (reason,) = held_reasons(mem)
    today = dt.date.today().isoformat()
    assert reason == f"{RELEARNS}{today}: Deploys use blue-green)"
    # The model is told its write waits for the user, as any held write.
    assert "review" in tool_results(provider.requests[1])[0].content
    assert report.error is None
    review = cli(mem, "review")
    assert "re-learns a forgotten memory" in review.output


def test_consolidation_over_the_daily_log_does_not_learn_a_forgotten_memory_again(
    mem: Memdir,
) -> None:
    append_log(mem.layout.logs_dir, TRANSCRIPT[0], now=dt.datetime(2026, 3, 4, 9, 15))
    with provenance(route="consolidation"):
        mem.write(**DEPLOYS)  # what the last consolidation learned from that log
    mem.forget("Deploys use blue-green")

    provider = ScriptedProvider(write(**REWORDED), "Learned the deploy process from the log.")
    report = consolidate(mem, provider, now=NOW, force=True)

    assert report.error is None
    assert mem.private.files() == []
    assert [r.startswith(RELEARNS) for r in held_reasons(mem)] == [True]


def test_other_memories_an_agent_writes_are_not_held(mem: Memdir) -> None:
    mem.forget(learned(mem))
    provider = ScriptedProvider(write(**OTHER), "saved it")
    report = MemoryExtractor(mem, provider, "s2").extract(chat("we tag releases", "ok"))
    assert report.saved == ("release_tags.md",) and mem.review() == []


def test_a_persons_own_add_of_a_forgotten_fact_is_not_held(mem: Memdir) -> None:
    mem.forget(learned(mem))

    result = cli(
        mem, "add", "--name", DEPLOYS["name"], "--type", "project",
        "--description", DEPLOYS["description"],
        "--body", DEPLOYS["body"],
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    assert mem.get("Deploys use blue-green").memory.body.strip() == DEPLOYS["body"]
    assert mem.review() == []


def test_unforget_lets_agents_learn_it_again(mem: Memdir) -> None:
    mem.forget(learned(mem))

    result = cli(mem, "unforget", "Deploys use blue-green")

    assert result.exit_code == 0, result.output
    assert "unforgot Deploys use blue-green" in result.output
    assert mem.tombstones() == []
    learned(mem, "s2")
    assert mem.review() == [] and mem.get("Deploys use blue-green")
    missing = cli(mem, "unforget", "Deploys use blue-green")
    assert missing.exit_code != 0 and "forget --list" in missing.output


def test_restore_brings_a_forgotten_memory_back(mem: Memdir) -> None:
    file = learned(mem)
    mem.forget(file)

    result = cli(mem, "restore", file)

    assert result.exit_code == 0, result.output
    assert mem.get(file).memory.description == DEPLOYS["description"]
    # The tombstone stays until unforget: restore says so, and what lifts it.
    assert "still forgotten" in result.output
    assert f"memdir unforget {DEPLOYS['name']}" in result.output


def test_restore_says_nothing_of_forgetting_once_the_tombstone_is_lifted(mem: Memdir) -> None:
    file = learned(mem)
    mem.forget(file)
    mem.unforget(file)

    result = cli(mem, "restore", file, "--json")

    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["forgotten"] is False
    forgotten_again = cli(mem, "restore", file)  # a second restore: the text before it
    assert "still forgotten" not in forgotten_again.output


def test_a_query_shows_the_matches_and_forgets_only_the_chosen_one(mem: Memdir) -> None:
    mem.write(**DEPLOYS)
    mem.write(**{**DEPLOYS, "name": "Deploy windows", "description": "Deploys happen Tue-Thu"})

    kept = cli(mem, "forget", "deploys", input="\n")
    assert kept.exit_code == 0, kept.output
    assert "1. " in kept.output and "2. " in kept.output and "nothing was forgotten" in kept.output
    assert len(mem.list()) == 2 and mem.tombstones() == []

    chosen = cli(mem, "forget", "deploys", input="2\n")
    assert chosen.exit_code == 0, chosen.output
    assert len(mem.list()) == 1 and len(mem.tombstones()) == 1
    forgotten = mem.tombstones()[0].name
    assert f"({forgotten})" in chosen.output


def test_a_query_with_all_forgets_every_match_and_json_never_asks(mem: Memdir) -> None:
    mem.write(**DEPLOYS)
    mem.write(**{**DEPLOYS, "name": "Deploy windows", "description": "Deploys happen Tue-Thu"})

    refused = cli(mem, "forget", "deploys", "--json")
    assert refused.exit_code != 0 and "--all" in refused.output and len(mem.list()) == 2

    result = cli(mem, "forget", "deploys", "--all", "--json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.output)["forgotten"]) == 2
    assert mem.list() == []


def test_a_query_that_matches_nothing_forgets_nothing(mem: Memdir, project: Path) -> None:
    mem.write(**OTHER)
    result = cli(mem, "forget", "kubernetes autoscaling")
    assert result.exit_code != 0 and "nothing was forgotten" in result.output
    assert len(mem.list()) == 1


# -- team tombstones travel with the team memory -----------------------------------------


def team_fact(mem: Memdir, **changes: Any) -> str:
    return mem.write(**{**DEPLOYS, **changes}, scope="team").record.file


def forgotten_before_bob_syncs(clone: Clone) -> tuple[Memdir, Memdir, str]:
    """Alice shares the team fact and forgets it; Bob, who never pulled it, syncs after.
    Both clones and the fact's file."""
    alice, bob = clone("alice"), clone("bob")
    file = team_fact(alice)
    sync_team(alice)
    alice.forget(file, scope="team")
    sync_team(alice)
    sync_team(bob)
    return alice, bob, file


def test_a_teammates_clone_learns_a_team_tombstone_through_sync(clone: Clone, remote: Path) -> None:
    alice, bob = clone("alice"), clone("bob")
    file = team_fact(alice)
    sync_team(alice)
    sync_team(bob)
    assert (bob.layout.team_dir / file).exists()

    alice.forget(file, scope="team", reason="we moved to canaries")
    sync_team(alice)
    sync_team(bob)

    assert FORGOTTEN_NAME in remote_files(remote) and file not in remote_files(remote)
    assert not (bob.layout.team_dir / file).exists()
    (tombstone,) = bob.tombstones("team")
    assert (tombstone.name, tombstone.reason) == ("Deploys use blue-green", "we moved to canaries")
    listing = cli(bob, "forget", "--list")
    assert f"Deploys use blue-green (team/{file})" in listing.output
    # Bob's own agent does not learn it again from his old transcripts, in either scope.
    provider = ScriptedProvider(write(**{**REWORDED, "scope": "team"}), write(**DEPLOYS), "ok")
    MemoryExtractor(bob, provider, "s1").extract(chat(*TRANSCRIPT))
    assert bob.list() == []
    assert [r.startswith(RELEARNS) for r in held_reasons(bob)] == [True, True]


def test_a_clones_stale_edit_of_a_forgotten_memory_is_held_not_pushed_back(
    clone: Clone, remote: Path
) -> None:
    alice, bob = clone("alice"), clone("bob")
    file = team_fact(alice)
    sync_team(alice)
    sync_team(bob)
    team_fact(bob, body="Deploy to the idle stack, smoke test it, flip the load balancer.")
    alice.forget(file, scope="team")
    sync_team(alice)

    report = sync_team(bob)

    assert not (bob.layout.team_dir / file).exists()
    assert file not in remote_files(remote)
    (conflict,) = report.conflicts
    assert (
        "held for review" in conflict.reason and "re-learns a forgotten memory" in conflict.reason
    )
    (held,) = bob.review()
    assert held.version.file == file and (held.version.reason or "").startswith(RELEARNS)


def test_a_pulled_memory_that_matches_a_team_tombstone_is_not_taken_in(
    clone: Clone, remote: Path, tmp_path: Path
) -> None:
    _, bob, _ = forgotten_before_bob_syncs(clone)
    # A teammate who never learned the deletion pushes the same fact again, in new words.
    again = render_memory(Memory(**{**REWORDED, "type": MemoryType.PROJECT}))
    push_by_hand(remote, tmp_path, {"blue_green.md": again}, "add it back")

    report = sync_team(bob)

    assert "blue_green.md" not in report.pulled
    assert not (bob.layout.team_dir / "blue_green.md").exists()
    (held,) = bob.review()
    assert held.version.file == "blue_green.md"
    assert (held.version.reason or "").startswith(RELEARNS)


def test_unforgetting_a_team_tombstone_travels_too(clone: Clone, remote: Path) -> None:
    alice, bob, file = forgotten_before_bob_syncs(clone)
    assert len(bob.tombstones("team")) == 1

    alice.unforget("Deploys use blue-green")
    sync_team(alice)
    sync_team(bob)

    assert bob.tombstones() == []
    with provenance(route="mcp"):  # bob's agent may learn it again
        bob.write(**DEPLOYS)
    assert bob.review() == [] and (bob.layout.memory_dir / file).exists()


def test_two_clones_forgetting_at_once_keep_both_tombstones(clone: Clone, remote: Path) -> None:
    alice, bob = clone("alice"), clone("bob")
    deploys, tags = team_fact(alice), team_fact(alice, **OTHER)
    sync_team(alice)
    sync_team(bob)
    alice.forget(deploys, scope="team")
    bob.forget(tags, scope="team")
    sync_team(alice)

    report = sync_team(bob)
    sync_team(alice)

    assert report.conflicts == ()
    for mem in (alice, bob):
        names = sorted(t.name for t in mem.tombstones("team"))
        assert names == ["Deploys use blue-green", "Release tags"]
        assert mem.list() == []


# -- a paraphrase, by meaning (the embeddings extra) -------------------------------------

ROTATION: dict[str, Any] = {
    "name": "Staging DB password rotation",
    "description": "The staging database password rotates every Monday",
    "type": "reference",
    "body": "Fetch the new one from the vault after Monday's rotation.",
}
# The same fact with hardly a word in common: only its meaning gives it away.
ROTATION_PARAPHRASE: dict[str, Any] = {
    "name": "Pre-prod credentials",
    "description": "Credentials for the pre-prod database change weekly at the start of the week",
    "type": "reference",
    "body": "Pull the current secret from Vault each week.",
}


@needs_embeddings_extra
def test_a_paraphrase_of_a_forgotten_memory_is_recognised_by_meaning(project: Path) -> None:
    mem = Memdir.open(project, search_embeddings="auto")
    assert mem.by_meaning
    mem.write(**ROTATION)
    (tombstone,) = [mem.forget("Staging DB password rotation")]
    assert tombstone.vector is not None
    provider = ScriptedProvider(write(**ROTATION_PARAPHRASE), write(**OTHER), "saved")

    MemoryExtractor(mem, provider, "s1").extract(chat("the pre-prod creds change weekly", "ok"))

    assert [r.version.file for r in mem.review()] == ["pre_prod_credentials.md"]
    assert [r.memory.name for r in mem.list()] == ["Release tags"]  # a different fact is kept


def test_without_a_model_a_tombstone_keeps_terms_alone(mem: Memdir) -> None:
    assert not mem.by_meaning  # the tests' default
    mem.write(**ROTATION)
    tombstone = mem.forget("Staging DB password rotation")
    assert tombstone.vector is None and tombstone.terms
    with provenance(route="mcp"):
        mem.write(**ROTATION)  # the same words: held
        mem.write(**ROTATION_PARAPHRASE)  # other words, and no model to see it: learned
    assert [p.version.file for p in mem.review()] == ["staging_db_password_rotation.md"]
    assert [r.memory.name for r in mem.list()] == ["Pre-prod credentials"]


def test_with_history_off_an_agents_write_of_a_forgotten_fact_is_refused(project: Path) -> None:
    mem = Memdir.open(project, history=False)
    mem.write(**DEPLOYS)
    mem.forget("Deploys use blue-green")
    with provenance(route="mcp"), pytest.raises(MemdirError, match="re-learns a forgotten"):
        mem.write(**REWORDED)
    assert mem.list() == []


@pytest.mark.parametrize(
    ("rel", "carried"),
    [
        (FORGOTTEN_NAME, True),
        (f"notes/{FORGOTTEN_NAME}", False),
        ("forgotten.jsonl", False),
        ("other.jsonl", False),
    ],
)
def test_team_sync_carries_the_tombstone_file_by_its_one_name_at_the_root(
    rel: str, carried: bool
) -> None:
    assert is_memory_name(rel) is carried
    assert (name_problems(rel) == []) is carried
