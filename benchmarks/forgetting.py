"""Forgetting: the tombstone check's cost, its false holds, and paraphrases it catches.

An agent's write is checked against every tombstone of its scope
(:meth:`memdir.history.project.ProjectMemory.relearns`, which calls
:func:`memdir.history.tombstones.match`) and held for review when it matches
one. Three measurements:

- cost: the time of one ``relearns`` check of an unrelated memory against 0,
  200 and 1,000 private tombstones (terms only: the project is opened with
  ``search_embeddings="off"``), the mean of ``--repeat`` checks after a warm-up;
- false holds: each memory of the recall corpora (``benchmarks/data/recall/*``)
  is forgotten in turn, and every *other* memory of its corpus is matched
  against its tombstone alone; a match is a write that would be held for
  nothing. Each memory matches its own tombstone (checked);
- paraphrases: a few forgotten facts (:data:`PARAPHRASES`), each with two
  rewordings written for this script before it was first run, not tuned to any
  floor. For each rewording: whether it matches by terms, its cosine to the
  tombstone's stored (quantised) vector, and whether :func:`match` holds it.

``--meaning`` gives the tombstones vectors of the embeddings extra's bundled
model and matches by meaning too (cosine from
:data:`memdir.history.tombstones.MEANING_FLOOR`); without it matching is by
terms alone and the paraphrases show no cosine. The script prints one summary
at the end; nothing is written to disk but temporary folders.

    .venv/bin/python benchmarks/forgetting.py [--meaning] [--repeat N] [--show]
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import tempfile
import time
from array import array
from collections.abc import Sequence
from pathlib import Path

from memdir.api import Memdir
from memdir.history.tombstones import (
    MEANING_FLOOR,
    Embeds,
    Tombstone,
    match,
    meaning_text,
    tombstone_of,
)
from memdir.model import Memory, MemoryType, Scope

CORPORA = Path(__file__).parent / "data" / "recall"
TOMBSTONE_COUNTS = (0, 200, 1000)


def _memory(name: str, description: str, body: str) -> Memory:
    return Memory(name=name, description=description, type=MemoryType.PROJECT, body=body)


# Each: the forgotten memory, then two rewordings of the same fact.
PARAPHRASES: tuple[tuple[Memory, Memory, Memory], ...] = (
    (
        _memory(
            "Staging database password rotation",
            "The staging Postgres password is rotated every Monday by the ops cron job",
            "Rotation runs at 06:00 UTC; services pick up the new secret from Vault within "
            "ten minutes.\n\n**How to apply:** if staging connections fail early Monday, wait "
            "for the Vault refresh before filing a bug.",
        ),
        _memory(
            "Weekly credential change for the pre-production DB",
            "At the start of each week a scheduled ops task swaps the credentials of the "
            "test-environment database",
            "Apps reload the fresh credential from the secrets store shortly after. Connection "
            "errors early in the week usually clear on their own.",
        ),
        _memory(
            "Staging DB login changes on Mondays",
            "Ops automation sets a new password for the staging database each Monday morning",
            "Expect brief auth failures until services fetch it from Vault; don't report them "
            "as bugs.",
        ),
    ),
    (
        _memory(
            "No closing summaries",
            "The user wants answers without a closing summary of what was just done",
            "They said trailing recaps waste their time; end with the result or the next question.",
        ),
        _memory(
            "No recap at the end",
            "Skip wrapping up responses by restating the changes; the person finds it a waste",
            "Finish on the outcome itself.",
        ),
        _memory(
            "Keep endings short",
            "Don't close a reply by going over the work again: the user reads the diff",
            "Stop once the answer is given.",
        ),
    ),
    (
        _memory(
            "Payments service owner",
            "The payments service is owned by the Checkout team; Dana Ortiz is its tech lead",
            "Page #checkout-oncall for incidents; design changes go through Dana.",
        ),
        _memory(
            "Who runs payments",
            "Dana Ortiz leads the group responsible for charging customers (Checkout)",
            "Incidents go to the checkout on-call channel.",
        ),
        _memory(
            "Payments escalation",
            "Questions about billing customers' cards go to the Checkout engineers, led by Dana",
            "Reach their on-call rotation when something breaks.",
        ),
    ),
    (
        _memory(
            "Friday deploy freeze",
            "No production deploys after noon on Fridays",
            "A bad Friday release in March cost a weekend of on-call. Merge freely, but hold "
            "the deploy until Monday.",
        ),
        _memory(
            "End-of-week release freeze",
            "Shipping to prod is off limits on Friday afternoons",
            "After a painful weekend incident, releases wait for the next week; merging is "
            "still fine.",
        ),
        _memory(
            "When not to ship",
            "Don't push releases live late in the week, from Friday midday on",
            "Land the code, roll it out on Monday.",
        ),
    ),
    (
        _memory(
            "Flaky checkout timeout test",
            "test_checkout_timeout fails intermittently on CI because of a hard-coded 2 s timeout",
            "Re-run the job once before investigating; the fix (raise the timeout, use a fake "
            "clock) is tracked separately.",
        ),
        _memory(
            "Checkout timeout test is unreliable",
            "The CI run sometimes goes red on that test; the fixed two-second limit is too tight",
            "Retry the pipeline once first.",
        ),
        _memory(
            "Known intermittent CI failure",
            "A test in the checkout suite randomly runs out of time on the build server",
            "It's a known issue with a short wait limit; rerun before digging in.",
        ),
    ),
)


class CachedEmbedder:
    """An embedder that embeds each text once (false holds match every pair)."""

    def __init__(self, inner: Embeds) -> None:
        self.inner = inner
        self.name = inner.name
        self._vectors: dict[str, list[float]] = {}

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            self._vectors |= dict(zip(missing, self.inner.embed(missing), strict=True))
        return [self._vectors[t] for t in texts]


def bundled_embedder() -> CachedEmbedder:
    from memdir.search.vectors.embeddings import local_embedder

    embedder = local_embedder("auto")
    if embedder is None:
        raise SystemExit("--meaning needs the embeddings extra and its bundled model")
    return CachedEmbedder(embedder)


def forget(memory: Memory, file: str, embedder: Embeds | None) -> Tombstone:
    """The tombstone ``memory`` leaves, with a vector when ``embedder`` is given."""
    vector = embedder.embed([meaning_text(memory)])[0] if embedder else None
    return tombstone_of(
        memory,
        file=file,
        scope=Scope.PRIVATE,
        by=None,
        reason=None,
        vector=vector,
        model=embedder.name if embedder else None,
    )


def stored_cosine(tombstone: Tombstone, vector: Sequence[float]) -> float:
    """The cosine of ``vector`` to the tombstone's stored vector (one signed byte a dimension)."""
    stored = array("b", base64.b64decode(tombstone.vector or ""))
    dot = sum(a * b for a, b in zip(stored, vector, strict=True))
    norm = math.sqrt(sum(a * a for a in stored)) * math.sqrt(sum(b * b for b in vector))
    return dot / norm if norm else 0.0


