"""Train the learned screening model and say what it adds to the rules, on text it never saw.

The model (:mod:`memdir.screening.learned`) is logistic regression over hashed
words, word pairs and four-character runs. It is trained here on the shaped half
of ``benchmarks/data/poisoning/probes.json`` (even ids: attacks against look-alikes
and ordinary memories), leaving out the batches kept untuned (:data:`UNTUNED`:
written after the rules were last widened and scored once). Never on the
held-out half (odd ids).

Its threshold is chosen on the training pool alone: the highest score any benign
memory reached in five-fold cross-validation (each scored by a model that never
saw it). The weights are then quantised to one signed byte each and written to
``src/memdir/screening/learned.bin`` with ``--write``.

Printed (one run; training is deterministic: seed 0, fixed order of epochs):
cross-validation on the pool; then, for the untuned batches, the held-out half
and memdir's own corpora (recall stores, notes, the demo's memories), what the
rules hold, what the model holds at its threshold and what both together hold.

    .venv/bin/python benchmarks/screening_model.py [--write]

One run (numpy 2, this machine), pool of 1,230 probes (532 attacks, 698 benign;
every even id but batch 14). The threshold (4.48) is the highest cross-validated
score of a benign memory the model would read (no rule holds it as an order, it
does not talk about attacks); a note that talks about attacks is left to the rules.
Out of fold, of the 85 pool attacks the rules let by, the model holds 5. On the
untuned batch 14 (50 attacks, 50 ordinary memories, written blind, scored once
with this model already written): rules 14/50, model 4/50, both 16/50; ordinary
held 1/50 (by a rule; fixed by kind afterwards). Held-out half: rules 85/87, both
85/87, look-alikes 1/83 (a rule's). memdir's own corpora: 0/373 held by either.

The model adds a few attacks in wording no rule names, at no false hold on what it
was checked on; it does not close the gap. The model before this one (trained
without batches 11 and 12, threshold 3.62) held 8 of those 80 the rules missed.
Scoring costs about 0.14 ms for a memory of a few sentences, 3.7 ms for 7,600
characters (pure Python, one CRC a feature).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from memdir.model import Memory
from memdir.screening.context import talks_about_attacks
from memdir.screening.learned import BUCKETS, Model, features, model_path
from memdir.screening.screen import memory_fields, screen_memory

HERE = Path(__file__).resolve().parent
PROBES = HERE / "data" / "poisoning" / "probes.json"
LEARNED = "learned.aimed"  # the model's own finding: the rules are every other
UNTUNED = frozenset({14})  # batches scored once, after the last widening: never trained on
EPOCHS = 30
RATE = 0.5
DECAY = 1e-5
FOLDS = 5


def probe_memory(probe: dict[str, Any]) -> Memory:
    extra = probe.get("extra") or {}
    return Memory(
        name=probe.get("name", ""),
        description=probe.get("description", ""),
        type=None,
        body=probe.get("body", ""),
        extra=extra,
    )


def joined(memory: Memory) -> str:
    """The text screening reads: the fields joined in a reader's order."""
    return "\n".join(text for _, text in memory_fields(memory))


def train(rows: list[NDArray[np.int64]], labels: NDArray[np.float64]) -> tuple[NDArray[Any], float]:
    """Logistic regression by stochastic gradient descent; the score of a row is its
    weights' sum over the square root of its length, plus the bias."""
    weights = np.zeros(BUCKETS)
    bias = 0.0
    order = np.arange(len(rows))
    rng = np.random.default_rng(0)
    for _ in range(EPOCHS):
        rng.shuffle(order)
        for i in order:
            row = rows[i]
            norm = 1 / np.sqrt(len(row))
            z = weights[row].sum() * norm + bias
            gradient = 1 / (1 + np.exp(-z)) - labels[i]
            weights[row] -= RATE * (gradient * norm + DECAY * weights[row])
            bias -= RATE * gradient * 0.1
    return weights, bias


