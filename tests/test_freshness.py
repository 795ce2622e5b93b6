"""Freshness: checks of memories citing code are recorded, shown when stale or failed; expiry."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from consolidation.helpers import NOW
from memdir.agents.consolidate.proposal import propose_consolidation
from memdir.api import Memdir
from memdir.cli import main
from memdir.history.provenance import provenance
from memdir.model import Memory, MemoryType
from memdir.recall.context_budget import text_length
from memdir.recall.doctor import diagnose
from memdir.recall.expiry import expired, verify
from memdir.recall.freshness import FRESHNESS_NAME, read_checks, recheck_note, record_checks
from memdir.recall.prompt import build_prompt
from memdir.testing import ScriptedProvider, tool_use

DAY = 86_400.0


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def save(
    mem: Memdir,
    name: str,
    *,
    anchors: tuple[str, ...] = (),
    kind: MemoryType = MemoryType.PROJECT,
    updated: dt.date | None = None,
    review_after: dt.date | None = None,
    body: str = "A fact.",
) -> str:
    memory = Memory(
        name=name,
        description=f"about {name}",
        type=kind,
        body=body,
        anchors=anchors,
        updated=updated,
        review_after=review_after,
    )
    return mem.private.write(memory, stamp=updated is None).record.file


@pytest.fixture
def code(project: Path) -> Path:
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("def main():\n    pass\n")
    return project


def test_a_failed_drift_check_is_recorded_and_the_prompt_asks_to_recheck(
    mem: Memdir, code: Path
) -> None:
    save(mem, "Payments entry point", anchors=("src/payments.py",))
    save(mem, "App entry point", anchors=("src/app.py",))
    save(mem, "Tabs", body="Use tabs.")  # cites nothing: not recorded

    diagnose(mem, drift=True)

    checks = read_checks(mem.layout.state_dir)
    assert set(checks) == {"private:payments_entry_point.md", "private:app_entry_point.md"}
    assert checks["private:payments_entry_point.md"].problems == (
        "`src/payments.py` no longer exists",
    )
    assert not checks["private:app_entry_point.md"].failed
    prompt = mem.prompt()
    assert prompt is not None and "## Memories to re-check" in prompt
    assert (
        "- Payments entry point (payments_entry_point.md): check failed: "
        "`src/payments.py` no longer exists" in prompt
    )
    assert "App entry point (app" not in prompt.split("## Memories to re-check")[1]
    # Nothing of this is in the memory files: the record is derived state.
    assert "verified" not in (mem.layout.memory_dir / "app_entry_point.md").read_text()


def test_a_check_older_than_the_setting_is_stale_and_zero_turns_that_off(
    mem: Memdir, project: Path
) -> None:
    now = time.time()
    record_checks(mem.layout.state_dir, [("private:a.md", "Old check", [])], now=now - 45 * DAY)
    record_checks(mem.layout.state_dir, [("team:b.md", "New check", [])], now=now - DAY)

    note = recheck_note(mem.layout.state_dir, now=now, max_age_days=30)

    assert note is not None
    assert "- Old check (a.md): last checked 45 days ago" in note and "New check" not in note
    assert recheck_note(mem.layout.state_dir, now=now, max_age_days=0) is None


def test_the_recheck_note_is_bounded_and_the_prompt_stays_within_its_budget(
    mem: Memdir,
) -> None:
    now = time.time()
    record_checks(
        mem.layout.state_dir,
        [
            (f"private:m{n}.md", f"Memory {n} " + "x" * 300, ["`src/gone.py` gone"])
            for n in range(60)
        ],
        now=now,
    )
    note = recheck_note(mem.layout.state_dir, now=now, max_age_days=30)
    assert note is not None
    lines = note.splitlines()
    assert sum(1 for line in lines if line.startswith("- Memory")) == 5
    assert lines[-1] == "- and 55 more (`memdir doctor`)"
    assert all(len(line) <= 160 for line in lines)
    index = "".join(f"- [Memory {n}](m{n}.md) — a fact about {n}\n" for n in range(150))
    prompt = build_prompt(
        mode="individual",
        memory_dir=mem.layout.memory_dir,
        team_dir=None,
        private_index=index,
        team_index=None,
        today=dt.date(2026, 3, 5),
        max_chars=10_000,
        recheck=note,
    )
    assert text_length(prompt) <= 10_000 and "## Memories to re-check" in prompt


def test_recall_says_when_cited_code_changed_after_the_memory_and_records_its_check(
    mem: Memdir, code: Path
) -> None:
    save(
        mem,
        "App entry point",
        anchors=("src/app.py",),
        updated=dt.date(2026, 1, 2),
        body="The app starts in main of the app module.",
    )
    stamp = dt.datetime(2026, 2, 1, 12).timestamp()
    os.utime(code / "src" / "app.py", (stamp, stamp))

    result = mem.recall("where does the app entry point start")

    (item,) = result.items
    assert item.changed == ("src/app.py",)
    assert "The code it cites changed after 2026-01-02: `src/app.py`." in item.text
    assert "private:app_entry_point.md" in read_checks(mem.layout.state_dir)

    os.utime(code / "src" / "app.py", (stamp - 60 * DAY, stamp - 60 * DAY))
    (again,) = mem.recall("where does the app entry point start").items
    assert again.changed == () and "changed after" not in again.text


def test_expiry_by_type_and_review_after_bring_memories_to_review_not_deletion(
    project: Path,
) -> None:
    mem = Memdir.open(project, expire_project_days=90)
    today = dt.date(2026, 3, 5)
    save(mem, "Old decision", updated=dt.date(2025, 11, 1))
    save(mem, "Recent decision", updated=dt.date(2026, 3, 1))
    save(mem, "Old reference", kind=MemoryType.REFERENCE, updated=dt.date(2025, 1, 1))
    save(mem, "Due review", kind=MemoryType.REFERENCE, review_after=dt.date(2026, 3, 1))

    found = {e.name: e.reason for e in expired(mem, today=today)}

    assert set(found) == {"Old decision", "Due review"}
    assert found["Old decision"] == "124 days since updated (project memories expire after 90)"
    assert found["Due review"] == "review_after 2026-03-01 has passed"
    assert len(mem.private.files()) == 4  # nothing deleted


def test_memdir_review_lists_expired_memories_and_verify_clears_them(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = Memdir.open(project)
    save(mem, "Due review", review_after=dt.date(2026, 1, 1), anchors=("README.md",))
    where = ("--project", str(project))

    code, out, _ = cli("review", *where)
    assert code == 0
    assert "expired: re-validate or delete due_review.md ('Due review': review_after" in out
    assert "`memdir verify due_review.md` or `memdir rm due_review.md`" in out

    code, out, err = cli("verify", "due_review.md", *where)

    assert code == 0, err
    assert "verified private:due_review.md" in out
    text = (mem.layout.memory_dir / "due_review.md").read_text()
    assert f"verified: {dt.date.today().isoformat()}" in text
    assert cli("review", *where)[1].strip() == "nothing awaits review"
    assert not read_checks(mem.layout.state_dir)["private:due_review.md"].failed


def test_verify_refuses_to_stamp_a_memory_whose_code_is_gone(mem: Memdir, project: Path) -> None:
    file = save(mem, "Gone module", anchors=("src/gone.py",))
    before = (mem.layout.memory_dir / file).read_bytes()

    code, out, _ = cli("verify", "Gone module", "--project", str(project))

    assert code == 1
    assert "was not marked verified" in out and "`src/gone.py` no longer exists" in out
    assert (mem.layout.memory_dir / file).read_bytes() == before
    assert verify(mem, "Gone module").problems == ("`src/gone.py` no longer exists",)


def test_doctor_counts_what_waits_for_a_person_with_the_fix(
    project: Path, memdir_home: Path
) -> None:
    memdir_home.mkdir(parents=True, exist_ok=True)
    (memdir_home / "config.toml").write_text(
        'review_private = "manual"\nexpire_project_days = 30\n'
    )
    mem = Memdir.open(project)
    save(mem, "Stale plan", updated=dt.date(2025, 1, 1))
    save(mem, "Gone module", anchors=("src/gone.py",))
    with provenance(route="mcp"):
        mem.write(name="Agent note", description="from an agent", type="project", body="x")
    provider = ScriptedProvider(tool_use("delete_memory", {"file": "stale_plan.md"}), "done")
    proposal = propose_consolidation(mem, provider, now=NOW)
    diagnose(mem, drift=True)

    code, out, err = cli("doctor", "--project", str(project))

    assert code == 0, err  # what waits for a person is no failure
    assert "[pending-review] 1 agent change(s) await review; fix: memdir review" in out
    assert "[pending-proposal] 1 consolidation proposal(s) await a decision; fix: " in out
    assert f"  {proposal.id}: 1 change(s) not applied" in out
    assert "[expired] 1 memory(ies) expired: re-validate or delete; fix: memdir review" in out
    assert "[recheck] 1 memory(ies) citing code: check failed or is old" in out
    assert "  private:gone_module.md: check failed: `src/gone.py` no longer exists" in out
    data = json.loads(cli("doctor", "--json", "--project", str(project))[1])
    assert {n["kind"]: n["count"] for n in data["notices"]} == {
        "pending-review": 1,
        "expired": 1,
        "recheck": 1,
        "pending-proposal": 1,
    }


def test_a_damaged_freshness_file_reads_as_no_checks(mem: Memdir) -> None:
    mem.layout.state_dir.mkdir(parents=True, exist_ok=True)
    (mem.layout.state_dir / FRESHNESS_NAME).write_text("{not json")
    assert read_checks(mem.layout.state_dir) == {}
    record_checks(mem.layout.state_dir, [("private:a.md", "A", [])], now=1.0)
    assert set(read_checks(mem.layout.state_dir)) == {"private:a.md"}
