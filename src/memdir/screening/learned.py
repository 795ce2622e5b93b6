"""A learned second reader: a linear model of words and letter runs, for wording no rule names.

The rules (:mod:`memdir.screening.instructions`) hold an instruction aimed at the
agent by what it asks and whom it addresses, in the words they know; a phrasing
they were never widened for passes. This model reads the same text another way:
every word, every pair of neighbouring words, every run of four characters
(spaces included, so it reads any script) and the concepts each sentence holds
in any of some forty languages (:mod:`memdir.screening.concepts`), each hashed into one of
:data:`BUCKETS` weights. Its score is the weights' sum over the square root of
the number of features, plus a bias: a long memory is not suspect for its length.
Below :data:`FEATURE_FLOOR` features the sum is divided as if the text had that
many: a one-line description carries too few words for its mean to mean much,
and it is left closer to undecided.

It was trained (``benchmarks/screening_model.py``, logistic regression, fixed
seed) on the shaped half of the poisoning probes: attacks against look-alikes
and ordinary memories of every type, in some twenty-five languages, never on the
held-out half. Its threshold lets at most one in a hundred of the benign
probes it reads be held out of fold, and sits above every one of memdir's own
memories (whole, and a name and description alone) and every benign text of
the screening tests: below it the rules alone decide. A look-alike written to
resemble an attack (a security note with orders in it) may score above it, and
waits for the person's review when it does. It is a second opinion, not a
proof: it knows the genre of attacks it was shown.

The weights ship as :data:`MODEL_NAME` beside this module: a header (magic,
bias, scale, threshold, bucket count) and one signed byte a bucket. They are
read once, on the first screening.
"""

from __future__ import annotations

import itertools
import math
import re
import struct
import zlib
from functools import cache
from pathlib import Path

from memdir.screening.concepts import concept_features, load_lexicon

__all__ = [
    "BUCKETS",
    "FEATURE_FLOOR",
    "MODEL_NAME",
    "Model",
    "features",
    "load_model",
    "model_path",
]

BUCKETS = 1 << 18
FEATURE_FLOOR = 400  # fewer features are divided as if there were this many
MODEL_NAME = "learned.bin"
_MAGIC = b"MDSM3\0\0\0"  # 2: scores divide by FEATURE_FLOOR at least; 3: concepts
_HEADER = struct.Struct("<8sfffI")  # magic, bias, scale, threshold, buckets
_TOKENS = re.compile(r"\w+|[^\w\s]")
_BLANKS = re.compile(r"\s+")


def features(text: str) -> list[int]:
    """The buckets of ``text``'s features: words, word pairs, four-character runs
    (lower-cased, blanks made one space) and concepts, each once, sorted."""
    text = text.lower()
    words = _TOKENS.findall(text)
    found = {f"w:{word}" for word in words}
    found.update(f"b:{a} {b}" for a, b in itertools.pairwise(words))
    spaced = f" {_BLANKS.sub(' ', text)} "
    found.update(f"c:{spaced[i : i + 4]}" for i in range(len(spaced) - 3))
    found.update(concept_features(load_lexicon(), text))
    return sorted({zlib.crc32(feature.encode()) % BUCKETS for feature in found})


class Model:
    """The weights, their bias and the threshold above which a text is held."""

    def __init__(self, weights: bytes, *, bias: float, scale: float, threshold: float) -> None:
        if len(weights) != BUCKETS:
            raise ValueError(f"expected {BUCKETS} weights, found {len(weights)}")
        self._weights = memoryview(weights).cast("b")  # one signed byte a bucket
        self.bias = bias
        self.scale = scale
        self.threshold = threshold

    def score(self, text: str) -> float:
        """How much ``text`` reads like the attacks the model was shown (0: undecided)."""
        found = features(text)
        if not found:
            return self.bias
        weights = self._weights
        total = sum(weights[i] for i in found)
        return total * self.scale / math.sqrt(max(len(found), FEATURE_FLOOR)) + self.bias

    def holds(self, text: str) -> bool:
        return self.score(text) > self.threshold

    def to_bytes(self) -> bytes:
        header = _HEADER.pack(_MAGIC, self.bias, self.scale, self.threshold, BUCKETS)
        return header + self._weights.tobytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> Model:
        if len(data) < _HEADER.size:
            raise ValueError("the model file is shorter than its header")
        magic, bias, scale, threshold, buckets = _HEADER.unpack_from(data)
        if magic != _MAGIC or buckets != BUCKETS:
            raise ValueError("not a memdir screening model of this version")
        return cls(data[_HEADER.size :], bias=bias, scale=scale, threshold=threshold)


def model_path() -> Path:
    return Path(__file__).with_name(MODEL_NAME)


@cache
def load_model() -> Model | None:
    """The shipped model, read once; None when its file is missing (the rules alone
    screen then)."""
    try:
        data = model_path().read_bytes()
    except FileNotFoundError:
        return None
    return Model.from_bytes(data)
