"""The HTTP MCP server under ten clients, by words and by meaning, in one run.

Run: .venv/bin/python benchmarks/mcp_load.py [--memories 1000] [--clients 10] [--seconds 30]
    [--rounds 3] [--embed-memories 2000] [--only load|embed] [--store DIR]

1. Load. A store of ``--memories`` generated memory files (with their index),
   its catalog built and every vector made first (``memdir index embed``), so
   both servers start warm. For each mode, lexical (``MEMDIR_EMBEDDINGS=off``)
   and by meaning (the bundled model), ``memdir serve --http`` runs in a
   process of its own, the two side by side, taking the load in turns
   (``--rounds`` turns each, ``--seconds`` in all per mode: a machine whose
   load comes and goes weighs on both alike); ``--clients`` MCP clients (tasks of this process, each
   with its own session) call, in turn, ``search`` (ranked, hybrid where
   embeddings are on), ``view`` (the index), ``search`` again and ``recall``
   (a fresh session each time), for ``--seconds``, every query a new one (the
   server keeps its last queries' vectors), after one search each to warm up. Printed per mode: the
   operations answered a second, the median and p95 latency of each tool,
   and the server process's peak resident memory (``VmHWM``); then the
   ratios the goals are about: throughput by meaning >= 50 % of lexical,
   median search <= 2x lexical, peak memory <= 3x lexical.
2. Search while another process embeds. A fresh store of ``--embed-memories``
   memories, catalog built, no vectors: ``memdir index embed`` starts in one
   process, and once it has stored its first vectors, ``memdir search`` runs
   in another. Printed: that search's wall time (the documented bound: 10 s),
   and how far the embedding process had got.

Both modes run in the same run, on the same store, in turns.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from memdir.model import Memory, MemoryType
from memdir.storage.codec import render_memory
from memdir.storage.memory_index import format_entry
from memdir.storage.paths import make_layout

TOKEN = "mcp-load-benchmark"
_TOPICS = (
    "checkout service", "payment webhooks", "redis cache", "deploy freeze", "feature flags",
    "database migrations", "latency dashboard", "oncall rotation", "integration tests",
    "search ranking", "billing exports", "mobile release", "auth tokens", "rate limits",
    "log retention", "build cache", "canary rollout", "schema registry", "backup drills",
)  # fmt: skip
_QUESTIONS = (
    "why does the checkout service retry payment webhooks",
    "when is the deploy freeze lifted",
    "how are database migrations rolled back",
    "who owns the latency dashboard alerts",
    "what limits apply to auth tokens",
    "where do billing exports land",
    "how does the canary rollout decide to stop",
    "what did we learn from the backup drills",
)
_SEARCHES = (
    "payment webhooks retry",
    "deploy freeze",
    "migrations rollback",
    "latency alerts",
    "token expiry limits",
    "canary rollout stop",
    "redis cache eviction",
    "schema registry",
)


def build_store(home: Path, project: Path, count: int, seed: int = 40) -> None:
    """``count`` memory files and their index, written directly."""
    layout = make_layout(home, project)
    layout.memory_dir.mkdir(parents=True)
    (layout.project_dir / ".memdir-root").write_text(f"{layout.project_root}\n")
    rng = random.Random(seed)
    lines = []
    for n in range(count):
        topic, other = rng.sample(_TOPICS, 2)
        kind = rng.choice([MemoryType.PROJECT, MemoryType.REFERENCE, MemoryType.FEEDBACK])
        body = "\n".join(
            f"The {topic} ({n}) changed how the {other} behaves: case {i} of {n}." for i in range(6)
        )
        memory = Memory(
            name=f"{topic} note {n}",
            description=f"how the {topic} relates to the {other}, case {n}",
            type=kind,
            body=f"{body}\n**Why:** learned in incident {n}.\n**How to apply:** check it.\n",
        )
        file = f"m{n:05d}.md"
        (layout.memory_dir / file).write_text(render_memory(memory), encoding="utf-8")
        lines.append(format_entry(memory.name, file, memory.description))
    (layout.memory_dir / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _memdir(
    args: list[str], env: dict[str, str], project: Path
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "memdir", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"memdir {' '.join(args)} failed: {done.stderr}")
    return done


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _cpu_seconds(pid: int) -> float:
    """User and system CPU the process used so far."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _peak_rss(pid: int) -> int:
    """The process's peak resident memory in bytes (Linux's VmHWM)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


class Server:
    """``memdir serve --http`` in a process of its own."""

    def __init__(self, project: Path, env: dict[str, str]) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        argv = [sys.executable, "-m", "memdir", "serve", "--http", "--port", str(self.port)]
        argv += ["--token", TOKEN, "--project", str(project)]
        self.process = subprocess.Popen(
            argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )

    def wait_ready(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"the server exited: {self.process.stderr.read()}")  # type: ignore[union-attr]
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise SystemExit("the server did not start listening")

    def stop(self) -> tuple[int, float]:
        """Stop it; its peak resident memory in bytes and the CPU seconds it used."""
        peak, cpu = _peak_rss(self.process.pid), _cpu_seconds(self.process.pid)
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return peak, cpu


Timings = dict[str, list[float]]


async def _client_loop(url: str, seconds: float, index: int, timings: Timings) -> None:
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}, timeout=300)
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        # The session is set up, and the model loaded, before timing: what is timed is
        # a warm server's work.
        await client.call_tool("search", {"query": f"warm up {index}"})
        rng = random.Random(index)
        calls = 0

        # Every query is new (a case number of its own): the server keeps the last
        # queries' vectors, and a benchmark repeating a few would time that memory.
        def search() -> Awaitable[object]:
            query = f"{rng.choice(_SEARCHES)} case {index * 100_000 + calls}"
            return client.call_tool("search", {"query": query})

        def view() -> Awaitable[object]:
            return client.call_tool("view", {})

        def recall() -> Awaitable[object]:
            session = f"load-{index}-{calls}"
            query = f"{rng.choice(_QUESTIONS)} in case {index * 100_000 + calls}"
            return client.call_tool("recall", {"query": query, "session": session})

        cycle: list[tuple[str, Callable[[], Awaitable[object]]]] = [
            ("search", search),
            ("view", view),
            ("search", search),
            ("recall", recall),
        ]
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            name, call = cycle[calls % len(cycle)]
            start = time.perf_counter()
            result = await call()
            elapsed = time.perf_counter() - start
            if getattr(result, "is_error", False):
                raise SystemExit(f"{name} failed: {result}")
            timings.setdefault(name, []).append(elapsed)
            calls += 1


async def _load(url: str, clients: int, seconds: float) -> tuple[Timings, float]:
    timings: Timings = {}
    start = time.perf_counter()
    await asyncio.gather(*(_client_loop(url, seconds, n, timings) for n in range(clients)))
    return timings, time.perf_counter() - start


@dataclass
class Mode:
    """One server's numbers, summed over the rounds."""

    label: str
    server: Server
    timings: Timings = field(default_factory=dict)
    wall: float = 0.0
    cpu: float = 0.0


