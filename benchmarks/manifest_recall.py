"""The manifest and recall at 1k / 10k memories: from the catalog's metadata, or from the files.

For each size N the script writes N synthetic memories (random words) into
a fresh project, builds its catalog, and times, p50 over ``--repeat`` runs:

- ``manifest``: the newest 200 entries (what prompts and extraction list);
- ``manifest ranked``: the 200 entries ranked for a query;
- ``recall``: one recall (ranking, selection, reading the chosen bodies, drift checks);

each in three ways: ``catalog``, what a user gets (the catalog refreshes
itself first: today a stat of every file); ``metadata only``, the same with
the catalog's refresh skipped (what the listing itself costs, and what
remains once the store tells the catalog about its writes); ``files``, with
no catalog (a folder walk; ranking through an in-memory index of every file).

    .venv/bin/python benchmarks/manifest_recall.py [--sizes 1000,10000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from memdir.api import Memdir
from memdir.recall.drift import DriftChecker
from memdir.recall.manifest import CatalogChoice, build_manifest
from memdir.recall.relevant import recall
from memdir.search.catalog import Catalog

WORDS = (
    "deploy staging database migration review release branch token cache index query "
    "latency budget incident rollback feature flag owner team policy schema backup restore "
    "queue worker retry timeout alert dashboard metric billing invoice customer upload "
    "gateway certificate rotate proxy cluster node audit archive secret network"
).split()
TYPES = ("user", "feedback", "project", "reference")
QUERIES = ("rollback the staging deploy", "rotate the gateway certificate", "billing invoice")


def generate(memory_dir: Path, n: int, seed: int = 7) -> None:
    """``n`` memory files (a fifth of them team memories) of random words."""
    rng = random.Random(seed)
    for i in range(n):
        words = rng.sample(WORDS, 6)
        body = " ".join(rng.choice(WORDS) for _ in range(60))
        folder = memory_dir / ("team" if i % 5 == 0 else "") / f"d{i % 50:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"m{i:06d}.md").write_text(
            f"---\nname: {words[0]} {words[1]} {i}\ndescription: {' '.join(words[2:])}\n"
            f"type: {TYPES[i % 4]}\nupdated: 2026-01-{1 + i % 28:02d}\n---\n{body}\n",
            encoding="utf-8",
        )


def p50_ms(action: Callable[[], object], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def measure(mem: Memdir, choice: CatalogChoice, repeat: int) -> dict[str, float]:
    today = dt.date(2026, 3, 1)
    query = iter(QUERIES * repeat)
    checker = DriftChecker(mem.layout.project_root)  # one per Memdir, as the facade keeps it
    return {
        "manifest": p50_ms(lambda: build_manifest(mem, catalog=choice), repeat),
        "manifest ranked": p50_ms(
            lambda: build_manifest(mem, query=next(query), catalog=choice), repeat
        ),
        "recall": p50_ms(
            lambda: recall(
                mem, next(query), catalog=choice, today=today, enabled=True, checker=checker
            ),
            repeat,
        ),
    }


def run(size: int, repeat: int, files: bool) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory(prefix="memdir-manifest-") as tmp:
        mem = Memdir.open(Path(tmp) / "project", home=Path(tmp) / "home")
        generate(mem.layout.memory_dir, size)
        with Catalog.open(mem.layout) as catalog:
            catalog.rebuild()
        out = {"catalog": measure(mem, "auto", repeat)}
        with Catalog.open(mem.layout, auto_refresh=False) as catalog:
            out["metadata only"] = measure(mem, catalog, repeat)
        if files:
            out["files"] = measure(mem, None, max(repeat // 3, 1))
        return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--no-files", action="store_true", help="skip the no-catalog column")
    args = parser.parse_args()
    print(f"{'N':>7} {'path':<16} {'catalog':>9} {'metadata only':>14} {'files':>9}   (ms, p50)")
    for size in (int(s) for s in args.sizes.split(",")):
        # Without a catalog every ranked call indexes every file: shown up to 1k only.
        result = run(size, args.repeat, files=not args.no_files and size <= 1000)
        for path in ("manifest", "manifest ranked", "recall"):
            cells = [result.get(way, {}).get(path) for way in ("catalog", "metadata only", "files")]
            shown = [f"{c:.1f}" if c is not None else "-" for c in cells]
            print(f"{size:>7} {path:<16} {shown[0]:>9} {shown[1]:>14} {shown[2]:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
