"""``memdir demo``: memdir's main job, end to end, in a throwaway project.

Everything runs on embedded defaults with no key and no network. Steps that
need a language model run only when a provider is configured; otherwise the
demo says which steps it skipped and how to enable them. Nothing shown is
canned: every output is produced by memdir on the spot.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from ..api import Memdir
from ..doctor import diagnose
from ..index import INDEX_NAME

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


@click.command()
@click.option("--keep", is_flag=True, help="Keep the throwaway project and memory home.")
def demo(keep: bool) -> None:
    """Run memdir's main job end to end in a throwaway project."""
    started = time.monotonic()
    with _throwaway(keep) as (project, home):
        mem = Memdir.open(project, home=home, env={**os.environ, "MEMDIR_HOME": str(home)})
        _step("1. Save one memory of each type, in the scope it belongs to")
        for spec in SAMPLE_MEMORIES:
            result = mem.write(**spec)  # type: ignore[arg-type]
            click.echo(f"  {result.record.scope.value:7} {result.record.file}")
        _step(f"2. The indexes ({INDEX_NAME}) an agent loads at session start")
        for store in (mem.private, mem.team):
            click.echo(f"  [{store.scope.value}] {store.index_path}")
            for line in store.read_index().splitlines():
                click.echo(f"    {line}")
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
        click.echo(
            f"  fixed {sum(f.fixed for f in fixed.findings)}; now: "
            f"{'all good' if diagnose(mem).ok else 'problems remain'}"
        )
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
    click.echo(f"\ndemo finished in {time.monotonic() - started:.1f} s on {dt.date.today()}")
