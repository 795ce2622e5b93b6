"""The manifest and recall at 1k / 10k memories: from the catalog's metadata, or from the files.

For each size N the script writes N synthetic memories (random words) into
a fresh project, builds its catalog, and times, p50 over ``--repeat`` runs:

- ``manifest``: the newest 200 entries (what prompts and extraction list);
- ``manifest ranked``: the 200 entries ranked for a query;
- ``recall``: one recall (ranking, selection, reading the chosen bodies, drift checks);

each in three ways: ``catalog``, what a user gets (a fresh connection and the
catalog's own freshness check first: its journal, folder mtimes and a sample
of files); ``metadata only``, one open catalog with that check skipped (what
the listing and ranking themselves cost); ``files``, with no catalog (a
folder walk; ranking through an in-memory index of every file). Entries come
from the catalog's metadata; recall opens only the memories it chooses.
The last lines judge the goals at 10k (manifest <= 20 ms, recall <= 50 ms)
on the ``catalog`` column.

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
GOALS = {"manifest": 20.0, "recall": 50.0}  # ms at 10k memories (issue 16)
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
    verdicts: list[str] = []
    for size in (int(s) for s in args.sizes.split(",")):
        # Without a catalog every ranked call indexes every file: shown up to 1k only.
        result = run(size, args.repeat, files=not args.no_files and size <= 1000)
        for path in ("manifest", "manifest ranked", "recall"):
            cells = [result.get(way, {}).get(path) for way in ("catalog", "metadata only", "files")]
            shown = [f"{c:.1f}" if c is not None else "-" for c in cells]
            print(f"{size:>7} {path:<16} {shown[0]:>9} {shown[1]:>14} {shown[2]:>9}")
        verdicts.extend(_verdicts(size, result["catalog"]))
    for line in verdicts:
        print(line)
    return 0


def _verdicts(size: int, catalog: dict[str, float]) -> list[str]:
    """The goals at 10k, judged on what a user gets (the catalog's freshness check included)."""
    if size != 10_000:
        return []
    return [
        f"goal at 10k: {path} p50 <= {goal:g} ms: "
        f"{'met' if catalog[path] <= goal else 'missed'} ({catalog[path]:.1f} ms)"
        for path, goal in GOALS.items()
    ]


if __name__ == "__main__":
    sys.exit(main())
