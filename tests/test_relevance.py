"""The relevance floor: recall stays silent when nothing in the store is about the prompt."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from memdir.api import Memdir
from memdir.model import Memory, MemoryType, Scope
from memdir.recall.relevant import SkipReason, recall
from memdir.search.engine import Document, SearchQuery, TextIndex
from memdir.search.relevance import (
    GENERIC_WORDS,
    RelevanceFloor,
    informative_terms,
    specific_terms,
)

TODAY = dt.date(2026, 3, 10)

# A small project memory: the memories the hand-tried prompts used to bring.
STORE = (
    (
        "never-write-env",
        MemoryType.FEEDBACK,
        "Never write or edit .env files; ask the user to set secrets",
    ),
    (
        "ask-before-pushing",
        MemoryType.FEEDBACK,
        "Ask the user before git push or opening a pull request",
    ),
    ("run-tests-with-uv", MemoryType.FEEDBACK, "Use uv run pytest for the test suite, never pip"),
    (
        "structlog",
        MemoryType.FEEDBACK,
        "Use structlog key-value events, never f-string log messages",
    ),
    (
        "user-profile",
        MemoryType.USER,
        "The user is a Python and Go engineer who writes backend code",
    ),
    ("money-decimal", MemoryType.PROJECT, "All money amounts are Decimal with banker's rounding"),
    (
        "grafana",
        MemoryType.REFERENCE,
        "Billing latency dashboards are in Grafana, board API Overview",
    ),
)


def store(mem: Memdir) -> None:
    for name, kind, description in STORE:
        memory = Memory(name=name, description=description, type=kind, body=description)
        mem.store(Scope.PRIVATE).write(memory, stamp=False)


def recalled(mem: Memdir, prompt: str) -> list[str]:
    return [item.name for item in recall(mem, prompt, today=TODAY).items]


def test_a_prompt_of_generic_words_recalls_nothing(mem: Memdir) -> None:
    store(mem)
    result = recall(mem, "what should I use?", today=TODAY)
    assert result.items == ()
    assert result.skipped is SkipReason.NO_MATCH


def test_who_the_user_is_does_not_bring_rules_that_share_user_and_write(mem: Memdir) -> None:
    store(mem)
    got = recalled(mem, "who is the user and what language do they write?")
    assert "never-write-env" not in got
    assert "ask-before-pushing" not in got


def test_a_prompt_about_a_memory_still_recalls_it(mem: Memdir) -> None:
    store(mem)
    assert recalled(mem, "should money amounts use Decimal rounding?") == ["money-decimal"]
    assert recalled(mem, "where is the billing latency dashboard?") == ["grafana"]


def test_a_word_every_memory_holds_is_no_evidence_on_its_own(mem: Memdir) -> None:
    for n in range(6):
        description = f"Billing note {n}: invoice rule number {n}"
        memory = Memory(name=f"note-{n}", description=description, type=MemoryType.PROJECT)
        mem.store(Scope.PRIVATE).write(memory, stamp=False)
    assert recalled(mem, "the billing page looks odd") == []
    # Yet a description naming every word of the prompt answers it, common or not.
    assert len(recalled(mem, "billing invoice rule")) == 5


def test_the_day_the_memories_were_written_does_not_drown_a_number_in_one_of_them(
    mem: Memdir,
) -> None:
    # Every memory is indexed with its date's words, today's day of the month among them;
    # a prompt naming that number still means the one memory whose name holds it.
    day = dt.date.today().day
    numbers = [day, *[n for n in range(40, 60) if n != day][:11]]
    for n in numbers:
        description = f"Billing ledger note {n}: how payments batch {n} retries at night"
        memory = Memory(name=f"ledger-note-{n}", description=description, type=MemoryType.PROJECT)
        mem.store(Scope.PRIVATE).write(memory, stamp=False)
    assert recalled(mem, f"what does ledger note {day} say?") == [f"ledger-note-{day}"]


def test_a_number_unique_to_one_memory_recalls_it_among_many_alike(mem: Memdir) -> None:
    for n in range(12):
        description = f"Billing ledger note {n}: how payments batch {n} retries at night"
        memory = Memory(name=f"ledger-note-{n}", description=description, type=MemoryType.PROJECT)
        mem.store(Scope.PRIVATE).write(memory, stamp=False)
    # Every note holds "ledger" and "note"; only the number says which one is meant.
    assert recalled(mem, "what does ledger note 7 say?") == ["ledger-note-7"]
    assert recalled(mem, "what does the ledger note say?") == []


def test_one_rare_word_recalls_when_written_as_a_name_and_not_as_a_plain_word(
    mem: Memdir,
) -> None:
    store(mem)
    # "latency" and "Grafana" are each held by one memory alone: a word of the language
    # is not enough on its own, a name is.
    assert recalled(mem, "explain latency percentiles to me") == []
    assert recalled(mem, "explain percentiles in Grafana to me") == ["grafana"]


def test_specific_terms_are_numbers_identifiers_and_capitals_inside_a_sentence() -> None:
    assert specific_terms("what does ledger note 17 say?") == {"17"}
    assert specific_terms("is Maya on call? Ask her about LED-204") == {"maya", "led", "204"}
    # A capital opening a sentence, and a prompt written in capitals, name nothing.
    assert specific_terms("Deploy it. Then Tell me") == set()
    assert specific_terms("WHY IS THE BUILD RED") == set()
    assert specific_terms("WHY IS BUILD 42 RED") == {"42"}
    # A generic word stays generic however it is written.
    assert specific_terms("and then Use it") == set()


def test_generic_words_are_not_informative() -> None:
    assert informative_terms("thanks, please use what the user should write") == []
    assert informative_terms("use the redis cache") == ["redi", "cach"]


# --- properties, on the engine directly -------------------------------------------------

WORDS = ("alpha", "bravo", "cobalt", "delta", "ember", "fjord", "garnet", "harbor")
_FLOOR = RelevanceFloor()


def index_of(descriptions: list[list[str]]) -> TextIndex:
    index = TextIndex()
    docs = [
        Document(id=f"m{i}", kind="memory", title=f"m{i}", fields={"description": " ".join(words)})
        for i, words in enumerate(descriptions)
    ]
    index.add(docs)
    return index


def admitted(index: TextIndex, query: str) -> set[str]:
    q = SearchQuery(query=query, kinds=("memory",), limit=50)
    ranked = [ref for ref, _ in index.rank(q)]
    return _FLOOR.admitted(index.relevance(q, ranked))


memories = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4), min_size=1, max_size=8
)
filler = st.lists(st.sampled_from([*sorted(GENERIC_WORDS), "what", "how", "the", "should", "I"]))


@given(memories, filler)
def test_a_prompt_sharing_only_generic_words_with_the_store_recalls_nothing(
    descriptions: list[list[str]], words: list[str]
) -> None:
    index = index_of([[*d, *sorted(GENERIC_WORDS)[:5]] for d in descriptions])
    assert admitted(index, " ".join(words)) == set()


@given(memories, st.sampled_from(WORDS), st.integers(min_value=1, max_value=6), filler)
def test_making_a_one_word_prompts_word_more_common_never_makes_it_recall_more(
    descriptions: list[list[str]], word: str, more: int, words: list[str]
) -> None:
    # One informative word: each memory added that holds it lowers its weight, so no
    # older memory that was below the floor can rise above it.
    prompt = " ".join([*words, word])
    before = admitted(index_of(descriptions), prompt)
    after = admitted(index_of([*descriptions, *([[word, "zulu"]] * more)]), prompt)
    older = {f"m{i}" for i in range(len(descriptions))}
    assert after & older <= before
