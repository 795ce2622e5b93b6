"""Text a note tells the agent to put together: pieces, first words, pig latin and more.

An order can be left in no one place of a note: split into labelled, quoted pieces
the note says to join ("join part1 + part2 + part3", pieces stored out of order and
numbered), spelled by the first word of each line ("the first word of each line,
in order, is the real task"), padded with a letter between each of its own ("read
every other character of the quoted text"), or written in pig latin ("opycay
isthay otenay").
:func:`puzzle_readings` assembles what the note names, so that screening reads the
order the agent would. Each reading needs its sign, as in
:mod:`memdir.screening.readings`: without one, nothing is assembled.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memdir.screening.readings import lines_at

__all__ = ["puzzle_readings"]

_JOIN = re.compile(
    r"(?i)\b(?:join|joined|concatenat\w*|combine[ds]?|glue[ds]?|stitch\w*|assembl\w*|"
    r"put (?:them |it |the \w+ )?together|in (?:numeric|numbered) order|out of order)\b"
)
# A quoted piece, and the label a list gives it ("part2:", "p4 =", "piece 3 -", "B)").
_PIECE = re.compile(
    r"(?:(?P<label>\b(?:part|piece|p|chunk|fragment|segment)[\s_-]?(?P<n>\d{1,2})|"
    r"\b(?P<letter>[A-H]))\s*[:=)\-]\s*)?"
    r"(?:\"(?P<d>[^\"\n]{1,200})\"|“(?P<c>[^”\n]{1,200})”|`(?P<b>[^`\n]{1,200})`|'(?P<s>[^'\n]{2,200})')"
)
_FIRST_WORDS = re.compile(
    r"(?i)\bfirst words? of (?:each|every|the) (?:line|bullet|item|row|sentence|paragraph)s?"
)
_EVERY_OTHER = re.compile(
    r"(?i)\bevery (?:other|second|2nd) (?:character|letter|char)s?\b|\bodd (?:characters|letters)\b"
)
_SEGMENT = re.compile(r"`([^`\n]{16,})`|\"([^\"\n]{16,})\"|“([^”\n]{16,})”")
_PIG_LATIN = re.compile(r"(?i)\bpig[\s-]?latin\b|\bigpay[\s-]?atinlay\b")
_PIG_WORD = re.compile(r"(?i)\b([a-z]+?)(w?ay)\b")
_BULLET = re.compile(r"^[\s>*+\-•\d.)\]#`\"'“]*")
_VOWELS = "aeiouAEIOU"


def puzzle_readings(text: str) -> Iterator[tuple[str, int, str]]:
    """``(scheme, start, text)``: each order ``text`` names how to assemble, assembled
    (``start``: where its first part stands)."""
    if _JOIN.search(text):
        joined = _joined(text)
        if joined is not None:
            yield joined
    sign = _FIRST_WORDS.search(text)
    if sign is not None:
        after = text.find("\n", sign.end())  # the lines after the one that says so
        words = [(start, line) for start, line in _lines(text) if after >= 0 and start > after]
        firsts = [_BULLET.sub("", line).split(maxsplit=1) for _, line in words]
        picked = [
            (start, parts[0]) for (start, _), parts in zip(words, firsts, strict=True) if parts
        ]
        if len(picked) >= 3:
            yield "first words of the lines", picked[0][0], " ".join(w for _, w in picked)
    if _EVERY_OTHER.search(text):
        for match in _SEGMENT.finditer(text):
            segment = next(group for group in match.groups() if group is not None)
            for first in (0, 1):
                yield "every other letter", match.start(), segment[first::2]
    if _PIG_LATIN.search(text):
        for start, line in _lines(text):
            if len(_PIG_WORD.findall(line)) >= 3:
                yield "pig latin", start, _PIG_WORD.sub(_unpig, line)


def _joined(text: str) -> tuple[str, int, str] | None:
    """The labelled pieces of ``text`` ("part2: ...", "p4 = ...", "B) ...") joined in the
    order their labels number them. Quotes without labels are not pieces: a note that
    quotes two things and says "combined" is not asking for them to be joined."""
    pieces = [piece for piece in _PIECE.finditer(text) if _key(piece) is not None]
    if len(pieces) < 2:
        return None
    pieces.sort(key=lambda piece: _key(piece) or 0)
    words = "".join(_quoted(piece) for piece in pieces)
    return "joined pieces", min(piece.start() for piece in pieces), words


def _key(piece: re.Match[str]) -> int | None:
    if piece.group("n"):
        return int(piece.group("n"))
    if piece.group("letter"):
        return ord(piece.group("letter")) - ord("A")
    return None


def _quoted(piece: re.Match[str]) -> str:
    return next(group for group in (piece.group(n) for n in "dcbs") if group is not None)


def _lines(text: str) -> Iterator[tuple[int, str]]:
    return ((start, line) for start, line in lines_at(text) if line.strip())


def _unpig(match: re.Match[str]) -> str:
    """One pig-latin word read back: ``isthay`` "this", ``intoway`` "into". The letters
    moved to the end are the longest run of consonants there that can begin an English
    word ("th" of "isth", not "sth")."""
    stem, suffix = match.group(1), match.group(2)
    if suffix.lower() == "way" and stem[:1] in _VOWELS:
        # "ithway" is "with" moved, "itway" is "it" with "way" added: the common words
        # that begin with a "w" before a vowel are read as such
        return "w" + stem if "w" + stem.lower() in _W_WORDS else stem
    stem = stem + suffix[:-2]  # a "w" before "ay" belongs to the word
    for size in (3, 2, 1):
        moved = stem[-size:]
        consonants = len(stem) > size and all(c not in _VOWELS for c in moved)
        if consonants and (size == 1 or moved.lower() in _ONSETS):
            return moved + stem[:-size]
    return match.group()


# Common words that begin with a "w" before a vowel, which pig latin writes as "ithway".
_W_WORDS = frozenset(
    "was we were will would with within without want wants wanted work works worked "
    "wait warn watch way well went wipe wipes".split()
)
# Consonant runs that begin English words (a single consonant always does).
_ONSETS = frozenset(
    "bl br ch cl cr dr dw fl fr gl gr kn ph pl pr qu sc sh sk sl sm sn sp st sw th tr tw wh "
    "wr chr sch scr shr spl spr squ str thr".split()
)
