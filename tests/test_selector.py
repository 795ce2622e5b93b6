"""The model-based relevant-memory selector and its lexical fallback."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Mapping
from pathlib import Path

import pytest

from memdir.api import Memdir
from memdir.errors import LimitExceeded, ProviderError
from memdir.llm.base import Completion, Request
from memdir.model import MemoryType, Scope
from memdir.recall.age import memory_age
from memdir.recall.manifest import ManifestEntry, MemoryFile
from memdir.recall.relevant import Candidate, recall
from memdir.recall.selector import ModelSelector, manifest_lines
from memdir.testing import ScriptedProvider


def candidate(ref: str, score: float = 0.0, **kw: object) -> Candidate:
    team = ref.startswith("team/")
    found = MemoryFile(
        ref=ref,
        file=ref.removeprefix("team/"),
        scope=Scope.TEAM if team else Scope.PRIVATE,
        location=f"/memory/{ref}",
        mtime=0.0,
    )
    values: dict[str, object] = {
        "name": ref.removesuffix(".md").replace("_", " "),
        "description": f"about {ref}",
        "type": MemoryType.PROJECT,
        **kw,
    }
    entry = ManifestEntry(found=found, date=dt.date(2026, 3, 8), **values)  # type: ignore[arg-type]
    age = memory_age(today=dt.date(2026, 3, 10), mtime=0.0, updated=entry.date)
    return Candidate(entry=entry, age=age, score=score)


POOL = [candidate("deploy.md", 2.0), candidate("team/style.md", 1.0), candidate("misc.md")]


def test_the_model_picks_and_unknown_refs_are_dropped() -> None:
    provider = ScriptedProvider({"selected": ["team/style.md", "invented.md", "deploy.md"]})
    chosen = ModelSelector(provider).select("how do we deploy", POOL, 5)
    assert chosen == ["team/style.md", "deploy.md"]


def test_at_most_limit_refs_without_repeats() -> None:
    provider = ScriptedProvider({"selected": ["misc.md", "misc.md", "deploy.md", "team/style.md"]})
    assert ModelSelector(provider).select("a query here", POOL, 2) == ["misc.md", "deploy.md"]


def test_an_empty_answer_is_a_fine_answer() -> None:
    selector = ModelSelector(ScriptedProvider({"selected": []}))
    assert selector.select("a query here", POOL, 5) == [] and selector.fallbacks == 0


def test_a_memory_named_instead_of_its_ref_is_accepted() -> None:
    provider = ScriptedProvider({"selected": ["Deploy"]})
    assert ModelSelector(provider).select("a query here", POOL, 5) == ["deploy.md"]


@pytest.mark.parametrize(
    "failure",
    [
        ProviderError("the endpoint is down"),
        LimitExceeded("token budget spent"),
    ],
)
def test_a_provider_error_falls_back_to_the_lexical_selector(failure: Exception) -> None:
    selector = ModelSelector(ScriptedProvider(failure))
    assert selector.select("how do we deploy", POOL, 5) == ["deploy.md", "team/style.md"]
    assert selector.fallbacks == 1


class Held:
    """A provider that answers only once ``release`` is set: a model slower than any deadline."""

    def __init__(self, answer: Mapping[str, object]) -> None:
        self.inner = ScriptedProvider(answer)
        self.release = threading.Event()
        self.answered = threading.Event()

    def complete(self, request: Request) -> Completion:
        assert self.release.wait(30)
        try:
            return self.inner.complete(request)
        finally:
            self.answered.set()


def test_a_model_slower_than_the_deadline_gives_way_to_the_ranked_choice() -> None:
    provider = Held({"selected": ["misc.md"]})
    selector = ModelSelector(provider, deadline=0.05)
    assert selector.select("how do we deploy", POOL, 5) == ["deploy.md", "team/style.md"]
    assert selector.fallbacks == 1
    provider.release.set()  # the late answer arrives, and is dropped
    assert provider.answered.wait(30)


def test_a_model_within_the_deadline_is_heard() -> None:
    provider = Held({"selected": ["misc.md"]})
    provider.release.set()
    assert ModelSelector(provider, deadline=30).select("a query here", POOL, 5) == ["misc.md"]


def test_json_that_never_fits_the_schema_falls_back_too() -> None:
    provider = ScriptedProvider("I think deploy.md", {"picked": ["deploy.md"]})
    selector = ModelSelector(provider)
    assert selector.select("how do we deploy", POOL, 5) == ["deploy.md", "team/style.md"]
    assert len(provider.requests) == 2  # one corrective retry, then the fallback


def test_the_request_shows_descriptions_not_bodies_and_asks_for_a_schema() -> None:
    provider = ScriptedProvider({"selected": []})
    ModelSelector(provider).select("how do we deploy", POOL, 5)
    request = provider.requests[0]
    prompt = request.messages[0].text
    assert "how do we deploy" in prompt
    assert "- team/style.md [project, team, 2 days ago] team/style: about team/style.md" in prompt
    assert request.json_schema is not None and request.json_schema["required"] == ["selected"]


def test_more_candidates_than_fit_are_cut_to_the_best_ranked() -> None:
    pool = [candidate(f"m{n:03d}.md", float(300 - n)) for n in range(300)]
    provider = ScriptedProvider({"selected": ["m250.md", "m001.md"]})
    chosen = ModelSelector(provider, max_candidates=200).select("a query here", pool, 5)
    prompt = provider.requests[0].messages[0].text
    assert "m199.md" in prompt and "m200.md" not in prompt
    assert chosen == ["m001.md"]  # m250 was not shown, so it cannot be chosen


def test_the_manifest_token_cap_cuts_the_pool_too() -> None:
    pool = [candidate(f"m{n}.md", description="word " * 100) for n in range(10)]
    provider = ScriptedProvider({"selected": []})
    ModelSelector(provider, max_manifest_tokens=400).select("a query here", pool, 5)
    prompt = provider.requests[0].messages[0].text
    assert "m1.md" in prompt and "m2.md" not in prompt  # ~137 tokens a line


def test_manifest_lines_name_untyped_memories() -> None:
    assert manifest_lines([candidate("x.md", type=None)])[0].startswith("- x.md [untyped,")


def test_recall_uses_the_model_selector_through_the_protocol(mem: Memdir, project: Path) -> None:
    mem.write(name="Deploy steps", description="how to deploy the api", type="project", body="b")
    mem.write(name="Lunch", description="team lunch on fridays", type="project", body="b")
    provider = ScriptedProvider({"selected": ["lunch.md"]})
    result = recall(mem, "where is lunch today", selector=ModelSelector(provider))
    assert [item.ref for item in result.items] == ["lunch.md"]
