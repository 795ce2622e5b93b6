"""The expansions inside one word that the command-line scanner (``shell_words``) applies.

Pure string functions, no shell grammar: the escapes of ``$'…'``, ``echo -e``
and ``printf`` decoded (:func:`unescape`); the parts of ``${…}``, where it ends
(:func:`parameter_end`) and a slice of a known value (:func:`sliced`); and
brace expansion (:func:`brace_words`, of a word whose unquoted braces the
scanner marked with :data:`MARK_BRACES`; :func:`brace_variants`, the commands
read for each choice among a command's braces), bounded by
:data:`MAX_BRACE_WORDS` and :data:`MAX_VARIANTS`. Like
:mod:`memdir.enforcement.shell_forms`, nothing here loads ``re``.
"""

from __future__ import annotations

__all__ = [
    "MARK_BRACES",
    "MAX_BRACE_WORDS",
    "MAX_VARIANTS",
    "UNMARK_BRACES",
    "brace_variants",
    "brace_words",
    "parameter_end",
    "sliced",
    "unescape",
]

MAX_BRACE_WORDS = 64  # words one brace expansion gives at most (bash would give them all)
MAX_VARIANTS = 32  # commands read for the choices among a command's braces
# Unquoted braces and commas, marked while a word is read: only they expand.
_OPEN, _COMMA, _CLOSE = "\ue000", "\ue001", "\ue002"
MARK_BRACES = str.maketrans({"{": _OPEN, ",": _COMMA, "}": _CLOSE})
UNMARK_BRACES = str.maketrans({_OPEN: "{", _COMMA: ",", _CLOSE: "}"})


def unescape(body: str) -> str:
    """``body`` with the backslash escapes of ``$'…'``, ``echo -e`` and ``printf`` decoded."""
    if "\\" not in body:
        return body
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 == n:
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[nxt])
            i += 2
        elif nxt == "x":
            digits = _hex_run(body, i + 2, 2)
            out.append(chr(int(digits, 16)) if digits else "\\x")
            i += 2 + len(digits)
        elif nxt in "01234567":
            j = i + 1
            while j < n and j < i + 4 and body[j] in "01234567":
                j += 1
            out.append(chr(int(body[i + 1 : j], 8)))
            i = j
        else:  # an escape bash does not know stays as written
            out.append("\\" + nxt)
            i += 2
    return "".join(out)


_SIMPLE_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b",
    "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip


def _hex_run(text: str, start: int, most: int) -> str:
    end = start
    while end < len(text) and end < start + most and text[end] in "0123456789abcdefABCDEF":
        end += 1
    return text[start:end]


# -- words: parameters and braces ------------------------------------------------------


def parameter_end(text: str, pos: int) -> int:
    """The index of the ``}`` closing the ``{`` at ``pos`` (of ``${``); -1: none."""
    depth, i, n = 0, pos, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c in "'\"":
            close = text.find(c, i + 1)
            if close < 0:
                return -1
            i = close + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def sliced(value: str, spec: str) -> str | None:
    """``${X:offset}`` or ``${X:offset:length}`` of ``value``; None when not plain numbers."""
    offset, colon, length = spec.partition(":")
    offset, length = offset.strip(), length.strip()
    if not offset.isdigit() or (colon and not length.isdigit()):
        return None
    start = int(offset)
    return value[start : start + int(length)] if colon else value[start:]


def brace_words(word: str) -> list[str]:
    """The words bash's brace expansion makes of ``word`` (its braces marked)."""
    return [found.translate(UNMARK_BRACES) for found in _expand(word)[:MAX_BRACE_WORDS]]


def _expand(word: str) -> list[str]:
    start = 0
    while True:
        i = word.find(_OPEN, start)
        if i < 0:
            return [word]
        group = _group(word, i)
        if group is None:
            start = i + 1  # not a brace expansion: a literal ``{``
            continue
        parts, close = group
        head, tails = word[:i], _expand(word[close + 1 :])
        out: list[str] = []
        for part in parts:
            for middle in _expand(part):
                out += [head + middle + tail for tail in tails]
                if len(out) >= MAX_BRACE_WORDS:
                    return out
        return out


def _group(word: str, i: int) -> tuple[list[str], int] | None:
    """The alternatives of the brace group opening at ``i`` and where it closes."""
    depth = 0
    commas: list[int] = []
    for j in range(i, len(word)):
        c = word[j]
        if c == _OPEN:
            depth += 1
        elif c == _CLOSE:
            depth -= 1
            if depth == 0:
                if commas:
                    starts, ends = [i, *commas], [*commas, j]
                    return [word[a + 1 : b] for a, b in zip(starts, ends, strict=True)], j
                sequence = _sequence(word[i + 1 : j])
                return None if sequence is None else (sequence, j)
        elif c == _COMMA and depth == 1:
            commas.append(j)
    return None


def _sequence(body: str) -> list[str] | None:
    """``1..5``, ``a..e``, ``10..1..3``: the words of a sequence expression; None: not one."""
    parts = body.split("..")
    if len(parts) not in (2, 3) or not all(parts):
        return None
    step = _integer(parts[2]) if len(parts) == 3 else 1
    first, last = _integer(parts[0]), _integer(parts[1])
    if step is None or step == 0:
        return None
    step = abs(step)
    if first is not None and last is not None:
        numbers = range(first, last + 1, step) if first <= last else range(first, last - 1, -step)
        return [str(k) for k in numbers[:MAX_BRACE_WORDS]]
    a, b = parts[0], parts[1]
    if len(a) == len(b) == 1 and a.isascii() and b.isascii() and a.isalpha() and b.isalpha():
        codes = range(ord(a), ord(b) + 1, step) if a <= b else range(ord(a), ord(b) - 1, -step)
        return [chr(k) for k in codes[:MAX_BRACE_WORDS]]
    return None


def _integer(text: str) -> int | None:
    digits = text[1:] if text[:1] in "+-" else text
    return int(text) if digits.isdigit() and digits.isascii() else None


def brace_variants(words: list[str], groups: list[tuple[int, list[str]]]) -> list[list[str]]:
    """``words`` with each brace group reduced to one of its words, for each choice."""
    if not groups:
        return []
    choices: list[list[str]] = [[]]
    for _, expanded in groups:
        choices = [[*chosen, one] for chosen in choices for one in expanded][:MAX_VARIANTS]
    variants: list[list[str]] = []
    for chosen in choices:
        out: list[str] = []
        at = 0
        for (start, expanded), one in zip(groups, chosen, strict=True):
            out += words[at:start]
            out.append(one)
            at = start + len(expanded)
        variants.append(out + words[at:])
    return variants
