"""Reading a regular expression's text without compiling it: its tokens, and where a
character class ends.

The rule gate reads a rule's pattern on every tool call before any regular-expression
engine is loaded, and rule validation reads it when a rule is written; both need to
step over an escape and a character class as RE2 reads them. Kept apart and free of
imports so that the gate, which runs in the hook's own fresh process, stays light.
"""

from __future__ import annotations

TYPE_CHECKING = False  # the pre-tool-use hook loads this module: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["class_end", "skip_class", "tokens"]


def tokens(pattern: str, i: int = 0) -> Iterator[tuple[int, int]]:
    """Each token of ``pattern`` from ``i`` on, as ``(start, end)``: an escaped character
    (two characters), a character class (to just past its close) or one character.

    A class that never closes is the last token, and its end lies past the pattern's
    (``len(pattern) + 1``), so that a caller can tell it from one that closes.
    """
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            end = i + 2
        elif c == "[":
            end = skip_class(pattern, i)
        else:
            end = i + 1
        yield i, end
        i = end


def skip_class(pattern: str, i: int) -> int:
    """The index after the character class starting at ``pattern[i] == '['`` (past the
    end of ``pattern`` when it never closes)."""
    end = class_end(pattern, i)
    return len(pattern) + 1 if end is None else end


def class_end(pattern: str, i: int) -> int | None:
    """The index just past the character class opening at ``pattern[i] == '['``; None if
    it never closes. A ``]`` first in the class is one of its characters, and a POSIX
    class inside it (``[[:alpha:]_]``) closes with its own ``:]``."""
    n = len(pattern)
    i += 1
    if i < n and pattern[i] == "^":
        i += 1
    if i < n and pattern[i] == "]":
        i += 1
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
        elif pattern.startswith("[:", i):
            close = pattern.find(":]", i + 2)
            if close < 0:
                return None
            i = close + 2
        elif c == "]":
            return i + 1
        else:
            i += 1
    return None
