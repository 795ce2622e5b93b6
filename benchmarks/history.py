"""What the history costs a write, and on disk, at 1,000 and at 100,000 memories.

For each size N (``--sizes 1000,100000``) the script writes N synthetic
memories (``scale.prepare``) into a fresh project, then opens it twice: with
history on (the default) and with ``history=False``. In one run, the sizes and
the two settings taking turns (same machine load), it times (p50, ms):

- a new memory's write (the index line appended: the O(1) path);
- a same-name update of an existing memory (the history keeps the old text);

and prints the ratio of a write at the largest size to one at the smallest with
history on (the goal of ``benchmarks/scale.py``: at most 2x), the history's cost
per write (on minus off), and the bytes the history file grew per version
(compressed blobs and rows, after a WAL checkpoint).

Then one memory with ``--versions`` versions (200,000: recorded straight into
the history, in one transaction, as that many edits would leave them): the
time (p50 of ``--rounds`` runs, after one warm-up) of ``memdir history NAME``
and ``memdir why NAME`` (the commands in-process, the project opened each time
as the CLI does) and of the memory's page on ``memdir ui`` (through the app,
no socket), against the goal of one second each; and, in the same run, reading
every version (what the three did before they read a page), for the ratio.

    .venv/bin/python benchmarks/history.py [--sizes 1000,100000] [--rounds 40]
        [--versions 200000] [--case writes|versions|all]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from memdir.api import Memdir
from memdir.model import Scope
from memdir.storage.store_apply import FileChange
from scale import prepare

GOAL_S = 1.0  # history, why and the page of a memory with 200,000 versions


def open_pair(n: int, stack: contextlib.ExitStack) -> tuple[Memdir, Memdir]:
    """A project of ``n`` memories (``scale.prepare``) opened with history on and off."""
    on = prepare(n, stack)
    off = Memdir.open(on.layout.project_root, home=on.layout.home, history=False)
    for mem in (on, off):  # counts the files, opens the key table and the history once
        mem.write(name=f"warm {id(mem)}", description="d", type="project", body="warm")
    return on, off


def history_bytes(mem: Memdir) -> int:
    """Bytes the history's pages hold (free pages aside), after a checkpoint."""
    history = mem.history_db
    assert history is not None
    conn = history._conn()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    return int((pages - free) * size)


def record_alone(mem: Memdir, rounds: int) -> float:
    """p50 (ms) of recording one update's version by itself: no file write, no fsync noise."""
    history = mem.history_db
    assert history is not None
    times = []
    for i in range(rounds):
        before = f"---\nname: x\n---\nversion {i} of a memory body\n".encode() * 8
        after = f"---\nname: x\n---\nversion {i + 1} of a memory body\n".encode() * 8
        begin = time.perf_counter()
        history.record(
            FileChange(
                scope=Scope.PRIVATE,
                file="x.md",
                action="update",
                name="x",
                before=before,
                after=after,
            )
        )
        times.append((time.perf_counter() - begin) * 1000)
    return statistics.median(times)


def fill_versions(mem: Memdir, count: int) -> str:
    """One memory with ``count`` versions; returns its file."""
    history = mem.history_db
    assert history is not None
    first = mem.write(name="Busy", description="changed very often", type="project", body="v0")
    file = first.record.file
    previous = (mem.layout.memory_dir / file).read_bytes()
    with history._transaction():  # one transaction: the records join it
        for i in range(count):
            text = f"---\nname: Busy\ndescription: changed very often\ntype: project\n---\nv{i}\n"
            after = text.encode()
            history.record(FileChange(
                scope=Scope.PRIVATE, file=file, action="update", name="Busy", before=previous,
                after=after,
            ))  # fmt: skip
            previous = after
    mem.write(name="Busy", description="changed very often", type="project", body="last")
    return file


def timed(action: Callable[[], object], rounds: int) -> float:
    """p50 seconds of ``action`` over ``rounds`` runs, after one warm-up."""
    action()
    times = []
    for _ in range(rounds):
        begin = time.perf_counter()
        action()
        times.append(time.perf_counter() - begin)
    return statistics.median(times)


def page_time(mem: Memdir, file: str, rounds: int) -> float:
    """p50 seconds of the memory's page, through the app (guard and templates included)."""
    import anyio
    import httpx2

    from memdir.ui.app import create_app

    app = create_app(mem, token="bench", port=8766)
    times: list[float] = []

    async def go() -> None:
        async with httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app),
            base_url="http://127.0.0.1:8766",
            headers={"Authorization": "Bearer bench"},
        ) as client:
            for n in range(rounds + 1):
                begin = time.perf_counter()
                response = await client.get(f"/memories/private/{file}")
                if response.status_code != 200:
                    raise SystemExit(f"the page answered {response.status_code}")
                if n:  # the first opens the catalog
                    times.append(time.perf_counter() - begin)

    anyio.run(go)
    return statistics.median(times)


