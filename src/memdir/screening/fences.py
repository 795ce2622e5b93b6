"""memdir's own fence kept closed: no text a prompt quotes can end or forge a ``<memory>``.

Recall hands the agent each memory inside a ``<memory …>`` block
(:mod:`memdir.recall.blocks`), and the session start quotes every memory's name
and description in the index. :func:`fence_safe` writes the ``<`` of every
``<memory`` and ``</memory`` in such text as ``&lt;``, so that whatever a memory
says, it cannot close the block it sits in or open one that looks like
memdir's. Screening holds an agent's write that carries such a tag
(:mod:`memdir.screening.frames`); this is the other half, for text that was
never screened (a person's write, a hand edit, a file another tool wrote).

A tag spelled to slip past a plain match is one too: white space or a line
break inside it, invisible characters between its letters, a fullwidth bracket
or slash, Cyrillic or Greek look-alike letters. It runs in the fresh process of
a prompt's hook, so it imports nothing but ``re``, and only when there is a
bracket to look at.
"""

from __future__ import annotations

__all__ = ["fence_safe"]

# What a reader does not see between the characters of a tag: zero-width and bidi
# controls, joiners, soft hyphens, variation selectors, blank fillers, tag characters.
_UNSEEN = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f"
)
_GAP = rf"[\s{_UNSEEN}]*"
# Each letter of "memory" with its fullwidth form and its Cyrillic or Greek look-alikes.
_LETTERS = (
    "m\uff4d\u043c",
    "e\uff45\u0435",
    "m\uff4d\u043c",
    "o\uff4f\u043e\u03bf",
    "r\uff52\u0433",
    "y\uff59\u0443",
)
_FENCE_TAG = (
    rf"(?i)[<\uff1c\ufe64](?={_GAP}[/\uff0f\u2215\u2044]?{_GAP}"
    + f"[{_UNSEEN}]*".join(f"[{letters}]" for letters in _LETTERS)
    + r"(?![^\W_]))"
)
_OPENERS = frozenset("<\uff1c\ufe64")


def fence_safe(text: str) -> str:
    """``text`` with every ``<memory`` and ``</memory`` written ``&lt;…``: it cannot
    close the fence it sits in or open a forged one (a body is data, whoever wrote it).

    A tag spelled to slip past a plain match is one too: white space or a line
    break inside it, invisible characters between its letters, a fullwidth
    bracket or slash, Cyrillic or Greek look-alike letters.
    """
    if not any(opener in text for opener in _OPENERS):  # a search each, not a loop a char
        return text
    if text.isascii() and "memory" not in text.lower():  # no tag to write: no regex to load
        return text
    import re  # compiled once per process, by the first block shown

    return re.sub(_FENCE_TAG, "&lt;", text)