def run_modes(
    project: Path, envs: dict[str, dict[str, str]], args: argparse.Namespace
) -> list[tuple[str, Timings, float, int, float]]:
    """Each mode's (label, latencies by tool, wall seconds, peak RSS, CPU seconds under load).

    The servers run side by side and take the load in turns, ``--rounds`` times each:
    a machine whose load comes and goes weighs on every mode alike.
    """
    modes = [Mode(label, Server(project, env)) for label, env in envs.items()]
    try:
        for mode in modes:
            mode.server.wait_ready()
        for _ in range(args.rounds):
            for mode in modes:
                before = _cpu_seconds(mode.server.process.pid)
                timings, wall = asyncio.run(
                    _load(mode.server.url, args.clients, args.seconds / args.rounds)
                )
                mode.cpu += _cpu_seconds(mode.server.process.pid) - before
                mode.wall += wall
                for name, values in timings.items():
                    mode.timings.setdefault(name, []).extend(values)
    finally:
        peaks = [mode.server.stop()[0] for mode in modes]
    return [
        (mode.label, mode.timings, mode.wall, peak, mode.cpu)
        for mode, peak in zip(modes, peaks, strict=True)
    ]


def _ms(values: list[float], q: float = 0.5) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def report(
    label: str, timings: Timings, wall: float, peak: int, cpu: float
) -> tuple[float, float, int]:
    total = sum(len(v) for v in timings.values())
    rate = total / wall
    parts = [
        f"{name} {len(v)} calls, median {_ms(v):.0f} ms, p95 {_ms(v, 0.95):.0f} ms"
        for name, v in sorted(timings.items())
    ]
    print(
        f"{label}: {rate:.1f} operations/s, peak RSS {peak / 2**20:.0f} MB, server CPU "
        f"{cpu / total * 1000:.0f} ms an operation"
    )
    for part in parts:
        print(f"    {part}")
    return rate, statistics.median(timings["search"]) * 1000, peak


