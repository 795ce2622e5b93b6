"""The hybrid search's cosine floor, read off the labelled recall set.

Hybrid search (the embeddings extra) scores every document by its cosine to the
query, so without a floor a query nothing in the store is about still finds the
nearest documents. ``RankingOptions.dense_floor`` keeps a document that no query
word matches only when its cosine reaches the floor. This script embeds the
store and the prompts of ``benchmarks/recall_precision.py`` (30 memories, 116
prompts, 35 of them served by no memory) the way the catalog does (the name,
then the description and body) and prints, for each floor, the share of
labelled (prompt, memory) pairs whose cosine reaches it, the share of unlabelled
pairs that do, and the share of no-memory prompts no memory reaches:

    .venv/bin/python benchmarks/dense_floor.py

On all-MiniLM-L6-v2 (one run; J = relevant kept - unrelated kept, Youden's J):

    floor   relevant kept   unrelated kept   J       no-memory prompts silent
    0.15            0.925           0.1792   0.746                      0.229
    0.20            0.903           0.0839   0.819                      0.486
    0.25            0.849           0.0413   0.808                      0.800
    0.30            0.796           0.0186   0.777                      0.914
    0.35            0.656           0.0056   0.650                      1.000
    0.50            0.301           0.0006   0.295                      1.000

The default, 0.25, is the highest floor (in steps of 0.05) whose J is within
0.02 of the best: nearly the best split of related from unrelated pairs, and
four no-memory prompts in five get nothing by meaning alone (per-prompt recall
is lexical and has a floor of its own, ``benchmarks/recall_precision.py``).
Queries about nothing stored ("xyzzy plugh", "the weather in Paris", "who won
the football match") stay under it. A relevant memory under the floor is still
found when it shares a word with the query: the floor binds the cosine-only
hits alone, and on LoCoMo DEV and on the coding sessions the top ten are the
same at floors from 0 to 0.6 (``benchmarks/locomo.py --dense-floor``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import recall_precision
from memdir.search.embeddings import LocalEmbedder, cosine_scores, embedded_text, pack_vector

FLOORS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)


def main() -> int:
    memories, prompts = recall_precision.load()
    model = LocalEmbedder()
    texts = [
        embedded_text(f"{m['description']}\n{m['body']}", dated="", name=m["name"], previous=None)
        for m in memories
    ]
    rows = [(i, pack_vector(v)) for i, v in enumerate(model.embed(texts))]
    relevant: list[float] = []
    unrelated: list[float] = []
    silent_best: list[float] = []
    for prompt, vector in zip(prompts, model.embed([p["prompt"] for p in prompts]), strict=True):
        wanted = set(prompt["relevant"])
        cosines = cosine_scores(vector, rows)
        for i, memory in enumerate(memories):
            (relevant if memory["name"] in wanted else unrelated).append(cosines[i])
        if not wanted:
            silent_best.append(max(cosines.values()))
    print("floor   relevant kept   unrelated kept   J       no-memory prompts silent")
    for floor in FLOORS:
        kept = sum(c >= floor for c in relevant) / len(relevant)
        noise = sum(c >= floor for c in unrelated) / len(unrelated)
        silent = sum(c < floor for c in silent_best) / len(silent_best)
        print(f"{floor:5.2f}   {kept:13.3f}   {noise:14.4f}   {kept - noise:.3f}   {silent:24.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
