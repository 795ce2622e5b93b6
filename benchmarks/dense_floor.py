"""The hybrid search's cosine floor, and what of a memory is embedded, read off the recall set.

Hybrid search (the embeddings extra) scores every document by its cosine to the
query, so without a floor a query nothing in the store is about still finds the
nearest documents. ``RankingOptions.dense_floor`` keeps a document that no query
word matches only when its cosine reaches the floor. This script writes the store
of ``benchmarks/recall_precision.py`` (30 memories; 116 prompts, 35 of them served
by no memory) into a fresh project, embeds it through the catalog (the vectors a
hybrid search uses) and prints, for each floor, the share of labelled (prompt,
memory) pairs whose cosine reaches it, the share of unlabelled pairs that do, and
the share of no-memory prompts no memory reaches. ``--shapes`` then compares,
at the default floor, what of a memory is embedded, on the four labelled stores
of ``benchmarks/recall_eval.py`` (the same model, the same pairs):

    .venv/bin/python benchmarks/dense_floor.py [--shapes]

A memory is embedded as a prompt meets it, from its description and body
(``memory_text``). It was embedded as a transcript turn is, with its date as
words and its name and file name's words first. On all-MiniLM-L6-v2 (one run,
``--shapes``; AUC: the chance that a labelled pair's cosine beats an unlabelled
one's; recall@5: a served prompt's labelled memories among its five nearest):

    store     shape                          AUC     recall@5  at 0.3: relevant  unrelated  silent
    all four  date, name, file name, text    0.9109  0.823              0.531      0.0244   0.800
    (480      name, description, body        0.9175  0.826              0.562      0.0236   0.763
    prompts)  description, body (now)        0.9166  0.825              0.567      0.0241   0.748
              description                    0.8976  0.778              0.487      0.0214   0.770
    billing   date, name, file name, text    0.9591  0.907              0.763      0.0180   0.914
              name, description, body        0.9600  0.914              0.796      0.0186   0.914
              description, body (now)        0.9570  0.914              0.796      0.0192   0.886

The date words and the file name's words cost labelled pairs (3 to 4 points of
them at the floor, AUC 0.006) and only look quieter: every cosine is lower. The
name adds nothing the description and body do not say (AUC 0.9175 against
0.9166, recall@5 0.826 against 0.825) and is embedded only for a memory that has
no description. On billing, with description and body, the floors (one run):

    floor   relevant kept   unrelated kept   J       no-memory prompts silent
    0.20            0.882           0.0871   0.795                      0.600
    0.25            0.849           0.0428   0.807                      0.771
    0.30            0.796           0.0192   0.777                      0.886
    0.35            0.656           0.0062   0.650                      0.971
    0.40            0.570           0.0032   0.567                      1.000

The default stays 0.3. It was chosen on billing, on the embedding before (date
words and names), as the lowest floor in steps of 0.05 at which 90 % of the
no-memory prompts get nothing by their meaning alone (0.914 then, 1.8 % of
unrelated pairs through; lower floors let 4 to 8 % through). On description and
body it keeps 31 of the 35 silent (0.886, one prompt under that bar) and 3.3
points more of the labelled pairs; 0.35 would keep 34 silent and lose a sixth of
the labelled pairs (0.656). Queries about nothing stored ("xyzzy plugh", "the
weather in Paris", "who won the football match") stay under it. A relevant memory
under the floor is still found when it shares a word with the query: the floor
binds the cosine-only hits alone, and on LoCoMo DEV and on the coding sessions the
top ten are the same at floors from 0 to 0.6 (``benchmarks/locomo.py
--dense-floor``).
"""

from __future__ import annotations

import argparse
import bisect
import datetime as dt
import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import recall_precision
from memdir.api import Memdir
from memdir.search.catalog import Catalog
from memdir.search.document import date_words
from memdir.search.vectors.embeddings import LocalEmbedder, cosine_scores, pack_vector

FLOORS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
FLOOR = 0.3
SAVED = dt.date(2025, 1, 20)  # the date recall_precision.write_store gives every memory

Memory = dict[str, Any]
SHAPES: dict[str, Callable[[Memory], str]] = {
    "date, name, file name, text": lambda m: (
        f"[{date_words(SAVED)}] {m['name']} {m['name'].replace('-', ' ')}: "
        f"{m['description']}\n{m['body']}"
    ),
    "name, description, body": lambda m: f"{m['name']}: {m['description']}\n{m['body']}",
    "description, body (now)": lambda m: f"{m['description']}\n{m['body']}",
    "description": lambda m: m["description"],
}


def catalog_vectors(
    model: LocalEmbedder, memories: Sequence[Memory]
) -> tuple[list[tuple[int, bytes]], dict[int, str]]:
    """The memories' vectors as the catalog keeps them, and each row's memory name."""
    with tempfile.TemporaryDirectory(prefix="memdir-floor-") as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        mem = Memdir.open(project, home=Path(tmp) / "home", search_embeddings="off")
        names = recall_precision.write_store(mem, memories)
        with Catalog.open(mem.layout, embedder=model) as catalog:
            catalog.embed()
            conn = catalog.index.conn
            rows = conn.execute(
                "SELECT v.rowid, v.vec FROM vectors v JOIN docs d USING (rowid)"
                " WHERE d.kind = 'memory' AND v.model = ?",
                (catalog.index.vector_model,),
            ).fetchall()
            name_of = {
                rowid: names.get(ref, ref)
                for rowid, ref in conn.execute("SELECT rowid, id FROM docs WHERE kind = 'memory'")
            }
    return rows, name_of