# -- cost -----------------------------------------------------------------------------


def check_cost(repeat: int) -> list[tuple[int, float]]:
    """Microseconds per ``relearns`` check at each of :data:`TOMBSTONE_COUNTS`."""
    results = []
    with tempfile.TemporaryDirectory(prefix="memdir-bench-forgetting-") as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        mem = Memdir.open(project, home=Path(tmp) / "home", search_embeddings="off")
        probe = _memory("New note", "unrelated note on a subject", "delta epsilon " * 20)
        added = 0
        for count in TOMBSTONE_COUNTS:
            while added < count:
                gone = _memory(
                    f"Fact {added}",
                    f"topic{added} detail{added} service{added}",
                    f"alpha{added} beta{added} gamma{added}",
                )
                mem.forgotten[Scope.PRIVATE].add(forget(gone, f"f{added}.md", None))
                added += 1
            assert mem.relearns(probe) is None  # warm-up: reads the file once
            start = time.perf_counter()
            for _ in range(repeat):
                mem.relearns(probe)
            results.append((count, (time.perf_counter() - start) / repeat * 1e6))
    return results


# -- false holds ----------------------------------------------------------------------


def corpus_memories(folder: Path) -> list[Memory]:
    data = json.loads((folder / "memories.json").read_text(encoding="utf-8"))
    return [
        Memory(
            name=m["name"],
            description=m["description"],
            type=MemoryType(m["type"]),
            body=m["body"],
        )
        for m in data["memories"]
    ]