def versions_case(count: int, rounds: int) -> None:
    from click.testing import CliRunner

    from memdir.cli import main as cli

    with tempfile.TemporaryDirectory(prefix="memdir-versions-") as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        mem = Memdir.open(project, home=Path(tmp) / "home")
        begin = time.perf_counter()
        file = fill_versions(mem, count)
        print(f"{count:,} versions of one memory recorded in {time.perf_counter() - begin:.1f}s")
        os.environ["MEMDIR_HOME"] = str(Path(tmp) / "home")

        def command(*args: str) -> Callable[[], object]:
            def run() -> object:
                result = CliRunner().invoke(cli, [*args, "Busy", "--project", str(project)])
                if result.exit_code != 0:
                    raise SystemExit(f"memdir {args[0]}: {result.output}")
                return result

            return run

        results = {
            "memdir history NAME": timed(command("history"), rounds),
            "memdir why NAME": timed(command("why"), rounds),
            "the memory's page": page_time(mem, file, rounds),
        }
        every = timed(lambda: mem.history("Busy"), max(rounds // 2, 1))
    for label, seconds in results.items():
        verdict = "met" if seconds <= GOAL_S else "MISSED"
        print(f"{label:<28}{seconds * 1000:>10.1f}ms  (<= {GOAL_S:g}s: {verdict})")
    print(f"{'reading every version':<28}{every * 1000:>10.1f}ms  (what they did before)")
    ratio = every / results["memdir history NAME"]
    print(f"every version / one page of `memdir history`: {ratio:.0f}x")


def writes_case(sizes: list[int], rounds: int) -> None:
    samples: dict[tuple[int, str, str], list[float]] = {}
    with contextlib.ExitStack() as stack:
        pairs = {n: open_pair(n, stack) for n in sizes}
        start_bytes = {n: history_bytes(pair[0]) for n, pair in pairs.items()}
        start_versions = {n: len(pair[0].history_db.versions()) for n, pair in pairs.items()}  # type: ignore[union-attr]
        for i in range(rounds):
            for n, (on, off) in pairs.items():
                for label, mem in (("on", on), ("off", off)):
                    body = f"round {i} of the {label} writer, a few words of body text\n" * 4
                    for kind, name in (("new", f"{label} new {i}"), ("update", f"{label} same")):
                        begin = time.perf_counter()
                        mem.write(name=name, description="d", type="project", body=body)
                        elapsed = time.perf_counter() - begin
                        samples.setdefault((n, label, kind), []).append(elapsed * 1000)
        grown = {n: history_bytes(pair[0]) - start_bytes[n] for n, pair in pairs.items()}
        versions = {
            n: len(pair[0].history_db.versions()) - start_versions[n]  # type: ignore[union-attr]
            for n, pair in pairs.items()
        }
        alone = {n: record_alone(pair[0], rounds) for n, pair in pairs.items()}
    p50 = {key: statistics.median(values) for key, values in samples.items()}
    print(f"{'':28}" + "".join(f"{n:>12,}" for n in sizes))
    for kind in ("new", "update"):
        for label in ("on", "off"):
            row = "".join(f"{p50[(n, label, kind)]:>10.2f}ms" for n in sizes)
            print(f"{kind + ' write, history ' + label:28}{row}")
        cost = "".join(f"{p50[(n, 'on', kind)] - p50[(n, 'off', kind)]:>10.2f}ms" for n in sizes)
        print(f"{'history cost, ' + kind:28}{cost}")
    print(f"{'recording a version alone':28}" + "".join(f"{alone[n]:>10.2f}ms" for n in sizes))
    print(f"{'bytes per version':28}" + "".join(f"{grown[n] / versions[n]:>12,.0f}" for n in sizes))
    small, large = sizes[0], sizes[-1]
    for kind in ("new", "update"):
        ratio = p50[(large, "on", kind)] / p50[(small, "on", kind)]
        verdict = "met" if ratio <= 2 else "MISSED"
        print(f"{kind} write at {large:,} / {small:,}, history on: {ratio:.2f}x (<= 2x: {verdict})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,100000")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--versions", type=int, default=200_000)
    parser.add_argument("--case", choices=("writes", "versions", "all"), default="all")
    args = parser.parse_args()
    if args.case in ("writes", "all"):
        writes_case([int(s) for s in args.sizes.split(",")], args.rounds)
    if args.case in ("versions", "all"):
        versions_case(args.versions, min(args.rounds, 10))


if __name__ == "__main__":
    main()
