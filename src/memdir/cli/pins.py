"""``memdir pin NAME`` / ``memdir unpin NAME``: choose which memories always load.

A pinned memory's index line loads at every session start, before any other
line (:mod:`memdir.recall.index_fit`). Each command is parse -> one call on
the facade -> render, and says what would still keep the pin from working:
pinned lines that alone exceed what a session start holds, or a client that
loads the index itself (:mod:`memdir.recall.start_index`).
"""

from __future__ import annotations

from pathlib import Path

import click

from memdir.cli._common import emit, named_memory_options, open_memdir, reaching, record_dict
from memdir.errors import MemdirError
from memdir.kinds import memory_ref

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memdir.api import Memdir
    from memdir.model import MemoryRecord

__all__ = ["COMMANDS", "pin", "unpin"]


@click.command()
@named_memory_options
def pin(name: str, scope: str | None, project: Path, as_json: bool) -> None:
    """Pin a memory: its index line loads at every session start, first."""
    mem = open_memdir(project)
    with reaching(mem, name, scope):
        record = mem.pin(name, scope=scope)
    _emit(as_json, record, "pinned", _pin_notes(mem, record))


@click.command()
@named_memory_options
def unpin(name: str, scope: str | None, project: Path, as_json: bool) -> None:
    """Unpin a memory: its index line competes for the session start's room again."""
    mem = open_memdir(project)
    with reaching(mem, name, scope):
        record = mem.unpin(name, scope=scope)
    _emit(as_json, record, "unpinned", [])


def _emit(as_json: bool, record: MemoryRecord, verb: str, notes: list[str]) -> None:
    data = {**record_dict(record, body=False), "notes": notes}

    def human() -> None:
        ref = memory_ref(record.scope, record.file)
        if verb == "pinned":
            click.echo(f"pinned {ref} ({record.memory.name}): its index line loads first")
        else:
            click.echo(f"unpinned {ref} ({record.memory.name})")
        for note in notes:
            click.echo(f"note: {note}")

    emit(as_json, data, human)


def _pin_notes(mem: Memdir, record: MemoryRecord) -> list[str]:
    """What keeps this pin from working, if anything."""
    from memdir.recall.start_index import start_view

    # The pin went through the store, which keeps the memory's index line in step.
    try:
        view = start_view(mem.settings, mem.layout, mem.env, team_enabled=mem.team_enabled)
    except (MemdirError, OSError):
        return []
    ref = memory_ref(record.scope, record.file)
    if not any(entry.ref == ref for entry in view.pinned_left_out):
        return []
    if view.client_loads and record.scope.value == "private":
        return [
            "Claude Code loads this MEMORY.md itself and knows nothing of pins: its line loads "
            "only within the first lines of the index"
        ]
    return [
        f"the pinned entries alone exceed what a session start holds "
        f"({view.limit:,} characters), and this one is left out: unpin some "
        "(`memdir unpin NAME`) or shorten their index lines"
    ]


COMMANDS = [pin, unpin]
