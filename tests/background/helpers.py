"""Turns, scripted edits and a routing provider for the background-agent tests."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from memdir.api import Memdir
from memdir.hooks.background import Event, JobReport, run_job
from memdir.llm import Completion, Provider, Request
from memdir.testing import ScriptedProvider, tool_use
from memdir.transcripts.turns import ToolCall, Turn

FIXTURES = Path(__file__).parents[1] / "fixtures"
SESSION = "0b5c7f6e-3c1a-4d7e-9a51-2f0c6f4b8e21"  # the session_id of the recorded hook payloads


def session_transcript(tmp_path: Path) -> Path:
    """A copy of the recorded Claude Code session, named by its id as Claude Code names it."""
    target = tmp_path / "transcripts" / f"{SESSION}.jsonl"
    target.parent.mkdir()
    shutil.copy(FIXTURES / "transcripts" / "claude-code-session.jsonl", target)
    return target


def turn(
    index: int,
    role: str,
    text: str = "",
    *,
    uuid: str | None = None,
    calls: Iterable[str] = (),
    results: Iterable[str] = (),
) -> Turn:
    """A turn; ``calls`` are tool-call ids made by an assistant turn."""
    tool_calls = tuple(ToolCall(id=c, name="Bash", input={"command": "ls"}) for c in calls)
    return Turn(
        index=index,
        uuid=uuid if uuid is not None else f"u{index}",
        parent_uuid=None,
        role=role,  # type: ignore[arg-type]
        text=text,
        tool_calls=tool_calls,
        tool_results=tuple(results),
    )


def chat(*texts: str) -> list[Turn]:
    """A plain conversation, alternating user and assistant, no tools."""
    return [turn(i, "user" if i % 2 == 0 else "assistant", t) for i, t in enumerate(texts)]


def edit(path: Path, old: str, new: str) -> Completion:
    """The model asks to replace ``old`` by ``new`` in the notes file."""
    return tool_use("edit_file", {"file_path": str(path), "old_string": old, "new_string": new})


def notes_adding(mem: Memdir, line: str) -> tuple[Path, ScriptedProvider]:
    """The recorded session's notes file in ``mem``, and a notes model that adds ``line``
    under "Current State" in it."""
    path = mem.layout.session_notes_path(SESSION)
    return path, ScriptedProvider(edit(path, CURRENT, CURRENT + line), "Updated.")


def notes_router(notes: ScriptedProvider, extractions: int) -> Router:
    """Session notes from ``notes``; an extractor with nothing to save, ``extractions`` times."""
    return Router(notes=notes, extractor=ScriptedProvider(*["Nothing to save."] * extractions))


def session_job(
    event: Event, project: Path, transcript: Path, provider: Provider, run_id: str = ""
) -> JobReport:
    """The background job of ``event`` for the recorded session, in this environment."""
    return run_job(
        event=event, session_id=SESSION, project=project, transcript=transcript,
        env=os.environ, provider=provider, run_id=run_id,
    )  # fmt: skip


def user(text: str) -> dict[str, Any]:
    """A user message as an agent loop holds it (a plain dict)."""
    return {"role": "user", "content": text}


def answer(text: str) -> dict[str, Any]:
    """A final assistant answer (no tool calls) as a plain dict."""
    return {"role": "assistant", "content": text}


def prompt_of(request: Request) -> str:
    """The first user message of a request (the job's prompt)."""
    return request.messages[0].text


class Router:
    """A provider that sends each job to its own scripted provider, by system prompt."""

    def __init__(self, **by_keyword: ScriptedProvider) -> None:
        self.by_keyword = by_keyword

    def complete(self, request: Request) -> Completion:
        for keyword, provider in self.by_keyword.items():
            if keyword in request.system:
                return provider.complete(request)
        raise AssertionError(f"no scripted provider for system prompt {request.system[:60]!r}")


def tool_results(request: Request) -> list[Any]:
    """Every tool result sent back to the model in ``request``."""
    return [r for m in request.messages for r in m.tool_results]


# The Current State header and its italic line, as the default template has them.
CURRENT = (
    "# Current State\n_What is being worked on right now? Pending tasks not yet done. "
    "The immediate next steps._\n"
)
