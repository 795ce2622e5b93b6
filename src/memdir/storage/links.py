"""``[[name]]`` links between memories: found in bodies, resolved to memory files.

Claude Code's memory prompt has the model link related memories with
``[[name]]``, ``name`` being the other memory's ``name:`` slug, and link
liberally: a link to a memory not written yet marks something worth writing
later, not an error. memdir reads the links the same way: :func:`link_targets`
finds them, :class:`LinkIndex` resolves them, and a target it cannot resolve
is simply not written yet.

A link is ``[[target]]``, ``[[target|label]]`` or ``[[target#part]]`` outside
code (fenced blocks and inline code spans are skipped, so a shell test
``[[ -f x ]]`` in a recipe is no link); its target is the text before ``|`` or
``#``, trimmed, and must not start with a space.

A target names, in this order (the first rule that matches wins):

1. the memory whose ``name`` it is (case and spacing aside);
2. the memory whose ``name`` has its slug (``Deploy freeze``, ``deploy_freeze`` and
   ``deploy-freeze`` share one: lower case, each run of other characters one ``-``);
3. the memory whose index line has it, or its slug, as title;
4. the memory whose file stem (or path from the memory folder, ``.md`` optional) it is,
   or has its slug.

Within one rule the memory listed first wins (callers list private before team).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from memdir.utils.records import record

__all__ = ["LinkIndex", "Linkable", "link_targets"]

_LINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def _prose(body: str) -> Iterable[str]:
    """The lines of ``body`` outside fenced code blocks, inline code spans blanked."""
    fence: str | None = None
    for line in body.splitlines():
        opened = _FENCE.match(line)
        if fence is not None:
            mark = opened.group(1) if opened is not None else ""
            if mark[:1] == fence[0] and len(mark) >= len(fence):
                fence = None  # the closing fence: as long as the opening one, or longer
            continue
        if opened is not None:
            fence = opened.group(1)
            continue
        yield _CODE_SPAN.sub(" ", line) if "`" in line else line


def link_targets(body: str) -> tuple[str, ...]:
    """The targets of the ``[[...]]`` links in ``body``, each once, in order."""
    if "[[" not in body:
        return ()
    found: dict[str, None] = {}
    for line in _prose(body):
        for match in _LINK.finditer(line):
            raw = match.group(1)
            target = re.split(r"[|#]", raw, maxsplit=1)[0].strip()
            if target and not raw[0].isspace():
                found.setdefault(target, None)
    return tuple(found)


@record
class Linkable:
    """A memory a link may name: its ref (path from the memory folder), name, index title."""

    ref: str
    name: str
    title: str = ""


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


def _slug(text: str) -> str:
    """A looser slug than Claude Code's: ``_`` counts as ``-`` too."""
    return _NOT_SLUG.sub("-", text.lower()).strip("-")


def _path(ref: str) -> str:
    return ref.removesuffix(".md")


_TOKENS = re.compile(r"[^\s-]+")


class LinkIndex:
    """Resolves link targets to the refs of the memories they name (see the module docstring).

    Resolving is driven by the targets: one walk compares every memory's name
    (rules 1 and 2, two string operations a memory); only targets still
    unresolved walk again for titles and file names (rules 3 and 4), and there a
    text is skipped unless it holds the longest word of some target. A store of
    thousands costs a few milliseconds per recall, links to memories not written
    yet included. ``titles`` gives the index titles (by ref) of memories listed
    without one, read only when rule 3 is needed.
    """

    def __init__(
        self,
        memories: Iterable[Linkable],
        *,
        titles: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        self._memories = list(memories)
        self._titles = titles

    def resolve(self, target: str) -> str | None:
        """The ref of the memory ``target`` names, or None: not written yet."""
        return self.resolve_all([target]).get(target)

    def resolve_all(self, targets: Iterable[str]) -> dict[str, str]:
        """The ref each target names, for those that name a written memory."""
        wanted = {t: (_key(_path(t)), _slug(_path(t))) for t in targets}
        # Per target, the best match so far: (rule, position in the listing, ref).
        best: dict[str, tuple[int, int, str]] = {}

        def offer(table: dict[str, list[str]], key: str, rule: int, at: int, ref: str) -> None:
            for target in table.get(key, ()):
                if best.get(target, (9, 0, ""))[:2] > (rule, at):
                    best[target] = (rule, at, ref)

        keys = _waiting(wanted, (0,))
        slugs = _waiting(wanted, (1,))
        for at, memory in enumerate(self._memories):
            offer(keys, _key(memory.name), 0, at, memory.ref)
            offer(slugs, _slug(memory.name), 1, at, memory.ref)
        left = {t: v for t, v in wanted.items() if t not in best}
        if left:
            self._by_place(left, offer)
        return {target: ref for target, (_, _, ref) in best.items()}

    def _by_place(
        self,
        left: dict[str, tuple[str, str]],
        offer: Callable[[dict[str, list[str]], str, int, int, str], None],
    ) -> None:
        """Rules 3 and 4 for the ``left`` targets: index titles, then file names."""
        table = _waiting(left, (0, 1))
        if not table:
            return
        # A text can key or slug to a target only if it holds that target's longest word.
        longest = {max(_TOKENS.findall(text) or [text], key=len) for text in table}
        probe = re.compile("|".join(map(re.escape, sorted(longest, key=len, reverse=True))))
        titles = self._titles() if self._titles is not None else {}
        for at, memory in enumerate(self._memories):
            ref = memory.ref
            title = memory.title or titles.get(ref, "")
            stem = _path(ref).rsplit("/", 1)[-1]
            for rule, text in ((2, title), (3, stem), (3, _path(ref))):
                if text and probe.search(text.casefold()):
                    offer(table, _key(text), rule, at, ref)
                    offer(table, _slug(text), rule, at, ref)


def _waiting(wanted: Mapping[str, tuple[str, str]], which: tuple[int, ...]) -> dict[str, list[str]]:
    """The targets waiting on each of their keys (``which``: 0 the key, 1 the slug)."""
    table: dict[str, list[str]] = {}
    for target, forms in wanted.items():
        for index in which:
            if forms[index]:
                table.setdefault(forms[index], []).append(target)
    return table
