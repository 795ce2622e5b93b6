"""How long an MCP host waits for ``memdir serve``: process start to the tools list.

A host starts ``memdir serve`` on stdio and shows the server as connected when
the tools arrive. Two openings are timed, each in a fresh child per run
(bytecode cached, as for an installed package), after one warm-up run:

- the handshake (Codex CLI, the SDKs): ``initialize``, then
  ``notifications/initialized`` and ``tools/list``;
- the 2026 envelope (Claude Code): ``server/discover``, ``subscriptions/listen``,
  then ``tools/list``, every request carrying its ``_meta``.

Each run also times the first tool call (``view``), which the MCP SDK's server
answers once it is imported. For scale, the same runs time ``python -c pass``
(the floor every process pays) and the imports the first answers do without:
the SDK's server, its types alone (what validating a request with them would
cost), the click CLI and the facade. With ``--baseline SRC`` another checkout's
``src`` runs interleaved with this one, so both see the same machine. Printed:
the p50 wall time in ms and as a ratio to ``python -c pass`` of the same run.

    .venv/bin/python benchmarks/mcp_connect.py [--runs 5] [--baseline ../other/src]
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

_CLIENT = {"name": "benchmark", "version": "1"}
_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": _CLIENT,
    "io.modelcontextprotocol/clientCapabilities": {},
}
_LISTEN = {"toolsListChanged": True, "promptsListChanged": True, "resourcesListChanged": True}
# What a host sends before it asks for the tools.
OPENINGS: dict[str, list[dict[str, Any]]] = {
    "handshake": [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": _CLIENT},
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ],
    "envelope": [
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": _META}},
        {
            "jsonrpc": "2.0",
            "id": "listen:0",
            "method": "subscriptions/listen",
            "params": {"_meta": _META, "notifications": _LISTEN},
        },
    ],
}


def _line(message: dict[str, Any]) -> bytes:
    return (json.dumps(message) + "\n").encode()


def _answer(child: subprocess.Popen[bytes], wanted: object) -> dict[str, Any]:
    """The next line about request ``wanted`` (its answer, or a listen's acknowledgement)."""
    assert child.stdout is not None
    while True:
        line = child.stdout.readline()
        assert line, "memdir serve closed its output"
        message: dict[str, Any] = json.loads(line)
        meta = message.get("params", {}).get("_meta", {})
        if wanted in (message.get("id"), meta.get("io.modelcontextprotocol/subscriptionId")):
            return message


def connect_once(src: Path, project: Path, env: dict[str, str], opening: str) -> dict[str, float]:
    """Seconds from starting ``memdir serve`` to the tools list, and to the first tool call."""
    child_env = {**env, "PYTHONPATH": str(src)}
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "memdir", "serve", "--project", str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=child_env,
    )
    assert child.stdin is not None
    meta = {"_meta": _META} if opening == "envelope" else {}
    for message in OPENINGS[opening]:
        child.stdin.write(_line(message))
        child.stdin.flush()
        if "id" in message:
            _answer(child, message["id"])
    child.stdin.write(_line({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": meta}))
    child.stdin.flush()
    tools = _answer(child, 2)
    listed = time.perf_counter() - start
    assert tools["result"]["tools"], tools
    call = {"name": "view", "arguments": {}, **meta}
    child.stdin.write(_line({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call}))
    child.stdin.flush()
    viewed = _answer(child, 3)
    called = time.perf_counter() - start
    assert "MEMORY.md" in viewed["result"]["content"][0]["text"], viewed
    child.stdin.close()
    child.wait(timeout=60)
    return {"tools listed": listed, "first tool call": called}


def python_once(code: str, env: dict[str, str]) -> dict[str, float]:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return {"": time.perf_counter() - start}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout's src")
    args = parser.parse_args()
    here = Path(__file__).resolve().parent.parent / "src"
    sources = {"this checkout": here}
    if args.baseline is not None:
        sources["baseline"] = args.baseline.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["MEMDIR_HOME"] = str(Path(tmp) / "home")
        cases: dict[str, Callable[[], dict[str, float]]] = {
            "python -c pass": lambda: python_once("pass", env),
        }
        imports = ("mcp.server.mcpserver", "mcp_types", "memdir.cli", "memdir.api")
        for module in imports:
            code = f"import {module}"
            cases[code] = lambda code=code: python_once(code, {**env, "PYTHONPATH": str(here)})
        for name, src in sources.items():
            for opening in OPENINGS:
                cases[f"serve, {opening} ({name})"] = lambda src=src, opening=opening: connect_once(
                    src, project, env, opening
                )
        for run in cases.values():
            run()  # warm-up: bytecode, the project's folders, the answers of this installation
        times: dict[str, list[float]] = {}
        for _ in range(args.runs):
            for name, run in cases.items():  # interleaved: one machine state for all
                for what, seconds in run().items():
                    times.setdefault(f"{name}: {what}" if what else name, []).append(seconds)
    floor = statistics.median(times["python -c pass"])
    print(f"p50 of {args.runs} runs, each a fresh process")
    for name, values in times.items():
        p50 = statistics.median(values)
        print(f"{name:60s} {p50 * 1000:7.0f} ms  {p50 / floor:6.1f}x python -c pass")


if __name__ == "__main__":
    main()
