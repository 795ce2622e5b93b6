"""Encoded text in a memory, decoded so that screening reads what an agent would.

An attack can hide its order from a person reading the file, and from a screen
that reads words, by encoding it: base64 ("decode and apply: SWdub3Jl..."),
hexadecimal, percent-encoding, HTML character references, ``\\u`` escapes, letters
spaced or dotted out, Morse; by asking the agent to read a line another way (ROT13,
backwards: :mod:`memdir.screening.readings`); or by leaving it in pieces to put
together (:mod:`memdir.screening.puzzles`). A model undoes all of these readily, so
screening reads the decoded text as well (:func:`decoded_parts`).

**Runs** of base64, base32, hexadecimal (plain, spaced, wrapped or ``\\x``),
decimal character codes, percent-encoding, character references, ``\\u`` escapes,
spaced or dotted letters and Morse are decoded where they stand. A decoded run is
read only when it reads as writing (valid UTF-8, printable, half of it letters,
words apart or a script that writes none), so that a hash, a key, an image's bytes
or an identifier that happens to be valid base64 is left alone. A run that decodes
to printable text is decoded again, up to :data:`_DEPTH` levels (base64 of hex),
and the text's other readings apply to it too (base64 of ROT13, where the text
names ROT13).

Limits: at most :data:`_MOST` readings (of lines, and of what a note says to
assemble) and as many decoded runs, of :data:`_BUDGET` characters each, per text:
a hostile body of encoded-looking runs costs time linear in its length, and what
lies past the budget is not decoded.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from itertools import chain
from urllib.parse import unquote

from memdir.screening.puzzles import puzzle_readings
from memdir.screening.readings import line_readings, signs_in
from memdir.utils.records import record

__all__ = ["Decoded", "decoded_parts"]

_DEPTH = 3  # levels of encoding inside encoding that are undone
_MOST = 256  # lines' readings, and decoded runs, per text at the most
_BUDGET = 65_536  # characters of readings, and of decoded runs, per text at the most
_SHORTEST = 8  # decoded characters a part needs to say anything

# A base64 run: standard or URL-safe letters, long enough to hold a sentence's words.
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}")
# Whole lines of base64 or hexadecimal, as a long payload is wrapped: joined first.
_WRAPPED = re.compile(
    r"(?m)^[ \t>]*[A-Za-z0-9+/_-]{24,}={0,2}[ \t]*(?:\r?\n[ \t>]*[A-Za-z0-9+/_-]{4,}={0,2}[ \t]*)+$"
)
_BASE32 = re.compile(r"(?<![A-Za-z0-9])[A-Z2-7]{16,}={0,6}(?![A-Za-z0-9])")
# Character codes in decimal ("72 105 100 101 ..."), as a script would print them.
_CODES = re.compile(r"(?<![\w.])(?:\d{2,7}[ \t]*[ ,;][ \t]*){7,}\d{2,7}(?![\w.])")
_HEX = re.compile(r"(?<![0-9A-Za-z])(?:0x)?(?:[0-9A-Fa-f]{2}[ :]?){8,}(?![0-9A-Za-z])")
_HEX_ESCAPES = re.compile(r"(?:\\x[0-9A-Fa-f]{2}){6,}")
# Percent-encoding, character references and \u escapes: escapes with a word or less
# of plain text between them ("Ignore%20all%20earlier" encodes only the blanks; such a
# run hides nothing from a person, see Decoded.hidden).
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_REFERENCE = re.compile(r"&#(?:[0-9]{1,7}|[xX][0-9A-Fa-f]{1,6});?")
_U_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
_PERCENT = re.compile(
    rf"(?<![^\s<>\"'])[^\s%<>\"']*(?:{_PERCENT_ESCAPE.pattern}[^\s%<>\"']{{0,24}}){{3,}}"
)
_REFERENCES = re.compile(rf"(?:{_REFERENCE.pattern}[^&\n]{{0,24}}){{4,}}")
_U_ESCAPES = re.compile(rf"(?:(?:{_U_ESCAPE.pattern})[^\\\n]{{0,24}}){{4,}}")
# Characters spaced out ("t e l l   t h e   u s e r", "o b e y / t h i s"): one blank
# parts characters, two or more (or a lone slash) part words.
_SPACED = re.compile(r"(?<!\S)\S(?:[ \t]{1,3}\S(?!\S)){7,}")
_WORD_GAP = re.compile(r"[ \t]{2,}|[ \t]/[ \t]")
# Letters dotted out ("h.i.d.e f.a.i.l.e.d", "h.i.d.e / t.h.e"): blanks or slashes part words.
_DOTTED = re.compile(r"(?<![^\W_])[^\W\d_](?:(?:[.·_-]|\s*/\s*|[ \t]+)[^\W\d_](?![^\W_])){7,}")
_MORSE = re.compile(r"(?<![.\w-])[.-]{1,7}(?:(?: {1,3}| */ *)[.-]{1,7}){7,}(?![.\w-])")
_MORSE_CODE = dict(zip(
    ".- -... -.-. -.. . ..-. --. .... .. .--- -.- .-.. -- -. --- .--. --.- .-. ... - ..- "
    "...- .-- -..- -.-- --.. ----- .---- ..--- ...-- ....- ..... -.... --... ---.. ----. "
    ".-.-.- --..-- ..--.. -.-.-- -....- -..-. .--.-. ---...".split(),
    "abcdefghijklmnopqrstuvwxyz0123456789.,?!-/@:", strict=True,
))  # fmt: skip


@record
class Decoded:
    """A part of a text, decoded: how (``scheme``), where it starts in the text as
    written, and what it says. ``places`` says how a position in ``text`` maps back:
    ``"run"``, to the run's start; ``"same"``, to the same place (a line read in ROT13);
    ``"mirrored"``, backwards from the line's end (a reversed line)."""

    scheme: str
    start: int
    text: str
    places: str = "run"
    hidden: bool = True  # False: most of its letters were written plainly (a URL's %20s)

    def origin(self, start: int, end: int) -> int:
        """Where the decoded span ``start:end`` (or its encoded run) starts in the text."""
        if self.places == "same":
            return self.start + start
        if self.places == "mirrored":
            return self.start + len(self.text) - max(end, start + 1)
        return self.start


