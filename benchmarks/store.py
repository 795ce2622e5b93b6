"""Store throughput: writes per second with 1 and 8 processes; listing 10,000 memories.

Run: .venv/bin/python benchmarks/store.py [--writes 300] [--list-size 10000]
Every write is a real one: lock, atomic file write with fsync, index update.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from memdir import Memdir

WRITER = textwrap.dedent(
    """
    import sys
    from memdir import Memdir
    mem = Memdir.open(sys.argv[1])
    worker, count = int(sys.argv[2]), int(sys.argv[3])
    for i in range(count):
        mem.write(name=f"w{worker} m{i}", description=f"memory {i} of writer {worker}",
                  type="project", body="Some body text for the memory.\\n" * 10)
    """
)


def writes_per_second(processes: int, writes: int) -> float:
    with tempfile.TemporaryDirectory() as base:
        project = Path(base) / "project"
        project.mkdir()
        env = {**os.environ, "MEMDIR_HOME": str(Path(base) / "home")}
        Memdir.open(project, env=env)
        per = writes // processes
        start = time.perf_counter()
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", WRITER, str(project), str(w), str(per)], env=env
            )
            for w in range(processes)
        ]
        if any(p.wait() != 0 for p in procs):
            raise SystemExit("a writer failed")
        return per * processes / (time.perf_counter() - start)


def list_time(size: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as base:
        project = Path(base) / "project"
        project.mkdir()
        mem = Memdir.open(project, env={**os.environ, "MEMDIR_HOME": str(Path(base) / "home")})
        for i in range(size):  # files written directly: the store's write cost is measured above
            (mem.layout.memory_dir / f"m{i}.md").write_text(
                f"---\nname: m{i}\ndescription: memory number {i}\ntype: project\n---\n"
                + "Body line.\n" * 10
            )
        files, full = [], []
        for _ in range(3):
            start = time.perf_counter()
            assert len(mem.private.files()) == size
            files.append(time.perf_counter() - start)
            start = time.perf_counter()
            assert len(mem.list()) == size
            full.append(time.perf_counter() - start)
        return statistics.median(files), statistics.median(full)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--writes", type=int, default=400)
    parser.add_argument("--list-size", type=int, default=10_000)
    args = parser.parse_args()
    for processes in (1, 8):
        rate = writes_per_second(processes, args.writes)
        print(f"writes/s with {processes} process(es): {rate:8.1f}  ({args.writes} writes)")
    names, parsed = list_time(args.list_size)
    print(
        f"list {args.list_size} memories: file names {names * 1000:.0f} ms, "
        f"parsed records {parsed * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
