"""Shared set-up for the consolidation tests: a frozen clock, sessions, locks, processes."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memdir.agents.consolidate.gates import LOCK_NAME
from memdir.api import Memdir
from memdir.llm import Request, ToolResult

NOW = dt.datetime(2026, 3, 5, 12, 0, tzinfo=dt.UTC)


def snapshot(mem: Memdir) -> dict[str, bytes]:
    """Every file of both scopes (the team's git folder and the consolidation lock aside)."""
    files = {}
    for path in sorted(mem.layout.memory_dir.rglob("*")):
        rel = path.relative_to(mem.layout.memory_dir).as_posix()
        if path.is_file() and not rel.startswith("team/.git/") and rel != LOCK_NAME:
            files[rel] = path.read_bytes()
    return files


def tree_snapshot(root: Path) -> dict[str, bytes]:
    """Every file below ``root``, by relative path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def ago(**delta: float) -> dt.datetime:
    """``NOW`` minus a timedelta."""
    return NOW - dt.timedelta(**delta)


def set_mtime(path: Path, when: dt.datetime) -> None:
    stamp = when.timestamp()
    os.utime(path, (stamp, stamp))


def lock_file(mem: Memdir) -> Path:
    return mem.layout.memory_dir / LOCK_NAME


def write_lock(mem: Memdir, *, pid: int | None, at: dt.datetime) -> Path:
    """A consolidation lock last run (or taken) at ``at``, held by ``pid`` if given."""
    path = lock_file(mem)
    path.write_text("" if pid is None else f"{pid}\n")
    set_mtime(path, at)
    return path


def add_notes_session(mem: Memdir, session_id: str, *, at: dt.datetime) -> Path:
    notes = mem.layout.session_notes_path(session_id)
    notes.parent.mkdir(parents=True, exist_ok=True)
    notes.write_text("# Session Title\n")
    for path in (notes, notes.parent, notes.parent.parent):
        set_mtime(path, at)
    return notes


def add_transcript_session(mem: Memdir, session_id: str, *, at: dt.datetime) -> Path:
    path = mem.layout.project_dir / f"{session_id}.jsonl"
    path.write_text('{"role": "user", "content": "hello"}\n')
    set_mtime(path, at)
    return path


def add_sessions(mem: Memdir, count: int, *, at: dt.datetime, prefix: str = "s") -> None:
    for n in range(count):
        add_notes_session(mem, f"{prefix}{n}", at=at)


def dead_pid() -> int:
    """The PID of a process that has exited and been reaped."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    return child.pid


@contextmanager
def live_process() -> Iterator[int]:
    """A child process that stays alive for the block; yields its PID."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    try:
        yield child.pid
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)


def prompt_of(request: Request) -> str:
    """The job's first message."""
    return request.messages[0].text


def results_of(request: Request) -> list[ToolResult]:
    """The tool results the last message of ``request`` carries back to the model."""
    return list(request.messages[-1].tool_results)


def write_memory(
    mem: Memdir, file: str, *, name: str, description: str, body: str, kind: str = "project"
) -> Path:
    mem.write(name=name, description=description, type=kind, body=body, file=file)
    return mem.layout.memory_dir / file


def write_ci_duplicates(mem: Memdir) -> None:
    """Two memories that say the same thing (where CI runs): ``ci_runs.md``, ``ci_host.md``."""
    write_memory(
        mem,
        "ci_runs.md",
        name="CI runs on GitHub Actions",
        description="Where the project's CI runs",
        body="CI runs on GitHub Actions.\n**Why:** hosted runners.\n**How to apply:** see ci.yml",
    )
    write_memory(
        mem,
        "ci_host.md",
        name="Continuous integration host",
        description="The CI service the project uses",
        body="Our continuous integration is GitHub Actions.",
    )
