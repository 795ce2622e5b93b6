"""Team memory: secret-scanner throughput and git sync time for 1,000 memories.

Prints the scanner's throughput (MB/s) on memory-like markdown, in memory
(``scan_text``) and from files (``scan_file``, as sync re-scans the team
folder), the check of everything a first push of them would send
(``outgoing_problems``: every blob, name and message), then the time of
each step of a sync between two clones of a local bare remote holding
1,000 memory files, with 10 changed per round.

    .venv/bin/python benchmarks/team.py [--memories N] [--changed N] [--rounds N]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from memdir.api import Memdir
from memdir.model import Memory, MemoryType
from memdir.storage.codec import render_memory
from memdir.storage.memory_index import format_entry
from memdir.team.git import Git
from memdir.team.outgoing import outgoing_problems
from memdir.team.secrets import scan_file, scan_text
from memdir.team.sync import init_team, sync_team

T = TypeVar("T")
WORDS = (
    "deploy cache index staging latency budget owner runbook alert queue schema "
    "migration rollout review incident vendor dashboard token rotation policy"
).split()


def memory_body(rng: random.Random, n: int) -> str:
    """About 1 KB of prose, a link, a commit id and a code line, like agents write."""
    sentences = [
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16))).capitalize() + "."
        for _ in range(8)
    ]
    sha = "".join(rng.choice("0123456789abcdef") for _ in range(40))
    return (
        " ".join(sentences)
        + f"\n**Why:** incident {n} (commit {sha}).\n"
        + f"**How to apply:** see https://wiki.example.com/runbooks/{n}#step-{n % 7}.\n"
        + f"`curl -s https://api.example.com/v1/items/{n} -H 'Authorization: $API_TOKEN'`\n"
    )


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def scanner_throughput(root: Path, runs: int = 5) -> None:
    files = sorted(p for p in root.glob("*.md"))
    texts = [p.read_text(encoding="utf-8") for p in files]
    blob = "\n".join(texts)
    size = len(blob.encode("utf-8"))
    scan_text(blob)  # warm the compiled patterns
    in_memory = statistics.median(timed(lambda: scan_text(blob))[0] for _ in range(runs))
    per_file = statistics.median(
        timed(lambda: [scan_file(p) for p in files])[0] for _ in range(runs)
    )
    print(f"scanner: {size / 1e6:.2f} MB in {len(files)} memory files")
    print(f"  scan_text, one text   {in_memory * 1000:8.1f} ms  {size / 1e6 / in_memory:7.1f} MB/s")
    print(f"  scan_file, per file   {per_file * 1000:8.1f} ms  {size / 1e6 / per_file:7.1f} MB/s")


def open_clone(base: Path, user: str) -> Memdir:
    project = base / user / "project"
    project.mkdir(parents=True)
    return Memdir.open(project, home=base / user / "home")


def fill(mem: Memdir, count: int, rng: random.Random) -> None:
    """Write ``count`` memory files and their index directly (the store fsyncs each)."""
    lines = []
    for n in range(count):
        memory = Memory(
            name=f"Team fact {n:04d}",
            description=f"what the team learned about {rng.choice(WORDS)} {n}",
            type=rng.choice([MemoryType.PROJECT, MemoryType.REFERENCE, MemoryType.FEEDBACK]),
            body=memory_body(rng, n),
        )
        file = f"team_fact_{n:04d}.md"
        (mem.layout.team_dir / file).write_text(render_memory(memory), encoding="utf-8")
        lines.append(format_entry(memory.name, file, memory.description))
    mem.team.write_index("\n".join(lines) + "\n")


def change(mem: Memdir, picks: list[int], rng: random.Random, round_: int) -> None:
    for n in picks:
        mem.write(
            name=f"Team fact {n:04d}",
            description=f"revised in round {round_}: {rng.choice(WORDS)} {n}",
            type="project",
            body=memory_body(rng, n) + f"Revised in round {round_}.\n",
            scope="team",
        )


def sync_rounds(base: Path, memories: int, changed: int, rounds: int) -> None:
    rng = random.Random(3)
    remote = base / "team.git"
    subprocess.run(
        ["git", "init", "--quiet", "--bare", "--initial-branch=main", str(remote)], check=True
    )
    alice, bob = open_clone(base, "alice"), open_clone(base, "bob")
    seconds, _ = timed(lambda: fill(alice, memories, rng))
    print(f"\nsync: {memories} memory files ({seconds:.1f} s to write them)")
    git = Git(alice.layout.team_dir)
    git.run("init", "--quiet", "--template=", "--initial-branch=main")
    git.run("add", "--all")
    git.run("-c", "user.name=b", "-c", "user.email=b@b", "commit", "--quiet", "-m", "all")
    size = sum(p.stat().st_size for p in alice.layout.team_dir.glob("*.md"))
    seconds, problems = timed(lambda: outgoing_problems(git, "origin"))
    assert problems == [], problems
    print(
        f"  {f'push scan, {memories} new files ({size / 1e6:.1f} MB)':48} {seconds * 1000:8.0f} ms"
        f"  {size / 1e6 / seconds:6.1f} MB/s"
    )
    shutil.rmtree(alice.layout.team_dir / ".git")
    seconds, _ = timed(lambda: init_team(alice, str(remote)))
    print(f"  {f'init, publish {memories} files to an empty remote':48} {seconds * 1000:8.0f} ms")
    seconds, _ = timed(lambda: init_team(bob, str(remote)))
    print(f"  {f'init, clone {memories} files from the remote':48} {seconds * 1000:8.0f} ms")
    scanner_throughput(alice.layout.team_dir)

    push, pull, noop = [], [], []
    for round_ in range(rounds):
        change(alice, rng.sample(range(memories), changed), rng, round_)
        push.append(timed(lambda: sync_team(alice))[0])
        seconds, report = timed(lambda: sync_team(bob))
        assert len(report.pulled) == changed, report.pulled
        pull.append(seconds)
        noop.append(timed(lambda: sync_team(alice))[0])
    print(f"\nsync of {memories} files, {changed} changed (median of {rounds} rounds):")
    for label, samples in (
        (f"commit and push {changed} changed files", push),
        (f"fetch and merge {changed} changed files", pull),
        ("nothing to do", noop),
    ):
        print(f"  {label:48} {statistics.median(samples) * 1000:8.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--changed", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memdir-bench-team-") as tmp:
        sync_rounds(Path(tmp), args.memories, args.changed, args.rounds)


if __name__ == "__main__":
    main()
