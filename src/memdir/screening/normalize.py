"""One plain form of a text, so that a rule sees through the usual disguises.

:func:`fold` rewrites each character to what it reads as: compatibility forms
unfolded (fullwidth ``ｉｇｎｏｒｅ``, mathematical bold letters, ligatures),
accents and other combining marks dropped (``ignóre``), invisible characters
dropped (zero-width spaces splitting a word, bidi controls, tag characters,
variation selectors, blank fillers), Cyrillic, Greek and Armenian letters that
look like Latin ones mapped to them (``іgnоrе`` with Cyrillic і, о, е), case
folded, curly quotes and dashes made plain, and runs of white space made one
space (a run that holds a line break: one line break). ``flat`` also turns
markdown's emphasis and heading marks into spaces (the instruction rules read
prose); without it they stay (the frame rules look for headings).

A finding can say where in the field it starts (:meth:`Folded.origin` walks
the folding again up to that point), without keeping the text. Trigger:
characters are folded one by one rather than with ``unicodedata.normalize`` over
the whole text. Why: a finding must point into the text as written, which a
one-by-one mapping can trace back; each distinct character is folded once
(cached). Outcome: ASCII text folds with ``str`` methods alone, other text with
one cached lookup a character (a 256 KB body in tens of milliseconds).
"""

from __future__ import annotations

import unicodedata
from functools import cache, lru_cache

from memdir.utils.records import record

__all__ = ["CONFUSABLE", "Folded", "fold", "fold_char", "fold_pattern", "lines_as_spaces"]

# Letters of other scripts drawn like a Latin letter (after case folding): what an
# attacker swaps in so that "ignore" no longer matches, or a name looks like another.
CONFUSABLE: dict[str, str] = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "і": "i", "ї": "i", "ј": "j", "к": "k",
    "м": "m", "н": "h", "о": "o", "п": "n", "р": "p", "с": "c", "т": "t", "у": "y",
    "х": "x", "ѕ": "s", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ь": "b",
    "г": "r", "ԍ": "g", "ү": "y", "ҽ": "e", "ɩ": "i",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w", "ϲ": "c", "ϳ": "j",
    "ζ": "z",
    # Armenian
    "օ": "o", "ս": "u", "հ": "h", "ո": "n", "զ": "q", "ց": "g",
    # Latin letters outside ASCII that read as ASCII ones
    "ı": "i", "ȷ": "j", "ɑ": "a", "ɡ": "g", "ʀ": "r", "ʏ": "y", "ꞵ": "b",
}  # fmt: skip

# Blank fillers that render as nothing (Hangul fillers, braille blank, grapheme joiner).
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")
_QUOTES = {c: '"' for c in "“”„‟″«»〝〞＂"} | {c: "'" for c in "‘’‚‛′`"}
_DASHES = {c: "-" for c in "‐‑‒–—―−"}
_LINE_BREAKS = frozenset("\n\r\x0b\x0c\x85\u2028\u2029")
_MARKDOWN = frozenset("*_#`")


@record
class Folded:
    """A folded text, and where each of its characters came from."""

    text: str
    source: str
    flat: bool

    def origin(self, position: int) -> int:
        """The index in :attr:`source` of the character folded to ``text[position]``.

        The folding is walked again up to ``position``, white space collapsed as
        :func:`fold` collapses it: only a finding pays for it.
        """
        length, last, space = 0, "", -1  # text made so far; a space not yet written
        for index, char in enumerate(self.source):
            piece = _piece(char, self.flat)
            if not piece or (piece in " \n" and last in ("", "\n")):
                continue
            if piece == " ":
                space = index if space < 0 else space
                continue
            if piece == "\n":
                space = -1
            elif space >= 0:
                if length + 1 > position:
                    return space
                length, space = length + 1, -1
            if length + len(piece) > position:
                return index
            length, last = length + len(piece), piece[-1]
        return len(self.source)


@cache
def fold_char(char: str) -> str:
    """What one character reads as (see the module docstring); ``""`` for an invisible one."""
    if char in _QUOTES:
        return _QUOTES[char]
    if char in _DASHES:
        return "-"
    category = unicodedata.category(char)
    if category in ("Cf", "Mn", "Me", "Co", "Cs") or char in _BLANK:
        return ""
    if category == "Zs":
        return " "
    plain = "".join(
        c
        for c in unicodedata.normalize("NFKD", char)
        if unicodedata.category(c) not in ("Mn", "Me")
    ).casefold()
    return "".join(CONFUSABLE.get(c, c) for c in plain)


def fold_pattern(pattern: str) -> str:
    """A regular expression's letters folded as the text it reads is (:func:`fold_char`): a
    word written as people write it ("не", "ห้าม", "하지 마") matches its folded form. ASCII,
    the expression's syntax, is left as it is."""
    if pattern.isascii():
        return pattern
    return "".join(c if c.isascii() else fold_char(c) for c in pattern)


def lines_as_spaces(pattern: str) -> str:
    """``pattern`` with each space (plain or escaped) also matching a line break: ``[ \\n]``
    outside a character class, a line break added inside one (``[a-z ]`` is ``[a-z \\n]``)."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            pair = pattern[i : i + 2]
            i += 2
            if pair == "\\ ":
                out.append(" \n" if in_class else "[ \n]")
            else:
                out.append(pair)
            continue
        i += 1
        if in_class:
            if char == "]":
                in_class = False
            out.append(" \n" if char == " " else char)
            continue
        if char == "[":
            in_class = True
            out.append(char)
            # A "]" first in a class (after any "^") is one of its characters.
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            if pattern.startswith("]", i):
                out.append("]")
                i += 1
            continue
        out.append("[ \n]" if char == " " else char)
    return "".join(out)


@cache
def _piece(char: str, flat: bool) -> str:
    """What one character becomes before white space is collapsed."""
    if char in _LINE_BREAKS:
        return "\n"
    if char.isspace() or (flat and char in _MARKDOWN):
        return " "
    return char.lower() if char.isascii() else fold_char(char)


def _collapsed(text: str) -> str:
    """Runs of white space made one space, or one line break if they hold one."""
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


@lru_cache(maxsize=8)  # the frame and the instruction rules fold the same text
def fold(text: str, *, flat: bool = True) -> Folded:
    """``text`` in its plain form (see the module docstring)."""
    if text.isascii():
        raw = text.lower().translate(_ASCII_FLAT if flat else _ASCII_LINES)
    else:
        raw = "".join([_piece(char, flat) for char in text])
    return Folded(text=_collapsed(raw), source=text, flat=flat)


# ASCII's line breaks made one kind, and (flat) markdown's marks spaces.
_ASCII_LINES = str.maketrans(dict.fromkeys("\r\x0b\x0c", "\n"))
_ASCII_FLAT = str.maketrans(dict.fromkeys("\r\x0b\x0c", "\n") | dict.fromkeys(_MARKDOWN, " "))
