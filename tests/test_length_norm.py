"""BM25 length normalisation at another b than FTS5's, from the lengths FTS5 keeps."""

from __future__ import annotations

import math
import sqlite3

import pytest

from memdir.search.engine import Document, RankingOptions, TextIndex
from memdir.search.length_norm import FTS5_B, average_length, renormalise

# Rows holding "port" once, of 3, 12 and 40 tokens, among rows without it.
ROWS = ["port is open", "the port " + "word " * 10, "a port " + "filler " * 38]
FILLER = ["alpha beta", "gamma delta epsilon", "zeta", "eta theta iota kappa"] * 3


def _table() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE VIRTUAL TABLE fts USING fts5(body)")
    conn.executemany("INSERT INTO fts (body) VALUES (?)", [(t,) for t in ROWS + FILLER])
    return conn


def _fts5_scores(conn: sqlite3.Connection) -> dict[int, float]:
    rows = conn.execute("SELECT rowid, bm25(fts) FROM fts WHERE fts MATCH 'port'")
    return {rowid: -value for rowid, value in rows}


def test_the_mean_row_length_is_read_from_fts5_and_follows_deletes() -> None:
    conn = _table()
    lengths = [len(t.split()) for t in ROWS + FILLER]
    assert average_length(conn, "fts") == pytest.approx(sum(lengths) / len(lengths))
    conn.execute("DELETE FROM fts WHERE rowid = 3")  # the 40-token row
    rest = lengths[:2] + lengths[3:]
    assert average_length(conn, "fts") == pytest.approx(sum(rest) / len(rest))


def test_scores_at_another_b_are_bm25s_for_terms_held_once() -> None:
    conn = _table()
    total = len(ROWS) + len(FILLER)
    mean = sum(len(t.split()) for t in ROWS + FILLER) / total
    idf = math.log((total - len(ROWS) + 0.5) / (len(ROWS) + 0.5))
    for b in (0.3, 1.0):
        got = renormalise(conn, "fts", _fts5_scores(conn), b)
        for rowid, text in enumerate(ROWS, start=1):
            ratio = len(text.split()) / mean
            want = idf * 2.2 / (1 + 1.2 * (1 - b + b * ratio))
            assert got[rowid] == pytest.approx(want, rel=1e-9)


def test_fts5s_own_b_and_an_empty_table_leave_scores_alone() -> None:
    conn = _table()
    scores = _fts5_scores(conn)
    assert renormalise(conn, "fts", scores, FTS5_B) == scores
    empty = sqlite3.connect(":memory:", isolation_level=None)
    empty.execute("CREATE VIRTUAL TABLE fts USING fts5(body)")
    assert average_length(empty, "fts") is None
    assert renormalise(empty, "fts", {1: 2.0}, 1.0) == {1: 2.0}


def test_a_long_text_repeating_the_query_no_longer_outranks_the_short_answer() -> None:
    # The shape of a coding session: a long reply echoes the question's words; the
    # short turn states the fact.
    docs = [
        Document(id="short", kind="memory", title="s", fields={"body": "deploy port 8443"}),
        Document(
            id="long",
            kind="memory",
            title="l",
            fields={"body": "deploy port " * 8 + " ".join(f"w{i}" for i in range(10))},
        ),
        *(
            Document(id=f"f{i}", kind="memory", title="f", fields={"body": f"other note {i}"})
            for i in range(8)
        ),
    ]
    order = {}
    for b in (FTS5_B, 1.0):
        index = TextIndex(options=RankingOptions(length_b=b))
        index.add(docs)
        order[b] = [doc for doc, _ in index.rank("which deploy port")]
    assert order[FTS5_B][0] == "long"
    assert order[1.0][0] == "short"
