"""Hand edits: a memory file changed behind memdir's back is kept as a version.

The catalog notices changed files when it catches up (journal, folder mtimes,
a rotating stat sample). For each changed memory file it passes the content
hash here; when that hash is not what the history last recorded for the file,
someone edited it outside memdir (an editor, ``sed``, an agent's own file
tool), and the new text is recorded with action and route ``hand-edit``, the
text memdir last knew as its "before". This runs under the scope's lock, and
checks again there, so a write memdir is in the middle of (file renamed, its
version not yet committed) is not taken for a hand edit. Files the history
never saw are left for the first change memdir makes to them, which keeps
their text as its "before".
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from memdir.history.provenance import provenance
from memdir.history.versions import HISTORY_NAME, History, blob_hash
from memdir.model import Scope
from memdir.storage.fs import file_lock, read_bytes_nofollow
from memdir.storage.paths import Layout
from memdir.storage.store_apply import FileChange

__all__ = ["record_hand_edits"]


def record_hand_edits(layout: Layout, changed: Iterable[tuple[str, str]]) -> int:
    """Record ``(absolute path, sha256)`` memory files whose text the history lacks.

    Returns how many versions were recorded. Without a history (off, or never
    written) nothing happens.
    """
    history = History.existing(layout.history_dir / HISTORY_NAME)
    if history is None:
        return 0
    recorded = 0
    try:
        for path, digest in changed:
            where = _scope_of(layout, path)
            if where is None:
                continue
            scope, rel = where
            latest = history.latest(scope, rel)
            if latest is None or latest.after in (None, digest):
                continue
            with file_lock(layout.lock_dir / f"{scope.value}.lock"):
                recorded += _record(history, scope, rel, Path(path))
    finally:
        history.close()
    return recorded


def _record(history: History, scope: Scope, rel: str, path: Path) -> int:
    """Under the scope lock: record the file's text if it is still not the latest version."""
    try:
        data = read_bytes_nofollow(path)
    except (OSError, ValueError):
        return 0
    latest = history.latest(scope, rel)
    if latest is None or latest.after is None or latest.after == blob_hash(data):
        return 0
    with provenance(route="hand-edit", action="hand-edit"):
        history.record(
            FileChange(
                scope=scope,
                file=rel,
                action="hand-edit",
                name=latest.name,
                before=history.blob(latest.after),
                after=data,
            )
        )
    return 1


def _scope_of(layout: Layout, path: str) -> tuple[Scope, str] | None:
    """The scope and scope-relative file of a memory path, or None outside both."""
    for scope, root in ((Scope.TEAM, layout.team_dir), (Scope.PRIVATE, layout.memory_dir)):
        prefix = f"{root}/"
        if path.startswith(prefix):
            return scope, path[len(prefix) :]
    return None
