"""How memdir's costs scale with the number of memory files, against ripgrep and a naive scan.

For each size N (``--sizes 1000,10000``; add 100000 with ``--big``) the
script writes N synthetic memory files (and their ``MEMORY.md`` lines) into a
fresh project under a temporary home, then measures, interleaved in one run:

- one ``Memdir.write`` of a new memory (p50), and 8 processes writing at once
  against one process writing the same memories (throughput, timed after
  each process's first write, which loads modules such as the secret rules;
  every memory must be on disk and in its index: "lost" counts those missing);
- ``Memdir.search`` p50 (what users call: catches up with the files first)
  against the catalog alone (an open catalog, no freshness checks), ripgrep
  (``rg -l -i``, skipped without ``rg``) and a naive scan of every file's head;
- the full index build (``rebuild``);
- wall time p50 of ``memdir search``, ``memdir prompt`` and
  ``memdir hook session-start`` as subprocesses, *with bytecode*
  (``PYTHONDONTWRITEBYTECODE`` unset, ``PYTHONPYCACHEPREFIX`` in a temporary
  folder, one warm-up run first), as users' installs run them.

It prints one table (a column per size) and the ratios of the goals.

    .venv/bin/python benchmarks/scale.py [--sizes 1000,10000] [--big] [--queries 30]
        [--only writes]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from memdir.api import Memdir
from memdir.search.catalog import Catalog
from memdir.storage.memory_index import format_entry, parse_entries

WORDS = (
    "deploy staging database migration review release branch token cache index query "
    "latency budget incident rollback feature flag owner team policy schema backup restore "
    "queue worker retry timeout alert dashboard metric billing invoice customer upload "
    "download archive audit secret rotate certificate network proxy gateway cluster node"
).split()
TYPES = ("user", "feedback", "project", "reference")


def generate(memory_dir: Path, n: int, seed: int = 7) -> None:
    """Write ``n`` memory files with random names, descriptions and bodies, and their index."""
    rng = random.Random(seed)
    lines: dict[Path, list[str]] = {memory_dir: [], memory_dir / "team": []}
    for i in range(n):
        words = rng.sample(WORDS, 6)
        body = " ".join(rng.choice(WORDS) for _ in range(60))
        root = memory_dir / "team" if i % 5 == 0 else memory_dir
        folder = root / f"d{i % 50:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        name, description = f"{words[0]} {words[1]} {i}", f"{' '.join(words[2:])} note {i}"
        (folder / f"m{i:06d}.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n"
            f"type: {TYPES[i % 4] if root == memory_dir else 'project'}\n"
            f"updated: 2026-01-{1 + i % 28:02d}\n---\n{body}\n",
            encoding="utf-8",
        )
        lines[root].append(format_entry(name, f"{folder.name}/m{i:06d}.md", description))
    for root, entries in lines.items():
        (root / "MEMORY.md").write_text("\n".join(entries) + "\n", encoding="utf-8")
    old = 1_000_000_000  # folders look untouched for long, as in a store in use
    for folder in [memory_dir, *memory_dir.rglob("*")]:
        if folder.is_dir():
            os.utime(folder, ns=(old, old))


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


def naive_scan(memory_dir: Path, query: str) -> list[Path]:
    """The original design: read the first 30 lines of every file, keep those naming a word."""
    wanted = [w.lower() for w in query.split()]
    found = []
    for path in memory_dir.rglob("*.md"):
        with path.open(encoding="utf-8", errors="replace") as handle:
            head = "".join(line for _, line in zip(range(30), handle, strict=False)).lower()
        if any(w in head for w in wanted):
            found.append(path)
    return found


def ripgrep(memory_dir: Path, query: str) -> None:
    pattern = "|".join(query.split())
    subprocess.run(
        ["rg", "-l", "-i", "-e", pattern, str(memory_dir)], capture_output=True, check=False
    )


def _writer(project: str, home: str, worker: int, count: int, ready: Any, go: Any) -> None:
    mem = Memdir.open(project, home=home)
    for scope in ("private", "team"):  # a process's first write loads modules (secret rules)
        mem.write(name=f"warm-up {worker} {scope}", description="d", type="project", scope=scope)
    ready.release()
    go.wait()  # every process has started and written once: only the steady writes are timed
    for i in range(count):
        mem.write(
            name=f"parallel {worker} {i}",
            description=f"written by worker {worker}",
            type="project",
            body="x",
            scope="team" if worker % 2 else "private",
        )


def throughput(project: Path, home: Path, workers: int, each: int, first: int = 0) -> float:
    """Writes per second of ``workers`` processes writing ``each`` memories at once."""
    ctx = multiprocessing.get_context("spawn")
    ready, go = ctx.Semaphore(0), ctx.Event()
    procs = [
        ctx.Process(target=_writer, args=(str(project), str(home), first + w, each, ready, go))
        for w in range(workers)
    ]
    for proc in procs:
        proc.start()
    for _ in procs:
        ready.acquire()
    start = time.perf_counter()
    go.set()
    for proc in procs:
        proc.join()
    return workers * each / (time.perf_counter() - start)


def lost(mem: Memdir, workers: int, each: int) -> int:
    """Memories the parallel writers wrote that are missing from disk or from their index."""
    files = {(r.scope.value, r.memory.name) for r in mem.list()}
    indexed = {
        (store.scope.value, e.title)
        for store in (mem.private, mem.team)
        for e in parse_entries(store.read_index())
    }
    missing = 0
    for w in range(workers):
        scope = "team" if w % 2 else "private"
        for i in range(each):
            key = (scope, f"parallel {w} {i}")
            missing += key not in files or key not in indexed
    return missing


def cli_wall(
    project: Path, home: Path, args: list[str], stdin: str, runs: int
) -> tuple[float, float]:
    """Wall and CPU (user + system) time p50 of ``memdir ARGS`` with bytecode.

    One warm-up run first writes the bytecode. CPU time is what the command
    costs on an idle machine; wall time includes waiting for a shared one.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(home / "pycache")
    env["MEMDIR_HOME"] = str(home)
    exe = [sys.executable, "-c", "import sys; from memdir.cli import main; sys.exit(main())"]
    walls, cpus = [], []
    for _ in range(runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            [*exe, *args],
            input=stdin,
            text=True,
            cwd=project,
            env=env,
            capture_output=True,
            check=False,
        )
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls[1:]), statistics.median(cpus[1:])


