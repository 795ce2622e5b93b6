"""The group prior: a turn ranks higher when its session, as a whole, is about the query."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memdir.search.engine import Document, RankingOptions, TextIndex
from memdir.search.group_prior import GroupCount, group_scores

# Two sessions mention "tournament" once each; only the first is about the
# chess tournament the query asks for (its other turns say "chess" and "won").
SESSIONS = {
    "/s/chess.jsonl": [
        "we played chess all weekend",
        "the tournament was on Saturday",
        "I won two rounds of chess",
        "the coffee there was awful",
    ],
    "/s/garden.jsonl": [
        "the tomatoes are finally red",
        "our street had a tournament of bake sales",
        "the roses need water",
        "the neighbour lent us a ladder",
    ],
}


def _turns(sessions: dict[str, list[str]]) -> list[Document]:
    return [
        Document(
            id=f"{group}#{i}",
            kind="transcript",
            title=f"{group}#{i}",
            fields={"body": text},
            group=group,
            seq=i,
        )
        for group, turns in sessions.items()
        for i, text in enumerate(turns)
    ]


def _memories(texts: list[str]) -> list[Document]:
    return [
        Document(id=f"m{i}.md", kind="memory", title=f"m{i}", fields={"body": text})
        for i, text in enumerate(texts)
    ]


def _scores(docs: list[Document], query: str, share: float) -> dict[str, float]:
    # Neighbour smoothing off: the prior alone moves the scores.
    index = TextIndex(options=RankingOptions(group_share=share, neighbour_weight=0.0))
    index.add(docs)
    return dict(index.rank(query))


def test_a_turn_in_the_session_about_the_query_outranks_an_equal_match_elsewhere() -> None:
    query = "when was the chess tournament"
    plain = _scores(_turns(SESSIONS), query, 0.0)
    lifted = _scores(_turns(SESSIONS), query, 0.2)
    # Each "tournament" turn matches one query term once: BM25 alone barely tells them
    # apart, the prior puts the one in the chess session clearly first.
    assert plain["/s/chess.jsonl#1"] > 0 and plain["/s/garden.jsonl#1"] > 0
    assert lifted["/s/chess.jsonl#1"] - lifted["/s/garden.jsonl#1"] > (
        plain["/s/chess.jsonl#1"] - plain["/s/garden.jsonl#1"]
    )
    assert lifted["/s/chess.jsonl#1"] > lifted["/s/garden.jsonl#1"]
    # A lift, never a penalty: every candidate keeps at least its own score.
    assert all(lifted[ref] >= value for ref, value in plain.items())


def test_memories_alone_are_ranked_as_without_the_prior() -> None:
    docs = _memories(["the deploy script needs the VPN", "deploy on Fridays is banned", "tea"])
    assert _scores(docs, "deploy script", 0.2) == _scores(docs, "deploy script", 0.0)


def test_one_session_alone_keeps_its_order() -> None:
    # Every candidate gains the same share: the order within one session is BM25's.
    one = {"/s/chess.jsonl": SESSIONS["/s/chess.jsonl"]}
    plain = _scores(_turns(one), "chess tournament", 0.0)
    lifted = _scores(_turns(one), "chess tournament", 0.2)
    assert sorted(plain, key=lambda r: -plain[r]) == sorted(lifted, key=lambda r: -lifted[r])


def test_a_memory_is_a_whole_of_its_own_beside_sessions() -> None:
    # In a search of memories and turns together the prior must not favour either:
    # a memory gains the share of its own score, the best session's turns as much.
    docs = _turns(SESSIONS) + _memories(["chess tournament rules: rapid games only"])
    plain = _scores(docs, "chess tournament", 0.0)
    lifted = _scores(docs, "chess tournament", 0.2)
    assert lifted["m0.md"] == pytest.approx(plain["m0.md"] * 1.2, rel=1e-4)
    best = max(plain.values())
    gains = {ref: lifted[ref] - plain[ref] for ref in plain}
    assert max(gains.values()) == pytest.approx(0.2 * best, rel=1e-3)
    assert gains["/s/chess.jsonl#1"] > gains["/s/garden.jsonl#1"]
    index = TextIndex()
    index.add(docs)
    by_group = group_scores(index.conn, ["chess", "tournament"], 2, scan_limit=2000)
    assert set(by_group) == {"/s/chess.jsonl", "/s/garden.jsonl"}  # no memory among groups


def test_terms_matching_the_scan_limit_or_more_are_left_out_of_group_scores() -> None:
    index = TextIndex()
    index.add(_turns(SESSIONS))
    groups = GroupCount()(index.conn)
    assert group_scores(index.conn, ["tournament"], groups, scan_limit=3)
    # "the" is a stop word; "tournament" is in 2 turns: a limit of 2 drops it.
    assert group_scores(index.conn, ["tournament"], groups, scan_limit=2) == {}


def test_the_group_count_follows_writes_of_this_and_other_connections(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    index = TextIndex(path)
    index.add(_turns(SESSIONS))
    count = GroupCount()
    assert count(index.conn) == 2
    index.add(_turns({"/s/third.jsonl": ["a third session"]}))
    assert count(index.conn) == 3
    other = TextIndex(path, conn=sqlite3.connect(path, isolation_level=None))
    other.add(_turns({"/s/fourth.jsonl": ["a fourth session"]}))
    other.close()
    assert count(index.conn) == 4
    index.close()
