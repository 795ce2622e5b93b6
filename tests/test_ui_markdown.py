"""A memory's body on the page: a little markdown, never a tag the memory wrote."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("markupsafe")

from memdir.ui.markdown import render_inline, render_markdown

# Every tag the renderer itself writes; anything else in the output came from the memory.
OWN_TAGS = {
    "p",
    "br",
    "ul",
    "ol",
    "li",
    "pre",
    "code",
    "strong",
    "em",
    "span",
    "h3",
    "h4",
    "h5",
    "h6",
}
TAG = re.compile(r"<\s*/?\s*([a-zA-Z][a-zA-Z0-9]*)([^>]*)>")
HOSTILE = st.sampled_from(
    ["<script>", "</script>", "<img src=x onerror=alert(1)>", '"', "'", "&", "<", ">",
     "`", "**", "*", "# ", "- ", "1. ", "```", "[a](javascript:alert(1))", "\n", " ", "x"]
)  # fmt: skip


@given(st.lists(st.one_of(HOSTILE, st.text(max_size=8)), max_size=30).map("".join))
def test_whatever_a_body_holds_only_the_renderers_own_tags_come_out(body: str) -> None:
    html = str(render_markdown(body))
    for name, attributes in TAG.findall(html):
        assert name.lower() in OWN_TAGS, html
        assert attributes in ("", ' class="url"'), html  # no attribute a memory chose


def test_the_markdown_memories_use_renders() -> None:
    html = str(render_markdown("# Title\n\nSome **bold** and *it* and `x<y`.\n\n- one\n- two\n"))
    assert "<h3>Title</h3>" in html
    assert "<strong>bold</strong>" in html and "<em>it</em>" in html
    assert "<code>x&lt;y</code>" in html
    assert "<ul><li>one</li><li>two</li></ul>" in html
    fenced = str(render_markdown("```\n<b>kept as text</b>\n```"))
    assert fenced == "<pre><code>&lt;b&gt;kept as text&lt;/b&gt;</code></pre>"


def test_a_link_shows_its_address_and_is_not_followed() -> None:
    html = str(render_inline("see [the docs](javascript:alert&#40;1&#41;)"))
    assert "<a" not in html and "href" not in html
    assert 'the docs <span class="url">(javascript:alert&amp;#40;1&amp;#41;)</span>' in html
