"""What the catalog's fast paths must not change: parsed memories, scores, which files win."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from memdir.search.catalog import Catalog, memory_document
from memdir.search.engine import Document, RankingOptions, SearchQuery, TextIndex
from memdir.storage.paths import Layout, make_layout

KEYS = ("name", "description", "type", "updated", "source", "no", "x-y")
# Characters YAML gives a meaning to, beside plain ones: the fast path must defer on them.
VALUE_CHARS = "abyYnNoOtT eE:#'\"-_.,;12!&*[]{}%?=$/()\t~@`|>"


def frontmatter_line() -> st.SearchStrategy[str]:
    value = st.one_of(
        st.text(alphabet=VALUE_CHARS, max_size=12),
        st.sampled_from(["yes", "No", "null", "TRUE", "off", "2026-01-05", "2026-1-5", "12:30"]),
    )
    spacing = st.sampled_from([": ", ":", ":  ", " : "])
    indent = st.sampled_from(["", "", "", " "])
    return st.builds(
        lambda i, k, s, v: f"{i}{k}{s}{v}", indent, st.sampled_from(KEYS), spacing, value
    )


def as_comparable(doc: Document) -> tuple[object, ...]:
    return (doc.id, doc.title, dict(doc.fields), doc.text, doc.date, doc.scope, doc.type, doc.meta)


@given(lines=st.lists(frontmatter_line(), max_size=6), body=st.text(max_size=40))
def test_a_memory_reads_the_same_with_or_without_the_plain_frontmatter_fast_path(
    lines: list[str], body: str
) -> None:
    # A folder with a sidecar folder always goes through the YAML parser: the reference.
    text = "---\n" + "\n".join(lines) + "\n---\n" + body
    with tempfile.TemporaryDirectory() as tmp:
        memory_dir = Path(tmp)
        (memory_dir / "slow" / ".meta").mkdir(parents=True)
        (memory_dir / "fast").mkdir()
        slow = memory_document(memory_dir / "slow" / "m.md", memory_dir, text, 0.0)
        fast = memory_document(memory_dir / "fast" / "m.md", memory_dir, text, 0.0)
    assert as_comparable(fast)[1:] == as_comparable(slow)[1:]
    assert fast.id == "fast/m.md"


def test_a_query_matching_more_than_the_scan_limit_ranks_the_newest_files(
    tmp_path: Path, memdir_home: Path
) -> None:
    layout = _layout(tmp_path, memdir_home)
    for age, name in enumerate(["e", "d", "c", "b", "a"]):  # a is the oldest file
        path = layout.memory_dir / f"{name}.md"
        path.write_text(f"---\nname: {name}\n---\nthe deploy runbook\n", encoding="utf-8")
        when = 1_700_000_000 - 1000 * age
        os.utime(path, (when, when))
    options = RankingOptions(candidates=2, scan_limit=2)
    with Catalog.open(layout, options=options) as catalog:
        catalog.rebuild()
        hits = catalog.search(SearchQuery(query="deploy", limit=2))
        narrowed = catalog.search(SearchQuery(query="deploy", kinds=("memory",), limit=2))
    assert sorted(h.ref for h in hits) == ["d.md", "e.md"]
    assert sorted(h.ref for h in narrowed) == ["d.md", "e.md"]


def test_a_document_scores_the_same_whether_or_not_the_scan_was_limited() -> None:
    capped = TextIndex(options=RankingOptions(candidates=3, scan_limit=3))
    docs = [
        Document(id=f"d{i}", kind="memory", title=f"d{i}", fields={"body": "deploy " * (1 + i % 3)})
        for i in range(8)
    ] + [Document(id="other", kind="memory", title="o", fields={"body": "unrelated words"})]
    capped.add(docs)
    whole = TextIndex(options=RankingOptions(candidates=3, scan_limit=100))
    whole.add(docs)
    some = {h.ref: h.score for h in capped.search(SearchQuery(query="deploy", limit=3))}
    every = {h.ref: h.score for h in whole.search(SearchQuery(query="deploy", limit=9))}
    assert set(some) <= {"d5", "d6", "d7"}  # the newest three matches
    assert all(some[ref] == every[ref] for ref in some)


def test_adding_a_document_again_replaces_it() -> None:
    index = TextIndex()
    index.add([Document(id="a", kind="memory", title="old", fields={"body": "first words"})])
    index.add([Document(id="a", kind="memory", title="new", fields={"body": "second words"})])
    assert len(index) == 1
    assert [h.title for h in index.search("second")] == ["new"]
    assert index.search("first") == []


def _layout(tmp_path: Path, home: Path) -> Layout:
    project = tmp_path / "proj"
    project.mkdir()
    layout = make_layout(home, project)
    layout.memory_dir.mkdir(parents=True)
    return layout
