"""Hardening numbers: doctor --fix racing writers, and a pathological grep over HTTP.

Run: .venv/bin/python benchmarks/hardening.py [--runs 10] [--writes 150]

1. ``doctor --fix`` in a loop while 3 processes add memories; after each
   doctor run the scope lock is taken and every file without an index line
   is counted (writers hold that lock from file to line, so only doctor can
   drop one). Printed: lines dropped per run, over ``--runs`` runs.
2. The MCP server on streamable HTTP (a real uvicorn on loopback): one client
   sends the backtracking grep ``(a+)+$`` over lines of 26 ``a``s plus one
   character, while a second client calls ``view`` every 20 ms. Printed: the
   grep's time, and the other client's median and worst latency meanwhile.
   For scale, Python's backtracking ``re`` on the same pattern and line.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from memdir import Memdir
from memdir.mcp.http import MCP_PATH, http_app
from memdir.mcp.server import build_server
from memdir.recall.doctor import diagnose
from memdir.storage.memory_index import parse_entries

WRITER = textwrap.dedent(
    """
    import sys
    from memdir import Memdir
    mem = Memdir.open(sys.argv[1])
    worker, count = int(sys.argv[2]), int(sys.argv[3])
    for i in range(count):
        mem.write(name=f"w{worker} m{i}", description=f"memory {i}", type="project")
    """
)
TOKEN = "benchmark-token"


def doctor_race(writes: int) -> tuple[int, int, int]:
    """One race: (doctor runs, index lines dropped, memories written)."""
    with tempfile.TemporaryDirectory() as base:
        project = Path(base) / "project"
        project.mkdir()
        os.environ["MEMDIR_HOME"] = str(Path(base) / "home")
        mem = Memdir.open(project)
        procs = [
            subprocess.Popen([sys.executable, "-c", WRITER, str(project), str(w), str(writes)])
            for w in range(3)
        ]
        runs, lost = 0, set()
        while any(p.poll() is None for p in procs):
            diagnose(mem, fix=True)
            runs += 1
            with mem.private.lock():
                listed = {e.file for e in parse_entries(mem.private.read_index())}
                lost |= set(mem.private.files()) - listed
        for p in procs:
            p.wait()
        return runs, len(lost), len(mem.private.files())


def serve(project: Path) -> tuple[str, uvicorn.Server, threading.Thread]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    app = http_app(build_server(project), TOKEN)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    return f"http://127.0.0.1:{sock.getsockname()[1]}{MCP_PATH}", server, thread


async def _client(url: str) -> Any:
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}, timeout=120)
    return http, Client(streamable_http_client(url, http_client=http))


async def http_views(url: str, count: int = 10) -> list[float]:
    """Latencies of ``count`` views with nothing else running: the baseline."""
    http, client = await _client(url)
    out = []
    async with http, client:
        await client.call_tool("view", {})
        for _ in range(count):
            start = time.perf_counter()
            await client.call_tool("view", {})
            out.append(time.perf_counter() - start)
    return out


async def http_grep(url: str) -> tuple[float, list[float]]:
    """(grep seconds, the other client's view latencies while the grep ran)."""
    http_a, client_a = await _client(url)
    http_b, client_b = await _client(url)
    latencies: list[float] = []
    async with http_a, http_b, client_a, client_b:
        await client_b.call_tool("view", {})  # warm: session set up before timing
        done = anyio.Event()
        grep_time = 0.0

        async def grep() -> None:
            nonlocal grep_time
            start = time.perf_counter()
            args = {"query": "(a+)+$", "mode": "grep", "regex": True}
            await client_a.call_tool("search", args)
            grep_time = time.perf_counter() - start
            done.set()

        async def poll() -> None:
            while not done.is_set():
                start = time.perf_counter()
                await client_b.call_tool("view", {})
                latencies.append(time.perf_counter() - start)
                await anyio.sleep(0.02)

        async with anyio.create_task_group() as group:
            group.start_soon(poll)
            group.start_soon(grep)
    return grep_time, latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--writes", type=int, default=150, help="memories per writer")
    args = parser.parse_args()

    total_lost = 0
    for n in range(1, args.runs + 1):
        runs, lost, written = doctor_race(args.writes)
        total_lost += lost
        print(f"race {n:2d}: {runs:3d} doctor --fix runs, {written} memories, {lost} lines dropped")
    print(f"doctor --fix racing 3 writers: {total_lost} index lines dropped in {args.runs} races")

    with tempfile.TemporaryDirectory() as base:
        project = Path(base) / "project"
        project.mkdir()
        os.environ["MEMDIR_HOME"] = str(Path(base) / "home")
        mem = Memdir.open(project)
        mem.write(name="Deploy window", description="Deploys on Tuesdays", type="project")
        line = "a" * 26 + "!"
        # Large enough that the grep takes a while even in linear time.
        for n in range(20):
            (mem.layout.memory_dir / f"as{n}.md").write_text((line + "\n") * 5000)
        url, server, thread = serve(project)
        try:
            baseline = anyio.run(http_views, url)
            grep_time, latencies = anyio.run(http_grep, url)
        finally:
            server.should_exit = True
            thread.join(timeout=30)
        worst = max(latencies) if latencies else 0.0
        median = statistics.median(latencies) if latencies else 0.0
        print(f"view alone: median {statistics.median(baseline) * 1000:.1f} ms")
        print(f"HTTP grep '(a+)+$' over 100,000 lines of 26 a's: {grep_time * 1000:.1f} ms")
        print(
            f"other client meanwhile: {len(latencies)} views, median {median * 1000:.1f} ms, "
            f"worst {worst * 1000:.1f} ms"
        )
    short = "a" * 22 + "!"
    start = time.perf_counter()
    re.search("(a+)+$", short)
    backtracking = time.perf_counter() - start
    print(
        f"for scale, Python's re on one line of 22 a's: {backtracking * 1000:.0f} ms (x4 per 2 a's)"
    )


if __name__ == "__main__":
    main()
