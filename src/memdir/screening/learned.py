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

A long body is also read passage by passage (:func:`passages`: every
:data:`PASSAGE` neighbouring sentences, once the body has :data:`READ_IN_PASSAGES`
or more). Over a whole note, one sentence's weight is divided by every other
word's: an order buried in a long meeting summary scores like the summary. A
passage is scored as a short memory is, and held above a threshold of its own,
chosen as the whole text's is (one benign long memory in a hundred held).

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
bias, scale, the whole text's threshold, the passages' threshold, the veto on
findings of pairs of weak signals, bucket count) and one signed byte a bucket.
They are read once, on the first screening. The veto
(:func:`memdir.screening.screen.screen_fields`) travels with the weights because
it is a score of theirs: the script that trains them sets it by its rule.
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
    "PASSAGE",
    "READ_IN_PASSAGES",
    "Model",
    "features",
    "load_model",
    "model_path",
    "passages",
    "sentences",
]

BUCKETS = 1 << 18
FEATURE_FLOOR = 400  # fewer features are divided as if there were this many
MODEL_NAME = "learned.bin"
PASSAGE = 2  # sentences a passage holds
READ_IN_PASSAGES = 5  # sentences from which a body is also read passage by passage
# 2: scores divide by FEATURE_FLOOR at least; 3: concepts; 4: the passages' threshold;
# 5: the pairs' veto
_MAGIC = b"MDSM5\0\0\0"
# magic, bias, scale, threshold, passage threshold, pairs' veto, buckets
_HEADER = struct.Struct("<8sfffffI")
_TOKENS = re.compile(r"\w+|[^\w\s]")
_BLANKS = re.compile(r"\s+")
# A sentence ends at a line break; at a stop of the Latin, Greek, Cyrillic, Hebrew and
# Arabic-script ways of writing before a blank; at the stops of scripts that may put no
# blank after them (CJK, the danda of Devanagari and Bengali, Arabic's question mark and
# Urdu's full stop, Armenian, Ethiopic, Myanmar, Khmer); and, in Thai and Lao, which mark
# no stop, at a blank between two of their letters.
_SENTENCE_BREAK = re.compile(
    r"(?<=[.!?;\u037e])\s+"
    r"|(?<=[。！？；．｡\u0964\u0965\u061f\u06d4\u0589\u1362\u104b\u17d4])\s*"
    r"|(?<=[\u0e00-\u0eff])\s+(?=[\u0e00-\u0eff])"
    r"|\n+"
)


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


def sentences(text: str) -> list[str]:
    """``text``'s sentences and lines, stripped, the empty ones left out."""
    return [part for part in (p.strip() for p in _SENTENCE_BREAK.split(text)) if part]


def passages(text: str) -> list[str]:
    """Every run of :data:`PASSAGE` neighbouring sentences of ``text``, when it has
    :data:`READ_IN_PASSAGES` sentences or more (none for a shorter text, read whole)."""
    parts = sentences(text)
    if len(parts) < READ_IN_PASSAGES:
        return []
    return [" ".join(parts[i : i + PASSAGE]) for i in range(len(parts) - PASSAGE + 1)]


class Model:
    """The weights, their bias, the threshold above which a text is held, the one above
    which a passage of a long body is, and the score below which a finding of pairs of
    weak signals alone is set aside (``pair_veto``; minus infinity: never)."""

    def __init__(
        self,
        weights: bytes,
        *,
        bias: float,
        scale: float,
        threshold: float,
        passage_threshold: float = math.inf,
        pair_veto: float = -math.inf,
    ) -> None:
        if len(weights) != BUCKETS:
            raise ValueError(f"expected {BUCKETS} weights, found {len(weights)}")
        self._weights = memoryview(weights).cast("b")  # one signed byte a bucket
        self.bias = bias
        self.scale = scale
        self.threshold = threshold
        self.passage_threshold = passage_threshold
        self.pair_veto = pair_veto

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

    def held_passage(self, body: str) -> int | None:
        """Where the passage of ``body`` that scores highest starts (the index of its first
        sentence in :func:`sentences`), when it is above the passages' threshold (None: no
        passage is held, or the body is read whole only)."""
        scored = [(self.score(passage), i) for i, passage in enumerate(passages(body))]
        if not scored:
            return None
        score, first = max(scored)
        return first if score > self.passage_threshold else None

    def to_bytes(self) -> bytes:
        header = _HEADER.pack(
            _MAGIC,
            self.bias,
            self.scale,
            self.threshold,
            self.passage_threshold,
            self.pair_veto,
            BUCKETS,
        )
        return header + self._weights.tobytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> Model:
        if len(data) < _HEADER.size:
            raise ValueError("the model file is shorter than its header")
        magic, bias, scale, threshold, passage, veto, buckets = _HEADER.unpack_from(data)
        if magic != _MAGIC or buckets != BUCKETS:
            raise ValueError("not a memdir screening model of this version")
        weights = data[_HEADER.size :]
        return cls(
            weights,
            bias=bias,
            scale=scale,
            threshold=threshold,
            passage_threshold=passage,
            pair_veto=veto,
        )


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
