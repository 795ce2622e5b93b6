"""What the catalog's fast paths must not change: parsed memories, words, scores, what wins."""

from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import memdir.search.documents as documents_module
from memdir.errors import ParseError
from memdir.search import engine, lexical
from memdir.search.catalog import Catalog
from memdir.search.documents import memory_document
from memdir.search.engine import Document, RankingOptions, SearchQuery, TextIndex
from memdir.search.terms import tokenize
from memdir.storage import codec
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


@given(lines=st.lists(frontmatter_line(), max_size=6))
def test_frontmatter_reads_the_same_with_or_without_the_plain_lines_fast_path(
    lines: list[str],
) -> None:
    block = "\n".join(lines)
    try:
        reference: dict[str, object] | None = codec._yaml_frontmatter(block)
    except ParseError:
        reference = None  # YAML refuses it: the fast path must not accept it either
    if codec._plain_fields(block) is not None:
        assert codec._plain_fields(block) == reference
    if reference is None:
        with pytest.raises(ParseError):
            codec.parse_frontmatter(block)
    else:
        assert codec.parse_frontmatter(block) == reference


@given(lines=st.lists(frontmatter_line(), max_size=6), body=st.text(max_size=40))
def test_a_memory_document_is_the_same_in_a_folder_with_or_without_sidecars(
    lines: list[str], body: str
) -> None:
    # A folder with a sidecar folder reads each note through the sidecar module.
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


def test_rebuilding_a_full_catalog_indexes_each_file_once(
    tmp_path: Path, memdir_home: Path
) -> None:
    layout = _layout(tmp_path, memdir_home)
    for name in ("a", "b", "c"):
        (layout.memory_dir / f"{name}.md").write_text(
            f"---\nname: {name}\n---\ndeploy notes {name}\n", encoding="utf-8"
        )
    with Catalog.open(layout) as catalog:
        catalog.refresh()
        catalog.rebuild()
        stats = catalog.rebuild()
        vocab = dict(catalog.index.conn.execute("SELECT term, doc FROM vocab"))
        hits = catalog.search("deploy")
    assert stats.added == 3
    assert sorted(h.ref for h in hits) == ["a.md", "b.md", "c.md"]
    assert vocab["deploy"] == 3


def test_a_build_in_worker_processes_stores_what_one_in_this_process_stores(
    tmp_path: Path, memdir_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = _layout(tmp_path, memdir_home)
    (layout.memory_dir / "team").mkdir()
    for i in range(40):
        folder = layout.memory_dir / ("team" if i % 3 == 0 else "") / f"d{i % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        front = f"name: note {i}\ndescription: deploy step {i}" if i % 5 else "name: [odd: {i}"
        (folder / f"m{i}.md").write_text(f"---\n{front}\n---\nbody {i} runbook\n", "utf-8")
    log = layout.memory_dir / "logs" / "2026" / "03"
    log.mkdir(parents=True)
    (log / "2026-03-01.md").write_text("# 2026-03-01\n\n- 09:00 deploy went out\n", "utf-8")

    def stored() -> list[tuple[object, ...]]:
        with Catalog.open(layout) as catalog:
            catalog.rebuild()
            return catalog.index.conn.execute(
                "SELECT d.id, d.kind, d.title, d.text, d.date, d.scope, d.type, d.meta,"
                " f.name, f.description, f.body, f.dates, s.path, s.hash"
                " FROM docs d JOIN fts f ON f.rowid = d.rowid JOIN sources s ON s.id = d.source"
                " ORDER BY d.id"
            ).fetchall()

    here = stored()
    monkeypatch.setattr(documents_module, "_workers", lambda jobs: 2)
    assert stored() == here
    assert len(here) == 41


def test_an_old_match_of_a_rare_word_is_found_beside_a_word_most_documents_hold() -> None:
    index = TextIndex(options=RankingOptions(candidates=2, scan_limit=4))
    index.add([Document(id="old", kind="memory", title="o", fields={"body": "deploy canary"})])
    index.add(
        Document(id=f"new{i}", kind="memory", title="n", fields={"body": f"deploy note {i}"})
        for i in range(12)
    )
    hits = index.search(SearchQuery(query="deploy canary", limit=2))
    assert hits[0].ref == "old"


@given(text=st.text(alphabet=st.characters(max_codepoint=127), max_size=60))
def test_ascii_text_splits_into_the_words_unicode_text_would(text: str) -> None:
    # " é" makes the text non-ASCII (the general path) and adds the word "e" at its end.
    assert tokenize(text + " é") == [*tokenize(text), "e"]


@pytest.mark.parametrize("memories_share", [0.9, 0.1])
def test_a_filter_ranks_the_same_whether_its_rows_are_gathered_or_looked_up(
    memories_share: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(5)
    words = "deploy staging rollback cache queue retry".split()
    docs = [
        Document(
            id=f"d{i}",
            kind="memory" if rng.random() < memories_share else "log",
            title=f"d{i}",
            fields={"body": " ".join(rng.choice(words) for _ in range(6))},
        )
        for i in range(300)
    ]
    index = TextIndex(options=RankingOptions(candidates=20, scan_limit=40))
    index.add(docs)
    query = SearchQuery(query="deploy retry cache", kinds=("memory",), limit=20)
    where, params = engine._filters(query)
    assert lexical.broad(index.conn, where, params) is (memories_share > 0.5)
    chosen = index.rank(query)
    for broad in (True, False):
        monkeypatch.setattr(engine, "broad", lambda conn, where, params, b=broad: b)
        assert index.rank(query) == chosen
    assert chosen and all(ref in {d.id for d in docs if d.kind == "memory"} for ref, _ in chosen)
