"""How much text a coding agent's hook may hand the agent, and fitting text into it.

Claude Code replaces a hook's ``additionalContext`` longer than 10,000
characters with a 2 KB preview and the path of a file holding the rest (seen
with Claude Code 2.1.332: 10,000 UTF-16 code units arrive whole, 10,001 do not,
whatever the script). What it cuts the model never reads as memory, so every
builder of hook text here works within a budget by construction: it measures
what it adds in UTF-16 code units, as JavaScript does, and leaves out whole
lines, never part of one, with a pointer to where the rest is.

:func:`fit_lines` chooses which lines of a list to keep within a budget: in
the list's own order, but when not all of them fit, a caller may rank them
(the most recently changed memories first, say) and the kept ones are still
given in their original order.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the session-start hook loads this module
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["HOOK_CONTEXT_LIMIT", "LineFit", "fit_lines", "split_budget", "text_length"]

HOOK_CONTEXT_LIMIT = 10_000


def text_length(text: str) -> int:
    """``text``'s length as JavaScript counts it: UTF-16 code units."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class LineFit:
    """The lines kept (in their original order), their positions, how many were left out."""

    __slots__ = ("kept", "omitted", "positions")

    def __init__(self, kept: list[str], omitted: int, positions: list[int]) -> None:
        self.kept = kept
        self.omitted = omitted
        self.positions = positions

    def text(self) -> str:
        return "\n".join(self.kept)


def fit_lines(
    lines: Sequence[str],
    budget: int,
    *,
    rank: Callable[[int], tuple[float, ...]] | None = None,
    max_count: int | None = None,
) -> LineFit:
    """The lines of ``lines`` that fit in ``budget`` code units, joined by newlines.

    All of them when they fit. Otherwise the lines are taken best first by
    ``rank`` (a key on the line's position, higher is better; position order
    when ``None``), skipping any that no longer fit, and returned in their
    original order. ``max_count`` caps how many lines are kept.
    """
    # Each with its newline; one count for all when no line holds a surrogate pair.
    whole = "\n".join(lines)
    if text_length(whole) == len(whole):
        sizes = [len(line) + 1 for line in lines]
    else:
        sizes = [text_length(line) + 1 for line in lines]
    count = len(lines) if max_count is None else max(max_count, 0)
    if sum(sizes) - 1 <= budget and len(lines) <= count:
        return LineFit(list(lines), 0, list(range(len(lines))))
    order = range(len(lines)) if rank is None else sorted(range(len(lines)), key=rank, reverse=True)
    chosen: list[int] = []
    room = budget + 1  # the last line needs no newline
    smallest = min(sizes, default=0)
    for position in order:
        if len(chosen) >= count:
            break
        if sizes[position] <= room:
            chosen.append(position)
            room -= sizes[position]
            if room < smallest:
                break  # no line left fits
        elif rank is None:
            break  # in file order, a gap would hide the cut
    chosen.sort()
    return LineFit([lines[i] for i in chosen], len(lines) - len(chosen), chosen)


def split_budget(needs: Sequence[int], budget: int) -> list[int]:
    """``budget`` shared among parts that need ``needs``: none gets more than it needs, and
    what one leaves is shared by the others in equal parts."""
    shares = [0] * len(needs)
    open_parts = [i for i, need in enumerate(needs) if need > 0]
    left = budget
    while open_parts and left > 0:
        each = left // len(open_parts)
        if each == 0:
            break
        still = []
        for i in open_parts:
            give = min(each, needs[i] - shares[i])
            shares[i] += give
            left -= give
            if shares[i] < needs[i]:
                still.append(i)
        open_parts = still
    return shares
