"""Wall time of the per-call hooks, process start to exit, over a store of 1,000 memories.

``memdir hook pre-tool-use`` runs before every tool call and ``memdir hook
user-prompt-submit`` before every prompt, so what counts is the whole
process: interpreter start, imports, reading the rules or recalling, the
answer. The store is generated as files (one memory in twenty is a feedback
memory carrying an ``enforce:`` rule) with a real ``MEMORY.md``; one warm-up
run fills the rule cache, the hook's memo of where the memory lives and the
bytecode cache, as in daily use. Each run then starts the hook as
``memdir hook install claude`` writes it into this machine's settings
(``<python> -SP <memdir>/hook_launcher.py``; ``--script`` times the ``memdir``
console script, ``--module`` ``python -m memdir``, which also loads
``runpy``) with a recorded Claude Code JSON on stdin. ``pre-tool-use`` is a
call no rule covers, as most tool calls are; ``pre-tool-use denied`` one a
memory's rule denies (it loads RE2 and the rules). Every prompt gets a fresh
session so recall does its full work. The search catalog is built first, as
``memdir reindex`` (or any search) leaves it, after an earlier session's
folder exists (as in any project an agent has worked in: the catalog then
watches the sessions folder, which each new session changes);
``--no-catalog`` measures recall ranking the files itself. Printed: p50 and
p95 of the wall time in ms against the goals (p50 <= 80 ms for pre-tool-use,
<= 250 ms for user-prompt-submit, <= 120 ms for session-start), the p50 of the
CPU time the process used (user + system: less sensitive to a busy machine than
the wall time), the same for ``python -c pass`` as the floor every process
pays, and each hook's p50 as a ratio to that floor, measured in the same run
(goals: pre-tool-use <= 1.5x, user-prompt-submit <= 3x, session-start <= 2.5x).

Session start and per-prompt recall are answered by the hook server (a warm
process the first hook starts: :mod:`memdir.hooks.server`), as
installed hooks are; ``--no-server`` times them doing the work in their own
process (``MEMDIR_HOOK_SERVER=0``). ``pre-tool-use`` always does its own
work; with the server it asks the server's folder watch whether the memory
folders changed instead of statting every memory file (``--no-server``: the
stat walk). The server gets a socket folder of the run's own and is stopped
at the end; the line after the table says how many hooks it answered.

Bytecode is written and read for these runs (``PYTHONDONTWRITEBYTECODE`` is
unset in the children), as it is for an installed package.

    .venv/bin/python benchmarks/hooks.py [--runs 100] [--memories 1000] [--no-catalog]
        [--baseline ../other-checkout/src] [--no-server]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from memdir.config import load_settings
from memdir.hooks.server import server_status, stop_server
from memdir.hosts.launch import launch_for
from memdir.model import Memory, MemoryType
from memdir.search.catalog import Catalog
from memdir.storage.codec import render_memory
from memdir.storage.memory_index import format_entry
from memdir.storage.paths import make_layout

GOALS = {
    "pre-tool-use": 80.0,
    "pre-tool-use denied": 80.0,
    "user-prompt-submit": 250.0,
    "session-start": 120.0,
}
# The goals as ratios to `python -c pass` timed in the same run (a busy machine slows both).
RATIO_GOALS = {
    "pre-tool-use": 1.5,
    "pre-tool-use denied": 1.5,
    "user-prompt-submit": 3.0,
    "session-start": 2.5,
}
_TOPICS = (
    "checkout service", "payment webhooks", "redis cache", "deploy freeze", "feature flags",
    "database migrations", "latency dashboard", "oncall rotation", "integration tests",
    "search ranking", "billing exports", "mobile release", "auth tokens", "rate limits",
)  # fmt: skip
_TOOLS = ("make", "docker", "kubectl", "terraform", "yarn", "npm", "pip", "cargo", "helm")


def _memory(rng: random.Random, n: int) -> Memory:
    topic, other = rng.sample(_TOPICS, 2)
    extra: dict[str, object] = {}
    kind = rng.choice([MemoryType.PROJECT, MemoryType.REFERENCE, MemoryType.USER])
    if n % 20 == 0:
        kind = MemoryType.FEEDBACK
        tool = _TOOLS[n % len(_TOOLS)]
        extra["enforce"] = [
            {"tool": "Bash", "match": rf"\b{tool} forbidden{n}\b", "action": "deny"}
        ]
    body = "\n".join(f"The {topic} {n} depends on the {other} (line {i})." for i in range(5))
    return Memory(
        name=f"{topic} note {n}",
        description=f"how the {topic} relates to the {other}, case {n}",
        type=kind,
        body=f"{body}\n**Why:** learned the hard way in incident {n}.\n",
        extra=extra,
    )


def build_store(home: Path, project: Path, count: int) -> None:
    """``count`` memory files and their index, written directly."""
    layout = make_layout(home, project)
    layout.memory_dir.mkdir(parents=True)
    (layout.project_dir / ".memdir-root").write_text(f"{layout.project_root}\n")
    rng = random.Random(14)
    lines = []
    for n in range(count):
        memory = _memory(rng, n)
        file = f"m{n:05d}.md"
        (layout.memory_dir / file).write_text(render_memory(memory), encoding="utf-8")
        lines.append(format_entry(memory.name, file, memory.description))
    (layout.memory_dir / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _payload(command: str, project: Path, n: int) -> str:
    if command.startswith("pre-tool-use"):
        if command == "pre-tool-use":  # a call no rule covers: most tool calls
            verb = f"npm forbidden{(n % 10) * 20 + 5}" if n % 2 else "npm forbidden50"
        else:  # a call one memory's rule denies
            rule = 20 * (n % 50)
            verb = f"{_TOOLS[rule % len(_TOOLS)]} forbidden{rule}"
        return json.dumps(
            {
                "session_id": "bench",
                "cwd": str(project),
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": f"{verb} --save"},
            }
        )
    if command == "session-start":
        return json.dumps(
            {
                "session_id": f"bench-start-{n}",
                "cwd": str(project),
                "hook_event_name": "SessionStart",
                "source": "startup",
            }
        )
    return json.dumps(
        {
            "session_id": f"bench-{n}",
            "cwd": str(project),
            "hook_event_name": "UserPromptSubmit",
            "prompt": "why does the checkout service retry payment webhooks",
        }
    )


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _one_run(argv: list[str], text: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU milliseconds of one process."""
    cpu, start = _child_cpu(), time.perf_counter()
    done = subprocess.run(argv, input=text, capture_output=True, text=True, env=env)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"{argv} failed: {done.stderr}")
    return elapsed, (_child_cpu() - cpu) * 1000


