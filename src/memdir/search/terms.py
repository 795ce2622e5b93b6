"""Text processing for ranked search: tokens, stop words, stemming, queries, snippets.

One function, :func:`terms`, turns any text into index terms: Unicode words
(letters and digits; ``_`` splits like SQLite's ``unicode61`` tokenizer does),
lower-cased, stop words dropped, an irregular form taken to its base word
("went": "go", :mod:`memdir.search.irregular`), each reduced by :func:`stem`
(the Snowball English stemmer, "Porter2", written out here so the core stays
dependency-free).
The index stores these terms, queries go through the same function, so a user
query can never reach FTS5 as syntax: :func:`fts_query` quotes every term.

Query processing also covers question words (``what``, ``when``, ``did`` ...)
and pseudo-relevance feedback (:func:`expansion_terms`: the terms that the top
hits of a first pass share, weighed by idf).
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from memdir.search.irregular import IRREGULAR
from memdir.utils.stop_words import ENGLISH_STOP_WORDS

__all__ = [
    "MAX_QUERY_CHARS",
    "QUESTION_WORDS",
    "STOP_WORDS",
    "bounded_query",
    "expansion_terms",
    "fts_query",
    "query_terms",
    "snippet",
    "stem",
    "terms",
    "tokenize",
]

# Snowball's English stop list, plus contractions split at the apostrophe.
STOP_WORDS: frozenset[str] = ENGLISH_STOP_WORDS | {
    *"""
    s t d ll m re ve don doesn didn isn wasn weren aren hasn haven hadn won wouldn shouldn
    couldn let us also
    """.split()
}

# Words that shape a question but never name what it asks about.
QUESTION_WORDS: frozenset[str] = frozenset(
    "what when where which who whom whose why how kind sort type ever many much".split()
)

_WORD = re.compile(r"[^\W_]+")


def _base(word: str) -> str:
    """The base of an irregular form ("went": "go", see :mod:`.irregular`), else ``word``."""
    return IRREGULAR.get(word, word)


_ASCII_WORD = re.compile(r"[a-z0-9]+")  # what _WORD finds in lower-case ASCII, faster


def tokenize(text: str) -> list[str]:
    """Lower-cased words of ``text`` with diacritics removed (no stemming, no stop list)."""
    if text.isascii():
        return _ASCII_WORD.findall(text.lower())
    return _WORD.findall(_fold_text(text))


def terms(text: str) -> list[str]:
    """Index terms of ``text``: tokens without stop words, stemmed."""
    return [term for term in map(_index_term, tokenize(text)) if term]


@functools.lru_cache(maxsize=65536)
def _index_term(token: str) -> str:
    """A token's index term, or "" for a stop word (one cache lookup per token)."""
    return "" if token in STOP_WORDS else stem(_base(token))


MAX_QUERY_CHARS = 4000  # what of a query is ranked on: its head and its tail


def bounded_query(query: str) -> str:
    """``query``, or for a longer one its first and last ``MAX_QUERY_CHARS / 2`` characters.

    Ranking costs grow with the number of query terms times the matches of
    each: a pasted log of a megabyte would take seconds (and quadratically
    longer as it grows). A long prompt usually opens with what it is about and
    ends with the question, so both ends are kept, cut at a blank so no word
    is split; what lies between is not read.
    """
    if len(query) <= MAX_QUERY_CHARS:
        return query
    half = MAX_QUERY_CHARS // 2
    head, tail = query[:half], query[-half:]
    head = head.rsplit(None, 1)[0] if head[-1:].strip() and head.strip() else head
    tail = tail.split(None, 1)[-1] if tail[:1].strip() and tail.strip() else tail
    return f"{head}\n{tail}"


def query_terms(query: str) -> list[str]:
    """Distinct terms of a user query, question words dropped, in query order."""
    seen: dict[str, None] = {}
    for tok in tokenize(query):
        if tok in STOP_WORDS or tok in QUESTION_WORDS:
            continue
        seen.setdefault(stem(_base(tok)), None)
    return list(seen)


def fts_query(query_terms_: Iterable[str]) -> str:
    """An FTS5 MATCH expression that ORs the given terms, each quoted as a string."""
    quoted = ['"' + t.replace('"', '""') + '"' for t in query_terms_ if t]
    return " OR ".join(quoted)