def load_benchmark(args: argparse.Namespace, base: Path) -> None:
    home, project = base / "home", base / "project"
    env = {**os.environ, "MEMDIR_HOME": str(home)}
    env.pop("MEMDIR_EMBEDDINGS", None)
    start = time.perf_counter()
    if not project.exists():  # --store keeps one between runs
        project.mkdir(parents=True)
        build_store(home, project, args.memories)
        _memdir(["reindex"], env, project)
        _memdir(["index", "embed"], env, project)
    print(
        f"{args.memories} memories indexed and embedded in {time.perf_counter() - start:.1f} s; "
        f"{args.clients} clients, {args.seconds:g} s per mode in {args.rounds} turns"
    )
    envs = {"lexical": {**env, "MEMDIR_EMBEDDINGS": "off"}, "embeddings": env}
    lexical, meaning = (report(*numbers) for numbers in run_modes(project, envs, args))
    rate, search, peak = (m / x for m, x in zip(meaning, lexical, strict=True))
    print(
        f"embeddings / lexical: throughput {rate:.0%} (goal >= 50 %), median search "
        f"{search:.2f}x (goal <= 2x), peak memory {peak:.2f}x (goal <= 3x)"
    )


def _vectors(catalog: Path) -> int:
    try:
        with sqlite3.connect(f"file:{catalog}?mode=ro", uri=True, timeout=30) as conn:
            return int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0])
    except sqlite3.Error:
        return 0


def embed_benchmark(args: argparse.Namespace, base: Path) -> None:
    home, project = base / "embed-home", base / "embed-project"
    project.mkdir()
    build_store(home, project, args.embed_memories, seed=41)
    env = {**os.environ, "MEMDIR_HOME": str(home)}
    env.pop("MEMDIR_EMBEDDINGS", None)
    _memdir(["reindex"], {**env, "MEMDIR_EMBEDDINGS": "off"}, project)
    catalog = make_layout(home, project).state_dir / "catalog.sqlite3"
    embedding = subprocess.Popen(
        [sys.executable, "-m", "memdir", "index", "embed"],
        cwd=project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 300
        while _vectors(catalog) == 0:  # its model loaded and its first batch stored
            if embedding.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("memdir index embed ended before it stored a vector")
            time.sleep(0.05)
        before = _vectors(catalog)
        start = time.perf_counter()
        _memdir(["search", "payment webhooks retry"], env, project)
        took = time.perf_counter() - start
        after = _vectors(catalog)
        still = embedding.poll() is None
    finally:
        embedding.terminate()
        embedding.wait()
    print(
        f"memdir search while `memdir index embed` runs over {args.embed_memories} memories: "
        f"{took:.1f} s (documented bound: 10 s); vectors {before} -> {after} of "
        f"{args.embed_memories} meanwhile, the embedding {'still running' if still else 'done'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=30.0, help="of load, per mode")
    parser.add_argument("--rounds", type=int, default=3, help="turns the modes take")
    parser.add_argument("--embed-memories", type=int, default=2000)
    parser.add_argument("--only", choices=("load", "embed"))
    parser.add_argument(
        "--store", type=Path, help="keep the load test's store here and reuse it next time"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memdir-mcp-load-") as base:
        if args.only != "embed":
            load_benchmark(args, args.store or Path(base))
        if args.only != "load":
            embed_benchmark(args, Path(base))


if __name__ == "__main__":
    main()
