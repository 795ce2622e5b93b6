"""Server-side time of memdir ui's overview and memory list, over 10,000 memories.

A project is filled with ``--memories`` synthetic memory files (the generator of
``benchmarks/scale.py``: a fifth of them team memories, in 50 folders, with
their ``MEMORY.md``), plus 200 written through the store so the history holds
versions by several routes; the search catalog is built (as any search or
``memdir reindex`` leaves it). Each page is then requested ``--runs`` times
through the app itself (httpx2's ASGI transport: the whole app, guard and
templates included, no socket), after one warm-up request, and p50 / p90 of
the wall time are printed against the goal (p50 < 200 ms for ``/`` and
``/memories``). The list pages never open a memory file: they read the catalog.
The overview measures what a session start costs only when an index changed
since the last time; the last line is the overview right after such a change.

    .venv/bin/python benchmarks/ui.py [--memories 10000] [--runs 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
import httpx2

from memdir.api import Memdir
from memdir.history.provenance import provenance
from memdir.ui.app import create_app
from scale import generate

GOAL_MS = 200.0
PAGES = (
    ("/", True),
    ("/memories", True),
    ("/memories?page=100", False),
    ("/memories?type=project&age=old", False),
    ("/memories?q=deploy+rollback", False),
    ("/memories?route=mcp", False),
    ("/review", False),
    ("/changes", False),
)
AFTER_WRITE = "/ (right after an index change)"
TOKEN = "bench"
PORT = 8766


def prepare(root: Path, n: int) -> Memdir:
    project = root / "project"
    project.mkdir()
    mem = Memdir.open(project, home=root / "home", team=True)
    generate(mem.layout.memory_dir, n)
    for i in range(200):
        route = ("mcp", "extraction", "cli", "api")[i % 4]
        with provenance(route=route, session=f"session-{i % 7}"):
            mem.write(name=f"written {i}", description=f"through the store {i}", type="project")
    mem.reindex()
    return mem


async def measure(mem: Memdir, runs: int) -> dict[str, list[float]]:
    app = create_app(mem, token=TOKEN, port=PORT)
    timings: dict[str, list[float]] = {}
    transport = httpx2.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx2.AsyncClient(
        transport=transport, base_url=f"http://127.0.0.1:{PORT}", headers=headers
    ) as client:
        for path, _ in PAGES:
            warm = await client.get(path)  # opens the catalog, fills the caches
            if warm.status_code != 200:
                raise SystemExit(f"{path}: {warm.status_code} {warm.text[:200]}")
            samples = []
            for _ in range(runs):
                start = time.perf_counter()
                response = await client.get(path)
                samples.append((time.perf_counter() - start) * 1000)
                assert response.status_code == 200
            timings[path] = samples
        # The overview after a write: the index changed, so its prompt cost is measured again.
        index = mem.private.index_path
        samples = []
        for _ in range(max(runs // 3, 3)):
            os.utime(index, ns=(time.time_ns(), time.time_ns()))
            start = time.perf_counter()
            response = await client.get("/")
            samples.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200
        timings[AFTER_WRITE] = samples
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memdir-ui-bench-") as tmp:
        print(f"preparing {args.memories:,} memories ...", file=sys.stderr)
        mem = prepare(Path(tmp), args.memories)
        os.sync()
        timings = anyio.run(measure, mem, args.runs)
        mem.close()
    print(f"memdir ui, {args.memories:,} memories, {args.runs} requests per page (ms)")
    print(f"{'page':<36} {'p50':>8} {'p90':>8}  goal")
    failed = False
    for path, goal in (*PAGES, (AFTER_WRITE, False)):
        samples = sorted(timings[path])
        p50 = statistics.median(samples)
        p90 = samples[min(int(len(samples) * 0.9), len(samples) - 1)]
        verdict = ""
        if goal:
            ok = p50 < GOAL_MS
            failed |= not ok
            verdict = f"p50 < {GOAL_MS:.0f}: {'ok' if ok else 'MISSED'}"
        print(f"{path:<36} {p50:8.1f} {p90:8.1f}  {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
