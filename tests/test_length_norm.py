"""BM25 computed again over FTS5's candidates, from the terms and lengths FTS5 keeps."""

from __future__ import annotations

import math
import sqlite3

import pytest

from memdir.search.engine import Document, RankingOptions, TextIndex
from memdir.search.length_norm import FTS5_B, idf, rescore, table_stats

# Rows holding "port" once, twice and once, of 3, 12 and 40 tokens, among rows without it.
ROWS = ["port is open", "the port port " + "word " * 9, "a port " + "filler " * 38]
FILLER = ["alpha beta", "gamma delta epsilon", "zeta", "eta theta iota kappa"] * 3


def _table() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE VIRTUAL TABLE fts USING fts5(body)")
    conn.execute("CREATE VIRTUAL TABLE vocab USING fts5vocab(fts, 'row')")
    conn.executemany("INSERT INTO fts (body) VALUES (?)", [(t,) for t in ROWS + FILLER])
    return conn


def _fts5_scores(conn: sqlite3.Connection) -> dict[int, float]:
    rows = conn.execute("SELECT rowid, bm25(fts) FROM fts WHERE fts MATCH 'port'")
    return {rowid: -value for rowid, value in rows}


def test_the_row_count_and_mean_column_lengths_are_read_from_fts5_and_follow_deletes() -> None:
    conn = _table()
    lengths = [len(t.split()) for t in ROWS + FILLER]
    stats = table_stats(conn, "fts")
    assert stats is not None
    assert stats.rows == len(lengths)
    assert stats.means == pytest.approx([sum(lengths) / len(lengths)])
    conn.execute("DELETE FROM fts WHERE rowid = 3")  # the 40-token row
    rest = lengths[:2] + lengths[3:]
    stats = table_stats(conn, "fts")
    assert stats is not None
    assert stats.means == pytest.approx([sum(rest) / len(rest)])


def test_fts5s_own_idf_and_b_give_back_fts5s_scores_repeated_terms_included() -> None:
    conn = _table()
    stats = table_stats(conn, "fts")
    assert stats is not None
    idfs = idf(conn, "vocab", ["port"], stats.rows, fts5=True)
    got = rescore(conn, "fts", ["body"], [1, 2, 3], idfs, [1.0], FTS5_B, joint=True)
    assert got == pytest.approx(_fts5_scores(conn), rel=1e-9)


def test_scores_at_another_b_are_bm25s() -> None:
    conn = _table()
    total = len(ROWS) + len(FILLER)
    mean = sum(len(t.split()) for t in ROWS + FILLER) / total
    idfs = idf(conn, "vocab", ["port"], total)
    assert idfs["port"] == pytest.approx(math.log(1 + (total - 3 + 0.5) / 3.5))
    for b in (0.3, 1.0):
        got = rescore(conn, "fts", ["body"], [1, 2, 3], idfs, [1.0], b, joint=True)
        for rowid, text in enumerate(ROWS, start=1):
            tf = text.split().count("port")
            norm = 1 - b + b * len(text.split()) / mean
            assert got[rowid] == pytest.approx(idfs["port"] * tf * 2.2 / (tf + 1.2 * norm))


def test_a_word_most_rows_hold_keeps_some_weight() -> None:
    # FTS5's idf is floored at 1e-6 for a word in more than half the rows: in one
    # project, the name of the thing it is about.
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE VIRTUAL TABLE fts USING fts5(body)")
    conn.execute("CREATE VIRTUAL TABLE vocab USING fts5vocab(fts, 'row')")
    conn.executemany("INSERT INTO fts (body) VALUES (?)", [("ledger x",)] * 8 + [("y",)] * 2)
    assert idf(conn, "vocab", ["ledger"], 10, fts5=True)["ledger"] == pytest.approx(1e-6)
    assert idf(conn, "vocab", ["ledger"], 10)["ledger"] > 0.2


def test_per_field_each_column_is_normalised_by_its_own_length() -> None:
    # A short text beside long neighbours, and a long text beside short ones: in one
    # row the first is a long document and the second a short one.
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE VIRTUAL TABLE ctx USING fts5(body, context)")
    conn.execute("CREATE VIRTUAL TABLE ctxvocab USING fts5vocab(ctx, 'row')")
    rows = [("port 8443", "filler " * 60), ("port " + "filler " * 59, "short words")]
    conn.executemany("INSERT INTO ctx (body, context) VALUES (?, ?)", rows)
    idfs = {"port": 1.0}
    joint = rescore(conn, "ctx", ["body", "context"], [1, 2], idfs, [1.0, 0.3], 0.75, joint=True)
    fielded = rescore(conn, "ctx", ["body", "context"], [1, 2], idfs, [1.0, 0.3], 0.75, joint=False)
    assert joint[1] == pytest.approx(joint[2])  # same length, same frequency
    assert fielded[1] > fielded[2]


def test_per_field_each_column_can_have_a_b_of_its_own() -> None:
    # The first column's b alone changes: the row whose first column is the longer one
    # loses at b 1 what the row with the shorter one gains.
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE VIRTUAL TABLE ctx USING fts5(body, context)")
    rows = [("port 8443", "port " + "filler " * 60), ("port " + "filler " * 59, "port words")]
    conn.executemany("INSERT INTO ctx (body, context) VALUES (?, ?)", rows)
    idfs, cols, weights = {"port": 1.0}, ["body", "context"], [1.0, 0.3]
    same = rescore(conn, "ctx", cols, [1, 2], idfs, weights, 0.75, joint=False)
    assert rescore(conn, "ctx", cols, [1, 2], idfs, weights, (0.75, 0.75), joint=False) == same
    full = rescore(conn, "ctx", cols, [1, 2], idfs, weights, (1.0, 0.75), joint=False)
    assert full[1] > same[1] and full[2] < same[2]


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


def test_an_empty_table_has_no_statistics_and_rescores_nothing() -> None:
    empty = sqlite3.connect(":memory:", isolation_level=None)
    empty.execute("CREATE VIRTUAL TABLE fts USING fts5(body)")
    assert table_stats(empty, "fts") is None
    assert rescore(empty, "fts", ["body"], [1], {"port": 1.0}, [1.0], 1.0, joint=True) == {}
