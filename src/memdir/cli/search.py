"""Search commands: ranked search or grep, reindex, and adding transcripts."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memdir.cli._common import emit, json_option, open_memdir, project_option
from memdir.search.catalog import Progress as CatalogProgress
from memdir.search.catalog import RefreshStats
from memdir.search.query import GrepHit, grep
from memdir.search.refresh import EMBED_BUDGET

if TYPE_CHECKING:
    from memdir.api import Memdir

__all__ = ["COMMANDS"]

_KINDS = click.Choice(["memory", "log", "notes", "transcript"])


@click.command()
@click.argument("query", required=False)
@click.option("--kind", "kinds", type=_KINDS, multiple=True, help="Only these kinds (repeatable).")
@click.option("-k", "--limit", type=click.IntRange(min=1), default=10, show_default=True)
@click.option(
    "--grep",
    "pattern",
    default=None,
    help="Lines containing this text (literal, like grep -F) instead of ranked search.",
)
@click.option("--regex", is_flag=True, help="With --grep: the pattern is an RE2 expression.")
@click.option("-i", "--ignore-case", is_flag=True, help="With --grep: ignore case.")
@click.option(
    "--transcripts",
    type=click.Path(exists=True, path_type=Path),
    default=None,
    help="With --grep: also search the .jsonl transcripts in this folder.",
)
@project_option
@json_option
def search(
    query: str | None,
    kinds: tuple[str, ...],
    limit: int,
    pattern: str | None,
    regex: bool,
    ignore_case: bool,
    transcripts: Path | None,
    project: Path,
    as_json: bool,
) -> None:
    """Ranked search for QUERY, or `--grep PATTERN` for matching lines."""
    mem = open_memdir(project)
    if pattern is not None:
        lines = _grep(
            mem, pattern, kinds, regex=regex, ignore_case=ignore_case, transcripts=transcripts
        )
        text = "\n".join(f"{h.path}:{h.line}:{h.text}" for h in lines)
        emit(as_json, lines, lambda: click.echo(text) if lines else None)
        if not lines:  # as grep does: nothing matched is exit status 1, said on stderr
            what = "regular expression" if regex else "text"
            click.echo(f"no lines match the {what} {pattern!r}", err=True)
            raise click.exceptions.Exit(1)
        return
    if not query:
        raise click.UsageError("give a QUERY, or --grep PATTERN")
    with _progress_bar("embedding for hybrid search") as progress:
        notice = _EmbedNotice(progress)
        hits = mem.search(query, kinds=kinds or None, limit=limit, progress=notice)
    notice.finish()

    def human() -> None:
        if not hits:
            click.echo("no results", err=True)
        best = max((hit.score for hit in hits), default=0.0)
        for rank, hit in enumerate(hits, start=1):
            when = f" {hit.date:%Y-%m-%d}" if hit.date else ""
            # The rank, then the score as a share of the best one: raw BM25 scores of a
            # small store are often tiny (a word every memory holds), printed 0.00.
            share = f"{100 * hit.score / best:3.0f}%" if best > 0 else "   -"
            head = f"{rank:>2}. {share}"
            click.echo(f"{head} [{hit.kind}{when}] {hit.ref} — {hit.title}")
            if hit.snippet:
                click.echo(f"{' ' * len(head)} {hit.snippet}")

    emit(as_json, hits, human)


def _grep(
    mem: Memdir,
    pattern: str,
    kinds: tuple[str, ...],
    *,
    regex: bool,
    ignore_case: bool,
    transcripts: Path | None,
) -> list[GrepHit]:
    """Grep memory files, daily logs (and session notes, transcripts), kept to ``kinds``."""
    wanted = set(kinds) or {"memory", "log", "transcript"}
    hits = mem.grep(pattern, regex=regex, ignore_case=ignore_case, transcripts=transcripts)
    if "notes" in wanted:  # session notes live beside the memory folder, not in it
        hits += grep(mem.layout.sessions_dir, pattern, regex=regex, ignore_case=ignore_case)
    logs = mem.layout.logs_dir

    def kind(hit: GrepHit) -> str:
        if hit.path.suffix == ".jsonl":
            return "transcript"
        if hit.path.is_relative_to(mem.layout.sessions_dir):
            return "notes"
        return "log" if hit.path.is_relative_to(logs) else "memory"

    return [hit for hit in hits if kind(hit) in wanted]


def _with_progress(label: str, work: Callable[[CatalogProgress], RefreshStats]) -> RefreshStats:
    with _progress_bar(label) as progress:
        return work(progress)


@contextlib.contextmanager
def _progress_bar(label: str) -> Iterator[CatalogProgress]:
    """A progress callback drawing a bar on stderr (a terminal's), drawn only once called."""
    bar: Any = None
    task: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar, task
        if bar is None:
            from rich.console import Console  # only work that reports progress loads rich
            from rich.progress import Progress

            console = Console(stderr=True)  # progress never mixes with the output
            bar = Progress(transient=True, console=console, disable=not console.is_terminal)
            bar.start()
            task = bar.add_task(label, total=None)
        bar.update(task, completed=done, total=total)

    try:
        yield progress
    finally:
        if bar is not None:
            bar.stop()


_SAY_FROM = 100  # documents to embed from which a search says so, terminal or not


class _EmbedNotice:
    """A search's embedding progress: a line on stderr when there is much to embed,
    another when the search stopped before the end (and so ranked by BM25 alone)."""

    def __init__(self, progress: CatalogProgress) -> None:
        self.progress = progress
        self.last: tuple[int, int] | None = None

    def __call__(self, done: int, total: int) -> None:
        if self.last is None and total >= _SAY_FROM:
            click.echo(f"embedding {total} documents for hybrid search", err=True)
        self.last = (done, total)
        self.progress(done, total)

    def finish(self) -> None:
        if self.last is not None and self.last[0] < self.last[1]:
            left = self.last[1] - self.last[0]
            click.echo(
                f"{left} documents still to embed: ranked by BM25 alone until they are "
                f"(each search embeds for {EMBED_BUDGET:g} s more; `memdir index embed` does "
                "them all now; "
                "MEMDIR_EMBEDDINGS=off searches without)",
                err=True,
            )


@click.command()
@project_option
@json_option
def reindex(project: Path, as_json: bool) -> None:
    """Rebuild the search index from the files (it is derived: nothing is lost)."""
    mem = open_memdir(project)
    stats = _with_progress("indexing", lambda p: mem.reindex(progress=p))
    emit(as_json, stats, lambda: click.echo(_summary(stats)))


def _summary(stats: RefreshStats) -> str:
    return (
        f"indexed: {stats.added} added, {stats.updated} updated, {stats.removed} removed "
        f"in {stats.seconds:.1f} s"
    )


@click.group()
def index() -> None:
    """Manage what the search index holds."""


@index.command(name="add-transcripts")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@project_option
@json_option
def add_transcripts(path: Path, project: Path, as_json: bool) -> None:
    """Index a transcript (.jsonl) or a folder of them for search."""
    mem = open_memdir(project)
    stats = _with_progress("indexing transcripts", lambda p: mem.add_transcripts(path, progress=p))
    emit(as_json, stats, lambda: click.echo(_summary(stats)))
    if stats.added or stats.updated:
        _say_what_waits(mem)


def _say_what_waits(mem: Memdir) -> None:
    """One line on stderr when hybrid search has many documents still to embed."""
    left = mem.vectors_missing()
    if left >= _SAY_FROM:
        click.echo(
            f"{left} documents to embed for hybrid search: searches embed them "
            f"{EMBED_BUDGET:g} s at a time, `memdir index embed` does them all now",
            err=True,
        )


@index.command(name="embed")
@project_option
@json_option
def embed(project: Path, as_json: bool) -> None:
    """Embed every document without a vector (hybrid search; a search does it bit by bit)."""
    mem = open_memdir(project)
    if not mem.hybrid_search:
        raise click.ClickException(
            "search is lexical here, so there is nothing to embed (install the embeddings "
            "extra, or set search_embeddings)"
        )
    with _progress_bar("embedding") as progress:
        count = mem.embed(progress=progress)
    emit(as_json, {"embedded": count}, lambda: click.echo(f"embedded {count} documents"))


COMMANDS = [search, reindex, index]