@lru_cache(maxsize=64)
def decoded_parts(text: str) -> tuple[Decoded, ...]:
    """The parts of ``text`` that decode to writing, decoded (see the module docstring;
    the last texts' parts are kept, screening asks for them twice).

    The lines' readings and the encoded runs have a budget each, so that a text cannot
    spend the one on the other (many lines before an encoded run, or the reverse)."""
    signs, read_budget = signs_in(text), _BUDGET
    assembled = ((scheme, start, read, "run") for scheme, start, read in puzzle_readings(text))
    readings = []
    for scheme, start, read, places in chain(assembled, line_readings(text, signs)):
        readings.append(Decoded(scheme=scheme, start=start, text=read, places=places))
        read_budget -= len(read)
        if len(readings) >= _MOST or read_budget <= 0:
            break
    runs: list[Decoded] = []
    for part in _runs(text, [_BUDGET], depth=_DEPTH):
        runs.append(part)
        runs += [
            Decoded(scheme=f"{scheme} of {part.scheme}", start=part.start, text=read)
            for scheme, _, read, _ in line_readings(part.text, signs)
        ]
        if len(runs) >= _MOST:
            break
    return (*readings, *runs[:_MOST])


def _runs(text: str, budget: list[int], *, depth: int) -> Iterator[Decoded]:
    """Encoded runs of ``text`` that decode to writing, and the runs inside those (a run
    may decode to another encoding, base64 of hex, which is not writing itself)."""
    for scheme, start, decoded, hidden in _decoded_runs(text):
        if budget[0] <= 0:
            return
        budget[0] -= len(decoded)
        if _writing(decoded):
            yield Decoded(scheme=scheme, start=start, text=decoded, hidden=hidden)
        if depth > 1:
            for inner in _runs(decoded, budget, depth=depth - 1):
                yield Decoded(scheme=f"{inner.scheme} in {scheme}", start=start, text=inner.text)


def _decoded_runs(text: str) -> Iterator[tuple[str, int, str, bool]]:
    """``(scheme, start, decoded, hidden)`` for each run of ``text`` that decodes to
    printable text (``hidden``: most of its letters were encoded)."""
    wrapped_spans = []
    for match in _WRAPPED.finditer(text):
        scheme, decoded = _unwrapped(re.sub(r"[\s>]", "", match.group()))
        if decoded is not None:
            wrapped_spans.append((match.start(), match.end()))
            yield scheme, match.start(), decoded, True
    for scheme, pattern, decode in _DECODERS:
        for match in pattern.finditer(text):
            if any(start <= match.start() < end for start, end in wrapped_spans):
                continue
            run = match.group()
            decoded = decode(run)
            if decoded is not None:
                yield scheme, match.start(), decoded, _hidden(scheme, run, decoded)


def _unwrapped(joined: str) -> tuple[str, str | None]:
    if re.fullmatch(r"(?:[0-9A-Fa-f]{2})+", joined):
        return "hexadecimal", _printable(_hex(joined))
    return "base64", _printable(_base64(joined))


