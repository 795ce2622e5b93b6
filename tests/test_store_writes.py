"""Writes made ready outside the scope lock, the index's key table, and the lock itself."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from pathlib import Path

import pytest

from memdir.api import Memdir
from memdir.errors import LimitExceeded, LockTimeout, MemdirError, SecretDetected
from memdir.storage.fs import file_lock
from memdir.storage.memory_index import parse_entries

WORKERS, EACH = 8, 15


def _writer(project: str, home: str, worker: int, start: multiprocessing.synchronize.Event) -> None:
    mem = Memdir.open(project, home=home)
    start.wait()
    for i in range(EACH):
        scope = "team" if worker % 2 else "private"
        mem.write(name=f"w{worker} m{i}", description=f"{worker}/{i}", type="project", scope=scope)
        # Every writer also updates a name the others write too.
        mem.write(name=f"shared {i % 3}", description=f"by {worker}", type="project", body=f"{i}")


def test_eight_processes_writing_at_once_lose_no_memory_and_keep_one_file_per_name(
    mem: Memdir, memdir_home: Path
) -> None:
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    procs = [
        ctx.Process(target=_writer, args=(str(mem.layout.project_root), str(memdir_home), w, start))
        for w in range(WORKERS)
    ]
    for proc in procs:
        proc.start()
    start.set()
    for proc in procs:
        proc.join(timeout=300)
    assert [proc.exitcode for proc in procs] == [0] * WORKERS
    for store, workers in ((mem.private, range(0, WORKERS, 2)), (mem.team, range(1, WORKERS, 2))):
        names = {f"w{w} m{i}" for w in workers for i in range(EACH)}
        if store is mem.private:
            names |= {f"shared {n}" for n in range(3)}
        on_disk = [record.memory.name for record in store.list()]
        assert sorted(on_disk) == sorted(names)  # every memory, each in one file
        entries = parse_entries(store.read_index())
        assert sorted(e.file for e in entries) == sorted(store.files())  # each listed once
        assert not list((store.root / ".staging").glob("*"))  # no staging copy left


def test_a_line_removed_from_the_index_by_hand_comes_back_on_the_next_write(mem: Memdir) -> None:
    mem.write(name="One", description="first", type="project")
    mem.write(name="Two", description="second", type="project")
    index = mem.private.index_path
    index.write_text("- [Two](two.md) — second\n")  # One's line removed by hand
    mem.write(name="One", description="first", type="project")  # the same line as before
    assert sorted(e.file for e in parse_entries(index.read_text())) == ["one.md", "two.md"]


def test_a_memory_listed_by_hand_under_another_file_name_is_updated_in_place(
    mem: Memdir,
) -> None:
    mem.write(name="Seed", description="d", type="project")  # the key table exists now
    folder = mem.layout.memory_dir / "notes"
    folder.mkdir()
    (folder / "x.md").write_text("---\nname: Hand Written\ndescription: old\ntype: project\n---\n")
    with mem.private.index_path.open("a") as index:
        index.write("- [Hand Written](notes/x.md) — old\n")
    result = mem.write(name="hand written", description="new", type="project")
    assert result.record.file == "notes/x.md" and not result.created
    assert [e.hook for e in parse_entries(mem.private.read_index()) if e.file == "notes/x.md"] == [
        "new"
    ]


def test_a_damaged_key_table_is_rebuilt_and_the_writes_go_on(mem: Memdir) -> None:
    mem.write(name="One", description="d", type="project")
    keys = mem.layout.state_dir / "private.keys.sqlite"
    assert keys.exists()
    for path in keys.parent.glob("private.keys.sqlite*"):
        path.write_bytes(b"not a database" * 100)
    fresh = Memdir.open(mem.layout.project_root)  # a new process would open it afresh
    fresh.write(name="Two", description="d", type="project")
    fresh.write(name="One", description="changed", type="project")
    entries = {e.file: e.hook for e in parse_entries(fresh.private.read_index())}
    assert entries == {"one.md": "changed", "two.md": "d"}


def test_an_index_without_a_final_line_break_gets_the_new_line_on_a_line_of_its_own(
    mem: Memdir,
) -> None:
    mem.write(name="One", description="d", type="project")
    index = mem.private.index_path
    index.write_bytes(index.read_bytes().rstrip(b"\n"))
    mem.write(name="Two", description="d", type="project")
    assert [e.file for e in parse_entries(index.read_text())] == ["one.md", "two.md"]


def test_a_refused_team_write_leaves_no_file_and_no_staging_copy(mem: Memdir) -> None:
    with pytest.raises(SecretDetected):
        mem.write(
            name="Key",
            description="d",
            type="project",
            scope="team",
            body="token " + "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
        )
    assert mem.team.files() == []
    assert not list((mem.team.root / ".staging").glob("*"))


def test_a_lock_waiter_takes_the_lock_as_soon_as_the_holder_lets_go(tmp_path: Path) -> None:
    path, order = tmp_path / "x.lock", []
    holding = threading.Event()

    def waiter() -> None:
        holding.wait()
        with file_lock(path, timeout=30):
            order.append("waiter")

    thread = threading.Thread(target=waiter)
    thread.start()
    with file_lock(path):
        holding.set()
        time.sleep(0.2)
        order.append("holder")
    thread.join(timeout=30)
    assert order == ["holder", "waiter"]


def test_a_waiter_that_timed_out_does_not_keep_the_lock_it_gave_up(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    result: list[str] = []

    def impatient() -> None:
        try:
            with file_lock(path, timeout=0.1):
                result.append("got it")
        except LockTimeout:
            result.append("timed out")

    with file_lock(path):
        thread = threading.Thread(target=impatient)
        thread.start()
        thread.join(timeout=30)
    assert result == ["timed out"]
    with file_lock(path, timeout=5):  # the abandoned wait released what it got
        pass


def test_a_renamed_memory_is_found_at_its_new_file_by_its_name(mem: Memdir) -> None:
    mem.write(name="One", description="d", type="project")
    mem.private.rename("one.md", "nested/one.md")
    result = mem.write(name="One", description="changed", type="project")
    assert result.record.file == "nested/one.md" and not result.created
    assert [(e.file, e.hook) for e in parse_entries(mem.private.read_index())] == [
        ("nested/one.md", "changed")
    ]


def test_a_memory_written_again_after_its_delete_gets_its_index_line_back(mem: Memdir) -> None:
    mem.write(name="One", description="d", type="project")
    mem.delete("One")
    mem.write(name="One", description="d", type="project")
    assert [e.file for e in parse_entries(mem.private.read_index())] == ["one.md"]


def test_an_update_does_not_hide_a_file_added_by_hand_from_the_file_count(
    project: Path,
) -> None:
    mem = Memdir.open(project, max_files=3)
    mem.write(name="One", description="d", type="project")
    mem.write(name="Two", description="d", type="project")
    (mem.layout.memory_dir / "three.md").write_text("by hand\n")
    os.utime(mem.layout.memory_dir, ns=(1, 1))  # a later clock tick than memdir's write
    mem.write(name="One", description="changed", type="project")  # an update in that folder
    with pytest.raises(LimitExceeded):
        mem.write(name="Four", description="d", type="project")


def test_a_write_whose_history_fails_is_undone_whole(mem: Memdir) -> None:
    """Past the rename, a failure (here the history) puts file and index back as they were."""
    mem.write(name="Kept", description="the first text", type="project", body="one\n")
    mem.write(name="Other", description="another", type="project")
    index = mem.private.index_path.read_bytes()
    kept = (mem.private.root / "kept.md").read_bytes()
    assert mem.history_db is not None
    mem.history_db.close()
    history = mem.history_db.path
    for suffix in ("", "-wal", "-shm"):
        Path(f"{history}{suffix}").unlink(missing_ok=True)
    history.mkdir()  # the history cannot be opened now
    with pytest.raises(MemdirError, match="history"):
        mem.write(name="New", description="never lands", type="project")
    with pytest.raises(MemdirError, match="history"):
        mem.write(name="Kept", description="a second text", type="project", body="two\n")
    assert not (mem.private.root / "new.md").exists()
    assert (mem.private.root / "kept.md").read_bytes() == kept
    assert mem.private.index_path.read_bytes() == index
    staging = mem.private.root / ".staging"
    assert not staging.exists() or not list(staging.iterdir())  # no link is left
    history.rmdir()
    mem.write(name="New", description="lands now", type="project")
    assert mem.get("New").memory.description == "lands now"
    assert "new.md" in mem.private.index_entries()
