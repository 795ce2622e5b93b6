"""What the prompt no longer shows of an index that outgrew its load limits, and pins.

The prompt loads ``MEMORY.md`` cut to ``max_index_lines`` lines and
``max_index_chars`` characters (:func:`memdir.storage.memory_index.truncate_index`).
New entries are appended, so once an index passes those limits the entries it
drops are the newest ones, and a write that lands there would otherwise look
like any other. :func:`hidden_entries` names the entries past the limits, judged
by the same cut the prompt makes; :func:`overflow_warning` turns them into the
one line a write reports, naming what is hidden and the next step.

A pinned memory (``pinned: true``) is the exception: memdir's prompts load its
line wherever it stands (:mod:`memdir.recall.index_fit`), so it is not hidden,
except from a client that loads the private index itself (Claude Code under
the ``claude`` profile), which knows nothing of pins. :func:`set_pinned` pins
and unpins a memory: a change of its frontmatter only, written through the
store (history and review follow), not dated as a change of what it says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from memdir.config import Settings
from memdir.history.project import ProjectMemory
from memdir.model import MemoryRecord, Scope
from memdir.recall.index_fit import index_shape
from memdir.storage.memory_index import parse_entries, truncate_index
from memdir.storage.store import MemoryStore

__all__ = ["hidden_entries", "hidden_files", "overflow_warning", "pins_lift", "set_pinned"]


def hidden_entries(store: MemoryStore) -> list[str]:
    """The files whose index entries the prompt's load limits cut off, in index order
    (pinned ones aside, where a pin lifts them: :func:`pins_lift`)."""
    return hidden_files(store.read_index(), store.settings, pinned=pins_lift(store))


def hidden_files(
    text: str, settings: Settings, *, pinned: Callable[[str], bool] | None = None
) -> list[str]:
    """The files of the index ``text`` past ``settings``' load limits, in index order;
    those ``pinned`` says are pinned are loaded all the same, so not among them."""
    kept = truncate_index(
        text, max_lines=settings.max_index_lines, max_chars=settings.max_index_chars
    )
    if not kept.truncated:
        return []
    visible = {entry.file for entry in parse_entries(kept.content)}
    hidden = [entry.file for entry in parse_entries(text.strip()) if entry.file not in visible]
    return [file for file in hidden if pinned is None or not pinned(file)]


def pins_lift(store: MemoryStore) -> Callable[[str], bool] | None:
    """Which of ``store``'s entries a pin loads past the load limits (None: a pin lifts
    none: the private index of the ``claude`` profile, which Claude Code loads itself)."""
    if store.scope is Scope.PRIVATE and store.settings.profile == "claude":
        return None
    return index_shape(store.root).pinned


def overflow_warning(store: MemoryStore, written: str | None = None) -> str | None:
    """One line saying what the prompt no longer shows, or ``None`` when it shows all.

    ``written`` is the file just saved: the line says whether it is among the hidden.
    """
    hidden = hidden_entries(store)
    if not hidden:
        return None
    settings = store.settings
    count = f"{len(hidden)} entr{'y' if len(hidden) == 1 else 'ies'}"
    which = "this one among them" if written in hidden else f"from {hidden[0]} on"
    return (
        f"the {store.scope.value} MEMORY.md is past the prompt's load limit "
        f"({settings.max_index_lines} lines, {settings.max_index_chars:,} characters): "
        f"agents no longer see {count} ({which}); fold related memories together "
        f"(`memdir consolidate`), remove stale ones (`memdir rm`), or shorten index lines; "
        f"`memdir doctor` lists every hidden entry"
    )


def set_pinned(
    memdir: ProjectMemory, ref: str, *, pinned: bool, scope: Scope | str | None = None
) -> MemoryRecord:
    """Pin (or unpin) the memory ``ref``: its index line then loads at every session start,
    first. The memory as stored afterwards; unchanged when it already was so."""
    found = memdir.get(ref, scope=scope)
    if found.memory.pinned is pinned:
        return found
    store = memdir.store(found.scope)
    result = store.write(
        replace(found.memory, pinned=pinned),
        file=found.file,
        expected_version=found.version,
        stamp=False,  # a pin is a person's choice about loading, not news about the memory
    )
    return result.record