def scores(weights: NDArray[Any], bias: float, rows: list[NDArray[np.int64]]) -> NDArray[Any]:
    return np.array([weights[r].sum() / np.sqrt(len(r)) + bias for r in rows])


def out_of_fold(rows: list[NDArray[np.int64]], labels: NDArray[np.float64]) -> NDArray[Any]:
    folds = np.random.default_rng(1).integers(0, FOLDS, len(rows))
    found = np.zeros(len(rows))
    for k in range(FOLDS):
        inside = [i for i in range(len(rows)) if folds[i] != k]
        outside = [i for i in range(len(rows)) if folds[i] == k]
        weights, bias = train([rows[i] for i in inside], labels[inside])
        found[outside] = scores(weights, bias, [rows[i] for i in outside])
    return found


def _model_reads(memory: Memory) -> bool:
    """Whether screening would hand ``memory`` to the model: no rule holds it as an
    instruction, and it does not talk about attacks."""
    ruled = any(f.rule != LEARNED and f.kind.value == "instruction" for f in screen_memory(memory))
    return not ruled and not talks_about_attacks(joined(memory))


def quantised(weights: NDArray[Any], bias: float, threshold: float) -> Model:
    scale = float(np.abs(weights).max()) / 127 or 1.0
    packed = np.clip(np.round(weights / scale), -127, 127).astype(np.int8).tobytes()
    return Model(packed, bias=bias, scale=scale, threshold=threshold)


def report(name: str, model: Model, items: list[Memory], attack: list[bool]) -> None:
    ruled = [any(f.rule != LEARNED for f in screen_memory(m)) for m in items]
    learned = [not talks_about_attacks(joined(m)) and model.holds(joined(m)) for m in items]
    both = [r or m for r, m in zip(ruled, learned, strict=True)]
    for label, wanted in (("attacks", True), ("benign", False)):
        picked = [i for i, a in enumerate(attack) if a is wanted]
        if not picked:
            continue
        count = len(picked)
        line = (
            f"  {label}: rules {sum(ruled[i] for i in picked)}/{count}, "
            f"model {sum(learned[i] for i in picked)}/{count}, "
            f"both {sum(both[i] for i in picked)}/{count}"
        )
        print(f"{name}{line}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="write the model file")
    args = parser.parse_args(argv)
    probes = json.loads(PROBES.read_text("utf-8"))["probes"]
    even = [p for p in probes if int(p["id"][1:]) % 2 == 0]
    pool = [p for p in even if p.get("batch") not in UNTUNED]
    rows = [np.array(features(joined(probe_memory(p)))) for p in pool]
    labels = np.array([p["id"][0] == "a" for p in pool], dtype=float)
    oof = out_of_fold(rows, labels)
    # The model reads only what the rules let by and what does not talk about attacks:
    # the benign memories it would read set its threshold.
    read = np.array([_model_reads(probe_memory(p)) for p in pool])
    threshold = float(oof[(labels == 0) & read].max())
    held = int((oof[(labels == 1) & read] > threshold).sum())
    print(f"pool: {int(labels.sum())} attacks, {int((1 - labels).sum())} benign")
    print(f"cross-validation at the threshold {threshold:.3f}: {held} attacks held out of fold")
    weights, bias = train(rows, labels)
    model = quantised(weights, bias, threshold)
    untuned = [p for p in even if p.get("batch") in UNTUNED]
    odd = [p for p in probes if int(p["id"][1:]) % 2 == 1]
    for name, chosen in (("untuned batches", untuned), ("held-out half", odd)):
        report(name, model, [probe_memory(p) for p in chosen], [p["id"][0] == "a" for p in chosen])
    sys.path.insert(0, str(HERE))
    from poisoning import corpus

    own = [
        Memory(name=m["name"], description=m["description"], type=None, body=m.get("body", ""))
        for m in corpus()
    ]
    report("memdir's own corpora", model, own, [False] * len(own))
    if args.write:
        model_path().write_bytes(model.to_bytes())
        print(f"wrote {model_path()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
