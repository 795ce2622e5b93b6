"""How the catalog scales with the number of memory files, against a naive scan and ripgrep.

For each size N (``--sizes 1000,10000,100000``) the script writes N synthetic
memory files into a fresh project under a temporary MEMDIR_HOME, then
measures, side by side:

- catalog: full reindex (``rebuild``), incremental refresh after one edited
  file, refresh with nothing changed, ranked search p50/p95 (index only, and
  including the stat walk that ``search`` does to stay current);
- the original design: a naive scan reading the first 30 lines of every
  file and matching the query words in them;
- ripgrep (``rg -l -i``) for the same words (skipped with a note without ``rg``);
- the manifest and the memory prompt, when ``memdir.recall.manifest``/``memdir.recall.prompt``
  exist.

    .venv/bin/python benchmarks/scale.py [--sizes 1000,10000] [--queries 40]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from memdir.api import Memdir
from memdir.search.catalog import Catalog

WORDS = (
    "deploy staging database migration review release branch token cache index query "
    "latency budget incident rollback feature flag owner team policy schema backup restore "
    "queue worker retry timeout alert dashboard metric billing invoice customer upload "
    "download archive audit secret rotate certificate network proxy gateway cluster node"
).split()
TYPES = ("user", "feedback", "project", "reference")


def generate(memory_dir: Path, n: int, seed: int = 7) -> None:
    """Write ``n`` memory files with random names, descriptions and bodies."""
    rng = random.Random(seed)
    for i in range(n):
        words = rng.sample(WORDS, 6)
        body = " ".join(rng.choice(WORDS) for _ in range(60))
        folder = memory_dir / ("team" if i % 5 == 0 else "") / f"d{i % 50:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"m{i:06d}.md").write_text(
            f"---\nname: {words[0]} {words[1]} {i}\ndescription: {' '.join(words[2:])} note {i}\n"
            f"type: {TYPES[i % 4]}\nupdated: 2026-01-{1 + i % 28:02d}\n---\n{body}\n",
            encoding="utf-8",
        )


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


def measure(n: int, n_queries: int) -> dict[str, float]:
    rng = random.Random(n)
    queries = [" ".join(rng.sample(WORDS, 2)) for _ in range(n_queries)]
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="memdir-scale-") as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        mem = Memdir.open(project, home=Path(tmp) / "home")
        generate(mem.layout.memory_dir, n)
        with Catalog.open(mem.layout, auto_refresh=False) as catalog:
            out["reindex"] = timed(catalog.rebuild)
            victim = next(mem.layout.memory_dir.rglob("m000003.md"))
            victim.write_text(victim.read_text() + "\nedited once more\n")
            out["refresh_one"] = timed(catalog.refresh)
            out["refresh_none"] = timed(catalog.refresh)
            samples = [timed(partial(catalog.search, q, limit=10)) for q in queries]
            out["search_p50"], out["search_p95"] = percentiles(samples)
            catalog.auto_refresh = True
            samples = [timed(partial(catalog.search, q, limit=10)) for q in queries[:10]]
            out["search_fresh_p50"], _ = percentiles(samples)
        few = queries[: max(3, n_queries // 10)]
        out["naive_p50"], _ = percentiles(
            [timed(partial(naive_scan, mem.layout.memory_dir, q)) for q in few]
        )
        if shutil.which("rg"):
            out["rg_p50"], _ = percentiles(
                [timed(partial(ripgrep, mem.layout.memory_dir, q)) for q in few]
            )
        out.update(_prompt_and_manifest(mem, queries[0]))
    return out


def _prompt_and_manifest(mem: Memdir, query: str) -> dict[str, float]:
    out: dict[str, float] = {}
    try:
        from memdir.recall.manifest import build_manifest

        out["manifest"] = timed(lambda: build_manifest(mem))
        out["manifest_query"] = timed(lambda: build_manifest(mem, query=query))
    except ImportError:
        pass
    try:
        from memdir.recall.prompt import load_prompt

        out["prompt"] = timed(
            lambda: load_prompt(
                mode="combined", memory_dir=mem.layout.memory_dir, team_dir=mem.layout.team_dir
            )
        )
    except ImportError:
        pass
    return out


def report(n: int, r: dict[str, float]) -> None:
    def ms(key: str) -> str:
        return f"{1000 * r[key]:9.1f} ms" if key in r else "      n/a   "

    print(f"\n== {n:,} memory files ==")
    for key, label in (
        ("reindex", "catalog full reindex"),
        ("refresh_one", "catalog refresh, one file edited"),
        ("refresh_none", "catalog refresh, nothing changed"),
        ("search_p50", "catalog search p50 (index only)"),
        ("search_p95", "catalog search p95 (index only)"),
        ("search_fresh_p50", "catalog search p50 incl. freshness walk"),
        ("naive_p50", "naive scan (first 30 lines of every file) p50"),
        ("rg_p50", "ripgrep -l -i p50"),
        ("manifest", "manifest build (newest 200)"),
        ("manifest_query", "manifest build ranked by a query"),
        ("prompt", "memory prompt build"),
    ):
        print(f"  {label:48s} {ms(key)}")
    if "rg_p50" not in r:
        print("  (ripgrep column skipped: `rg` not found; apt-get install -y ripgrep)")
    base = r["search_p50"]
    print(f"  ratio naive scan / catalog search:   {r['naive_p50'] / base:8.1f}x")
    if "rg_p50" in r:
        print(f"  ratio ripgrep / catalog search:      {r['rg_p50'] / base:8.1f}x")
    print(f"  ratio naive scan / search incl. walk: {r['naive_p50'] / r['search_fresh_p50']:8.1f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--queries", type=int, default=40)
    args = parser.parse_args()
    for n in (int(s) for s in args.sizes.split(",")):
        report(n, measure(n, args.queries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
