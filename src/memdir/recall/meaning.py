"""Recall by meaning: which memories stand out as near a prompt, words shared or not.

A prompt often says what a memory says in other words ("who is on call this
week?" for *On-call rotation*, "times an hour off for users in Berlin" for
*Timestamps are stored in UTC*): no lexical rule can bring those. With an
embedding model, every memory (its description and body) and the prompt are
vectors, and their cosine says how near they are in meaning.

A small sentence model's cosines are low and crowded: a paraphrase that fits
may score 0.35 while an unrelated memory scores 0.3 in a store of similar
notes. So a memory is near when it **stands out** from the rest of the store
for this prompt, not when it passes one absolute number: its cosine's distance
from the prompt's mean cosine over the other memories, in standard deviations,
must reach ``min_standout`` (and the cosine itself ``min_cosine``). A small
store gives a poor mean and spread, so both are drawn towards what unrelated
text scores (``prior_mean``, ``prior_spread``) as if ``prior_weight`` unrelated
memories were there too.

Words still count: a memory the relevance floor admits on shared words is
kept when its cosine reaches ``word_veto`` (a shared word is not enough when
the meanings are far apart: "sort this list of numbers" shares nothing that
matters with *Python 3.12 is the floor*), and it ranks ``word_bonus`` above
its cosine. :func:`choose` applies both rules; :mod:`memdir.recall.relevant`
calls it when the caller hands recall an embedding model.

The defaults were chosen on the four labelled stores of
``benchmarks/recall_eval.py`` pooled (the best mean of precision and recall
keeping 90 % of the prompts no memory serves silent); that script reports each
store with the setting chosen on the other three.
"""

from __future__ import annotations

import math
import threading

from memdir.utils.records import record

TYPE_CHECKING = False  # not typing's: recall runs before every prompt
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

    from memdir.search.vectors.embeddings import Embedder

__all__ = ["MeaningFloor", "choose", "standout", "warm_embedder"]

_EMBEDDERS: dict[str, Embedder | None] = {}
_MADE = threading.Lock()


@record
class MeaningFloor:
    """When a memory is near enough a prompt in meaning (see the module docstring)."""

    min_cosine: float = 0.4
    min_standout: float = 4.0
    word_veto: float = 0.3
    word_bonus: float = 0.1
    prior_mean: float = 0.06
    prior_spread: float = 0.08
    prior_weight: float = 20.0


def standout(cosines: Mapping[str, float], floor: MeaningFloor) -> dict[str, float]:
    """Each memory's cosine in standard deviations above the rest of the store's.

    The mean and spread a memory is measured against are those of the *other*
    memories (so one near memory does not raise the bar it must clear), drawn
    towards the floor's prior as if ``prior_weight`` memories of unrelated text
    were there too.
    """
    n = len(cosines)
    k = floor.prior_weight
    total = sum(cosines.values()) + k * floor.prior_mean
    squares = sum(c * c for c in cosines.values())
    squares += k * (floor.prior_spread**2 + floor.prior_mean**2)
    out = {}
    for ref, cosine in cosines.items():
        count = n - 1 + k
        mean = (total - cosine) / count
        variance = max((squares - cosine * cosine) / count - mean * mean, 1e-12)
        out[ref] = (cosine - mean) / math.sqrt(variance)
    return out


def choose(
    cosines: Mapping[str, float], words: Collection[str], floor: MeaningFloor
) -> list[tuple[str, float]]:
    """The memories to offer, nearest first, with the score that orders them.

    ``cosines`` holds every memory the prompt may get that has a vector (ref ->
    cosine); ``words`` the refs the relevance floor admits on shared words, kept
    on their words alone where they have no vector yet.
    """
    above = standout(cosines, floor)
    chosen = []
    for ref, cosine in cosines.items():
        if ref in words and cosine >= floor.word_veto:
            chosen.append((ref, cosine + floor.word_bonus))
        elif cosine >= floor.min_cosine and above[ref] >= floor.min_standout:
            chosen.append((ref, cosine))
    # A memory not embedded yet is judged by its words alone.
    chosen += [(ref, floor.word_bonus) for ref in words if ref not in cosines]
    return sorted(chosen, key=lambda pair: (-pair[1], pair[0]))


def warm_embedder(ref: str | None) -> Embedder | None:
    """The embedding model the ``search_embeddings`` setting ``ref`` names, made once per
    process: a process that answers many prompts (the hook server) loads it once."""
    key = ref or ""
    with _MADE:
        if key not in _EMBEDDERS:
            from memdir.search.vectors.embeddings import local_embedder

            _EMBEDDERS[key] = local_embedder(ref)
        return _EMBEDDERS[key]
