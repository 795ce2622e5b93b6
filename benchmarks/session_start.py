"""What a session start hands the agent, for stores of the sizes people have.

For each store of ``benchmarks/data/recall/`` (a coding project, a personal
assistant, an ops team, a mobile app) the first ``--sizes`` memories are written
through the API into a fresh project, and the SessionStart hook's context is built
as the hook builds it (default profile, no hook server). Printed per store and
size: the context's length, how many of the index's entries it names, how many
index lines show a shorter hook, and what share of the index's hook text is shown;
then the same with ``start_context_chars = 0`` (the hook's limit alone).

    .venv/bin/python benchmarks/session_start.py [--sizes 10,25,50,100]

One run (2026-12-06), aim 6,000 / limit 10,000 (in brackets: no aim, the limit alone):

    store        size   chars (no aim)    named     shortened   hook text shown
    assistant      10    4,750 (4,750)    10/10       0        100%
    assistant      25    5,758 (6,866)    25/25      25        52%
    billing        25    5,765 (6,945)    25/25      25        48%
    mobile         25    5,785 (6,978)    25/25      25        48%
    sre            25    5,989 (7,097)    25/25      25        53%

At 25 memories the guidance takes about 3,300 characters and each index line keeps
its link and the first half of its description, cut at a word.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from memdir.api import Memdir
from memdir.hooks.payload import HookInput
from memdir.hooks.session_start import session_context
from memdir.recall.context_budget import text_length
from memdir.storage.memory_index import parse_entries

STORES = Path(__file__).resolve().parent / "data" / "recall"


def measure(memories: list[dict[str, Any]], aim: int | None) -> dict[str, Any]:
    """The session start's context for ``memories`` in a fresh project, summed up."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        env = {**os.environ, "MEMDIR_HOME": str(root / "home"), "MEMDIR_HOOK_SERVER": "0"}
        if aim is not None:
            config = root / "config.toml"
            config.write_text(f"start_context_chars = {aim}\n")
            env["MEMDIR_CONFIG"] = str(config)
        mem = Memdir.open(project, env=env, home=root / "home")
        for memory in memories:
            mem.write(
                name=memory["name"],
                description=memory["description"],
                type=memory["type"],
                body=memory["body"],
            )
        context = session_context(
            HookInput(cwd=str(project), session_id="s-1", source="startup"), env=env
        )
        index = {
            e.file: e
            for e in parse_entries(mem.layout.memory_dir.joinpath("MEMORY.md").read_text())
        }
    shown = parse_entries(context or "")
    full = sum(len(entry.hook) for entry in index.values())
    kept = sum(len(entry.hook.removesuffix("…")) for entry in shown)
    return {
        "chars": text_length(context or ""),
        "named": len(shown),
        "entries": len(index),
        "shortened": sum(1 for entry in shown if entry.hook != index[entry.file].hook),
        "hook_share": kept / full if full else 1.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="25", help="memories per store, comma-separated")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    print("store        size   chars (no aim)    named     shortened   hook text shown")
    for folder in sorted(path for path in STORES.iterdir() if path.is_dir()):
        memories = json.loads((folder / "memories.json").read_text("utf-8"))["memories"]
        for size in sizes:
            if size > len(memories):
                continue
            aimed, whole = measure(memories[:size], None), measure(memories[:size], 0)
            if args.json:
                print(json.dumps({"store": folder.name, "size": size, "aim": aimed, "none": whole}))
                continue
            print(
                f"{folder.name:<12} {size:>4}   {aimed['chars']:>6,} ({whole['chars']:,})"
                f"   {aimed['named']:>3}/{aimed['entries']:<3}   {aimed['shortened']:>4}"
                f"        {aimed['hook_share']:.0%}"
            )


if __name__ == "__main__":
    main()
