"""The default ranking on a second text shape: coding-session transcripts, not chat.

The defaults of :mod:`memdir.search.engine` were measured on LoCoMo (a chat
between two named people). These transcripts are the other shape memdir
indexes: a developer and an agent, roles and no speakers, turns that start with
labels such as ``Note:`` or ``Error:``, tool output, questions answered in the
next turn. Each test names a query and the turn that answers it.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from memdir.search.catalog import Catalog, RankingOptions, SearchQuery
from memdir.search.engine import Document, TextIndex
from memdir.storage.paths import Layout, make_layout
from memdir.transcripts.reader import read_transcript

DEPLOY_SESSION = [
    ("user", "Note: the deploy script lives in ops/deploy.sh and needs the VPN."),
    ("assistant", "Noted. I will run ops/deploy.sh once you say the branch is ready."),
    ("user", "The deploy to staging failed last night, can you find out why?"),
    (
        "assistant",
        "Error: the migration step timed out. The deploy failed because the orders table "
        "migration held a lock for 20 minutes; I split it into two batches.",
    ),
    ("user", "Good. Also bump the retry limit of the payment worker to five."),
    ("assistant", "Done: PAYMENT_RETRIES is 5 in config/worker.toml, and the tests pass."),
]

CACHE_SESSION = [
    ("user", "TODO: look at the flaky cache test later."),
    ("assistant", "I added it to the list."),
    ("user", "Why is the redis cache test flaky on CI?"),
    (
        "assistant",
        "The cache test is flaky because of wall-clock expiry: the key expires between the write "
        "and the read when CI is slow. I froze the clock in the fixture, so it is stable now.",
    ),
    ("user", "Which library do we use for the HTTP client?"),
    ("assistant", "httpx, pinned to 0.27 in pyproject.toml."),
]

REVIEW_SESSION = [
    ("user", "Let us review the pull request about the login form."),
    ("assistant", "The login form change is fine, one nit on the error message wording."),
    ("user", "What did Priya say about the password reset flow?"),
    ("assistant", "I have no record of that; ask in the review thread."),
]

TEAM_CHAT = [
    ("Priya", "The password reset flow should send one email, not two."),
    ("Marco", "Agreed, and the reset link must expire after an hour."),
    ("Priya", "I also want the deploy checklist in the wiki."),
]


def write_session(
    path: Path, turns: list[tuple[str, str]], day: dt.date, *, speakers: bool = False
) -> None:
    """A plain JSONL transcript; with ``speakers`` the first item is the speaker's name."""
    lines = []
    for i, (who, text) in enumerate(turns):
        record: dict[str, str] = {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": text,
            "timestamp": dt.datetime.combine(day, dt.time(9, i)).isoformat(),
        }
        if speakers:
            record["speaker"] = who
        else:
            record["role"] = who
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def sessions(tmp_path: Path, memdir_home: Path) -> tuple[Layout, Path]:
    project = tmp_path / "proj"
    project.mkdir()
    layout = make_layout(memdir_home, project)
    layout.memory_dir.mkdir(parents=True)
    folder = tmp_path / "transcripts"
    folder.mkdir()
    write_session(folder / "deploy.jsonl", DEPLOY_SESSION, dt.date(2026, 2, 3))
    write_session(folder / "cache.jsonl", CACHE_SESSION, dt.date(2026, 2, 10))
    write_session(folder / "review.jsonl", REVIEW_SESSION, dt.date(2026, 2, 17))
    write_session(folder / "team.jsonl", TEAM_CHAT, dt.date(2026, 2, 18), speakers=True)
    return layout, folder