def expansion_terms(
    top_docs: Sequence[Sequence[str]],
    doc_freq: Mapping[str, int],
    n_docs: int,
    *,
    exclude: Iterable[str] = (),
    limit: int = 5,
) -> list[tuple[str, float]]:
    """Pseudo-relevance feedback: terms frequent in ``top_docs`` and rare in the index.

    Each term scores sum over top documents of its share of that document
    (tf / len) times its idf; returns the best ``limit`` (term, weight) pairs
    with weights scaled so the best is 1.
    """
    skip = set(exclude)
    score: dict[str, float] = {}
    for doc in top_docs:
        if not doc:
            continue
        for term, tf in Counter(doc).items():
            df = doc_freq.get(term, 0)
            if term in skip or df < 2 or len(term) < 3 or term.isdigit():
                continue
            idf = math.log((n_docs - df + 0.5) / (df + 0.5) + 1.0)
            score[term] = score.get(term, 0.0) + tf / len(doc) * idf
    best = sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    if not best:
        return []
    top = best[0][1]
    return [(term, value / top) for term, value in best]


def snippet(text: str, wanted: Iterable[str], *, width: int = 160) -> str:
    """The ``width``-character window of ``text`` holding the most query terms, on one line."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    targets = set(wanted)
    hits = [m.start() for m in _WORD.finditer(flat) if _term(m.group()) in targets]
    if not hits:
        return flat[: width - 1].rstrip() + "…"
    # Sliding window over the sorted hits: ``end`` only moves forward, so this is linear.
    best_start, best_count = hits[0], 0
    end = 0
    for i, start in enumerate(hits):
        end = max(end, i)
        while end < len(hits) and hits[end] < start + width:
            end += 1
        if end - i > best_count:
            best_start, best_count = start, end - i
    start = max(0, min(best_start - width // 4, len(flat) - width))
    window = flat[start : start + width].strip()
    return ("…" if start > 0 else "") + window + ("…" if start + width < len(flat) else "")


def _fold_text(text: str) -> str:
    """``text`` case-folded, with diacritics removed."""
    if text.isascii():
        return text.lower()  # nothing to decompose: most text, and ten times faster
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


# Snippets fold word by word, and the same words come back: cache them.
_fold = functools.lru_cache(maxsize=65536)(_fold_text)


@functools.lru_cache(maxsize=65536)
def _term(word: str) -> str:
    """A word of a text as the term it is indexed as (one cache lookup per word)."""
    word = _fold(word)
    return stem(_base(word))


# --- Snowball English ("Porter2") stemmer ------------------------------------------------
# https://snowballstem.org/algorithms/english/stemmer.html, step by step.

_VOWELS = frozenset("aeiouy")
_DOUBLES = ("bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt")
_LI_ENDINGS = frozenset("cdeghkmnrt")
_EXCEPTIONS = {
    "skis": "ski",
    "skies": "sky",
    "dying": "die",
    "lying": "lie",
    "tying": "tie",
    "idly": "idl",
    "gently": "gentl",
    "ugly": "ugli",
    "early": "earli",
    "only": "onli",
    "singly": "singl",
    "sky": "sky",
    "news": "news",
    "howe": "howe",
    "atlas": "atlas",
    "cosmos": "cosmos",
    "bias": "bias",
    "andes": "andes",
}
_INVARIANT_AFTER_1A = frozenset(
    "inning outing canning herring earring proceed exceed succeed".split()
)
_STEP2 = (
    ("ization", "ize"),
    ("ational", "ate"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("iveness", "ive"),
    ("tional", "tion"),
    ("biliti", "ble"),
    ("lessli", "less"),
    ("entli", "ent"),
    ("ation", "ate"),
    ("alism", "al"),
    ("aliti", "al"),
    ("ousli", "ous"),
    ("iviti", "ive"),
    ("fulli", "ful"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("abli", "able"),
    ("izer", "ize"),
    ("ator", "ate"),
    ("alli", "al"),
    ("bli", "ble"),
    ("ogi", "og"),
    ("li", ""),
)
_STEP3 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("alize", "al"),
    ("icate", "ic"),
    ("iciti", "ic"),
    ("ative", ""),
    ("ical", "ic"),
    ("ness", ""),
    ("ful", ""),
)
_STEP4 = tuple(
    "ement ance ence able ible ment ant ent ism ate iti ous ive ize ion al er ic".split()
)


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball English stem of a lower-case word (other words come back unchanged)."""
    if len(word) <= 2 or not word.isascii() or not word.isalpha():
        return word
    if word in _EXCEPTIONS:
        return _EXCEPTIONS[word]
    w = _mark_y(word.lstrip("'"))
    r1, r2 = _regions(w)
    w = _step1a(w)
    if w in _INVARIANT_AFTER_1A:
        return w
    w = _step1b(w, r1)
    w = _step1c(w)
    w = _step2(w, r1)
    w = _step3(w, r1, r2)
    w = _step4(w, r2)
    w = _step5(w, r1, r2)
    return w.replace("Y", "y")


