"""Recall by meaning: a prompt in other words finds its memory; a generic one finds none."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from embedutil import TopicEmbedder, needs_embeddings_extra
from memdir.api import Memdir
from memdir.cli import main
from memdir.hooks.server import stop_server
from memdir.recall.meaning import MeaningFloor, choose, standout
from memdir.recall.relevant import recall
from memdir.search.terms import query_terms, terms
from test_hook_server import hook, prompt, start, wait_running

# A project's memory where every prompt below says what one memory says, in other words.
STORE = (
    (
        "Deploy runbook location",
        "reference",
        "Where the deploy runbook lives",
        "The deploy runbook is docs/ops/deploy.md in the infra repository: steps for "
        "releasing, verifying and reverting a deployment.",
    ),
    (
        "On-call rotation",
        "reference",
        "Who carries the pager and when it changes hands",
        "The rotation is PagerDuty schedule platform-primary; handover every Monday 10:00.",
    ),
    (
        "Release train every second Tuesday",
        "project",
        "When releases ship",
        "Releases ship on the train every second Tuesday; the branch is cut the Friday before.",
    ),
    (
        "User is a senior Go developer",
        "user",
        "Who the user is and what they know",
        "The user has written Go for ten years and is new to this project's React frontend.",
    ),
    (
        "Type hints on every function",
        "feedback",
        "Annotate every function",
        "Every function gets type hints, tests included; mypy strict must pass.",
    ),
    (
        "Python 3.12 is the floor",
        "project",
        "The oldest Python supported",
        "The project supports Python 3.12 and newer; no syntax or stdlib past 3.12 "
        "without a guard.",
    ),
)
# Each prompt shares no word with the memory it wants (checked below, by memdir's own terms).
PARAPHRASES = {
    "who do I page tonight?": "On-call rotation",
    "which version of the interpreter can i rely on?": "Python 3.12 is the floor",
}
GENERIC = ("sort this list of numbers", "thanks, that works", "add a docstring to this function")


def written(mem: Memdir) -> Memdir:
    for name, kind, description, body in STORE:
        mem.write(name=name, description=description, type=kind, body=body)
    return mem


# --- the rule, on cosines given ---------------------------------------------------------


def test_one_memory_near_the_prompt_stands_out_from_a_store_of_unrelated_ones() -> None:
    floor = MeaningFloor()
    cosines = {f"m{i}.md": 0.05 + 0.01 * (i % 5) for i in range(30)} | {"near.md": 0.4}
    above = standout(cosines, floor)
    assert above["near.md"] >= floor.min_standout
    assert max(v for ref, v in above.items() if ref != "near.md") < 1.5


def test_the_same_cosine_in_a_crowd_of_alike_memories_does_not_stand_out() -> None:
    floor = MeaningFloor()
    cosines = {f"m{i}.md": 0.38 + 0.01 * (i % 3) for i in range(30)}
    assert not choose(cosines, (), floor)


def test_a_small_store_is_judged_against_what_unrelated_text_scores() -> None:
    # Two memories only: their own spread says nothing; the prior does.
    floor = MeaningFloor()
    near = choose({"a.md": 0.45, "b.md": 0.05}, (), floor)
    assert [ref for ref, _ in near] == ["a.md"]
    assert not choose({"a.md": 0.12, "b.md": 0.05}, (), floor)


def test_a_word_match_far_in_meaning_is_dropped_and_a_near_one_ranks_first() -> None:
    floor = MeaningFloor()
    cosines = {"far.md": floor.word_veto - 0.05, "close.md": 0.3, "other.md": 0.05}
    chosen = choose(cosines, {"far.md", "close.md"}, floor)
    assert [ref for ref, _ in chosen] == ["close.md"]


def test_a_word_match_without_a_vector_yet_is_kept_on_its_words() -> None:
    chosen = choose({"other.md": 0.05}, {"new.md"}, MeaningFloor())
    assert [ref for ref, _ in chosen] == ["new.md"]


# --- through recall, with a test embedder --------------------------------------------------


def test_recall_with_an_embedder_finds_a_memory_that_shares_no_word_with_the_prompt(
    mem: Memdir,
) -> None:
    mem.write(
        name="Gym schedule", description="When I train", type="user", body="kickboxing on Mondays"
    )
    mem.write(name="Lunch", description="What I eat", type="user", body="cake and soup")
    floor = MeaningFloor(min_cosine=0.5, min_standout=0.5)
    words = recall(mem, "any martial arts this week?", embedder=None)
    meaning = recall(mem, "any martial arts this week?", embedder=TopicEmbedder(), meaning=floor)
    assert words.items == ()
    assert [item.name for item in meaning.items] == ["Gym schedule"]


# --- the bundled model, through the facade and the CLI -----------------------------------------


@pytest.fixture
def hybrid(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default setting: recall by meaning wherever the embeddings extra is installed."""
    monkeypatch.delenv("MEMDIR_EMBEDDINGS", raising=False)