def false_holds(embedder: Embeds | None, show: bool) -> list[tuple[str, int, int, int]]:
    """Per corpus: its name, memories, pairs tried, and writes held by another's tombstone."""
    results = []
    for folder in sorted(p for p in CORPORA.iterdir() if p.is_dir()):
        memories = corpus_memories(folder)
        stones = [forget(m, f"{i}.md", embedder) for i, m in enumerate(memories)]
        pairs = held = 0
        for i, stone in enumerate(stones):
            assert match([stone], memories[i], embedder=embedder) is stone, memories[i].name
            for j, other in enumerate(memories):
                if j == i:
                    continue
                pairs += 1
                if match([stone], other, embedder=embedder) is not None:
                    held += 1
                    if show:
                        print(f"  {folder.name}: forgetting {stone.name!r} holds {other.name!r}")
                        if embedder is not None and stone.vector:
                            (vector,) = embedder.embed([meaning_text(other)])
                            print(f"    cosine {stored_cosine(stone, vector):.2f}")
        results.append((folder.name, len(memories), pairs, held))
    return results


# -- paraphrases ----------------------------------------------------------------------


def paraphrases(embedder: Embeds | None) -> list[tuple[str, str, bool, float | None, bool]]:
    """Per rewording: the forgotten name, its name, terms match, cosine, held by match."""
    results = []
    for i, (gone, *rewordings) in enumerate(PARAPHRASES):
        stone = forget(gone, f"p{i}.md", embedder)
        for reworded in rewordings:
            by_terms = match([stone], reworded) is not None
            cosine = None
            if embedder is not None:
                (vector,) = embedder.embed([meaning_text(reworded)])
                cosine = stored_cosine(stone, vector)
            held = match([stone], reworded, embedder=embedder) is not None
            results.append((gone.name, reworded.name, by_terms, cosine, held))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--meaning", action="store_true", help="match by meaning too")
    parser.add_argument("--repeat", type=int, default=500, help="checks timed per count")
    parser.add_argument("--show", action="store_true", help="print each false hold")
    args = parser.parse_args()
    embedder = bundled_embedder() if args.meaning else None
    mode = f"terms + meaning ({embedder.name}, floor {MEANING_FLOOR})" if embedder else "terms"

    print(f"matching by {mode}")
    cost = check_cost(args.repeat)
    holds = false_holds(embedder, args.show)
    reworded = paraphrases(embedder)

    print(f"\ncost of one ProjectMemory.relearns check (mean of {args.repeat}, terms only):")
    for count, micros in cost:
        print(f"  {count:5d} tombstones  {micros:9.0f} us")
    print("\nfalse holds (each memory forgotten in turn, the others of its corpus written):")
    for name, memories, pairs, held in holds:
        print(f"  {name:10} {memories:4d} memories  {held:3d} held of {pairs:5d} pairs")
    pairs = sum(h[2] for h in holds)
    held = sum(h[3] for h in holds)
    total = sum(h[1] for h in holds)
    print(f"  {'total':10} {total:4d} memories  {held:3d} held of {pairs:5d} pairs")
    print("\nparaphrases (rewordings of a forgotten memory):")
    for gone, name, by_terms, cosine, is_held in reworded:
        shown = f"{cosine:6.2f}" if cosine is not None else "     -"
        verdict = "held" if is_held else "missed"
        terms = "terms" if by_terms else "     "
        print(f"  {gone[:32]:32} <- {name[:40]:40} {terms} cos {shown}  {verdict}")
    caught = sum(1 for r in reworded if r[4])
    floor = sum(1 for r in reworded if r[3] is not None and r[3] >= MEANING_FLOOR)
    at_floor = f", {floor} at cosine >= {MEANING_FLOOR}" if embedder else ""
    print(
        f"\nsummary: check {cost[-1][1]:.0f} us at {cost[-1][0]} tombstones; "
        f"false holds {held}/{pairs} ({held / pairs:.2%}); "
        f"paraphrases held {caught}/{len(reworded)}{at_floor} ({mode})"
    )


if __name__ == "__main__":
    main()
