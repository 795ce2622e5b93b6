"""Private sync against team sync on one machine: publish, join and a sync with nothing to do.

Two clones of a project ("a" and "b", each its own home folder) and two local
bare git remotes, one for a's private memory and one for the team's. Machine a
writes ``--memories`` private memories and as many team memories through the
public API, then, once each and in this order:

- publish: ``Memdir.init_private_sync`` and ``memdir.team.sync.init_team`` on a,
  each pushing its memories to an empty remote;
- join: the same on b, each pulling them;
- no-op: ``Memdir.sync_private`` and ``sync_team`` on a, with nothing changed.

It prints each step's wall time and the private/team ratios of the join and the
no-op sync. One run of each step: on a shared machine compare the ratios of one
run, not seconds across runs. Git reads a global config in the temporary folder
(``GIT_CONFIG_GLOBAL``), not the user's.

    .venv/bin/python benchmarks/private_sync.py [--memories N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from memdir.api import Memdir
from memdir.team.sync import init_team, sync_team


def bare_remote(base: Path, name: str) -> str:
    path = base / name
    subprocess.run(
        ["git", "init", "--quiet", "--bare", "--initial-branch=main", str(path)], check=True
    )
    return str(path)


def open_machine(base: Path, name: str) -> Memdir:
    project = base / name / "project"
    project.mkdir(parents=True)
    return Memdir.open(project, home=base / name / "home")


def fill(mem: Memdir, count: int) -> None:
    """``count`` private and ``count`` team memories, written as an agent would."""
    for n in range(count):
        mem.write(name=f"Fact {n}", description=f"fact {n}", type="user", body=f"private {n}\n")
        mem.write(
            name=f"Team {n}",
            description=f"team {n}",
            type="project",
            body=f"team fact {n}\n",
            scope="team",
        )


def seconds(step: Callable[[], object]) -> float:
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def run(base: Path, memories: int) -> dict[str, float]:
    """The wall time of each step, by label, in the order they ran."""
    a, b = open_machine(base, "a"), open_machine(base, "b")
    private, team = bare_remote(base, "private.git"), bare_remote(base, "team.git")
    fill(a, memories)
    return {
        f"private publish ({memories})": seconds(lambda: a.init_private_sync(private)),
        f"team publish ({memories})": seconds(lambda: init_team(a, team)),
        f"private join (pull {memories})": seconds(lambda: b.init_private_sync(private)),
        f"team join (pull {memories})": seconds(lambda: init_team(b, team)),
        "private no-op sync": seconds(a.sync_private),
        "team no-op sync": seconds(lambda: sync_team(a)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=200, help="memories in each scope")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memdir-bench-private-sync-") as tmp:
        base = Path(tmp)
        os.environ["GIT_CONFIG_GLOBAL"] = str(base / "gitconfig")
        times = run(base, args.memories)
    for label, value in times.items():
        print(f"{label:32} {value:7.2f} s")
    steps = list(times.values())
    print(f"ratio private/team, join:  {steps[2] / steps[3]:.2f}")
    print(f"ratio private/team, no-op: {steps[4] / steps[5]:.2f}")


if __name__ == "__main__":
    main()
