"""Reading a regular expression's text without compiling it: where a character class ends.

The rule gate reads a rule's pattern on every tool call before any regular-expression
engine is loaded, and rule validation reads it when a rule is written; both need to
step over a character class as RE2 reads it. Kept apart and free of imports so that
the gate, which runs in the hook's own fresh process, stays light.
"""

from __future__ import annotations

__all__ = ["class_end"]


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