def top(sessions: tuple[Layout, Path], query: str, k: int = 1) -> list[str]:
    """The first ``k`` hits as ``file#turn``, over the ``sessions`` fixture's transcripts."""
    layout, folder = sessions
    with Catalog.open(layout) as catalog:
        catalog.add_transcripts(folder)
        hits = catalog.search(SearchQuery(query=query, kinds=("transcript",), limit=k))
    return [f"{Path(h.ref.rpartition('#')[0]).name}#{h.ref.rpartition('#')[2]}" for h in hits]


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("why did the deploy fail", "deploy.jsonl#3"),
        ("what is the payment worker retry limit", "deploy.jsonl#5"),
        ("which HTTP client library do we use", "cache.jsonl#5"),
        ("what did Priya say about the password reset", "team.jsonl#0"),
    ],
)
def test_the_turn_that_answers_a_question_is_among_the_first_two(
    sessions: tuple[Layout, Path], query: str, answer: str
) -> None:
    # The first may be the question itself, asked in other words earlier.
    assert answer in top(sessions, query, k=2)


def test_a_label_at_the_start_of_a_turn_is_not_taken_for_a_speaker(
    sessions: tuple[Layout, Path],
) -> None:
    # "Note:" labels a turn, it names no speaker: the note that mentions the deploy
    # script gets no lift over the turn that says why the deploy failed.
    ranked = top(sessions, "why did the deploy fail", k=10)
    assert ranked.index("deploy.jsonl#3") < ranked.index("deploy.jsonl#0")
    turns = read_transcript(sessions[1] / "deploy.jsonl").turns
    assert {t.speaker for t in turns} == {None}


def test_a_speaker_field_names_the_turn_and_the_query_can_lift_it(
    sessions: tuple[Layout, Path],
) -> None:
    # Both Priya and the review session talk about Priya; the query asks what she said.
    ranked = top(sessions, "what did Priya want in the wiki", k=2)
    assert ranked[0] == "team.jsonl#2"
    turns = read_transcript(sessions[1] / "team.jsonl").turns
    assert [t.speaker for t in turns] == ["Priya", "Marco", "Priya"]


def test_an_answer_ranks_above_the_filler_next_to_the_question(
    sessions: tuple[Layout, Path],
) -> None:
    # Two short turns repeat the question's words (the TODO and the question); the
    # filler between them borrows their score through context and smoothing, but
    # not enough to pass the long answer that names the cause.
    ranked = top(sessions, "why is the cache test flaky", k=4)
    assert ranked.index("cache.jsonl#3") < ranked.index("cache.jsonl#1")


def test_a_question_and_its_answer_rank_together(sessions: tuple[Layout, Path]) -> None:
    # The answer turn shares few words with the question; its neighbour carries them.
    assert set(top(sessions, "redis cache CI expiry", k=2)) == {
        "cache.jsonl#2",
        "cache.jsonl#3",
    }


def turn_documents(turns: list[str], group: str, prefix: str) -> list[Document]:
    """One transcript document a turn of ``group`` (ids ``<prefix><n>``), its context the
    turns on either side, as the catalog indexes a session."""
    return [
        Document(
            id=f"{prefix}{i}",
            kind="transcript",
            title=f"{prefix}{i}",
            fields={
                "body": text,
                "context": " ".join(turns[j] for j in (i - 1, i + 1) if 0 <= j < len(turns)),
            },
            group=group,
            seq=i,
        )
        for i, text in enumerate(turns)
    ]


def test_a_short_turn_between_long_replies_keeps_the_score_of_its_own_words() -> None:
    # The neighbours' text is context, scored apart: a short turn is not ranked as if
    # it were as long as the two replies beside it.
    reply = (
        "The staging database setup is unchanged. I read the staging database settings, "
        "checked the staging database migrations and ran the suite against it. "
    ) * 12 + "The port comes from the environment."
    turns = [
        "Can you check the staging database migrations?",
        reply,
        "The staging database listens on port 6543, use that in the tests.",
        reply.replace("unchanged", "documented"),
        "Thanks, now the logging.",
        reply.replace("unchanged", "as before"),
    ]
    index = TextIndex()
    index.add(turn_documents(turns, "s", "t"))
    ranked = [ref for ref, _ in index.rank("which port does the staging database listen on?")]
    assert ranked[0] == "t2"


