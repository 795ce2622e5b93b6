"""Redact removes a text from every copy memdir keeps, and says where else it may be."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from consolidation.helpers import NOW
from memdir.agents.consolidate.changeset import proposals_dir
from memdir.agents.consolidate.proposal import propose_consolidation
from memdir.api import Memdir
from memdir.cli import main
from memdir.enforcement.enforced import cache_path, load_rules
from memdir.errors import MemdirError
from memdir.history import redaction, reverse
from memdir.history.versions import History
from memdir.testing import ScriptedProvider, tool_use

SECRET = "zq7sekretvx93"  # lower case: it is in the file name as the name's slug


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def holders(*roots: Path) -> list[str]:
    """Every file under ``roots`` whose bytes or path hold the secret."""
    found = []
    for root in roots:
        for path in root.rglob("*"):
            if SECRET in path.name or (path.is_file() and SECRET.encode() in path.read_bytes()):
                found.append(str(path))
    return found


def leaked_memory(mem: Memdir) -> str:
    """A memory whose name, description and body hold the secret, changed, then deleted,
    with every derived file memdir keeps made first. Returns its name."""
    name = f"Deploy key {SECRET}"
    mem.write(name=name, description=f"the key {SECRET} deploys", type="project", body=SECRET)
    mem.write(name="Unrelated", description="another memory", type="project", body="kept")
    mem.search("deploy")  # the catalog indexes it
    load_rules(mem.layout)  # the rule cache lists every memory file
    mem.write(name=name, description=f"rotated {SECRET}", type="project", body=f"{SECRET} v2")
    mem.search("deploy")
    mem.delete(name)  # a copy goes to the trash
    mem.search("deploy")
    return name


def history_of(mem: Memdir) -> History:
    assert mem.history_db is not None
    return mem.history_db


def test_redacting_every_version_leaves_the_secret_in_no_file_memdir_keeps(
    mem: Memdir, project: Path, memdir_home: Path
) -> None:
    name = leaked_memory(mem)
    assert holders(memdir_home, project)  # the history, the trash, the catalog, the caches
    ids = sorted(v.id for v in mem.history(name))

    for version in ids:
        code, out = run("redact", name, "--version", str(version), "--project", str(project))
        assert code == 0, out

    assert holders(memdir_home, project) == []
    unrelated = mem.history("Unrelated")
    assert [v.redacted for v in unrelated] == [False]  # another memory keeps its text
    assert mem.get("Unrelated").memory.body == "kept\n"
    assert mem.search("unrelated")  # the catalog still answers


def test_the_report_names_each_copy_removed_and_where_else_the_text_may_be(
    mem: Memdir, project: Path
) -> None:
    name = leaked_memory(mem)
    first, second = sorted(v.id for v in mem.history(name))[:2]
    run("redact", name, "--version", str(first), "--project", str(project))

    code, out = run("redact", name, "--version", str(second), "--project", str(project))

    assert code == 0, out
    assert "removed: trash: deleted .trash/" in out and f"private/deploy_key_{SECRET}.md" in out
    assert "removed: history: the name or file name in" in out
    assert "removed: the enforced-rule cache" in out
    assert "removed: search catalog" in out
    assert "it may still be in the transcripts of the sessions" in out


def test_for_team_memory_the_report_names_the_remote_and_teammates_clones(project: Path) -> None:
    mem = Memdir.open(project, team=True)
    mem.write(name="Team key", description="team", type="project", body=SECRET, scope="team")
    first = mem.history("Team key")[0]
    mem.write(name="Team key", description="team", type="project", body="rotated", scope="team")

    report = mem.redact("Team key", first.id)

    assert "remote's history" in report.message and "teammate's clone" in report.message
    assert "rewrite-unpushed" in report.message


def test_a_secret_only_in_the_body_keeps_the_name_and_every_version_listed(mem: Memdir) -> None:
    mem.write(name="Deploys", description="how deploys go", type="project", body=SECRET)
    mem.write(name="Deploys", description="how deploys go", type="project", body="clean")
    leaked = mem.history("Deploys")[-1]

    report = mem.redact("Deploys", leaked.id)

    versions = mem.history("Deploys")
    assert [v.id for v in versions][-1] == leaked.id  # still listed by its name
    assert {v.name for v in versions} == {"Deploys"}
    assert {v.file for v in versions} == {"deploys.md"}
    assert not any("name or file name" in line for line in report.removed)
    assert SECRET.encode() not in (mem.layout.history_dir / "history.sqlite").read_bytes()


def test_a_redaction_cut_short_is_finished_by_running_it_again(
    mem: Memdir, project: Path, memdir_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = leaked_memory(mem)
    ids = sorted(v.id for v in mem.history(name))
    mem.redact(name, ids[0])

    def killed(*args: object) -> list[str]:
        raise KeyboardInterrupt  # after the trash and the caches, before the history

    with monkeypatch.context() as patch:
        patch.setattr(redaction, "_scrub", killed)
        with pytest.raises(KeyboardInterrupt):
            mem.redact(name, ids[1])
    with monkeypatch.context() as patch:
        patch.setattr(redaction, "_compact", killed)  # after the history, before the rewrite
        with pytest.raises(KeyboardInterrupt):
            mem.redact(name, ids[1])

    mem.redact(name, ids[1])

    assert holders(memdir_home, project) == []


def test_redact_waits_for_an_undo_under_way(mem: Memdir, monkeypatch: pytest.MonkeyPatch) -> None:
    mem.write(name="Leaky", description="a memory", type="project", body=SECRET)
    mem.write(name="Leaky", description="a memory", type="project", body="clean")
    leaked = mem.history("Leaky")[-1]

    def broken(*args: object, **kwargs: object) -> bool:
        raise OSError(5, "Input/output error", "injected")

    with monkeypatch.context() as patch:
        patch.setattr(reverse, "apply_step", broken)
        with pytest.raises(MemdirError, match="stopped half way"):
            mem.undo()

    with pytest.raises(MemdirError, match="under way"):
        mem.redact("Leaky", leaked.id)
    mem.undo()  # finished: the secret's version is the memory's text again
    mem.write(name="Leaky", description="a memory", type="project", body="clean again")
    assert mem.redact("Leaky", leaked.id).versions


def test_a_consolidation_proposal_that_kept_the_text_is_deleted(mem: Memdir) -> None:
    mem.write(name="Deploys", description="how deploys go", type="project", body=SECRET)
    merged = {"file": "deploys.md", "name": "Deploys", "description": "how deploys go"}
    provider = ScriptedProvider(
        tool_use("write_memory", {**merged, "type": "project", "body": "merged"}), "done"
    )
    proposal = propose_consolidation(mem, provider, now=NOW)
    assert proposal.id and SECRET in (proposals_dir(mem) / f"{proposal.id}.json").read_text()
    leaked = mem.history("Deploys")[0]
    mem.write(name="Deploys", description="how deploys go", type="project", body="rotated")

    report = mem.redact("Deploys", leaked.id)

    assert f"consolidation proposal {proposal.id}, which held it" in report.removed
    assert not (proposals_dir(mem) / f"{proposal.id}.json").exists()
    assert not cache_path(mem.layout).exists() or SECRET not in cache_path(mem.layout).read_text(
        errors="replace"
    )
