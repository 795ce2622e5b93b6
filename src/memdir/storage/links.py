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

import posixpath
import re
from collections.abc import Iterable

from memdir.records import record

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


def _stem(ref: str) -> str:
    return posixpath.splitext(posixpath.basename(ref))[0]


class LinkIndex:
    """Resolves link targets to the refs of the memories they name (see the module docstring)."""

    def __init__(self, memories: Iterable[Linkable]) -> None:
        # One table per rule; a key keeps the first memory that claimed it.
        self._rules: list[dict[str, str]] = [{}, {}, {}, {}]
        names, slugs, titles, files = self._rules
        for memory in memories:
            names.setdefault(_key(memory.name), memory.ref)
            slugs.setdefault(_slug(memory.name), memory.ref)
            places = [(titles, memory.title), (files, _stem(memory.ref))]
            places.append((files, memory.ref.removesuffix(".md")))
            for table, text in places:
                table.setdefault(_key(text), memory.ref)
                table.setdefault(_slug(text), memory.ref)
        for table in self._rules:
            table.pop("", None)  # an empty name or slug names nothing

    def resolve(self, target: str) -> str | None:
        """The ref of the memory ``target`` names, or None: not written yet."""
        text = target.removesuffix(".md")
        key, slug = _key(text), _slug(text)
        names, slugs, titles, files = self._rules
        for table, wanted in ((names, key), (slugs, slug), (titles, key), (titles, slug)):
            if wanted in table:
                return table[wanted]
        return files.get(key) or files.get(slug)
