"""The hybrid search's cosine floor, read off the labelled recall set.

Hybrid search (the embeddings extra) scores every document by its cosine to the
query, so without a floor a query nothing in the store is about still finds the
nearest documents. ``RankingOptions.dense_floor`` keeps a document that no query
word matches only when its cosine reaches the floor. This script writes the store
of ``benchmarks/recall_precision.py`` (30 memories; 116 prompts, 35 of them served
by no memory) into a fresh project, embeds it through the catalog (the vectors a
hybrid search uses: date words, name, description and body) and prints, for each
floor, the share of labelled (prompt, memory) pairs whose cosine reaches it, the
share of unlabelled pairs that do, and the share of no-memory prompts no memory
reaches:

    .venv/bin/python benchmarks/dense_floor.py

On all-MiniLM-L6-v2 (one run; J = relevant kept - unrelated kept, Youden's J):

    floor   relevant kept   unrelated kept   J       no-memory prompts silent
    0.20            0.903           0.0844   0.819                      0.657
    0.25            0.828           0.0393   0.789                      0.800
    0.30            0.763           0.0180   0.745                      0.914
    0.35            0.667           0.0053   0.661                      0.971
    0.40            0.527           0.0024   0.525                      1.000

The default, 0.3, is the lowest floor (in steps of 0.05) at which 90 % of the
no-memory prompts get nothing by their meaning alone: the bar the per-prompt
recall is held to, asked of search (recall itself stays lexical, with a floor of
its own that silences all of them). Lower floors split related from unrelated
pairs a little better (J peaks at 0.2) but let 4 to 8 % of the unrelated pairs
through; 0.3 lets 1.8 %, and higher floors lose a third or more of the related
pairs for the last few prompts. Queries about nothing stored ("xyzzy plugh", "the
weather in Paris", "who won the football match") stay under it. A relevant memory
under the floor is still found when it shares a word with the query: the floor
binds the cosine-only hits alone, and on LoCoMo DEV and on the coding sessions the
top ten are the same at floors from 0 to 0.6 (``benchmarks/locomo.py
--dense-floor``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import recall_precision
from memdir.api import Memdir
from memdir.search.catalog import Catalog
from memdir.search.embeddings import LocalEmbedder, cosine_scores

FLOORS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)


def main() -> int:
    memories, prompts = recall_precision.load()
    model = LocalEmbedder()
    with tempfile.TemporaryDirectory(prefix="memdir-floor-") as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        mem = Memdir.open(project, home=Path(tmp) / "home", search_embeddings="off")
        names = recall_precision.write_store(mem, memories)
        # The vectors the catalog keeps: each memory embedded as a hybrid search embeds it.
        with Catalog.open(mem.layout, embedder=model) as catalog:
            catalog.embed()
            conn = catalog.index.conn
            rows = conn.execute(
                "SELECT v.rowid, v.vec FROM vectors v JOIN docs d USING (rowid)"
                " WHERE d.kind = 'memory'"
            ).fetchall()
            name_of = {
                rowid: names.get(ref, ref)
                for rowid, ref in conn.execute("SELECT rowid, id FROM docs WHERE kind = 'memory'")
            }
    relevant: list[float] = []
    unrelated: list[float] = []
    silent_best: list[float] = []
    for prompt, vector in zip(prompts, model.embed([p["prompt"] for p in prompts]), strict=True):
        wanted = set(prompt["relevant"])
        cosines = cosine_scores(vector, rows)
        for rowid, cosine in cosines.items():
            (relevant if name_of[rowid] in wanted else unrelated).append(cosine)
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