def prepare(n: int, stack: contextlib.ExitStack) -> Memdir:
    """A fresh project holding ``n`` synthetic memories (removed when ``stack`` closes)."""
    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="memdir-scale-")))
    project = tmp / "project"
    project.mkdir()
    mem = Memdir.open(project, home=tmp / "home")
    generate(mem.layout.memory_dir, n)
    mem.write(name="first write", description="d", type="project")  # counts the files once
    return mem


def one_writes(stores: dict[int, Memdir], rounds: int = 15) -> dict[int, float]:
    """p50 of one new memory's write per size, the sizes taking turns (same machine load)."""
    samples: dict[int, list[float]] = {n: [] for n in stores}
    for i in range(rounds):
        for n, mem in stores.items():
            write = partial(mem.write, name=f"one write {i}", description="d", type="project")
            samples[n].append(timed(write))
    return {n: statistics.median(values) for n, values in samples.items()}


def parallel_writes(mem: Memdir) -> dict[str, float]:
    """Writes/s of one process and of 8 at once (same memories per process), and losses."""
    project, home = mem.layout.project_root, mem.layout.home
    each = 12
    # The one process writes as workers 100 and 101 (half private, half team like the eight).
    one = (
        throughput(project, home, 1, 4 * each, first=100)
        + throughput(project, home, 1, 4 * each, first=101)
    ) / 2
    eight = throughput(project, home, 8, each)
    return {"write_1proc": one, "write_8proc": eight, "lost": lost(mem, 8, each)}


