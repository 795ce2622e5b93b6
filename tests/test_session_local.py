"""Session notes and extraction through a real model: llama.cpp's server, SmolLM2-135M.

These tests check plumbing, not quality: the request shape the server receives,
that every call stops within ``max_tokens``, that the usage a run reports is what
the server reported, and that whatever the small model answers, the notes keep
their shape and the memory directory stays consistent. Needs
``scripts/install-local-model.sh``; without it they skip, or fail when ``CI``
is set (see ``llm_local.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

try:  # the SDKs moved from httpx to its successor httpx2 (same API)
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older SDKs
    import httpx  # type: ignore[no-redef, import-not-found]
import pytest

from llm_local import LocalServer, local_llm_server
from memdir.agents.extract import MemoryExtractor
from memdir.agents.limits import EXTRACTION_LIMITS, JobLimits
from memdir.agents.session.notes import SessionNotes
from memdir.agents.session.template import DEFAULT_TEMPLATE, missing_structure
from memdir.api import Memdir
from memdir.llm import OpenAICompatProvider, Usage
from memdir.transcripts.turns import Turn

__all__ = ["local_llm_server"]  # the fixture, imported so pytest finds it here

pytestmark = pytest.mark.slow

MAX_TOKENS = 48
FILLED = DEFAULT_TEMPLATE.replace(
    "The immediate next steps._\n", "The immediate next steps._\nWriting the CSV parser.\n"
)


class Wire:
    """Every request body memdir sends and every usage the server reports."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.bodies: list[dict[str, Any]] = []
        self.usage = Usage()
        self.client = httpx.Client(
            event_hooks={"request": [self.request], "response": [self.response]}
        )

    def request(self, request: httpx.Request) -> None:
        self.paths.append(request.url.path)
        self.bodies.append(json.loads(request.read()))

    def response(self, response: httpx.Response) -> None:
        reported = json.loads(response.read()).get("usage") or {}
        self.usage = self.usage + Usage(
            input_tokens=reported.get("prompt_tokens", 0),
            output_tokens=reported.get("completion_tokens", 0),
        )


@pytest.fixture
def wire() -> Iterator[Wire]:
    recorder = Wire()
    with recorder.client:
        yield recorder


def provider(server: LocalServer, wire: Wire) -> OpenAICompatProvider:
    return OpenAICompatProvider(
        model=server.model_name, base_url=server.base_url, http_client=wire.client, timeout=120.0
    )


def chat() -> list[Turn]:
    texts = [
        "Please write a CSV parser in parser.py that skips blank lines.",
        "Done: parser.py now has parse_csv(path), which skips blank lines.",
        "Also, I always want type hints in this project.",
        "Noted. I added type hints to parse_csv.",
    ]
    return [
        Turn(
            index=i,
            uuid=f"m{i}",
            parent_uuid=None,
            role="user" if i % 2 == 0 else "assistant",
            text=text,
        )
        for i, text in enumerate(texts)
    ]


def test_a_notes_update_through_a_real_model_keeps_the_notes_whole(
    local_llm_server: LocalServer, mem: Memdir, wire: Wire
) -> None:
    notes = SessionNotes.for_session(
        layout=mem.layout,
        settings=mem.settings,
        provider=provider(local_llm_server, wire),
        session_id="local",
        limits=JobLimits(max_turns=2, max_tokens=MAX_TOKENS),
    )
    notes.path.parent.mkdir(parents=True)
    notes.path.write_text(FILLED)

    result = notes.update(chat())

    run = result.run
    assert run is not None and 1 <= run.turns == len(wire.bodies) <= 2
    assert set(wire.paths) == {"/v1/chat/completions"}
    first = wire.bodies[0]
    assert [t["function"]["name"] for t in first["tools"]] == ["edit_file", "read_file"]
    assert first["max_tokens"] == MAX_TOKENS
    assert first["messages"][0]["role"] == "system"
    assert "[user] Please write a CSV parser" in first["messages"][1]["content"]
    assert run.usage == wire.usage and run.usage.input_tokens > 0
    assert run.usage.output_tokens <= MAX_TOKENS * run.turns
    text = notes.path.read_text()
    assert missing_structure(DEFAULT_TEMPLATE, text) == []
    if not result.accepted:
        assert text == FILLED or result.missing == ()
        assert notes.state().summarized_cursor is None
    else:
        assert notes.state().summarized_cursor == "m3"


def test_an_extraction_through_a_real_model_leaves_the_memory_consistent(
    local_llm_server: LocalServer, mem: Memdir, wire: Wire
) -> None:
    limits = replace(EXTRACTION_LIMITS, max_turns=2, max_tokens=MAX_TOKENS)
    extractor = MemoryExtractor(mem, provider(local_llm_server, wire), "local", limits=limits)

    report = extractor.extract(chat())

    assert report.run is not None and report.run.turns == len(wire.bodies) >= 1
    names = [t["function"]["name"] for t in wire.bodies[0]["tools"]]
    assert names == ["list_memories", "read_memory", "search_memories", "write_memory"]
    assert report.run.usage == wire.usage
    assert report.run.usage.output_tokens <= MAX_TOKENS * report.run.turns
    assert report.message.startswith(("Saved", "Extraction failed"))
    files = set(mem.private.files())
    assert set(mem.private.index_entries()) <= files
    assert len(report.saved) == len({r for r in report.saved})
    assert all(mem.private.find(ref) is not None for ref in report.saved)
    if report.error is not None:
        assert extractor.cursor() is None
