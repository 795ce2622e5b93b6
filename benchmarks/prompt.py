"""Time to build the memory prompt, the manifest and a recall, for 1,000 and 10,000 memories.

The memories are generated directly as files (frontmatter + a body of 3 to 8
lines, one in fifty with 120 lines; spread over the private scope, two
sub-folders and the team scope) and a real ``MEMORY.md`` with one line
per memory is written once: writing 10,000 memories through the store would
rewrite the index 10,000 times and measure the store, not the reader. Each
file gets its own mtime. Printed: the median of ``--runs`` runs, in ms, of

* ``load_prompt`` (combined mode, the real indexes, truncated to their limits);
* ``build_manifest`` (newest 200, heads only), and ranked for a query, without
  and with the search catalog;
* ``recall`` for a query, without and with the catalog (fresh session each run);
* the catalog's first build and a no-change refresh, for scale.

    .venv/bin/python benchmarks/prompt.py [--runs N] [--sizes 1000,10000]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from memdir.api import Memdir
from memdir.model import Memory, MemoryType
from memdir.recall.manifest import build_manifest
from memdir.recall.prompt import load_prompt
from memdir.recall.relevant import recall
from memdir.search.catalog import Catalog
from memdir.storage.codec import render_memory
from memdir.storage.memory_index import format_entry

QUERY = "why does the checkout service retry payment webhooks"
_TOPICS = (
    "checkout service", "payment webhooks", "redis cache", "deploy freeze", "feature flags",
    "database migrations", "latency dashboard", "oncall rotation", "integration tests",
    "search ranking", "billing exports", "mobile release", "auth tokens", "rate limits",
)  # fmt: skip
_VERBS = ("retries", "breaks when", "must not touch", "is owned by", "depends on", "replaced")


def _memory(rng: random.Random, n: int) -> Memory:
    topic, other = rng.sample(_TOPICS, 2)
    verb = rng.choice(_VERBS)
    lines = 120 if n % 50 == 0 else 3 + n % 6
    body = "".join(
        f"{topic.capitalize()} {verb} {other} (note {n}, line {i}); see `src/{topic[:4]}.py`.\n"
        for i in range(lines)
    )
    return Memory(
        name=f"{topic} note {n}",
        description=f"{topic} {verb} {other}: observation {n}",
        type=rng.choice(list(MemoryType)),
        body=body + "**Why:** it bit us once.\n**How to apply:** check before changing it.\n",
        updated=dt.date(2026, 1, 1) + dt.timedelta(days=n % 300),
    )


def populate(mem: Memdir, count: int, seed: int = 3) -> None:
    """Write ``count`` memory files and both indexes directly."""
    rng = random.Random(seed)
    private, team = mem.layout.memory_dir, mem.layout.team_dir
    index: dict[Path, list[str]] = {private: [], team: []}
    base = time.time() - count * 60
    for n in range(count):
        memory = _memory(rng, n)
        root = team if n % 4 == 0 else private
        folder = ("", "infra/", "product/")[n % 3]
        file = f"{folder}note_{n:05d}.md"
        path = root / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_memory(memory), encoding="utf-8")
        os.utime(path, (base + n * 60, base + n * 60))
        index[root].append(format_entry(memory.name, file, memory.description[:90]))
    for root, lines in index.items():
        (root / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def bench(count: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        mem = Memdir.open(project, home=Path(tmp) / "home", team=True)
        populate(mem, count)
        print(f"\n{count:,} memories (files written directly; real MEMORY.md indexes)")

        def prompt() -> str:
            return load_prompt(
                mode="combined", memory_dir=mem.layout.memory_dir, team_dir=mem.layout.team_dir
            )

        sessions = iter(range(10**6))

        def recall_once(catalog: Catalog | None) -> None:
            result = recall(mem, QUERY, session=f"bench-{next(sessions)}", catalog=catalog)
            assert result.items, result.reason

        rows: list[tuple[str, float]] = [
            ("load_prompt (combined, real indexes)", median_ms(prompt, runs)),
            ("build_manifest (newest 200)", median_ms(lambda: build_manifest(mem), runs)),
            (
                "build_manifest ranked, no catalog",
                median_ms(lambda: build_manifest(mem, query=QUERY, catalog=None), runs),
            ),
            ("recall, no catalog", median_ms(lambda: recall_once(None), runs)),
        ]
        start = time.perf_counter()
        with Catalog.open(mem.layout) as catalog:
            catalog.refresh()
            first_build = (time.perf_counter() - start) * 1000
            rows += [
                ("catalog first build (for scale)", first_build),
                ("catalog refresh, nothing changed", median_ms(catalog.refresh, runs)),
                (
                    "build_manifest ranked, catalog",
                    median_ms(lambda: build_manifest(mem, query=QUERY, catalog=catalog), runs),
                ),
                (
                    "recall, catalog (refreshes first)",
                    median_ms(lambda: recall_once(catalog), runs),
                ),
            ]
        for name, ms in rows:
            print(f"  {name:40} {ms:9.1f} ms")
        print(f"  (medians of {runs} runs; query: {QUERY!r})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="1000,10000")
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        bench(size, args.runs)


if __name__ == "__main__":
    main()
