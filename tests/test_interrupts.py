"""Ctrl-C during a long command: one line, status 130, no traceback, no lock left held."""

from __future__ import annotations

import errno
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memdir.api import Memdir
from memdir.search import documents
from memdir.search.schema import CATALOG_NAME

# Past the file count from which a build reads files in worker processes.
FILES = 2400


def store(project: Path) -> Memdir:
    mem = Memdir.open(project)
    folder = mem.layout.memory_dir
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(FILES):
        (folder / f"note_{n}.md").write_text(
            f"---\nname: note {n}\ndescription: the deploy pipeline, part {n}\ntype: project\n"
            "---\n" + "words of a body " * 60 + "\n",
            encoding="utf-8",
        )
    return mem


def memdir(project: Path, *args: str) -> subprocess.Popen[str]:
    """``memdir ARGS`` in a process group of its own, as a terminal runs it."""
    return subprocess.Popen(
        [sys.executable, "-m", "memdir", *args, "--project", str(project)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def writing(wal: Path, process: subprocess.Popen[str]) -> None:
    """Wait until the build writes documents (its workers are reading), or it ended."""
    deadline = time.monotonic() + 60
    while process.poll() is None:
        if wal.exists() and wal.stat().st_size > 256 << 10:
            return
        assert time.monotonic() < deadline, "the build never got going"
        time.sleep(0.005)


@pytest.mark.slow
@pytest.mark.parametrize("command", [("reindex",), ("search", "deploy pipeline")])
def test_ctrl_c_during_a_build_ends_in_one_line_and_leaves_no_lock(
    project: Path, command: tuple[str, ...]
) -> None:
    mem = store(project)
    running = memdir(project, *command)
    writing(mem.layout.state_dir / f"{CATALOG_NAME}-wal", running)
    os.killpg(running.pid, signal.SIGINT)  # what Ctrl-C does: the whole group
    out, err = running.communicate(timeout=30)
    if running.returncode == 0:
        pytest.skip("the build finished before the interrupt reached it")
    assert running.returncode == 130, err
    assert "Traceback" not in err
    assert err.strip().splitlines() == ["memdir: interrupted"]
    again = memdir(project, "reindex")
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    assert f"{FILES} added" in out


def opened_by_a_reader(fifo: Path, text: str = "") -> bool:
    """Hand ``text`` to a process that holds ``fifo`` open to read; False when none does."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            return False
        raise
    with os.fdopen(fd, "w", encoding="utf-8") as pipe:
        pipe.write(text)
    return True


def until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, "the workers never got there"
        time.sleep(0.005)


def pids() -> list[int]:
    """This process's children: a build's workers."""
    return sorted(p.pid for p in multiprocessing.active_children() if p.pid is not None)


NOTE = "---\nname: n\ndescription: d\ntype: project\n---\nbody\n"


def workers_scenario(project: Path) -> None:
    """Two workers each wait on a FIFO; both get Ctrl-C; both still read their file.

    Run in a process of its own: a build forks workers only where no other thread runs,
    and tests before it in a suite's process may have left one running.
    """
    documents._PARALLEL_FROM = 2
    mem = Memdir.open(project)
    folder = mem.layout.memory_dir
    folder.mkdir(parents=True, exist_ok=True)
    fifos = [folder / f"note_{n}.md" for n in range(2)]
    for fifo in fifos:
        os.mkfifo(fifo)
    jobs: list[documents.Job] = [(mem.layout, str(f), "memory", 0.0, None) for f in fifos]
    with documents.read_all(jobs) as results:
        until(lambda: opened_by_a_reader(fifos[0], NOTE))  # a worker is at work
        workers = pids()
        assert workers, "the build read its files without workers"
        for pid in workers:
            os.kill(pid, signal.SIGINT)  # what Ctrl-C sends every process of the group
        until(lambda: opened_by_a_reader(fifos[1], NOTE))
        read = list(results)
        assert pids() == workers  # none died and was replaced
    assert all(r is not None and r[1] for r in read)
    print(f"read {len(read)} files, {len(workers)} workers kept")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="builds fork only on Linux")
def test_the_workers_of_a_build_leave_ctrl_c_to_the_build(project: Path) -> None:
    here = str(Path(__file__).parent)
    code = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[2]); "
        "from test_interrupts import workers_scenario; workers_scenario(Path(sys.argv[1]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(project), here],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith("read 2 files, ")
    assert "KeyboardInterrupt" not in done.stderr
