"""Invisible and look-alike characters: text that reads differently from what it holds.

:func:`hidden_characters` finds, in any field, characters a reader does not
see: zero-width spaces and joiners, bidi marks, embeddings and isolates, the
invisible operators, tag characters (which spell hidden ASCII a model still
reads), private-use characters, variation selectors beyond a single one,
blank fillers and soft hyphens. What writing needs is left alone: a zero-width
joiner inside an emoji sequence or between letters of a script that joins, a
non-joiner between such letters, one variation selector after an emoji or an
ideograph, a tag sequence closing a flag emoji, a byte-order mark opening the
text.

:func:`mixed_scripts` finds, in a name or a description, a word that mixes Latin
letters with look-alikes from Cyrillic, Greek or Armenian (``pаypal`` with a
Cyrillic ``а``), or a word made only of such look-alikes in a field written in
Latin (so that it reads as a Latin word). A field written in one of those
scripts, or a word of Greek letters a formula uses, is not one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import cache

from memdir.screening.findings import Finding, Kind
from memdir.screening.normalize import CONFUSABLE

__all__ = ["hidden_characters", "mixed_scripts"]

_ZWJ, _ZWNJ, _BOM = "\u200d", "\u200c", "\ufeff"
_BLACK_FLAG = "\U0001f3f4"
_CANCEL_TAG = "\U000e007f"
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")
# Scripts whose letters a zero-width (non-)joiner legitimately sits between.
_JOINING = ("ARABIC", "DEVANAGARI", "BENGALI", "GURMUKHI", "GUJARATI", "ORIYA", "TAMIL",
            "TELUGU", "KANNADA", "MALAYALAM", "SINHALA", "SYRIAC", "MONGOLIAN", "KHMER",
            "MYANMAR", "THAI", "LAO", "TIBETAN", "HEBREW", "NKO")  # fmt: skip


def _is_variation_selector(char: str) -> bool:
    code = ord(char)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


def _is_pictographic(char: str) -> bool:
    """An emoji or symbol a joiner or a selector may follow."""
    return bool(char) and (
        unicodedata.category(char) in ("So", "Sk") or 0x1F000 <= ord(char) <= 0x1FAFF
    )


def _script(char: str) -> str:
    """The first word of the character's name: LATIN, CYRILLIC, CJK..."""
    return unicodedata.name(char, "?").split(" ")[0]


def _joins(before: str, after: str) -> bool:
    """Whether a joiner between ``before`` and ``after`` is part of writing, not hiding."""
    if _is_pictographic(before) and (_is_pictographic(after) or after in "\u2640\u2642\u2695"):
        return True
    if not (before.isalpha() or unicodedata.category(before) in ("Mn", "Mc")):
        return False
    return _script(before) in _JOINING and (after == "" or _script(after) in _JOINING)


def _allowed(text: str, index: int) -> bool:
    """Whether the invisible character at ``index`` is one that writing needs."""
    char = text[index]
    before = text[index - 1] if index else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    if char == _BOM:
        return index == 0
    if char in (_ZWJ, _ZWNJ):
        back = index - 1
        while back > 0 and _is_variation_selector(text[back]):  # an emoji's selector
            back -= 1
        return _joins(text[back] if back >= 0 else "", after)
    if _is_variation_selector(char):
        single = not (before and _is_variation_selector(before)) and not (
            after and _is_variation_selector(after)
        )
        ideograph = bool(before) and _script(before) in ("CJK", "HANGUL")
        keycap = bool(before) and before in "#*0123456789"
        return single and (_is_pictographic(before) or ideograph or keycap)
    if 0xE0020 <= ord(char) <= 0xE007F:  # a tag: only as the tail of a flag emoji
        start = index
        while start and 0xE0020 <= ord(text[start - 1]) <= 0xE007F:
            start -= 1
        end = text.find(_CANCEL_TAG, index)
        return start > 0 and text[start - 1] == _BLACK_FLAG and 0 <= end - start < 8
    return False


def _invisible(char: str) -> bool:
    if char in _BLANK or _is_variation_selector(char):
        return True
    category = unicodedata.category(char)
    return category in ("Cf", "Co")


def _label(char: str) -> str:
    code = ord(char)
    if 0xE0000 <= code <= 0xE007F:
        return "tag characters (hidden text a model reads)"
    if unicodedata.category(char) == "Co":
        return "a private-use character"
    name = unicodedata.name(char, "")
    return f"U+{code:04X}" + (f" {name}" if name else "")


# Every character _invisible can answer True for (format, private-use, selectors, blanks),
# and a few more: a pattern finds the candidates, _invisible and _allowed judge each one.
_CANDIDATES = (
    "[\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160"
    "\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u2800\u3164"
    "\ue000-\uf8ff\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e01ef"
    "\U000f0000-\U0010ffff]"
)
_MOST = 1000  # invisible characters counted; past that the count says "more than"


@cache
def _candidates() -> re.Pattern[str]:
    return re.compile(_CANDIDATES)


def hidden_characters(field: str, text: str) -> Iterator[Finding]:
    """One finding for the invisible characters of ``text`` that writing does not need."""
    if text.isascii():
        return
    found: list[int] = []
    for match in _candidates().finditer(text):
        index = match.start()
        if _invisible(text[index]) and not _allowed(text, index):
            found.append(index)
            if len(found) > _MOST:
                break
    if not found:
        return
    first = text[found[0]]
    many = f"more than {_MOST}" if len(found) > _MOST else str(len(found))
    count = f"{many} invisible characters, the first " if len(found) > 1 else ""
    yield Finding(
        kind=Kind.HIDDEN,
        field=field,
        rule="hidden.invisible",
        reason=f"{count}{_label(first)}",
        at=found[0] + 1,
    )


def _words(text: str) -> Iterator[tuple[int, str]]:
    """Each run of letters (combining marks included) and where it starts."""
    start = -1
    for index, char in enumerate(text + " "):
        letter = char.isalpha() or unicodedata.category(char) in ("Mn", "Mc")
        if letter and start < 0:
            start = index
        elif not letter and start >= 0:
            yield start, text[start:index]
            start = -1


def _letter_script(char: str) -> str:
    script = _script(char)
    return "LATIN" if char.isascii() else script


def mixed_scripts(field: str, text: str) -> Iterator[Finding]:
    """A finding for a word of ``text`` that mixes Latin with look-alike letters."""
    if text.isascii():
        return
    words = list(_words(text))
    scripts_of = [{_letter_script(c) for c in word if c.isalpha()} for _, word in words]
    latin_words = sum(1 for s in scripts_of if s == {"LATIN"})
    for (start, word), scripts in zip(words, scripts_of, strict=True):
        lookalikes = [i for i, c in enumerate(word) if c.casefold() in CONFUSABLE]
        if not lookalikes:
            continue
        foreign = scripts - {"LATIN"}
        mixed = "LATIN" in scripts and bool(foreign)
        # A word all of look-alikes, in a Latin field where its script has no other word.
        posing = (
            not mixed
            and len(word) > 2
            and len(lookalikes) == len(word)
            and latin_words > 0
            and sum(1 for s in scripts_of if s & foreign) == 1
        )
        if mixed or posing:
            at = start + lookalikes[0]
            script = _script(word[lookalikes[0]]).title()
            yield Finding(
                kind=Kind.HIDDEN,
                field=field,
                rule="hidden.mixed-script",
                reason=f"a word mixes Latin with {script} look-alike letters",
                at=at + 1,
            )
            return
