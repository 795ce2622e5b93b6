"""``memdir forget NAME|QUERY`` / ``memdir unforget NAME``: forgetting that sticks.

``forget`` deletes a memory (the history keeps it: ``memdir restore`` brings
it back) and leaves a tombstone (:mod:`memdir.history.tombstones`), so an
agent that learns the same fact again, from an old transcript, a daily log or
a teammate's clone, is held for the person's review. A name or file forgets
that memory; any other text is a query: the matches are shown and the person
picks (or passes ``--all``), so nothing is deleted that was not chosen.
``forget --list`` shows the tombstones, ``unforget`` removes one.

Each command is parse -> the facade -> render.
"""

from __future__ import annotations

from pathlib import Path

import click

from memdir.cli._common import (
    emit,
    json_option,
    open_memdir,
    project_option,
    scope_option,
)
from memdir.errors import MemdirError, MemoryNotFound
from memdir.kinds import memory_ref

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memdir.api import Memdir
    from memdir.history.tombstones import Tombstone
    from memdir.model import MemoryRecord

__all__ = ["COMMANDS", "forget", "unforget"]


@click.command()
@click.argument("query", nargs=-1, metavar="NAME|QUERY")
@click.option("--reason", default=None, help="Why it is forgotten (kept with the tombstone).")
@click.option("--all", "every", is_flag=True, help="Forget every memory the query matches.")
@click.option("--list", "listing", is_flag=True, help="Show what was forgotten, and stop.")
@scope_option()
@project_option
@json_option
def forget(
    query: tuple[str, ...],
    reason: str | None,
    every: bool,
    listing: bool,
    scope: str | None,
    project: Path,
    as_json: bool,
) -> None:
    """Delete a memory and leave a tombstone: agents that learn it again wait for review.

    NAME (a memory's name or file) forgets that memory; any other text is a
    query whose matches are shown to choose from (or --all). `memdir restore
    NAME` brings the text back; `memdir unforget NAME` lets agents learn it again.
    """
    mem = open_memdir(project)
    if listing:
        _show_tombstones(mem.tombstones(scope), as_json)
        return
    text = " ".join(query).strip()
    if not text:
        raise click.UsageError("name the memory to forget (or a query), or pass --list")
    exact = (
        mem.store(scope).find(text) if scope else (mem.private.find(text) or mem.team.find(text))
    )
    chosen = [exact] if exact is not None else _choose(mem, text, scope, every, as_json)
    forgotten = [mem.forget(r.file, scope=r.scope, reason=reason) for r in chosen]
    _show_forgotten(forgotten, as_json)


def _choose(
    mem: Memdir, query: str, scope: str | None, every: bool, as_json: bool
) -> list[MemoryRecord]:
    """The memories ``query`` matches that the person picks (all of them with ``--all``)."""
    matches = mem.forget_matches(query, scope=scope)
    if not matches:
        raise MemoryNotFound(
            f"no memory matches {query!r}: nothing was forgotten",
            path=mem.layout.memory_dir,
            hint="run `memdir list` to see the memories and their files",
        )
    if every:
        return matches
    if as_json:
        raise MemdirError(
            f"{query!r} is no memory's name but matches {len(matches)}: nothing was forgotten",
            hint="name one with `memdir forget NAME`, or pass --all to forget every match",
        )
    click.echo(f"{query!r} matches:")
    for n, record in enumerate(matches, 1):
        ref = memory_ref(record.scope.value, record.file)
        click.echo(f"  {n}. {ref}  {record.memory.name}: {record.memory.description}")
    answer = click.prompt(
        "Forget which? (numbers, 'all', or nothing to keep them)", default="", show_default=False
    )
    return _picked(answer, matches)


def _picked(answer: str, matches: list[MemoryRecord]) -> list[MemoryRecord]:
    words = answer.replace(",", " ").split()
    if words == ["all"]:
        return matches
    picked = []
    for word in words:
        if not word.isdigit() or not 1 <= int(word) <= len(matches):
            raise click.BadParameter(f"{word!r} is not one of 1-{len(matches)} (or 'all')")
        record = matches[int(word) - 1]
        if record not in picked:
            picked.append(record)
    if not picked:
        click.echo("nothing was forgotten")
    return picked


def _show_forgotten(forgotten: list[Tombstone], as_json: bool) -> None:
    def human() -> None:
        for tombstone in forgotten:
            ref = memory_ref(tombstone.scope, tombstone.file)
            click.echo(
                f"forgot {ref} ({tombstone.name}): an agent that learns it again waits for "
                f"your review; `memdir restore {ref}` brings it back"
            )

    emit(as_json, {"forgotten": [t.json_fields() for t in forgotten]}, human)


def _show_tombstones(tombstones: list[Tombstone], as_json: bool) -> None:
    def human() -> None:
        if not tombstones:
            click.echo("nothing is forgotten")
            return
        for t in tombstones:
            by = f" by {t.by}" if t.by else ""
            why = f": {t.reason}" if t.reason else ""
            ref = memory_ref(t.scope, t.file)
            click.echo(f"{t.date}  {t.name} ({ref}){by}{why}  [{t.id}]")
        click.echo("`memdir unforget NAME` lets agents learn one again")

    emit(as_json, {"tombstones": [t.json_fields() for t in tombstones]}, human)


@click.command()
@click.argument("name")
@scope_option()
@project_option
@json_option
def unforget(name: str, scope: str | None, project: Path, as_json: bool) -> None:
    """Remove a tombstone (by name, file or id): agents may learn that memory again."""
    mem = open_memdir(project)
    removed = mem.unforget(name, scope=scope)
    if not removed:
        raise MemoryNotFound(
            f"nothing forgotten is named {name!r}",
            path=mem.layout.history_dir,
            hint="`memdir forget --list` shows the tombstones, with their names and ids",
        )

    def human() -> None:
        for t in removed:
            click.echo(
                f"unforgot {t.name} ({memory_ref(t.scope, t.file)}): agents may learn it again"
            )

    emit(as_json, {"unforgotten": [t.json_fields() for t in removed]}, human)


COMMANDS = [forget, unforget]
