"""Many processes writing one scope; a writer killed mid-write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memdir.api import Memdir
from memdir.storage.codec import parse_memory
from memdir.storage.memory_index import parse_entries

WRITER = textwrap.dedent(
    """
    import sys
    from memdir.api import Memdir
    project, worker, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    mem = Memdir.open(project)
    for i in range(count):
        mem.write(
            name=f"w{worker} m{i}",
            description=f"memory {i} of writer {worker}",
            type="project",
            body=f"writer {worker} wrote memory {i}\\n" * 20,
        )
    """
)


def spawn(project: Path, worker: int, count: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(project), str(worker), str(count)],
        env=os.environ.copy(),
    )


@pytest.mark.slow
def test_eight_processes_writing_200_memories_each_lose_nothing(mem: Memdir) -> None:
    workers, count = 8, 200
    procs = [spawn(mem.layout.project_root, w, count) for w in range(workers)]
    assert [p.wait(timeout=600) for p in procs] == [0] * workers
    expected = {f"w{w}_m{i}.md" for w in range(workers) for i in range(count)}
    assert set(mem.private.files()) == expected
    entries = [e.file for e in parse_entries(mem.private.read_index())]
    assert sorted(entries) == sorted(expected)  # each listed exactly once
    leftovers = [p.name for p in mem.layout.memory_dir.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []
    for record in mem.private.list():
        worker, number = record.file.removesuffix(".md").split("_")
        assert record.memory.body == f"writer {worker[1:]} wrote memory {number[1:]}\n" * 20


REWRITER = textwrap.dedent(
    """
    import sys
    from memdir.api import Memdir
    mem = Memdir.open(sys.argv[1])
    i = 0
    while True:
        i += 1
        for n in range(5):
            mem.write(name=f"target {n}", description=f"version {i}", type="project",
                      body=(f"generation {i} line\\n" * 2000))
        print(i, flush=True)
    """
)


def test_a_writer_killed_mid_write_leaves_every_file_old_or_new(mem: Memdir) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", REWRITER, str(mem.layout.project_root)],
        stdout=subprocess.PIPE,
        env=os.environ.copy(),
    )
    assert proc.stdout is not None
    for _ in range(3):  # let it complete a few generations, then kill it mid-flight
        assert proc.stdout.readline()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    for n in range(5):
        text = (mem.layout.memory_dir / f"target_{n}.md").read_text()
        memory = parse_memory(text)
        generation = memory.description.removeprefix("version ")
        assert memory.body == f"generation {generation} line\n" * 2000
    files = {e.file for e in parse_entries(mem.private.read_index())}
    assert files == {f"target_{n}.md" for n in range(5)}
    # The killed writer may leave a temp file behind; it is never a memory.
    assert mem.private.files() == sorted(f"target_{n}.md" for n in range(5))
