"""What the prompt no longer shows of an index that outgrew its load limits.

The prompt loads ``MEMORY.md`` cut to ``max_index_lines`` lines and
``max_index_chars`` characters (:func:`memdir.storage.memory_index.truncate_index`).
New entries are appended, so once an index passes those limits the entries it
drops are the newest ones, and a write that lands there would otherwise look
like any other. :func:`hidden_entries` names the entries past the limits, judged
by the same cut the prompt makes; :func:`overflow_warning` turns them into the
one line a write reports, naming what is hidden and the next step.
"""

from __future__ import annotations

from memdir.config import Settings
from memdir.storage.memory_index import parse_entries, truncate_index
from memdir.storage.store import MemoryStore

__all__ = ["hidden_entries", "hidden_files", "overflow_warning"]


def hidden_entries(store: MemoryStore) -> list[str]:
    """The files whose index entries the prompt's load limits cut off, in index order."""
    return hidden_files(store.read_index(), store.settings)


def hidden_files(text: str, settings: Settings) -> list[str]:
    """The files of the index ``text`` past ``settings``' load limits, in index order."""
    kept = truncate_index(
        text, max_lines=settings.max_index_lines, max_chars=settings.max_index_chars
    )
    if not kept.truncated:
        return []
    visible = {entry.file for entry in parse_entries(kept.content)}
    return [entry.file for entry in parse_entries(text.strip()) if entry.file not in visible]


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