def measure(mem: Memdir, n_queries: int, cli_runs: int) -> dict[str, float]:
    project, home = mem.layout.project_root, mem.layout.home
    rng = random.Random(len(mem.private.index_entries()))
    queries = [" ".join(rng.sample(WORDS, 2)) for _ in range(n_queries)]
    out: dict[str, float] = {}
    with Catalog.open(mem.layout, auto_refresh=False) as catalog:
        out["reindex"] = timed(catalog.rebuild)
        mem.search("warm up")  # the facade's catalog: open, first catch-up
        # The steady state: within 2 s of a write its folder is listed again on each search
        # (its mtime is too recent to trust), which this table does not time.
        time.sleep(2.1)
        alone, facade = [], []
        for q in queries:  # interleaved, so that both see the same machine
            alone.append(timed(partial(catalog.search, q, limit=10)))
            facade.append(timed(partial(mem.search, q, limit=10)))
        out["catalog_p50"], _ = percentiles(alone)
        out["search_p50"], _ = percentiles(facade)
    few = queries[: max(3, n_queries // 10)]
    out["naive_p50"], _ = percentiles(
        [timed(partial(naive_scan, mem.layout.memory_dir, q)) for q in few]
    )
    if shutil.which("rg"):
        out["rg_p50"], _ = percentiles(
            [timed(partial(ripgrep, mem.layout.memory_dir, q)) for q in few]
        )
    out.update(parallel_writes(mem))
    stdin = json.dumps(
        {
            "hook_event_name": "SessionStart",
            "cwd": str(project),
            "session_id": "bench",
            "source": "startup",
        }
    )
    for key, args in (
        ("cli_search", ["search", queries[0]]),
        ("cli_prompt", ["prompt"]),
        ("cli_hook", ["hook", "session-start"]),
    ):
        wall, cpu = cli_wall(project, home, args, stdin if key == "cli_hook" else "", cli_runs)
        out[key], out[f"{key}_cpu"] = wall, cpu
    return out


ROWS = (
    ("write_p50", "one Memdir.write (new memory) p50", "ms"),
    ("write_1proc", "writes/s, 1 process (warm)", "rate"),
    ("write_8proc", "writes/s, 8 processes at once (warm)", "rate"),
    ("lost", "memories lost by the 8 processes", "count"),
    ("search_p50", "Memdir.search p50", "ms"),
    ("catalog_p50", "catalog alone search p50", "ms"),
    ("rg_p50", "ripgrep -l -i p50", "ms"),
    ("naive_p50", "naive scan (30 lines of every file) p50", "ms"),
    ("reindex", "full index build", "s"),
    ("cli_search", "`memdir search` wall p50 (bytecode)", "ms"),
    ("cli_search_cpu", "`memdir search` CPU p50 (bytecode)", "ms"),
    ("cli_prompt", "`memdir prompt` wall p50 (bytecode)", "ms"),
    ("cli_prompt_cpu", "`memdir prompt` CPU p50 (bytecode)", "ms"),
    ("cli_hook", "`memdir hook session-start` wall p50 (bytecode)", "ms"),
    ("cli_hook_cpu", "`memdir hook session-start` CPU p50 (bytecode)", "ms"),
)


def report(results: dict[int, dict[str, float]]) -> None:
    sizes = sorted(results)

    def cell(value: float | None, unit: str) -> str:
        if value is None:
            return "n/a"
        if unit == "ms":
            return f"{1000 * value:.1f} ms"
        if unit == "s":
            return f"{value:.1f} s"
        if unit == "rate":
            return f"{value:.0f}/s"
        return f"{value:.0f}"

    print(f"\n{'':52s}" + "".join(f"{n:>14,}" for n in sizes))
    for key, label, unit in ROWS:
        print(f"{label:52s}" + "".join(f"{cell(results[n].get(key), unit):>14s}" for n in sizes))
    print("\nratios (goal):")
    small, large = results[sizes[0]], results[sizes[-1]]
    growth = large["write_p50"] / small["write_p50"]
    print(
        f"  one write at {sizes[-1]:,} / at {sizes[0]:,}: {growth:.2f}x (<= 2x: "
        f"{'met' if growth <= 2 else 'missed'})"
    )
    for n in sizes:
        r = results[n]
        speedup = r["write_8proc"] / r["write_1proc"]
        line = (
            f"  {n:>7,}: 8 processes / 1 process {speedup:.2f}x (>= 1.5x: "
            f"{'met' if speedup >= 1.5 else 'missed'}; lost {r['lost']:.0f})"
        )
        if "search_p50" in r:
            line += (
                f"; Memdir.search / catalog alone "
                f"{r['search_p50'] / r['catalog_p50']:.2f}x (<= 1.5x)"
            )
        if "rg_p50" in r:
            line += f"; rg / Memdir.search {r['rg_p50'] / r['search_p50']:.1f}x"
        print(line)
    if only_writes := all("search_p50" not in r for r in results.values()):
        print("  (--only writes: searches, index build and CLI not measured)")
    if not only_writes and not all("rg_p50" in r for r in results.values()):
        print("  (ripgrep column skipped: `rg` not found; apt-get install -y ripgrep)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--big", action="store_true", help="also measure 100,000 memories")
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--cli-runs", type=int, default=7)
    parser.add_argument(
        "--only",
        choices=("writes",),
        help="measure only the writes (one write per size, 1 against 8 processes)",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")] + ([100_000] if args.big else [])
    with contextlib.ExitStack() as stack:
        stores = {}
        for n in sizes:
            print(f"writing {n:,} memories ...", file=sys.stderr, flush=True)
            stores[n] = prepare(n, stack)
        writes = one_writes(stores)
        results = {}
        for n, mem in stores.items():
            print(f"measuring {n:,} memories ...", file=sys.stderr, flush=True)
            if args.only == "writes":
                results[n] = {**parallel_writes(mem), "write_p50": writes[n]}
            else:
                results[n] = {**measure(mem, args.queries, args.cli_runs), "write_p50": writes[n]}
    report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
