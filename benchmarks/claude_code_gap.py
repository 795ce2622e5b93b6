"""What memdir's hooks add to each tool call in the real Claude Code CLI.

Runs ``claude -p`` (the pinned npm package, as ``make claude-code`` installs
it) in a throwaway git project and HOME, against the local stand-in for the
Messages API from the test suite, which answers as the model with a Bash call
(``true``) per turn and stamps each request as it arrives. The gap between two
consecutive requests is what one tool call costs the session outside the
model: Claude Code's own work, the tool, and the hooks around it. Timed with
and without memdir's hooks installed (``memdir hook install claude``, the
command it writes: no PATH needed), over a store of 1,000 memories (one in
twenty carrying a rule, none of which the calls break), taking turns run by
run, the first by turns too. The install also turns Claude Code's own auto
memory off in the same settings file (as it does for every user of memdir's
folder), so "with" is the setup a user gets, not the hooks alone; a third
variant has the same install with the hook server off (``MEMDIR_HOOK_SERVER=0``).
Printed: the p50 gap of each, and the difference; then the p50 time from
starting ``claude -p`` to its first model request, which holds Claude Code's
start and memdir's session-start and user-prompt-submit hooks.

    .venv/bin/python benchmarks/claude_code_gap.py [--calls 20] [--runs 3] [--memories 1000]

One run (4 sessions each, the machine shared): gap p50 62.6 / 83.4 / 81.3 ms (without
memdir / with its hooks / hooks without the server), start to first request 552 / 614 /
736 ms: the hook server takes session start and the first prompt from +184 to +62 ms.
With pre-tool-use asking the server's folder watch: 62.8 / 82.3 / 88.9 ms and 658 / 669
/ 868 ms (busy machine); 49.4 / 84.4 / 81.5 ms and 618 / 724 / 805 ms (quiet).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# The test suite's stand-in and sandbox (its modules import each other by bare name).
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "benchmarks")]

from claude_api import StandIn, Turn  # noqa: E402
from claude_code import Sandbox, _venv_bin, claude_binary  # noqa: E402
from hooks import build_store  # noqa: E402
from memdir.hooks.server import stop_server  # noqa: E402

HOOKED = "with memdir's hooks"
OWN = "hooks, no server"
_STREAM = ("--output-format", "stream-json", "--verbose", "--include-hook-events")


class _Stamped:
    """A script answering every conversation request with one Bash call, timing each."""

    def __init__(self, calls: int) -> None:
        self.calls = calls
        self.arrivals: list[float] = []
        self.launched = time.perf_counter()
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Turn:
        with self._lock:
            self.arrivals.append(time.perf_counter())
            if len(self.arrivals) > self.calls:
                return Turn(text="Done.")
            return Turn(
                text="Checking.", tool="Bash", tool_input={"command": "true", "description": "noop"}
            )

    def start(self) -> float:
        """Milliseconds from starting ``claude -p`` to its first model request."""
        return (self.arrivals[0] - self.launched) * 1000

    def gaps(self) -> list[float]:
        """Milliseconds between consecutive requests, the first (session start) left out."""
        return [(b - a) * 1000 for a, b in zip(self.arrivals[1:], self.arrivals[2:], strict=False)]


def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True)


def _box(
    root: Path, api: StandIn, *, hooks: bool, memories: int, extra_env: dict[str, str]
) -> Sandbox:
    home, project = root / "home", root / "project"
    home.mkdir(parents=True)
    project.mkdir()
    _git(project, "init", "-q", "-b", "main")
    (project / "README.md").write_text("A project.\n")
    _git(project, "add", "README.md")
    _git(project, "-c", "user.name=b", "-c", "user.email=b@b.invalid", "commit", "-q", "-m", "i")
    box = Sandbox(
        root=root,
        home=home,
        project=project,
        venv_bin=_venv_bin(),
        claude=claude_binary(),
        api=api,
        extra_env=extra_env,
    )
    build_store(home / ".memdir", project, memories)
    if hooks:
        box.memdir("hook", "install", "claude")
    return box


def _session(box: Sandbox, calls: int, *, hooks: bool) -> tuple[list[float], float]:
    """One ``claude -p`` session of ``calls`` Bash calls: the gaps between its requests,
    and the time to its first request."""
    script = _Stamped(calls)
    box.api.script(script)
    script.launched = time.perf_counter()
    done = subprocess.run(
        [str(box.claude), "-p", "Run true a few times.", "--allowedTools", "Bash", *_STREAM],
        cwd=box.project,
        env=box.env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0 or len(script.arrivals) <= calls:
        raise SystemExit(f"claude exited {done.returncode}: {done.stderr[-2000:]}")
    ran = sum(
        1
        for line in done.stdout.splitlines()
        if '"hook_response"' in line and '"PreToolUse"' in line and '"exit_code":0' in line
    )
    expected = calls if hooks else 0
    if ran != expected:
        raise SystemExit(f"{ran} PreToolUse hooks answered, expected {expected}")
    return script.gaps(), script.start()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20, help="Bash calls per session.")
    parser.add_argument("--runs", type=int, default=3, help="Sessions per variant.")
    parser.add_argument("--memories", type=int, default=1000)
    args = parser.parse_args()
    api = StandIn([])
    api.serve()
    gaps: dict[str, list[float]] = {"without memdir": [], HOOKED: [], OWN: []}
    starts: dict[str, list[float]] = {label: [] for label in gaps}
    try:
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
            run_dir = {"XDG_RUNTIME_DIR": str(Path(tmp) / "run")}  # this run's hook server
            boxes = {
                label: _box(
                    Path(tmp) / str(n),
                    api,
                    hooks=n > 0,
                    memories=args.memories,
                    extra_env={**run_dir, **({"MEMDIR_HOOK_SERVER": "0"} if label == OWN else {})},
                )
                for n, label in enumerate(gaps)
            }
            try:
                for run in range(args.runs):
                    order = list(boxes.items())
                    for label, box in order if run % 2 == 0 else order[::-1]:  # who goes first
                        found, start = _session(box, args.calls, hooks=label != "without memdir")
                        gaps[label] += found
                        starts[label].append(start)
            finally:
                for box in boxes.values():
                    box.drain()  # the background jobs the session's last hooks started
                stop_server({**os.environ, **run_dir})
    finally:
        api.close()
    print(
        f"claude -p, {args.calls} Bash calls per session, {args.runs} sessions each, "
        f"{args.memories} memories (ms between two model requests)"
    )
    medians = {}
    for label, found in gaps.items():
        medians[label] = statistics.median(found)
        print(
            f"{label:<22} p50 {medians[label]:6.1f}  p90 "
            f"{statistics.quantiles(found, n=10)[-1]:6.1f}  ({len(found)} gaps)"
        )
    without, with_, _ = medians.values()
    print(f"{'added per call':<22} {with_ - without:6.1f} ms ({with_ / without:.2f}x)")
    print("start of claude -p to its first model request (ms):")
    first = statistics.median(starts["without memdir"])
    for label, found in starts.items():
        p50 = statistics.median(found)
        print(f"  {label:<20} p50 {p50:6.1f}  ({p50 - first:+.1f} ms, {len(found)} sessions)")


if __name__ == "__main__":
    main()
