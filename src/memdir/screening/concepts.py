"""Concepts shared across languages, for the learned model to read beside the words.

The model (:mod:`memdir.screening.learned`) learns from its words and letter runs
what an attack says in the languages it was shown most; a language with few
examples shares almost none of those features, and an order written in it reads as
unknown. A concept is a meaning attacks are made of (telling the user, hiding, a
secret, sending out, an approval skipped, again after a deletion…), listed in
:data:`LEXICON_NAME` with the words that say it in some forty languages. Every
concept a sentence holds becomes a feature, and so does every pair of concepts in
one sentence: "אל תספר למשתמש" and "don't tell the user" then share the features of
TELL, USER and NEVER, and what the model learned from one reaches the other.

A word form in a language written with spaces matches the start of a word (a stem
covers its endings; in Hebrew and Arabic script also after one or two attached
letters, as in "למשתמש"); a form of two or more words matches those words in a
row. A form in Chinese, Japanese or Thai script matches anywhere.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

__all__ = ["LEXICON_NAME", "Lexicon", "concept_features", "load_lexicon"]

LEXICON_NAME = "concepts.json"
_TOKENS = re.compile(r"\w+|[^\w\s]")
_SENTENCES = re.compile(r"[.!?;\n。！？；]+")
# scripts written without spaces between words: a form matches anywhere in them
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# scripts that attach one or two letters (and, the, to, in) to the front of a word
_AFFIXED = re.compile(r"[\u05d0-\u05ea\u0600-\u06ff]")


class Lexicon:
    """Word forms by concept; :meth:`concepts` names those a text holds."""

    def __init__(self, table: Mapping[str, Mapping[str, Iterable[str]]]) -> None:
        # a form's first token (matched as a word's start) -> (concept, the tokens after it)
        self._starts: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        self._inside: dict[str, set[str]] = {}  # unspaced-script form -> concepts
        for concept, languages in table.items():
            for forms in languages.values():
                for form in forms:
                    self._add(concept, " ".join(form.lower().split()))
        self._longest = max(map(len, self._starts), default=0)
        self._inside_longest = max(map(len, self._inside), default=0)

    def _add(self, concept: str, form: str) -> None:
        if not form:
            return
        if _UNSPACED.match(form):
            self._inside.setdefault(form.replace(" ", ""), set()).add(concept)
            return
        first, *rest = _TOKENS.findall(form)
        self._starts.setdefault(first, []).append((concept, tuple(rest)))

    def concepts(self, text: str) -> set[str]:
        """The concepts whose forms ``text`` holds."""
        text = text.lower()
        found: set[str] = set()
        tokens = _TOKENS.findall(text)
        for index, token in enumerate(tokens):
            for skip in (0, 1, 2) if _AFFIXED.match(token) else (0,):
                self._starting(tokens, index, token[skip:], found)
        if self._inside:
            for match in _UNSPACED.finditer(text):
                at = match.start()
                for length in range(1, self._inside_longest + 1):
                    found.update(self._inside.get(text[at : at + length], ()))
        return found

    def _starting(self, tokens: list[str], index: int, word: str, found: set[str]) -> None:
        """Add the concepts of the forms ``word`` starts with (and the words after it)."""
        for length in range(1, min(len(word), self._longest) + 1):
            for concept, rest in self._starts.get(word[:length], ()):
                after = tokens[index + 1 : index + 1 + len(rest)]
                if len(after) == len(rest) and all(map(str.startswith, after, rest)):
                    found.add(concept)


def concept_features(lexicon: Lexicon, text: str) -> set[str]:
    """Each sentence's concepts, and each pair of concepts that share a sentence."""
    found: set[str] = set()
    for sentence in _SENTENCES.split(text):
        held = sorted(lexicon.concepts(sentence))
        found.update(f"k:{concept}" for concept in held)
        found.update(f"kk:{a}+{b}" for a, b in itertools.combinations(held, 2))
    return found


def lexicon_path() -> Path:
    return Path(__file__).with_name(LEXICON_NAME)


@cache
def load_lexicon() -> Lexicon:
    """The shipped lexicon, read once (it ships beside the model, which was trained
    with it)."""
    return Lexicon(json.loads(lexicon_path().read_text("utf-8"))["concepts"])
