"""The first message of a consolidation run, and its system prompt.

:data:`SYSTEM_PROMPT` walks the model through the four phases (orient,
gather, consolidate, prune and index). :func:`consolidation_prompt` gives it
what it needs for them, as sections of one message: today's date and the last
run's, both indexes with their limits, the manifest of memories, the daily logs
since the last run (each entry with its date, cut to a character budget, the
days left out named so the model can read them with ``read_log``), the drift
findings memdir computed (each check recorded as freshness state), and how
many past transcripts the model may search. Each section is a small function
of what it reads, so the prompt stays a plain string built in one place and a
dry run, a proposal and the gated run all send the same message.
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

from memdir.agents.consolidate.gates import as_datetime
from memdir.agents.consolidate.tools import format_log_entry
from memdir.agents.extract import memory_ref
from memdir.errors import MemdirError
from memdir.history.project import ProjectMemory
from memdir.recall.drift import DriftChecker
from memdir.recall.freshness import record_checks
from memdir.recall.manifest import build_manifest
from memdir.storage.dailylog import iter_logs, read_log
from memdir.storage.paths import Layout

__all__ = ["SYSTEM_PROMPT", "consolidation_prompt"]

_LOG_BUDGET_CHARS = 40_000
_INDEX_BUDGET_CHARS = 30_000
_MAX_DRIFT = 40

SYSTEM_PROMPT = """\
You are memdir's memory consolidation, a background job: you do not talk to anyone. \
You tidy a project's file-based memory so that future conversations find a small set \
of accurate, well-named memories and a short index (MEMORY.md) pointing at them.

Work in four phases:
1. Orient: read the index and the list of memories below; read the topic files you may \
change.
2. Gather: the daily logs first (given below, each entry with its date), then the \
memories whose claims drifted from the code (findings below), then, only for a \
specific open question, a narrow search of past transcripts (an error message, a file \
name, a flag; never a broad word).
3. Consolidate: fold what the logs teach into the memories. Merge into an existing \
memory rather than writing a near-duplicate: when two memories say the same thing, \
update one with everything worth keeping and delete the other. Convert relative dates \
to absolute ones: "yesterday" in an entry dated 2026-03-04 means 2026-03-03. When a \
newer fact contradicts an older one, keep the newer and remove the old claim. A memory \
whose code drifted: correct it if the logs or the code say what is true now, else \
delete it.
4. Prune and index: the index is rebuilt from each memory's name and description, one \
line each, and is loaded only up to its line and size limits, so keep descriptions to \
one specific line and delete memories that are stale, trivial or derivable from the \
code or git history.

Memory types: user (who the user is; always private), feedback (how to work: the rule, \
then a **Why:** line and a **How to apply:** line), project (decisions, deadlines, \
incidents not visible in the code: the fact, then **Why:** and **How to apply:**), \
reference (where information lives outside the project). Never put secrets in team \
memory. Do not save code patterns, architecture, file paths or fix recipes the code \
already shows.

Rules: change memories only with write_memory and delete_memory; deleted memories go to \
a trash folder and can be recovered, but delete only what is merged, contradicted or \
useless. Give every write_memory and delete_memory a one-line reason for the user (what \
it merges, corrects or drops, and why) and its sources (the log dates, memory files or \
transcript hits it rests on). The daily logs are append-only: never rewrite them. Change \
nothing when nothing needs changing. Finish with a one-line summary of what you changed \
and no tool calls."""


def consolidation_prompt(
    memdir: ProjectMemory,
    *,
    now: dt.datetime,
    last_run: float | None,
    sources: Layout | None = None,
) -> str:
    """The job's first message: dates, index, memories, daily logs, drift findings."""
    today = now.astimezone().date()
    since = as_datetime(last_run)
    since_day = since.astimezone().date() if since is not None else None
    parts = [
        f"Today is {today.isoformat()} ({today:%A}). "
        + (
            f"The last consolidation ran on {since_day.isoformat()}."
            if since_day is not None
            else "This memory has never been consolidated."
        ),
        _index_section(memdir),
        "## Memories\n\n" + (build_manifest(memdir).text.strip() or "(no memories yet)"),
        _logs_section(memdir.layout.logs_dir, since_day),
        _drift_section(memdir),
        _transcripts_section(sources or memdir.layout),
        "Team memory is "
        + ("on." if memdir.team_enabled else "off: write private memories only.")
        + " Now consolidate, phase by phase.",
    ]
    return "\n\n".join(parts)


def _index_section(memdir: ProjectMemory) -> str:
    settings = memdir.settings
    out = []
    for store, name in ((memdir.private, "MEMORY.md"), (memdir.team, "team/MEMORY.md")):
        text = store.read_index().strip()
        if not text and store is memdir.team:
            continue
        lines = len(text.splitlines())
        shown = text[:_INDEX_BUDGET_CHARS] or "(empty)"
        more = "\n[… index cut here]" if len(text) > _INDEX_BUDGET_CHARS else ""
        out.append(
            f"## {name} ({lines} lines, {len(text)} characters; loaded up to "
            f"{settings.max_index_lines} lines and {settings.max_index_chars} characters)"
            f"\n\n{shown}{more}"
        )
    return "\n\n".join(out)


def _logs_section(logs_dir: Path, since: dt.date | None) -> str:
    head = "## Daily logs" + (f" since {since.isoformat()}" if since else "")
    blocks: list[str] = []
    left_out: list[str] = []
    used = 0
    for day, path in iter_logs(logs_dir, since=since):
        try:
            entries = read_log(path)
        except MemdirError:
            continue
        block = f"### {day.isoformat()} ({day:%A})\n" + "\n".join(map(format_log_entry, entries))
        if used + len(block) > _LOG_BUDGET_CHARS:
            left_out.append(day.isoformat())
            continue
        blocks.append(block)
        used += len(block)
    if not blocks and not left_out:
        return f"{head}\n\n(no daily-log entries)"
    note = (
        f"\n\nNot shown for length (read them with read_log): {', '.join(left_out)}"
        if left_out
        else ""
    )
    intro = "Each entry carries its date: relative dates in it are relative to that date."
    return f"{head}\n\n{intro}\n\n" + "\n\n".join(blocks) + note


def _drift_section(memdir: ProjectMemory) -> str:
    checker = DriftChecker(memdir.layout.project_root)
    lines = []
    checked = []
    for record in memdir.list():
        ref = memory_ref(record.scope, record.file)
        found = [finding.message for finding in checker.check_memory(record.memory)]
        if found or record.memory.anchors:
            checked.append((f"{record.scope.value}:{record.file}", record.name, found))
        lines += [f"- {ref}: {message}" for message in found]
    record_checks(memdir.layout.state_dir, checked, now=time.time())
    if not lines:
        return "## Drifted memories\n\n(none: every path and symbol they name still exists)"
    more = f"\n[{len(lines) - _MAX_DRIFT} more]" if len(lines) > _MAX_DRIFT else ""
    return "## Drifted memories\n\n" + "\n".join(lines[:_MAX_DRIFT]) + more


def _transcripts_section(layout: Layout) -> str:
    count = sum(1 for _ in layout.project_dir.glob("*.jsonl")) if layout.project_dir.is_dir() else 0
    return (
        f"## Past sessions\n\n{count} transcripts and the session notes can be searched "
        "with search_transcripts: use it last, with a narrow term."
    )
