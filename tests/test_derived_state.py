"""Damaged derived state never fails a write that succeeded; doctor reports it and repairs it.

Derived state is what memdir makes from the memory files under ``.memdir/``: the
search catalog, its journal, the key tables, file counts and the rule cache. The
project folder's root record (``.memdir-root``) is checked by the same doctor pass.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memdir.api import Memdir
from memdir.cli import main
from memdir.enforcement.enforced import CACHE_NAME, load_rules
from memdir.errors import StorageError
from memdir.search.schema import CATALOG_NAME
from memdir.storage.derived import SET_ASIDE_DIR
from memdir.storage.journal import JOURNAL_NAME
from memdir.storage.paths import ROOT_RECORD


def run(project: Path, *args: str) -> Result:
    return CliRunner().invoke(main, [*args, "--project", str(project)])


def add(project: Path, name: str, description: str = "a deploy note") -> Result:
    return run(project, "add", "--type", "project", "--name", name, "--description", description)


def _folder_in_place(path: Path) -> None:
    """A folder (with a file in it) where memdir keeps a file."""
    if path.exists():
        path.unlink()
    path.mkdir()
    (path / "someone's.txt").write_text("kept\n")


def test_add_succeeds_and_warns_when_the_catalog_journal_is_a_folder(
    mem: Memdir, project: Path
) -> None:
    journal = mem.layout.state_dir / JOURNAL_NAME
    journal.parent.mkdir(parents=True, exist_ok=True)
    _folder_in_place(journal)
    result = add(project, "Deploy window")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "created private:deploy_window.md\n"
    assert "journal" in result.stderr and "memdir doctor --fix" in result.stderr
    assert result.stderr.count("warning:") == 1
    assert (mem.layout.memory_dir / "deploy_window.md").is_file()
    assert "deploy_window.md" in mem.private.index_entries()
    # The API says so in the result's warnings.
    written = mem.write(name="Second", description="d", type="project")
    assert any("journal" in w for w in written.warnings)
    # Search finds both all the same (its walk does not need the journal).
    assert {h.ref for h in mem.search("deploy window")} >= {"deploy_window.md"}

    doctor = run(project, "doctor")
    assert doctor.exit_code == 1
    assert f"[damaged-state] {journal} the search catalog's journal is a folder" in doctor.stdout
    fixed = run(project, "doctor", "--fix")
    assert fixed.exit_code == 0, fixed.stdout
    assert f"[fixed] {journal}" in fixed.stdout
    assert journal.is_file() is False  # moved aside: the next write makes it again
    [aside] = (mem.layout.state_dir / SET_ASIDE_DIR).iterdir()
    assert (aside / "someone's.txt").read_text() == "kept\n"  # nothing of it is lost
    again = add(project, "Third")
    assert again.exit_code == 0 and again.stderr == ""
    assert journal.is_file()
    assert run(project, "doctor").stdout == "all good\n"


def test_a_folder_in_place_of_the_catalog_is_reported_and_rebuilt(
    mem: Memdir, project: Path
) -> None:
    mem.write(name="Deploy window", description="deploys wait for the freeze", type="project")
    catalog = mem.layout.state_dir / CATALOG_NAME
    for suffix in ("", "-wal", "-shm"):
        Path(f"{catalog}{suffix}").unlink(missing_ok=True)
    _folder_in_place(catalog)
    with pytest.raises(StorageError) as caught:
        mem.search("freeze")
    assert caught.value.path == str(catalog)
    searched = run(project, "search", "freeze")
    assert searched.exit_code == 1
    assert searched.stderr.count("\n") == 1
    assert "memdir doctor --fix" in searched.stderr and "bug" not in searched.stderr
    doctor = run(project, "doctor")
    assert doctor.exit_code == 1
    assert f"[damaged-state] {catalog} the search catalog is a folder" in doctor.stdout
    assert run(project, "doctor", "--fix").exit_code == 0
    assert catalog.is_file()
    assert [h.ref for h in Memdir.open(project).search("freeze")] == ["deploy_window.md"]


@pytest.mark.parametrize(
    "name",
    [
        CATALOG_NAME,
        str(Path(CATALOG_NAME).with_suffix(".vectors")),
        "private.keys.sqlite",
        "private.counts.json",
        CACHE_NAME,
    ],
)
def test_a_corrupt_derived_file_is_reported_and_made_again(
    mem: Memdir, project: Path, name: str
) -> None:
    mem.write(name="Deploy window", description="deploys wait for the freeze", type="project")
    mem.search("freeze")  # the catalog exists
    load_rules(mem.layout)  # the rule cache too
    path = mem.layout.state_dir / name
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(b"\x00garbage\xff" * 50)
    doctor = run(project, "doctor")
    assert doctor.exit_code == 1
    assert f"[damaged-state] {path} " in doctor.stdout
    assert "is damaged" in doctor.stdout
    fixed = run(project, "doctor", "--fix")
    assert fixed.exit_code == 0, fixed.stdout
    assert run(project, "doctor").stdout == "all good\n"
    assert [h.ref for h in Memdir.open(project).search("freeze")] == ["deploy_window.md"]


def test_doctor_json_lists_damaged_state(mem: Memdir, project: Path) -> None:
    journal = mem.layout.state_dir / JOURNAL_NAME
    journal.parent.mkdir(parents=True, exist_ok=True)
    _folder_in_place(journal)
    result = run(project, "doctor", "--json")
    data = json.loads(result.stdout)
    assert data["ok"] is False
    assert [s["path"] for s in data["state"]] == [str(journal)]


# -- the root record -------------------------------------------------------------------

GARBAGE = b"\x00\xff\x1b[31mrm -rf\x07" + b"z" * 300


def test_a_corrupt_root_record_is_one_clear_line_and_doctor_fix_repairs_it(
    mem: Memdir, project: Path
) -> None:
    mem.write(name="Deploy window", description="deploys wait", type="project")
    record = mem.layout.project_dir / ROOT_RECORD
    record.write_bytes(GARBAGE)
    with pytest.raises(StorageError) as caught:
        Memdir.open(project)
    assert caught.value.path == str(record)
    listed = run(project, "list")
    assert listed.exit_code == 1
    line = listed.stderr
    assert line.count("\n") == 1
    assert "\x1b" not in line and "\x00" not in line and "\x07" not in line
    assert "\\x1b" in line  # an escaped excerpt, not the bytes
    assert "z" * 60 not in line  # an excerpt, not all of it
    assert "MEMDIR_HOME" not in line  # not another home's business
    assert "memdir doctor --fix" in line
    doctor = run(project, "doctor")
    assert doctor.exit_code == 1
    assert f"[damaged-root] {record}" in doctor.stdout
    assert "\x1b" not in doctor.stdout
    fixed = run(project, "doctor", "--fix")
    assert fixed.exit_code == 0, fixed.stdout
    assert record.read_bytes().strip() == str(project.resolve()).encode()
    listed = run(project, "list")
    assert listed.exit_code == 0 and "deploy_window.md" in listed.stdout


@pytest.mark.parametrize("content", [b"relative/path\n", b"/somewhere/else/entirely\n"])
def test_a_root_record_that_names_no_project_of_this_folder_is_damage(
    mem: Memdir, project: Path, content: bytes
) -> None:
    record = mem.layout.project_dir / ROOT_RECORD
    record.write_bytes(content)
    assert run(project, "list").exit_code == 1
    assert run(project, "doctor", "--fix").exit_code == 0
    assert run(project, "list").exit_code == 0


def test_a_folder_in_place_of_the_root_record_is_repaired(mem: Memdir, project: Path) -> None:
    record = mem.layout.project_dir / ROOT_RECORD
    _folder_in_place(record)
    assert run(project, "list").exit_code == 1
    assert run(project, "doctor", "--fix").exit_code == 0
    assert record.is_file()
    assert run(project, "list").exit_code == 0


def test_a_catalog_whose_creator_was_killed_is_no_damage(mem: Memdir, project: Path) -> None:
    """A server stopped as it starts (a client's health check) may be killed while it
    creates the catalog: what it leaves is either empty or whole, never tables without
    their schema version, so doctor stays quiet and the next search builds it."""
    import signal
    import subprocess
    import sys
    import time

    from memdir.recall.state_check import _sqlite_damage
    from memdir.search.schema import SCHEMA_VERSION

    mem.write(name="Deploy window", description="deploys wait for the freeze", type="project")
    path = mem.layout.state_dir / CATALOG_NAME
    opener = (
        "import sys; from memdir.api import Memdir; "
        "from memdir.search.catalog import Catalog; "
        "sys.stdout.write('go\\n'); sys.stdout.flush(); "
        "Catalog.open(Memdir.open(sys.argv[1]).layout)"
    )
    for delay in [step * 0.003 for step in range(16)]:  # across the creation
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)
        child = subprocess.Popen(
            [sys.executable, "-c", opener, str(project)], stdout=subprocess.PIPE, text=True
        )
        assert child.stdout is not None and child.stdout.readline() == "go\n"
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        assert _sqlite_damage(path, version=SCHEMA_VERSION) is None, delay
    assert run(project, "doctor").stdout == "all good\n"
    assert [h.ref for h in Memdir.open(project).search("freeze")] == ["deploy_window.md"]


def test_the_catalog_schema_is_made_in_one_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    from memdir.search import schema

    # A creation that stops after some tables (here a statement that fails; a kill in
    # the real world) leaves none of them: no tables without their schema version.
    monkeypatch.setattr(schema, "_SCHEMA", schema._SCHEMA + "\nCREATE TABLE broken (;\n")
    path = tmp_path / "catalog.sqlite3"
    with pytest.raises(sqlite3.DatabaseError):
        schema.open_index_db(path)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 0
    finally:
        conn.close()
