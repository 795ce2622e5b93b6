"""History: every change kept, restorable with one command, undoable byte for byte."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from consolidation.helpers import NOW, snapshot
from memdir.agents.consolidate.run import consolidate
from memdir.api import Memdir
from memdir.cli import main
from memdir.errors import Conflict, InvalidMemory, MemdirError
from memdir.history.versions import blob_hash
from memdir.model import Scope
from memdir.storage.store_apply import FileChange
from memdir.testing import ScriptedProvider, tool_use
from proposalutil import rewrite_ci, write_ci_memories


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def text_of(mem: Memdir, file: str, scope: str = "private") -> str:
    return (mem.store(scope).root / file).read_text(encoding="utf-8")


def add(project: Path, name: str, body: str) -> None:
    code, out = run(
        "add", "--type", "project", "--name", name, "--description", f"about {name}",
        "--body", body, "--project", str(project),
    )  # fmt: skip
    assert code == 0, out


def test_a_same_name_update_keeps_the_old_text_and_restore_brings_it_back(
    mem: Memdir, project: Path
) -> None:
    add(project, "Zeta", "version one")
    add(project, "Zeta", "version two")
    assert "version two" in text_of(mem, "zeta.md")

    code, out = run("restore", "Zeta", "--project", str(project))

    assert code == 0, out
    assert "version one" in text_of(mem, "zeta.md")
    actions = [v.action for v in mem.history("Zeta")]
    assert actions == ["restore", "update", "create"]
    assert {v.route for v in mem.history("Zeta")} == {"cli"}


def test_history_lists_versions_newest_first_as_json(mem: Memdir, project: Path) -> None:
    add(project, "Zeta", "one")
    add(project, "Zeta", "two")

    code, out = run("history", "Zeta", "--json", "--project", str(project))

    assert code == 0, out
    rows = json.loads(out)
    assert [r["action"] for r in rows] == ["update", "create"]
    assert rows[0]["id"] > rows[1]["id"]
    assert {"id", "when", "action", "route", "session", "file"} <= set(rows[0])


def test_an_edit_keeps_the_old_text(mem: Memdir, project: Path) -> None:
    record = mem.write(name="Edited", description="about edits", type="project", body="before")
    text = text_of(mem, record.record.file).replace("before", "after")

    mem.private.write_text(record.record.file, text, expected_version=record.record.version)

    assert mem.history("Edited")[0].action == "edit"
    mem.restore("Edited")
    assert "before" in text_of(mem, record.record.file)


def test_rm_keeps_the_text_and_restore_brings_a_deleted_memory_back(
    mem: Memdir, project: Path
) -> None:
    add(project, "Gone", "the deleted text")
    original = text_of(mem, "gone.md")
    index = mem.private.read_index()

    assert run("rm", "Gone", "--project", str(project))[0] == 0
    assert not (mem.layout.memory_dir / "gone.md").exists()
    code, out = run("restore", "Gone", "--project", str(project))

    assert code == 0, out
    assert text_of(mem, "gone.md") == original
    assert mem.private.read_index() == index


def test_a_rename_is_kept_and_undo_moves_the_file_back(mem: Memdir) -> None:
    mem.write(name="Moved", description="about moving", type="project", body="body")
    before = snapshot(mem)

    mem.private.rename("moved.md", "elsewhere.md")
    assert mem.history("Moved")[0].action == "rename"
    report = mem.undo()

    assert report.action == "rename"
    assert snapshot(mem) == before


def test_restore_of_a_chosen_version(mem: Memdir) -> None:
    for body in ("first", "second", "third"):
        mem.write(name="Many", description="about versions", type="project", body=body)
    first = mem.history("Many")[-1]

    mem.restore("Many", version=first.id)

    assert mem.get("Many").memory.body == "first\n"


def test_restore_says_when_there_is_no_earlier_version(mem: Memdir) -> None:
    mem.write(name="Only", description="one version", type="project", body="x")
    with pytest.raises(MemdirError, match="no earlier version"):
        mem.restore("Only")


def test_undo_reverses_writes_one_by_one_byte_for_byte(mem: Memdir) -> None:
    mem.write(name="Alpha", description="first memory", type="project", body="a")
    states = [snapshot(mem)]
    mem.write(name="Beta", description="second memory", type="project", body="b")
    states.append(snapshot(mem))
    mem.write(name="Alpha", description="first memory, changed", type="project", body="a2")

    mem.undo()
    assert snapshot(mem) == states[1]
    mem.undo()
    assert snapshot(mem) == states[0]


def test_undo_refuses_when_the_file_changed_since(mem: Memdir) -> None:
    record = mem.write(name="Alpha", description="first memory", type="project", body="a")
    path = mem.layout.memory_dir / record.record.file
    path.write_text(path.read_text() + "edited by hand\n")

    with pytest.raises(Conflict, match="changed after"):
        mem.undo()


def test_undo_after_a_consolidation_leaves_both_scopes_byte_identical(project: Path) -> None:
    mem = Memdir.open(project, team=True)
    write_ci_memories(mem)
    mem.write(name="Deploys", description="How deploys go", type="project", body="x", scope="team")
    # A hand-written line the doctor pass rewrites: the run changes the index wholesale.
    index = mem.private.index_path
    index.write_text(index.read_text() + "- [Dangling](nowhere.md) — gone\n")
    before = snapshot(mem)
    provider = ScriptedProvider(
        rewrite_ci(),
        tool_use("delete_memory", {"file": "ci_host.md"}),
        tool_use("delete_memory", {"file": "team/deploys.md"}),
        "Merged.",
    )
    report = consolidate(mem, provider, now=NOW, force=True)
    assert report.ran and report.error is None, report
    assert snapshot(mem) != before

    code, out = run("undo", "--project", str(project))

    assert code == 0, out
    assert "consolidation" in out
    assert snapshot(mem) == before
    # Everything the run removed is also restorable by name.
    assert run("restore", "CI host", "--project", str(project))[0] != 0  # it exists again


def test_consolidation_is_one_change_and_each_old_text_is_restorable(mem: Memdir) -> None:
    mem.write(name="Old fact", description="a fact", type="project", body="old text")
    provider = ScriptedProvider(tool_use("delete_memory", {"file": "old_fact.md"}), "done")
    consolidate(mem, provider, now=NOW, force=True)
    assert not (mem.layout.memory_dir / "old_fact.md").exists()

    mem.restore("Old fact")

    assert mem.get("Old fact").memory.body == "old text\n"
    versions = mem.history("Old fact")
    assert [v.route for v in versions] == ["api", "consolidation", "api"]


def test_prune_drops_old_versions_but_keeps_each_memorys_latest(mem: Memdir) -> None:
    history = mem.history_db
    assert history is not None
    mem.write(name="Aged", description="an old memory", type="project", body="v1")
    mem.write(name="Aged", description="an old memory", type="project", body="v2")
    mem.write(name="Dropped", description="deleted long ago", type="project", body="bye")
    mem.delete("Dropped")
    trash_day = mem.layout.trash_dir / "2000-01-01"
    trash_day.mkdir(parents=True)
    (trash_day / "old.md").write_text("old trash")
    stored = history.stats()["blobs"]

    report = history.prune(now=time.time() + 31 * 86_400)

    left = [(v.action, v.name) for v in history.versions()]
    assert left == [("update", "Aged")]  # the current state's provenance stays
    assert report.versions == 3 and report.blobs >= 1
    assert history.stats()["blobs"] < stored
    assert not trash_day.exists()


def test_prune_keeps_what_is_within_the_retention(mem: Memdir, project: Path) -> None:
    mem.write(name="Fresh", description="recent", type="project", body="v1")
    mem.write(name="Fresh", description="recent", type="project", body="v2")

    code, out = run("history", "--prune", "--project", str(project))

    assert code == 0, out
    assert "pruned 0 versions" in out
    assert len(mem.history("Fresh")) == 2


def test_redact_removes_the_blob_of_a_version(mem: Memdir, project: Path) -> None:
    secret = "the password is hunter2-correct-horse"
    mem.write(name="Leaky", description="held a secret", type="project", body=secret)
    mem.write(name="Leaky", description="held a secret", type="project", body="clean now")
    leaked = mem.history("Leaky")[-1]
    history = mem.history_db
    assert history is not None and leaked.after is not None
    assert history.blob(leaked.after) is not None

    code, out = run("redact", "Leaky", "--version", str(leaked.id), "--project", str(project))

    assert code == 0, out
    assert history.blob(leaked.after) is None
    assert secret.encode() not in (mem.layout.history_dir / "history.sqlite").read_bytes()
    assert all(v.redacted for v in mem.history("Leaky"))  # both versions held that text
    with pytest.raises(MemdirError, match="redacted"):
        mem.restore("Leaky")


def test_redact_refuses_the_current_text_and_names_git_for_team_memory(project: Path) -> None:
    mem = Memdir.open(project, team=True)
    mem.write(name="Team note", description="team", type="project", body="one", scope="team")
    current = mem.history("Team note")[0]
    with pytest.raises(MemdirError, match="holds now"):
        mem.redact("Team note", current.id)
    mem.write(name="Team note", description="team", type="project", body="two", scope="team")

    report = mem.redact("Team note", current.id)

    assert "rewrite-unpushed" in report.message and "remote's history" in report.message


def test_hand_edits_are_versioned_when_the_catalog_notices_them(mem: Memdir) -> None:
    record = mem.write(name="Handy", description="edited by hand", type="project", body="v1")
    mem.search("handy")  # the catalog knows the file as memdir wrote it
    path = mem.layout.memory_dir / record.record.file
    edited = path.read_text().replace("v1", "changed in an editor")
    path.write_text(edited)
    os.utime(path, (time.time() + 5, time.time() + 5))

    mem.search("editor")

    latest = mem.history("Handy")[0]
    assert (latest.action, latest.route) == ("hand-edit", "hand-edit")
    assert latest.after == blob_hash(edited.encode())
    mem.undo()
    assert "v1" in path.read_text()


def test_a_memdir_write_is_not_taken_for_a_hand_edit(mem: Memdir) -> None:
    mem.write(name="Plain", description="plain", type="project", body="v1")
    mem.search("plain")
    mem.write(name="Plain", description="plain", type="project", body="v2")

    mem.search("plain")

    assert [v.action for v in mem.history("Plain")] == ["update", "create"]


def test_an_api_write_with_a_wrong_typed_source_is_refused_clearly(mem: Memdir) -> None:
    with pytest.raises(InvalidMemory, match="'source' must be text"):
        mem.write(name="Typed", description="typed", type="project", source=42)


def test_history_is_kept_beside_memory_not_in_derived_state_or_team(mem: Memdir) -> None:
    mem.write(name="Where", description="where history lives", type="project", body="x")
    path = mem.layout.history_dir / "history.sqlite"
    assert path.is_file()
    assert mem.layout.state_dir not in path.parents
    assert mem.layout.team_dir not in path.parents
    assert path.parent.parent == mem.layout.project_dir


def test_team_versions_name_user_and_host(project: Path) -> None:
    mem = Memdir.open(project, team=True)
    mem.write(name="Shared", description="team", type="project", body="x", scope="team")
    version = mem.history("Shared", scope=Scope.TEAM)[0]
    assert version.user and version.host


WRITER = textwrap.dedent(
    """
    import sys
    from memdir.api import Memdir
    project, worker, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    mem = Memdir.open(project)
    for i in range(count):
        mem.write(name="Contended", description="one memory, many writers", type="project",
                  body=f"writer {worker} version {i}")
    """
)


def test_concurrent_writers_keep_every_version(mem: Memdir) -> None:
    workers, count = 4, 15
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(mem.layout.project_root), str(w), str(count)],
            env=os.environ.copy(),
        )
        for w in range(workers)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0] * workers

    versions = list(reversed(mem.history("Contended")))
    history = mem.history_db
    assert history is not None
    assert len(versions) == workers * count
    bodies = {history.blob(v.after).decode().split("---\n")[-1] for v in versions}  # type: ignore[union-attr]
    assert bodies == {f"writer {w} version {i}\n" for w in range(workers) for i in range(count)}
    # Each version's "before" is the previous version's "after": no change is lost.
    assert all(b.before == a.after for a, b in itertools.pairwise(versions))


# -- at scale: a memory with thousands of versions is read a page at a time -------------------


def many_versions(mem: Memdir, count: int) -> str:
    """One memory with ``count`` more versions, recorded straight into the history (what
    that many edits leave); returns its file."""
    history = mem.history_db
    assert history is not None
    first = mem.write(name="Busy", description="changed very often", type="project", body="v0")
    previous = (mem.layout.memory_dir / first.record.file).read_bytes()
    with history._transaction():  # one transaction: each record joins it
        for i in range(count):
            after = f"---\nname: Busy\ndescription: often\ntype: project\n---\nv{i}\n".encode()
            history.record(FileChange(
                scope=Scope.PRIVATE, file=first.record.file, action="update", name="Busy",
                before=previous, after=after,
            ))  # fmt: skip
            previous = after
    return first.record.file


def listed(out: str) -> list[int]:
    return [int(line.split()[0][1:]) for line in out.splitlines() if line.startswith("v")]


def test_history_lists_a_page_at_a_time_newest_first(mem: Memdir, project: Path) -> None:
    many_versions(mem, 120)
    every = [v.id for v in mem.history("Busy")]

    code, out = run("history", "Busy", "--project", str(project))

    assert code == 0, out
    assert listed(out) == every[:50]
    assert out.splitlines()[-1] == f"older versions: memdir history 'Busy' --before v{every[49]}"
    pages, before = [], every[49]
    while True:
        code, out = run(
            "history", "Busy", "--limit", "30", "--before", f"v{before}", "--project", str(project)
        )
        assert code == 0, out
        pages += listed(out)
        if "older versions" not in out:
            break
        before = listed(out)[-1]
    assert every[:50] + pages == every  # every version once, in order, none twice
    code, out = run("history", "Busy", "--limit", "3", "--json", "--project", str(project))
    assert [row["id"] for row in json.loads(out)] == every[:3]


def test_history_why_and_the_page_read_one_page_through_indexes_whatever_the_count(
    mem: Memdir, project: Path
) -> None:
    pytest.importorskip("starlette")
    from uiutil import AUTH, get

    file = many_versions(mem, 3000)
    history = mem.history_db
    assert history is not None
    conn = history._conn()
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        page = mem.history("Busy", limit=50)
        answer = mem.why("Busy")
    finally:
        conn.set_trace_callback(None)
    code, out = run("why", "Busy", "--project", str(project))
    shown = get(mem, f"/memories/private/{file}", **AUTH)  # the same two calls, a page each

    assert len(page) == 50 and len(answer.history) == 20
    assert answer.older == answer.history[-1].id and answer.origin is not None
    assert answer.origin.action == "create" and answer.latest == page[0]
    assert code == 0 and f"--before {answer.older}" in out
    assert shown.status_code == 200
    assert shown.text.count('class="version') == 50
    reads = [s for s in statements if s.lstrip().startswith("SELECT") and "FROM versions" in s]
    assert reads
    for sql in reads:  # each served by an index in id order and stopped by its LIMIT
        plan = " ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
        assert "LIMIT" in sql and "USING INDEX" in plan, (sql, plan)
        assert "SCAN" not in plan and "TEMP B-TREE" not in plan, (sql, plan)