def _mark_y(w: str) -> str:
    chars = list(w)
    for i, ch in enumerate(chars):
        if ch == "y" and (i == 0 or chars[i - 1] in _VOWELS):
            chars[i] = "Y"
    return "".join(chars)


def _regions(w: str) -> tuple[int, int]:
    def after_vc(start: int) -> int:
        for i in range(start + 1, len(w)):
            if w[i] not in _VOWELS and w[i - 1] in _VOWELS:
                return i + 1
        return len(w)

    for prefix in ("arsen", "commun", "emerg", "gener", "later", "organ", "past", "univers"):
        if w.startswith(prefix):
            r1 = len(prefix)
            break
    else:
        r1 = after_vc(0)
    return r1, after_vc(r1)


def _short_syllable_end(w: str) -> bool:
    if len(w) == 2:
        return w[0] in _VOWELS and w[1] not in _VOWELS
    return (
        len(w) >= 3
        and w[-3] not in _VOWELS
        and w[-2] in _VOWELS
        and w[-1] not in _VOWELS
        and w[-1] not in "wxY"
    )


def _has_vowel(part: str) -> bool:
    return any(ch in _VOWELS for ch in part)


def _step1a(w: str) -> str:
    for suffix in ("'s'", "'s", "'"):
        if w.endswith(suffix):
            w = w[: -len(suffix)]
            break
    if w.endswith("sses"):
        return w[:-2]
    if w.endswith(("ied", "ies")):
        return w[:-2] if len(w) > 4 else w[:-1]
    if w.endswith(("us", "ss")):
        return w
    if w.endswith("s") and _has_vowel(w[:-2]):
        return w[:-1]
    return w


def _step1b(w: str, r1: int) -> str:
    for suffix in ("eedly", "eed"):
        if w.endswith(suffix):
            return w[: -len(suffix)] + "ee" if len(w) - len(suffix) >= r1 else w
    for suffix in ("ingly", "edly", "ing", "ed"):
        if w.endswith(suffix):
            stem_ = w[: -len(suffix)]
            if not _has_vowel(stem_):
                return w
            if stem_.endswith(("at", "bl", "iz")):
                return stem_ + "e"
            if stem_.endswith(_DOUBLES) and not (len(stem_) == 3 and stem_[0] in "aeo"):
                return stem_[:-1]
            if _short_syllable_end(stem_) and r1 >= len(stem_):
                return stem_ + "e"
            return stem_
    return w


def _step1c(w: str) -> str:
    if len(w) > 2 and w[-1] in "yY" and w[-2] not in _VOWELS:
        return w[:-1] + "i"
    return w


def _step2(w: str, r1: int) -> str:
    for suffix, repl in _STEP2:
        if w.endswith(suffix):
            if len(w) - len(suffix) < r1:
                return w
            if suffix == "ogi" and not w[:-3].endswith("l"):
                return w
            if suffix == "li" and (len(w) < 3 or w[-3] not in _LI_ENDINGS):
                return w
            return w[: -len(suffix)] + repl
    return w


def _step3(w: str, r1: int, r2: int) -> str:
    for suffix, repl in _STEP3:
        if w.endswith(suffix):
            start = len(w) - len(suffix)
            if start < r1 or (suffix == "ative" and start < r2):
                return w
            return w[:start] + repl
    return w


def _step4(w: str, r2: int) -> str:
    for suffix in _STEP4:
        if w.endswith(suffix):
            start = len(w) - len(suffix)
            if start < r2:
                return w
            if suffix == "ion" and (start == 0 or w[start - 1] not in "st"):
                return w
            return w[:start]
    return w


def _step5(w: str, r1: int, r2: int) -> str:
    if w.endswith("e"):
        start = len(w) - 1
        if start >= r2 or (start >= r1 and not _short_syllable_end(w[:-1])):
            return w[:-1]
    elif w.endswith("l") and len(w) - 1 >= r2 and w[:-1].endswith("l"):
        return w[:-1]
    return w
