"""Ranked search (TextIndex, query handling, hybrid fusion) and grep search."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from embedutil import TopicEmbedder, needs_embeddings_extra
from memdir.search import terms as textproc
from memdir.search.catalog import Document, RankingOptions, SearchQuery, TextIndex
from memdir.search.query import GrepHit, InvalidPattern, grep, search
from memdir.search.vectors.embeddings import Embedder, embedded_text, rrf
from memdir.storage.paths import make_layout


def doc(
    doc_id: str, *, name: str = "", description: str = "", body: str = "", **extra: object
) -> Document:
    fields = {"name": name, "description": description, "body": body}
    return Document(id=doc_id, kind="memory", title=name or doc_id, fields=fields, **extra)  # type: ignore[arg-type]


def turn(
    doc_id: str, group: str, seq: int, body: str, *, name: str = "", title: str = ""
) -> Document:
    """A transcript turn: ``body``, said by ``name`` where given, ``seq``-th in ``group``."""
    fields = {"name": name, "body": body} if name else {"body": body}
    return Document(
        id=doc_id, kind="transcript", title=title or doc_id, fields=fields, group=group, seq=seq
    )


@pytest.fixture
def index() -> TextIndex:
    idx = TextIndex()
    idx.add(
        [
            doc(
                "passing.md",
                name="Release notes",
                description="What shipped in March",
                body="Among many things we touched the database migration tooling once.",
            ),
            doc(
                "exact.md",
                name="Migration policy",
                description="Database migration must be reviewed by two people",
                body="Both reviewers sign off.",
            ),
            doc(
                "other.md",
                name="Coffee",
                description="The coffee machine is on floor 3",
                body="Descale monthly.",
            ),
        ]
    )
    return idx


def test_an_exact_description_match_outranks_a_passing_body_mention(index: TextIndex) -> None:
    hits = index.search("database migration")
    assert [h.ref for h in hits] == ["exact.md", "passing.md"]
    assert hits[0].score > hits[1].score


def test_search_matches_other_forms_of_a_word(index: TextIndex) -> None:
    assert [h.ref for h in index.search("descaling")] == ["other.md"]


def test_a_query_of_only_stop_words_and_question_words_finds_nothing(index: TextIndex) -> None:
    assert index.search("what is the") == []


def test_the_limit_caps_the_number_of_hits(index: TextIndex) -> None:
    assert len(index.search(SearchQuery(query="database migration coffee", limit=1))) == 1


def test_excluded_ids_are_left_out_before_the_limit_is_applied(index: TextIndex) -> None:
    wanted = SearchQuery(query="database migration", limit=1, exclude=frozenset({"exact.md"}))
    assert [h.ref for h in index.search(wanted)] == ["passing.md"]


def test_a_search_query_is_a_hashable_value_even_when_given_lists() -> None:
    wanted = SearchQuery(query="x", kinds=["memory"], types=["user"])  # type: ignore[arg-type]
    assert wanted == SearchQuery(query="x", kinds=("memory",), types=("user",))
    assert hash(wanted) == hash(SearchQuery(query="x", kinds=("memory",), types=("user",)))


def test_snippets_come_from_the_original_text() -> None:
    idx = TextIndex()
    body = "Filler sentence. " * 30 + "The Walruses migrated north in April. " + "More. " * 30
    idx.add([doc("w.md", name="Walrus", body=body)])
    [hit] = idx.search("walrus migration")
    assert "Walruses migrated north" in hit.snippet
    assert len(hit.snippet) <= 170


def test_turns_near_a_strong_match_rank_above_unrelated_turns() -> None:
    idx = TextIndex(options=RankingOptions(neighbour_weight=0.5))
    texts = ["we booked the venue", "which city again", "lisbon in may", "unrelated lisbon"]
    idx.add(turn(f"t#{i}", "t" if i < 3 else "u", i, t, title=str(i)) for i, t in enumerate(texts))
    hits = idx.search("venue lisbon")
    assert hits[0].ref in ("t#0", "t#2")
    assert [h.ref for h in hits].index("t#2") < [h.ref for h in hits].index("t#3")


def test_a_speaker_named_in_the_query_lifts_that_speakers_turns() -> None:
    idx = TextIndex(options=RankingOptions(name_boost=0.5))
    idx.add(
        [
            turn("a", "chat", 0, "Anna: I adopted a puppy", name="Anna"),
            turn("b", "chat", 1, "Ben: Anna, I adopted a puppy too", name="Ben"),
        ]
    )
    assert idx.search("Did Anna adopt a puppy?")[0].ref == "a"


def test_a_memory_named_in_the_query_is_not_lifted_as_a_speaker_is() -> None:
    # A memory's name says what it is about and BM25 weighs it already; lifted again, a
    # memory named after the query's subject outranked the log entry that answers it.
    def scores(boost: float) -> dict[str, float]:
        idx = TextIndex(options=RankingOptions(name_boost=boost))
        idx.add(
            [
                doc("priya.md", name="Priya", body="Priya reviews the deploy checklist."),
                turn("t#0", "t", 0, "the deploy checklist is in the wiki", name="Priya", title="0"),
            ]
        )
        return dict(idx.rank("what did Priya say about the deploy checklist"))

    plain, lifted = scores(0.0), scores(0.5)
    assert lifted["priya.md"] == plain["priya.md"]
    assert lifted["t#0"] == pytest.approx(plain["t#0"] * 1.5)


def test_a_memory_named_after_its_file_holds_its_name_once() -> None:
    from memdir.search.documents import memory_document

    text = (
        "---\nname: fx-rates migration\ndescription: Moving fx-rates\ntype: project\n---\nPlan.\n"
    )
    root = Path("/memory")
    named = memory_document(root / "fx-rates_migration.md", root, text, 0.0)
    assert named.fields["name"] == "fx-rates migration"
    # A file named otherwise adds the words of its name that the memory's name lacks.
    other = memory_document(root / "old_fx_notes.md", root, text, 0.0)
    assert other.fields["name"] == "fx-rates migration old notes"


def test_dates_are_carried_with_each_document_and_searchable() -> None:
    idx = TextIndex()
    idx.add([doc("d.md", body="went hiking", date=dt.datetime(2023, 5, 8, 13, 56))])
    [hit] = idx.search("hiking in May 2023")
    assert hit.date == dt.datetime(2023, 5, 8, 13, 56)


def test_removing_a_document_drops_it_from_results(index: TextIndex) -> None:
    index.remove(["exact.md"])
    assert [h.ref for h in index.search("database migration")] == ["passing.md"]


@settings(max_examples=300, deadline=None)
@given(query=st.text())
def test_arbitrary_query_strings_never_raise(query: str) -> None:
    idx = TextIndex()
    idx.add([doc("x.md", name="NEAR AND OR NOT", body='quotes " and * ^ col:umn ( ) - +')])
    hits = idx.search(query)
    assert all(h.ref == "x.md" for h in hits)


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ('"unbalanced', ["x.md"]),
        ("NEAR(a b)", ["x.md"]),
        ("body:x", ["x.md"]),
        ("start* OR", ["x.md"]),
        ("^start", ["x.md"]),
        ("-x", ["x.md"]),
        ("😀 ü", ["x.md"]),
        ("\x00", []),
        ("NOT kayak", ["y.md"]),
        ("-kayak", ["y.md"]),
        ("x NOT kayak", ["x.md", "y.md"]),
    ],
)
def test_fts5_syntax_in_a_query_is_searched_as_words(query: str, found: list[str]) -> None:
    idx = TextIndex()
    idx.add([doc("x.md", body="start near body unbalanced x a ü"), doc("y.md", body="kayak")])
    # As words: "NOT kayak" and "-kayak" find kayak instead of excluding it.
    assert sorted(h.ref for h in idx.search(query)) == found


def test_query_terms_drop_question_and_stop_words_and_stem() -> None:
    terms = textproc.query_terms("When did Caroline go to the support groups?")
    assert terms == ["carolin", "go", "support", "group"]


def test_fts_query_quotes_every_term() -> None:
    assert textproc.fts_query(['a"b', "c"]) == '"a""b" OR "c"'


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("running", "run"),
        ("caresses", "caress"),
        ("ponies", "poni"),
        ("generously", "generous"),
        ("hopeful", "hope"),
        ("skies", "sky"),
        ("national", "nation"),
        ("adjustment", "adjust"),
    ],
)
def test_the_stemmer_follows_snowball_english(word: str, expected: str) -> None:
    assert textproc.stem(word) == expected


def test_irregular_forms_are_indexed_and_queried_as_their_base_word() -> None:
    terms = textproc.terms("We went there with the children and bought tickets")
    assert terms == ["go", "child", "buy", "ticket"]
    # Forms with a sense of their own stay as they are: "left" is no "leave".
    assert textproc.terms("turn left") == ["turn", "left"]
    idx = TextIndex()
    idx.add([doc("trip.md", body="we went camping and the kids swam"), doc("x.md", body="go")])
    idx.add([doc(f"filler{i}.md", body=f"unrelated note {i}") for i in range(10)])
    assert idx.search("where did they go camping?")[0].ref == "trip.md"
    # "swam" and "swims" meet at "swim": one irregular, one stemmed.
    assert idx.search("who swims?")[0].ref == "trip.md"
    # The snippet marks the irregular form the query's base word matched.
    assert "went" in idx.search("go camping")[0].snippet


class BagOfWordsEmbedder:
    """A deterministic test embedder: hashed word counts, so related texts share vectors."""

    name = "test:bow"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vec = [0.0] * 64
            for word in textproc.terms(text):
                vec[int(hashlib.sha256(word.encode()).hexdigest(), 16) % 64] += 1.0
            norm = math.sqrt(sum(x * x for x in vec)) or 1.0
            out.append([x / norm for x in vec])
        return out


def test_hybrid_search_fuses_dense_and_lexical_rankings() -> None:
    embedder = BagOfWordsEmbedder()
    assert isinstance(embedder, Embedder)
    idx = TextIndex(embedder=embedder)
    idx.add([doc("a.md", body="kayak trip on the river"), doc("b.md", body="tax forms due")])
    assert idx.embed_missing() == 2
    assert idx.embed_missing() == 0
    hits = idx.search("kayak river")
    assert hits[0].ref == "a.md"
    # the dense side ranks every document, but one no query word matches needs a cosine
    # of dense_floor: b.md's is 0
    assert {h.ref for h in idx.search("kayak")} == {"a.md"}
    unfloored = TextIndex(options=RankingOptions(dense_floor=0.0), embedder=embedder)
    unfloored.add([doc("a.md", body="kayak trip on the river"), doc("b.md", body="tax forms")])
    unfloored.embed_missing()
    assert {h.ref for h in unfloored.search("kayak")} == {"a.md", "b.md"}


def test_the_speaker_lift_applies_to_a_turn_found_by_its_meaning_alone() -> None:
    # The name column weighs nothing here and no body shares a word with the query:
    # only the cosine finds the turns, and only the lift tells Anna's from Ben's.
    weights = {"name": 0.0, "body": 1.0}
    idx = TextIndex(
        options=RankingOptions(weights=weights, name_boost=0.5), embedder=TopicEmbedder()
    )
    idx.add(
        Document(
            id=ref,
            kind="transcript",
            title=ref,
            fields={"name": who, "body": text},
            group="chat",
            seq=seq,
        )
        for seq, (ref, who, text) in enumerate(
            (
                ("anna", "Anna", "kickboxing after the cake"),
                ("ben", "Ben", "kickboxing every morning"),
            )
        )
    )
    idx.embed_missing()
    # Anna's turn is the less similar one (it is half about cake): x 1.5 lifts it above.
    assert [h.ref for h in idx.search("Which martial art does Anna practise?")][:2] == [
        "anna",
        "ben",
    ]
    assert idx.search("Which martial art does Ben practise?")[0].ref == "ben"


def test_a_documents_name_is_embedded_with_its_text() -> None:
    # Only the names carry a topic; the body of "soup.md" matches the query better.
    def ranked(options: RankingOptions) -> list[str]:
        idx = TextIndex(options=options, embedder=TopicEmbedder())
        idx.add(
            [
                doc("kick.md", name="Kickboxing", body="on Tuesdays"),
                doc("soup.md", name="Soup", body="a sport on Tuesdays"),
            ]
        )
        idx.embed_missing()
        return [h.ref for h in idx.search("Which martial sport is on Tuesdays?")]

    assert ranked(RankingOptions()) == ["kick.md", "soup.md"]
    assert ranked(RankingOptions(embed_name=False)) == ["soup.md", "kick.md"]


def test_the_embedded_text_is_date_name_text_then_the_start_of_the_previous_turn() -> None:
    text = embedded_text("went home", dated="[1 May 2023] ", name="Anna", previous="x" * 400)
    assert text == "[1 May 2023] Anna: went home\n(after: " + "x" * 300 + ")"
    assert embedded_text("went home", dated="", name=None, previous=None) == "went home"


def test_another_shape_of_embedded_text_embeds_every_document_again(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    first = TextIndex(path, embedder=TopicEmbedder())
    first.add([doc("a.md", name="Kickboxing", body="on Tuesdays"), doc("b.md", body="soup")])
    assert first.embed_missing() == 2
    first.close()
    again = TextIndex(path, options=RankingOptions(embed_name=False), embedder=TopicEmbedder())
    assert again.vector_model != TextIndex(embedder=TopicEmbedder()).vector_model
    assert again.embed_missing() == 2
    assert again.embed_missing() == 0
    # Each document's vector was replaced, none kept of the first shape.
    models = again.conn.execute("SELECT model, count(*) FROM vectors GROUP BY model").fetchall()
    assert models == [(again.vector_model, 2)]


def test_rrf_adds_reciprocal_ranks() -> None:
    fused = rrf([[1, 2], [2, 3]], k=1)
    assert fused[2] == pytest.approx(1 / 3 + 1 / 2)
    assert max(fused, key=fused.__getitem__) == 2


@needs_embeddings_extra
@pytest.mark.slow
def test_the_bundled_local_model_embeds_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    from memdir.search.vectors.embeddings import LocalEmbedder

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    embedder = LocalEmbedder()
    idx = TextIndex(embedder=embedder)
    idx.add([doc("a.md", body="my dog loves the beach"), doc("b.md", body="quarterly taxes")])
    idx.embed_missing()
    assert idx.search("puppy at the seaside")[0].ref == "a.md"


# --- the search() facade ----------------------------------------------------------------


def test_search_opens_the_project_catalog(tmp_path: Path, memdir_home: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    layout = make_layout(memdir_home, project)
    layout.memory_dir.mkdir(parents=True)
    (layout.memory_dir / "gulls.md").write_text(
        "---\nname: Gulls\ndescription: gulls steal chips\ntype: user\n---\nbody\n"
    )
    [hit] = search(layout, SearchQuery(query="gull", kinds=("memory",)))
    assert hit.ref == "gulls.md"


# --- grep -------------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    (root / "team").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "a.md").write_text("first line\nthe Port is 8080\nport.* literal\n")
    (root / "team" / "b.md").write_text("nothing\nPORT 9090\n")
    (root / ".git" / "c.md").write_text("port hidden\n")
    (root / "notes.txt").write_text("port in a text file\n")
    return root


def test_grep_is_literal_by_default(tree: Path) -> None:
    assert grep(tree, "port.*") == [GrepHit(path=tree / "a.md", line=3, text="port.* literal")]


def test_grep_regex_matches_patterns(tree: Path) -> None:
    hits = grep(tree, r"\d{4}$", regex=True)
    assert [(h.path.name, h.line) for h in hits] == [("a.md", 2), ("b.md", 2)]


def test_grep_ignore_case_and_skips_hidden_folders_and_other_files(tree: Path) -> None:
    hits = grep(tree, "port", ignore_case=True)
    assert [(h.path.relative_to(tree).as_posix(), h.line) for h in hits] == [
        ("a.md", 2),
        ("a.md", 3),
        ("team/b.md", 2),
    ]


def test_grep_reports_an_invalid_regex(tree: Path) -> None:
    with pytest.raises(InvalidPattern):
        grep(tree, "(", regex=True)
    assert grep(tree, "(") == []


def test_grep_searches_transcript_turn_text_when_asked(tree: Path, tmp_path: Path) -> None:
    transcripts = tmp_path / "t"
    transcripts.mkdir()
    lines = [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": [{"type": "text", "text": "use port 7070"}]},
    ]
    (transcripts / "s.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert grep(tree, "7070") == []
    hits = grep(tree, "7070", include_transcripts_dir=transcripts)
    assert hits == [GrepHit(path=transcripts / "s.jsonl", line=1, text="use port 7070")]


def test_grep_of_a_missing_root_finds_nothing(tmp_path: Path) -> None:
    assert grep(tmp_path / "absent", "x") == []
    assert not os.path.exists(tmp_path / "absent")


def test_an_openai_compatible_endpoint_embeds_over_loopback() -> None:
    import http.server
    import threading

    seen: list[dict[str, object]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
            data = [{"index": i, "embedding": [3.0, 4.0]} for i, _ in enumerate(body["input"])]
            payload = json.dumps({"data": list(reversed(data))}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        from memdir.search.vectors.embeddings import OpenAIEmbedder

        embedder = OpenAIEmbedder(
            "nomic", base_url=f"http://127.0.0.1:{server.server_port}/v1", api_key="k"
        )
        vectors = embedder.embed(["a", "b"])
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    assert vectors == [[0.6, 0.8], [0.6, 0.8]]
    assert seen == [
        {"path": "/v1/embeddings", "auth": "Bearer k", "model": "nomic", "input": ["a", "b"]}
    ]


def test_a_search_for_more_hits_than_the_candidate_pool_gets_them_all() -> None:
    idx = TextIndex()
    idx.add([doc(f"m{i}.md", body=f"shared word number {i}") for i in range(300)])
    assert len(idx.search(SearchQuery(query="shared word", limit=250))) == 250


def test_a_hybrid_search_over_more_documents_than_sqlite_takes_variables_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sqlite3

    from memdir.search import sql_in

    # With embeddings every document gets a fused score, and each stage looks its rows
    # up by rowid: past the connection's variable limit, in chunks, or SQLite refuses.
    monkeypatch.setattr(sql_in, "CHUNK", 7)

    def ranked(limit: int | None) -> list[tuple[str, float]]:
        idx = TextIndex(embedder=BagOfWordsEmbedder())
        idx.add(
            Document(
                id=f"t{n}",
                kind="transcript",
                title=f"t{n}",
                fields={"name": "Anna" if n % 2 else "Ben", "body": f"kayak trip {n} on a river"},
                group="trip",
                seq=n,
                date=dt.date(2026, 5, 1),
            )
            for n in range(60)
        )
        idx.embed_missing()
        if limit is not None:
            idx.conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, limit)
        hits = idx.search("when did Anna kayak on the river in May 2026")
        return [(h.ref, round(h.score, 6)) for h in hits]

    expected = ranked(None)
    assert len(expected) == 10
    assert ranked(10) == expected