def pairs(
    prompts: Sequence[Memory],
    vectors: Sequence[Sequence[float]],
    rows: list[tuple[int, bytes]],
    name_of: dict[int, str],
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Labelled and unlabelled cosines, no-memory prompts' best, each served prompt's
    share of its memories among its five nearest."""
    relevant: list[float] = []
    unrelated: list[float] = []
    silent_best: list[float] = []
    found: list[float] = []
    for prompt, vector in zip(prompts, vectors, strict=True):
        wanted = set(prompt["relevant"])
        cosines = cosine_scores(vector, rows)
        for rowid, cosine in cosines.items():
            (relevant if name_of[rowid] in wanted else unrelated).append(cosine)
        if not wanted:
            silent_best.append(max(cosines.values()))
            continue
        top = sorted(cosines, key=lambda r: -cosines[r])[:5]
        found.append(len({name_of[r] for r in top} & wanted) / len(wanted))
    return relevant, unrelated, silent_best, found


def kept(cosines: Sequence[float], floor: float) -> float:
    return sum(c >= floor for c in cosines) / len(cosines)


def auc(relevant: Sequence[float], unrelated: Sequence[float]) -> float:
    """The chance that a labelled pair's cosine beats an unlabelled one's (ties: half)."""
    ordered = sorted(unrelated)
    wins = sum(
        bisect.bisect_left(ordered, c)
        + 0.5 * (bisect.bisect_right(ordered, c) - bisect.bisect_left(ordered, c))
        for c in relevant
    )
    return wins / (len(relevant) * len(ordered))


def stores() -> dict[str, tuple[list[Memory], list[Memory]]]:
    """Every labelled store under ``benchmarks/data/recall/`` (see ``recall_eval.py``)."""
    out = {}
    for folder in sorted((Path(__file__).resolve().parent / "data" / "recall").iterdir()):
        memories = json.loads((folder / "memories.json").read_text(encoding="utf-8"))
        prompts = json.loads((folder / "prompts.json").read_text(encoding="utf-8"))
        out[folder.name] = (memories["memories"], prompts["prompts"])
    return out


def shapes(model: LocalEmbedder) -> None:
    """Each shape of embedded memory text, at the default floor, per store and pooled."""
    print(
        f"\n{'store':10s} {'shape':30s} {'AUC':>7s} {'recall@5':>9s}  at {FLOOR}: relevant"
        "  unrelated  silent"
    )
    pooled: dict[str, list[list[float]]] = {label: [[], [], [], []] for label in SHAPES}
    for store, (memories, prompts) in stores().items():
        vectors = model.embed([p["prompt"] for p in prompts])
        name_of = {i: m["name"] for i, m in enumerate(memories)}
        for label, shape in SHAPES.items():
            embedded = model.embed([shape(m) for m in memories])
            rows = [(i, pack_vector(v)) for i, v in enumerate(embedded)]
            relevant, unrelated, silent_best, found = pairs(prompts, vectors, rows, name_of)
            results = (relevant, unrelated, silent_best, found)
            for part, values in zip(pooled[label], results, strict=True):
                part.extend(values)
            _shape_line(store, label, relevant, unrelated, silent_best, found)
    for label, (relevant, unrelated, silent_best, found) in pooled.items():
        _shape_line("all", label, relevant, unrelated, silent_best, found)


def _shape_line(
    store: str,
    label: str,
    relevant: Sequence[float],
    unrelated: Sequence[float],
    silent_best: Sequence[float],
    found: Sequence[float],
) -> None:
    at5 = sum(found) / len(found)
    silent = 1 - kept(silent_best, FLOOR)
    print(
        f"{store:10s} {label:30s} {auc(relevant, unrelated):7.4f} {at5:9.3f}  "
        f"{kept(relevant, FLOOR):17.3f} {kept(unrelated, FLOOR):10.4f} {silent:7.3f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--shapes", action="store_true", help="compare what of a memory is embedded"
    )
    args = parser.parse_args()
    memories, prompts = recall_precision.load()
    model = LocalEmbedder()
    rows, name_of = catalog_vectors(model, memories)
    vectors = model.embed([p["prompt"] for p in prompts])
    relevant, unrelated, silent_best, _ = pairs(prompts, vectors, rows, name_of)
    print("floor   relevant kept   unrelated kept   J       no-memory prompts silent")
    for floor in FLOORS:
        share, noise = kept(relevant, floor), kept(unrelated, floor)
        silent = 1 - kept(silent_best, floor)
        print(
            f"{floor:5.2f}   {share:13.3f}   {noise:14.4f}   {share - noise:.3f}   {silent:24.3f}"
        )
    if args.shapes:
        shapes(model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