@needs_embeddings_extra
@pytest.mark.usefixtures("hybrid")
@pytest.mark.parametrize(("prompt", "wanted"), sorted(PARAPHRASES.items()))
def test_a_prompt_in_other_words_recalls_its_memory(
    project: Path, prompt: str, wanted: str
) -> None:
    [memory] = [m for m in STORE if m[0] == wanted]
    assert not set(query_terms(prompt)) & set(terms(" ".join(memory)))
    mem = written(Memdir.open(project))
    assert [item.name for item in mem.recall(prompt).items] == [wanted]


@needs_embeddings_extra
@pytest.mark.usefixtures("hybrid")
@pytest.mark.parametrize("prompt", GENERIC)
def test_a_generic_prompt_recalls_nothing_by_meaning_either(project: Path, prompt: str) -> None:
    mem = written(Memdir.open(project))
    assert mem.recall(prompt).items == ()


@needs_embeddings_extra
@pytest.mark.usefixtures("hybrid")
def test_the_cli_recalls_by_meaning(project: Path) -> None:
    written(Memdir.open(project))
    prompt = "who do I page tonight?"
    result = CliRunner().invoke(main, ["recall", prompt, "--project", str(project), "--json"])
    assert result.exit_code == 0, result.output
    names = [item["name"] for item in json.loads(result.output)["items"]]
    assert names == ["On-call rotation"]


@needs_embeddings_extra
def test_without_embeddings_recall_stays_with_words(project: Path) -> None:
    assert os.environ["MEMDIR_EMBEDDINGS"] == "off"  # the suite's default
    mem = written(Memdir.open(project))
    assert mem.recall("who do I page tonight?").items == ()


# --- the hook: by meaning in the warm server, by words in a hook's own process ----------------


@pytest.fixture
def hook_env(memdir_home: Path) -> Iterator[dict[str, str]]:
    """A hook's environment with embeddings on and a socket folder of its own."""
    run = Path(tempfile.mkdtemp(prefix="memdir-run-"))
    values = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "XDG_RUNTIME_DIR": str(run)}
    values.pop("MEMDIR_EMBEDDINGS", None)
    values.pop("MEMDIR_HOOK_SERVER", None)
    yield values
    stop_server(values)
    shutil.rmtree(run, ignore_errors=True)


@needs_embeddings_extra
def test_the_hook_server_recalls_by_meaning_and_a_hooks_own_process_by_words(
    project: Path, hook_env: dict[str, str]
) -> None:
    written(Memdir.open(project))
    question = "who do I page tonight?"
    own = hook(
        "user-prompt-submit",
        prompt(project, "own", question),
        {**hook_env, "MEMDIR_HOOK_SERVER": "0"},
    )
    assert own == ""  # no word shared: a hook's own process does not load the model
    hook("session-start", start(project, "first"), hook_env)  # starts the server
    wait_running(hook_env)
    # Until the server's model has loaded, a prompt is answered by words; then by meaning.
    deadline = time.monotonic() + 120
    attempt = 0
    while True:
        attempt += 1
        served = hook("user-prompt-submit", prompt(project, f"s{attempt}", question), hook_env)
        if "On-call rotation" in served or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert "On-call rotation" in served


def test_a_prompt_waits_for_a_loading_model_only_so_long_then_answers_by_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from memdir.config import Settings
    from memdir.hooks import entry

    loading = threading.Event()  # a load that has not finished
    monkeypatch.setitem(entry._LOADS, "a-model-still-loading", loading)
    monkeypatch.setattr(entry, "_MODEL_WAIT", 0.05)
    settings = Settings(home=Path("/nonexistent"), search_embeddings="a-model-still-loading")
    assert entry._warm_embedder(settings) is None  # words alone, not a wait
    assert not loading.is_set()