def time_runs(
    argv: list[str], payload: Callable[[int], str], env: dict[str, str], runs: int
) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds per process, ``runs`` times, after one warm-up run."""
    [(walls, cpus)] = time_interleaved(argv, payload, [env], runs)
    return walls, cpus


def time_interleaved(
    argv: list[str], payload: Callable[[int], str], envs: list[dict[str, str]], runs: int
) -> list[tuple[list[float], list[float]]]:
    """:func:`time_runs` for each env, alternating run by run (a busy machine slows all alike)."""
    results: list[tuple[list[float], list[float]]] = [([], []) for _ in envs]
    for n in range(runs + 1):
        for index, env in enumerate(envs):
            # Every variant gets its own payload (fresh sessions must not be shared).
            wall, cpu = _one_run(argv, payload(n * len(envs) + index), env)
            if n:
                results[index][0].append(wall)
                results[index][1].append(cpu)
    return results


def time_with_floor(
    argv: list[str], payload: Callable[[int], str], env: dict[str, str], runs: int
) -> tuple[list[float], list[float], list[float]]:
    """:func:`time_runs`, each run followed by one of ``python -c pass``: the hook's wall and
    CPU times, and the floor's wall times taken beside them (the ratio's denominator, so a
    machine that gets busier during the run slows both alike)."""
    walls: list[float] = []
    cpus: list[float] = []
    floors: list[float] = []
    for n in range(runs + 1):
        wall, cpu = _one_run(argv, payload(n), env)
        floor, _ = _one_run([sys.executable, "-c", "pass"], "", env)
        if n:  # the first pair warms up
            walls.append(wall)
            cpus.append(cpu)
            floors.append(floor)
    return walls, cpus, floors


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * len(ordered)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--no-catalog", action="store_true", help="Recall without the catalog.")
    parser.add_argument("--module", action="store_true", help="Run `python -m memdir`.")
    parser.add_argument("--script", action="store_true", help="Run the `memdir` console script.")
    parser.add_argument(
        "--no-server", action="store_true", help="Every hook does its work in its own process."
    )
    parser.add_argument(
        "--baseline",
        metavar="SRC",
        help="Another checkout's src folder: time both hooks with it and with this one, "
        "taking turns, and print the ratios.",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir()
        build_store(home, project, args.memories)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["MEMDIR_HOME"] = str(home)
        env.pop("MEMDIR_PROFILE", None)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p.endswith("src"))
        env["XDG_RUNTIME_DIR"] = str(Path(tmp) / "run")  # this run's own hook server
        if args.no_server:
            env["MEMDIR_HOOK_SERVER"] = "0"
        try:
            _run(args, env, home, project)
        finally:
            stop_server(env)


def _run(args: argparse.Namespace, env: dict[str, str], home: Path, project: Path) -> None:
    """Build the catalog, then time each hook (and the baseline when asked)."""
    assert load_settings(env).home == home
    if not args.no_catalog:
        layout = make_layout(home, project)
        # An agent has run here before: the catalog's walk saw the sessions folder, so
        # each new session (and each recall's state write) is a folder change to catch up.
        layout.session_dir("earlier").mkdir(parents=True)
        with Catalog.open(layout) as built:
            built.refresh()
    catalog = "without" if args.no_catalog else "with"
    print(
        f"{args.memories} memories, {catalog} the search catalog, {args.runs} runs each "
        "(ms, process start to exit)"
    )
    walls, cpus = time_runs([sys.executable, "-c", "pass"], lambda n: "", env, args.runs)
    print(
        f"{'python -c pass':<20} p50 {statistics.median(walls):6.1f}  "
        f"p95 {_p95(walls):6.1f}  cpu p50 {statistics.median(cpus):5.1f}"
    )
    launcher = _launcher(args)
    print(f"hooks started as: {' '.join(launcher)}")
    if not args.no_server:
        _start_server(launcher, env, project)
    for command, goal in GOALS.items():
        argv = [*launcher, "hook", command.split()[0]]
        walls, cpus, floors = time_with_floor(
            argv, lambda n, c=command: _payload(c, project, n), env, args.runs
        )
        p50 = statistics.median(walls)
        verdict = "meets" if p50 <= goal else "misses"
        ratio = p50 / statistics.median(floors)
        ratio_verdict = "meets" if ratio <= RATIO_GOALS[command] else "misses"
        print(
            f"{command:<20} p50 {p50:6.1f}  p95 {_p95(walls):6.1f}  "
            f"cpu p50 {statistics.median(cpus):5.1f}  ({verdict} the p50 goal {goal:g}; "
            f"{ratio:.2f}x python -c pass, {ratio_verdict} {RATIO_GOALS[command]:g}x)"
        )
    served = server_status(env)
    print(
        "hook server: off (--no-server)"
        if args.no_server
        else f"hook server: answered {served.answered or 0} of the session-start and "
        "user-prompt-submit runs"
    )
    if args.baseline:
        compare(args.baseline, env, project, args.runs)


def _start_server(launcher: list[str], env: dict[str, str], project: Path) -> None:
    """One session start, which starts the hook server; then wait until it listens."""
    _one_run([*launcher, "hook", "session-start"], _payload("session-start", project, -1), env)
    deadline = time.monotonic() + 30.0
    while not server_status(env).running:
        if time.monotonic() > deadline:
            raise SystemExit("the hook server did not start within 30 s")
        time.sleep(0.05)


def _launcher(args: argparse.Namespace) -> list[str]:
    """The argv prefix the hooks start with: what the installer writes, unless told."""
    script = Path(sys.executable).with_name("memdir")
    if args.module or (args.script and not script.exists()):
        return [sys.executable, "-m", "memdir"]
    if args.script:
        return [str(script)]
    quick = launch_for(os.environ).hooks
    return list(quick) if quick else [str(script)]


BLOCKS = 5  # pre-tool-use's baseline runs in turns of blocks: see compare()


def compare(baseline: str, env: dict[str, str], project: Path, runs: int) -> None:
    """Both hooks from ``baseline`` and from this checkout, taking turns in one run.

    user-prompt-submit alternates run by run. pre-tool-use alternates in
    ``BLOCKS`` blocks each, after a warm-up run: two versions may keep their
    rule caches in different forms, and each would throw the other's away.
    """
    before = {**env, "PYTHONPATH": str(Path(baseline).resolve())}
    for command in ("pre-tool-use", "user-prompt-submit"):
        argv = [sys.executable, "-m", "memdir", "hook", command]
        # Payload numbers past the ones used above: every run recalls for a fresh session.
        if command == "user-prompt-submit":
            (old_walls, old_cpus), (new_walls, new_cpus) = time_interleaved(
                argv, lambda n, c=command: _payload(c, project, 10_000 + n), [before, env], runs
            )
        else:
            old_walls, old_cpus, new_walls, new_cpus = [], [], [], []
            for block in range(BLOCKS):
                for walls, cpus, chosen in (
                    (old_walls, old_cpus, before),
                    (new_walls, new_cpus, env),
                ):
                    w, c = time_runs(
                        argv,
                        lambda n, c=command, b=block: _payload(c, project, 20_000 + 1_000 * b + n),
                        chosen,
                        max(runs // BLOCKS, 1),
                    )
                    walls += w
                    cpus += c
        print(f"{command}, taking turns with {baseline}:")
        for label, walls, cpus in (
            ("  baseline", old_walls, old_cpus),
            ("  this", new_walls, new_cpus),
        ):
            print(
                f"{label:<20} p50 {statistics.median(walls):6.1f}  p95 {_p95(walls):6.1f}  "
                f"cpu p50 {statistics.median(cpus):5.1f}"
            )
        wall = statistics.median(new_walls) / statistics.median(old_walls)
        cpu = statistics.median(new_cpus) / statistics.median(old_cpus)
        print(f"{'  ratio this/baseline':<20} wall {wall:.2f}x  cpu {cpu:.2f}x")


if __name__ == "__main__":
    main()