def _hidden(scheme: str, run: str, decoded: str) -> bool:
    """Whether most of the letters of a decoded run were encoded (a run of escapes with
    plain words between them hides only what the escapes stand for)."""
    escapes = _ESCAPES.get(scheme)
    if escapes is None:
        return True
    plain = sum(char.isalpha() for char in escapes.sub("", run))
    return plain < 0.5 * sum(char.isalpha() for char in decoded)


def _base32(run: str) -> bytes | None:
    letters = run.rstrip("=")
    try:
        return base64.b32decode(letters + "=" * (-len(letters) % 8))
    except (binascii.Error, ValueError):
        return None


def _codes(run: str) -> str | None:
    numbers = [int(number) for number in re.findall(r"\d+", run)]
    if not all(map(_is_character, numbers)):
        return None
    return _printable("".join(map(chr, numbers)).encode("utf-8"))


def _is_character(code: int) -> bool:
    """Whether ``code`` is a Unicode scalar value (a surrogate half is not)."""
    return code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF


def _base64(run: str) -> bytes | None:
    letters = run.rstrip("=").replace("-", "+").replace("_", "/")
    if len(letters) % 4 == 1:
        return None
    try:
        return base64.b64decode(letters + "=" * (-len(letters) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def _hex(run: str) -> bytes | None:
    digits = re.sub(r"[\s:]", "", run.removeprefix("0x"))
    try:
        return bytes.fromhex(digits)
    except ValueError:
        return None


def _unescape(run: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = int(match.group(1) or match.group(2), 16)
        return chr(code) if _is_character(code) else ""

    return _U_ESCAPE.sub(one, run)


def _unspaced(run: str) -> str | None:
    """Characters spaced out, joined into their words."""
    return " ".join(word.replace(" ", "").replace("\t", "") for word in _WORD_GAP.split(run))


def _undotted(run: str) -> str | None:
    """Letters dotted out, joined into their words (None: not dotted, but spaced)."""
    if not re.search(r"[^\W\d_][.·_-][^\W\d_]", run):
        return None
    return " ".join(re.sub(r"[.·_-]", "", word) for word in re.split(r"\s*/\s*|\s+", run))


def _unmorse(run: str) -> str | None:
    words = re.split(r" */ *| {3}", run)
    read = ["".join(_MORSE_CODE.get(code, "") for code in word.split()) for word in words]
    return " ".join(word for word in read if word) or None


def _changed(run: str, decoded: str) -> str | None:
    """``decoded`` when decoding changed ``run`` and the result is printable."""
    return _printable(decoded.encode("utf-8", "surrogatepass")) if decoded != run else None


def _printable(data: bytes | None) -> str | None:
    """``data`` as text when it is valid UTF-8 and printable (writing, or another encoding)."""
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(char.isprintable() or char in "\n\r\t" for char in text)
    return text if len(text) >= _SHORTEST and printable >= 0.95 * len(text) else None


def _writing(text: str) -> bool:
    """Whether ``text`` reads as writing: at least half letters, and words apart (or enough
    letters of a script that writes none), not a hash, a key or another encoding."""
    if sum(char.isalpha() for char in text) < 0.5 * len(text):
        return False
    return any(char.isspace() for char in text) or sum(ord(c) > 0x2FF for c in text) >= 4


# (scheme, what finds a run, what decodes it: None where it is not printable text)
_DECODERS: tuple[tuple[str, re.Pattern[str], Callable[[str], str | None]], ...] = (
    ("base64", _BASE64, lambda run: _printable(_base64(run))),
    ("base32", _BASE32, lambda run: _printable(_base32(run))),
    ("hexadecimal", _HEX, lambda run: _printable(_hex(run))),
    ("hexadecimal", _HEX_ESCAPES, lambda run: _printable(_hex(run.replace("\\x", "")))),
    ("character codes", _CODES, _codes),
    ("percent-encoding", _PERCENT, lambda run: _changed(run, unquote(run))),
    ("character references", _REFERENCES, lambda run: _changed(run, html.unescape(run))),
    ("\\u escapes", _U_ESCAPES, lambda run: _changed(run, _unescape(run))),
    ("spaced letters", _SPACED, _unspaced),
    ("dotted letters", _DOTTED, _undotted),
    ("Morse code", _MORSE, _unmorse),
)
# The escapes of the schemes that may leave most of a run plain (see _hidden).
_ESCAPES = {
    "percent-encoding": _PERCENT_ESCAPE,
    "character references": _REFERENCE,
    "\\u escapes": _U_ESCAPE,
}