def test_a_turn_gains_part_of_a_better_window_that_holds_it_when_asked() -> None:
    # The context row of a turn is a window of three turns: the windows of its two
    # neighbours hold it too. window_share lends it part of the better one's score.
    groups = {
        "s": ["canary rollout plan for the tiller deploy", "sounds good", "canary"],
        "u": ["canary", "lunch is at noon today", "the printer jammed again"],
    }

    def scores(window_share: float) -> dict[str, float]:
        options = RankingOptions(neighbour_weight=0.0, window_share=window_share)
        index = TextIndex(options=options)
        index.add(d for g, turns in groups.items() for d in turn_documents(turns, g, g))
        return dict(index.rank("canary rollout plan"))

    plain, lent = scores(0.0), scores(0.5)
    assert set(lent) == set(plain)
    assert all(lent[ref] >= plain[ref] for ref in plain)
    # s2 says only "canary", but the window around s1 holds the whole plan.
    assert lent["s2"] > plain["s2"]
    # u0 says "canary" too; no window beside it is any better, so it keeps its score.
    assert lent["u0"] == plain["u0"]
    assert lent["s2"] > lent["u0"]


# A coding session's shape: short user turns, long replies that restate the component's
# name and the question's words again and again.
_REPLY = (
    "Sure, here is the plan for the {c}. I read how the {c} is called today, split the {c} "
    "into a pure core and a thin layer, and added tests for the {c}. Concurrent requests to "
    "the {c} are capped by the shared pool, which I left at its current size. The {c} "
    "retries are unchanged and the {c} logs each attempt. Tell me if you want more on the {c}."
)
_ASKS = [
    "Can you look at the {c} next? The output looks wrong for large inputs.",
    "Now refactor the {c} so it can be tested without the network.",
    "Please clean up the error handling in the {c}.",
    "Add tests for the {c}, especially the failure cases.",
]
_FACT = "Cap the {c} at 22 concurrent requests; above that the provider starts throttling us."


def _long_reply_session() -> list[str]:
    components = ["payment webhook", "invoice renderer", "tax calculator", "refund worker"]
    turns = []
    for i in range(12):
        c = components[i % 4]
        ask = _ASKS[i % len(_ASKS)].format(c=c)
        turns += [_FACT.format(c=c) + " " + ask if i == 4 else ask, _REPLY.format(c=c)]
    return turns


def _ranked_turns(turns: list[str], query: str, options: RankingOptions) -> list[int]:
    index = TextIndex(options=options)
    index.add(turn_documents(turns, "s", ""))
    return [int(ref) for ref, _ in index.rank(query)]


def test_a_short_turn_stating_the_fact_outranks_long_replies_that_repeat_the_question() -> None:
    turns = _long_reply_session()
    query = "How many concurrent requests should the payment webhook be capped at?"
    fact = 8  # the user turn of the fifth exchange
    ranked = _ranked_turns(turns, query, RankingOptions())
    # Only the reply right after it, whose window holds the fact, may come before it.
    assert ranked.index(fact) <= 1
    assert set(ranked[: ranked.index(fact)]) <= {fact + 1}
    # A window as one row normalised by its whole length, with FTS5's idf (zero for
    # "payment" and "webhook", held by most turns): a reply far from it came first.
    old = _ranked_turns(turns, query, RankingOptions(idf="fts5", window_fields=False))
    assert old[0] % 2 == 1 and abs(old[0] - fact) > 1


def test_a_window_whose_own_text_is_normalised_in_full_puts_the_short_fact_first() -> None:
    # By default a turn's own text in its window is normalised at FTS5's b (0.75): the
    # long reply right after the fact comes first. Normalised in full (window_text_b 1,
    # an option: it costs LoCoMo at @1, benchmarks/coding_sessions.py) the fact leads.
    turns = _long_reply_session()
    query = "How many concurrent requests should the payment webhook be capped at?"
    fact = 8
    assert _ranked_turns(turns, query, RankingOptions())[:2] == [fact + 1, fact]
    assert _ranked_turns(turns, query, RankingOptions(window_text_b=1.0))[0] == fact
