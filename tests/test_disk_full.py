"""A nearly full disk: a small tmpfs holds the memory home and a filler file takes its space.

Mounting needs root (CI runs as root): elsewhere these tests are skipped and say why.
Every failure is a :class:`~memdir.errors.DiskFull` naming the file (never a bare
``OSError`` or ``sqlite3.OperationalError``), the catalog never takes the disk's last
space nor keeps a grown WAL, ``rm`` moves nothing unless its index line goes too, and
every write works again once space is back.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memdir.api import Memdir
from memdir.cli import main
from memdir.errors import DiskFull, MemdirError
from memdir.search import refresh
from memdir.search.schema import CATALOG_NAME

DISK_BYTES = 2 << 20


class Disk:
    """A mounted tmpfs and a filler file that takes its free space on request."""

    def __init__(self, mount: Path) -> None:
        self.mount = mount
        self.filler = mount / "filler"

    def free(self) -> int:
        st = os.statvfs(self.mount)
        return st.f_bavail * st.f_frsize

    def fill(self, leave: int = 0) -> None:
        """Take all free space but ``leave`` bytes (0: write until the disk refuses)."""
        want = max(self.free() - leave, 0) if leave else 1 << 40
        self._append(65536, want)
        if not leave:  # the last pages a big chunk did not fit in
            self._append(512, 1 << 40)

    def _append(self, chunk_bytes: int, want: int) -> None:
        """Append ``want`` zero bytes to the filler, ``chunk_bytes`` a write, or until ENOSPC."""
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        chunk = b"\0" * chunk_bytes
        try:
            while want > 0:
                want -= os.write(fd, chunk[: min(want, len(chunk))])
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
        finally:
            os.close(fd)

    def release(self) -> None:
        self.filler.unlink(missing_ok=True)


def _mount_reason() -> str | None:
    if sys.platform != "linux":
        return "a tmpfs of a given size needs Linux"
    if os.geteuid() != 0:
        return "mounting a small tmpfs needs root (CI runs these as root)"
    return None


@pytest.fixture
def disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Disk]:
    """A 2 MiB tmpfs holding MEMDIR_HOME; skipped where it cannot be mounted."""
    reason = _mount_reason()
    mount = tmp_path / "disk"
    mount.mkdir()
    if reason is None:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={DISK_BYTES}", "tmpfs", str(mount)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            reason = f"mount -t tmpfs failed: {done.stderr.strip()}"
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the full-disk tests: {reason}")
        pytest.skip(reason)
    monkeypatch.setenv("MEMDIR_HOME", str(mount / "home"))
    try:
        yield Disk(mount)
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill_store(mem: Memdir, count: int = 30) -> None:
    for n in range(count):
        words = " ".join(f"deploy{n}x{i} cluster{i}" for i in range(60))
        mem.write(
            name=f"memory {n}",
            description=f"deploy topic {n}",
            type="project",
            body=f"deploy notes {n}: {words}",
        )


def _catalog(mem: Memdir) -> Path:
    return mem.layout.state_dir / CATALOG_NAME


def _drop_catalog(mem: Memdir) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{_catalog(mem)}{suffix}").unlink(missing_ok=True)


def _wal_size(mem: Memdir) -> int:
    wal = Path(f"{_catalog(mem)}-wal")
    return wal.stat().st_size if wal.exists() else 0


def test_a_search_that_cannot_build_the_catalog_refuses_before_taking_the_space(
    disk: Disk, project: Path
) -> None:
    mem = Memdir.open(project)
    _fill_store(mem)
    _drop_catalog(mem)  # the next search builds it from the files
    disk.fill(leave=200 << 10)
    before = disk.free()
    with pytest.raises(DiskFull) as caught:
        mem.search("deploy")
    assert caught.value.path == str(_catalog(mem))
    assert str(caught.value).startswith(f"no space left on device writing {_catalog(mem)}")
    assert disk.free() >= before - (16 << 10)  # the free space is still there
    assert _wal_size(mem) == 0
    mem.close()
    disk.release()
    mem = Memdir.open(project)
    assert mem.search("deploy")
    mem.write(name="after", description="written once space is back", type="project")
    assert mem.get("after").memory.description == "written once space is back"


def test_a_catalog_write_the_disk_cuts_short_is_rolled_back_and_its_wal_given_back(
    disk: Disk, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No room check: the transaction itself runs into the full disk.
    monkeypatch.setattr(refresh, "RESERVE", 0)
    monkeypatch.setattr(refresh, "_GROWTH", 0)
    monkeypatch.setattr(refresh, "_MIN_WRITE", 0)
    mem = Memdir.open(project)
    _fill_store(mem)
    mem.reindex()
    disk.fill(leave=96 << 10)
    before = disk.free()
    with pytest.raises(DiskFull) as caught:
        mem.reindex()  # one transaction that writes the whole catalog again
    assert "cannot rollback" not in str(caught.value)
    assert caught.value.path == str(_catalog(mem))
    assert _wal_size(mem) == 0  # truncated: the space the transaction took is back
    assert disk.free() >= before - (64 << 10)
    mem.close()
    disk.release()
    mem = Memdir.open(project)
    assert mem.reindex().added == 30
    assert mem.search("deploy")


def _cli_add(runner: CliRunner, project: Path) -> Result:
    """``memdir add`` of one small project memory."""
    args = ["add", "--type", "project", "--name", "n", "--description", "d"]
    return runner.invoke(main, [*args, "--project", str(project)])


def test_the_cli_says_one_line_and_works_again_once_space_is_back(
    disk: Disk, project: Path
) -> None:
    mem = Memdir.open(project)
    _fill_store(mem, 20)
    mem.close()
    _drop_catalog(mem)
    disk.fill()
    runner = CliRunner()
    for args in (["reindex"], ["search", "deploy"]):
        result = runner.invoke(main, [*args, "--project", str(project)])
        assert result.exit_code == 1
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("memdir: error: no space left on device writing ")
        assert "bug in memdir" not in lines[0]
        assert "rollback" not in lines[0]
    result = _cli_add(runner, project)
    assert result.exit_code == 1
    assert result.stderr.startswith("memdir: error: no space left on device writing ")
    disk.release()
    result = _cli_add(runner, project)
    assert result.exit_code == 0, result.stderr
    result = runner.invoke(main, ["search", "deploy", "--project", str(project)])
    assert result.exit_code == 0, result.stderr
    assert "memory_1.md" in result.stdout


def test_a_write_on_a_full_disk_changes_nothing_and_raises_disk_full(
    disk: Disk, project: Path
) -> None:
    mem = Memdir.open(project)
    _fill_store(mem, 3)
    index = mem.private.index_path.read_bytes()
    files = mem.private.files()
    disk.fill()
    with pytest.raises(DiskFull):
        mem.write(name="new one", description="does not fit", type="project", body="x" * 5000)
    with pytest.raises(MemdirError):  # an update of an existing memory: the same
        mem.write(name="memory 1", description="changed", type="project", body="y" * 5000)
    assert mem.private.index_path.read_bytes() == index
    assert mem.private.files() == files
    assert mem.get("memory 1").memory.description == "deploy topic 1"
    disk.release()
    mem.write(name="new one", description="fits now", type="project")
    assert "new_one.md" in mem.private.index_entries()


def _trashed(mem: Memdir) -> list[Path]:
    trash = mem.layout.trash_dir
    return [p for p in trash.rglob("*.md")] if trash.exists() else []


def _assert_kept(mem: Memdir, index: bytes, file: str) -> None:
    """A refused ``rm``: the index as it was, ``file`` in place, nothing in the trash."""
    assert mem.private.index_path.read_bytes() == index
    assert (mem.private.root / file).is_file()
    assert not _trashed(mem)


def test_rm_on_a_full_disk_leaves_the_memory_and_its_index_line(disk: Disk, project: Path) -> None:
    mem = Memdir.open(project)
    _fill_store(mem, 5)
    index = mem.private.index_path.read_bytes()
    disk.fill()
    with pytest.raises(DiskFull):
        mem.delete("memory 2")
    _assert_kept(mem, index, "memory_2.md")
    result = CliRunner().invoke(main, ["rm", "memory 3", "--project", str(project)])
    assert result.exit_code == 1
    assert result.stderr.startswith("memdir: error: no space left on device writing ")
    _assert_kept(mem, index, "memory_3.md")
    disk.release()
    trashed = mem.delete("memory 2")
    assert trashed.is_file()
    assert "memory_2.md" not in mem.private.index_entries()
    assert not (mem.private.root / "memory_2.md").exists()
    # Nothing of the swap is left beside the index.
    assert not [p for p in mem.private.root.iterdir() if p.name.endswith(".tmp")]


def test_mcp_delete_on_a_full_disk_is_all_or_nothing(disk: Disk, project: Path) -> None:
    pytest.importorskip("mcp")
    from mcputil import call_tool

    mem = Memdir.open(project)
    _fill_store(mem, 3)
    index = mem.private.index_path.read_bytes()

    def delete() -> tuple[bool, str]:
        return call_tool(project, "delete", {"path": "memory_1.md"})

    disk.fill()
    failed, message = delete()
    assert failed
    assert "no space left on device" in message
    assert mem.private.index_path.read_bytes() == index
    assert (mem.private.root / "memory_1.md").is_file()
    disk.release()
    failed, message = delete()
    assert not failed, message
    assert "memory_1.md" not in mem.private.index_entries()


def _hook(name: str, payload: Mapping[str, object]) -> tuple[int, str, str]:
    import json

    from memdir.hooks.entry import run_fast

    out: list[str] = []
    err: list[str] = []
    code = run_fast(
        name, stdin_text=json.dumps(payload), env=dict(os.environ), write=out.append,
        warn=err.append,
    )  # fmt: skip
    return code, "".join(out), "".join(err)


def test_the_hooks_on_a_full_disk_still_answer_or_say_one_clear_line(
    disk: Disk, project: Path
) -> None:
    mem = Memdir.open(project)
    mem.write(
        name="Deploy freeze",
        description="no deploys on fridays: the freeze rules",
        type="project",
        body="Never deploy on a Friday.\n",
    )
    assert mem.search("deploy freeze")  # the catalog is built while there is room
    mem.close()
    base = {"session_id": "s1", "cwd": str(project)}
    disk.fill()
    code, out, err = _hook("session-start", {**base, "hook_event_name": "SessionStart"})
    assert code == 0 and err == ""
    assert "deploy_freeze.md" in out  # the memory prompt still goes out
    prompt = {**base, "hook_event_name": "UserPromptSubmit",
              "prompt": "what are the deploy freeze rules on fridays"}  # fmt: skip
    code, out, err = _hook("user-prompt-submit", prompt)
    assert (code, err) == (0, "")
    assert "deploy_freeze.md" in out  # recalled, though its session state cannot be saved
    _drop_catalog(mem)  # no catalog, and no room to build one: recall reads the files
    code, out, err = _hook("user-prompt-submit", {**prompt, "session_id": "s2"})
    assert code == 0 and "Errno" not in err
    assert "deploy_freeze.md" in out


def test_every_api_route_that_writes_raises_memdir_errors_on_a_full_disk(
    disk: Disk, project: Path, tmp_path: Path
) -> None:
    mem = Memdir.open(project)
    _fill_store(mem, 3)
    transcript = tmp_path / "session.jsonl"  # outside the full disk
    transcript.write_text('{"type": "user", "message": {"content": "deploy on friday"}}\n')
    disk.fill()
    index = mem.private.index_path.read_bytes()
    routes: dict[str, Callable[[], object]] = {
        "log": lambda: mem.log("a note on a full disk"),
        "add_transcripts": lambda: mem.add_transcripts(transcript),
        "reindex": lambda: mem.reindex(),
        "write": lambda: mem.write(name="x", description="y", type="project", body="z" * 9000),
        "delete": lambda: mem.delete("memory 0"),
        "rename": lambda: mem.private.rename("memory 1", "renamed.md"),
    }
    for name, route in routes.items():
        try:
            route()
        except MemdirError as exc:
            assert "no space left on device" in str(exc) or isinstance(exc, DiskFull), name
        except Exception as exc:  # the failure this test exists for
            pytest.fail(f"{name} raised {type(exc).__name__}: {exc}")
    # Whatever failed changed nothing: the memories and their index lines are as they were.
    assert mem.private.index_path.read_bytes() == index
    assert {"memory_0.md", "memory_1.md"} <= set(mem.private.files())
    disk.release()
    mem.log("a note once space is back")
    mem.delete("memory 0")
    assert "memory_0.md" not in mem.private.index_entries()


def test_a_write_at_every_level_of_free_space_happens_whole_or_not_at_all(
    disk: Disk, project: Path
) -> None:
    """The disk runs out at each step in turn: the staged copy, the index, the history."""
    mem = Memdir.open(project)
    _fill_store(mem, 3)
    outcomes = set()
    for step in range(16):
        leave = step * 4096
        index = mem.private.index_path.read_bytes()
        files = set(mem.private.files())
        name = f"level {step}"
        disk.fill(leave=leave) if leave else disk.fill()
        try:
            mem.write(name=name, description=f"written with {leave} bytes free",
                      type="project", body="w" * 3000)  # fmt: skip
        except MemdirError as exc:
            assert "rollback" not in str(exc)
            assert isinstance(exc, DiskFull), exc
            assert mem.private.index_path.read_bytes() == index
            assert set(mem.private.files()) == files
            outcomes.add("refused")
        else:
            record = mem.get(name)
            assert record.file in mem.private.index_entries()
            assert record.file in mem.private.files()
            assert mem.history(name)  # and the history has it
            outcomes.add("written")
        disk.release()
    assert outcomes == {"refused", "written"}
    mem.write(name="after", description="space is back", type="project")
    assert not [p for p in (mem.private.root / ".staging").iterdir()]
