"""How long an MCP host waits for ``memdir serve``: process start to the tools list.

A host (Claude Code, Cursor ...) starts ``memdir serve`` on stdio, sends
``initialize``, then ``notifications/initialized`` and ``tools/list``, and shows the
server as connected when the tools arrive. This times that, process start to the
``tools/list`` answer, in a fresh child each run (bytecode cached, as for an
installed package), after one warm-up run, and the same for ``python -c pass`` (the
floor every process pays) and for ``python -c "import mcp.server.mcpserver"`` (what
the MCP SDK itself costs to import, which memdir cannot cut). With ``--baseline
SRC`` the same runs of another checkout's ``src`` are interleaved with these, so
both see the same machine. Printed: the p50 wall time in ms and as a ratio to
``python -c pass`` of the same run.

    .venv/bin/python benchmarks/mcp_connect.py [--runs 15] [--baseline ../other/src]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "benchmark", "version": "1"},
    },
}
_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def _line(message: dict[str, object]) -> bytes:
    return (json.dumps(message) + "\n").encode()


def connect_once(src: Path, project: Path, env: dict[str, str]) -> float:
    """Seconds from starting ``memdir serve`` to its answer to ``tools/list``."""
    child_env = {**env, "PYTHONPATH": str(src)}
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "memdir", "serve", "--project", str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=child_env,
    )
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(_line(_INIT))
    child.stdin.flush()
    child.stdout.readline()
    child.stdin.write(_line(_INITIALIZED) + _line(_TOOLS))
    child.stdin.flush()
    answer = json.loads(child.stdout.readline())
    elapsed = time.perf_counter() - start
    assert answer.get("id") == 2 and answer["result"]["tools"], answer
    child.stdin.close()
    child.wait(timeout=60)
    return elapsed


def python_once(code: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout's src")
    args = parser.parse_args()
    here = Path(__file__).resolve().parent.parent / "src"
    sources = {"memdir serve (this checkout)": here}
    if args.baseline is not None:
        sources["memdir serve (baseline)"] = args.baseline.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["MEMDIR_HOME"] = str(Path(tmp) / "home")
        cases = {
            "python -c pass": lambda: python_once("pass", env),
            "import mcp.server.mcpserver": lambda: python_once("import mcp.server.mcpserver", env),
        }
        for name, src in sources.items():
            cases[name] = lambda src=src: connect_once(src, project, env)
        for run in cases.values():
            run()  # warm-up: bytecode, the project's folders
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, run in cases.items():  # interleaved: one machine state for all
                times[name].append(run())
    floor = statistics.median(times["python -c pass"])
    for name, values in times.items():
        p50 = statistics.median(values)
        print(f"{name:32s} p50 {p50 * 1000:7.0f} ms  {p50 / floor:5.1f}x python -c pass")


if __name__ == "__main__":
    main()
