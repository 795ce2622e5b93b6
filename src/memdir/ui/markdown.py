"""A memory's body as HTML: a little markdown, and never HTML the memory holds.

Memories are written by agents, teammates and sync: their text is untrusted.
Every piece of it is escaped first, and only then are the few markdown shapes
memories use turned into tags this module writes itself: headings, bullet and
numbered lists, fenced code, inline code, bold and italics, paragraphs. A link
``[text](url)`` shows as its text and its address, not as a link: a memory's
address is read, not followed, from this page. Anything else stays text.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

__all__ = ["render_inline", "render_markdown"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^\s*\d{1,9}[.)]\s+(.*)$")
# Applied to text already escaped: none of these can form a tag or an attribute.
_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def _inline(text: str) -> str:
    """One line of prose: escaped, then code spans, bold, italics and links."""
    pieces = []
    last = 0
    for match in _CODE.finditer(text):  # code spans keep their text as it is
        pieces.append(_emphasis(str(escape(text[last : match.start()]))))
        pieces.append(f"<code>{escape(match.group(1))}</code>")
        last = match.end()
    pieces.append(_emphasis(str(escape(text[last:]))))
    return "".join(pieces)


def _emphasis(escaped: str) -> str:
    escaped = _LINK.sub(r'\1 <span class="url">(\2)</span>', escaped)
    escaped = _BOLD.sub(r"<strong>\1</strong>", escaped)
    return _ITALIC.sub(r"<em>\1</em>", escaped)


def render_inline(text: str) -> Markup:
    """One line of ``text`` as safe HTML: code spans, bold, italics; nothing else."""
    return Markup(_inline(text))


def render_markdown(body: str) -> Markup:
    """``body`` as safe HTML (see the module docstring)."""
    out: list[str] = []
    paragraph: list[str] = []
    items: list[str] = []
    list_tag = ""

    def flush() -> None:
        nonlocal list_tag
        if paragraph:
            out.append("<p>" + "<br>".join(_inline(line) for line in paragraph) + "</p>")
            paragraph.clear()
        if items:
            out.append(f"<{list_tag}>" + "".join(f"<li>{i}</li>" for i in items) + f"</{list_tag}>")
            items.clear()
            list_tag = ""

    lines = body.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            flush()
            marker = fence.group(1)
            code: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(marker):
                code.append(lines[i])
                i += 1
            out.append(f"<pre><code>{escape(chr(10).join(code))}</code></pre>")
            i += 1
            continue
        heading = _HEADING.match(line)
        bullet = _BULLET.match(line)
        numbered = None if bullet else _NUMBERED.match(line)
        if not line.strip():
            flush()
        elif heading:
            flush()
            level = min(len(heading.group(1)) + 2, 6)  # the page's own headings come first
            out.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif bullet or numbered:
            tag = "ul" if bullet else "ol"
            if paragraph or (items and list_tag != tag):
                flush()
            list_tag = tag
            items.append(_inline((bullet or numbered).group(1)))  # type: ignore[union-attr]
        elif items and line.startswith((" ", "\t")):
            items[-1] += " " + _inline(line.strip())
        else:
            if items:
                flush()
            paragraph.append(line)
        i += 1
    flush()
    return Markup("\n".join(out))
