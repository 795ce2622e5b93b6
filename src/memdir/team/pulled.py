"""A memory a sync brought that screening flags: held for review, the file put back.

Shared by team sync (:mod:`memdir.team.incoming`: a teammate's push is
untrusted) and private sync (:mod:`memdir.sync`: the owner's remote, but
what reaches it from another of their machines may be an agent's write that
no gate there saw, such as a file saved through a shell without memdir's
hooks). After the merge, each memory that arrived is judged as an agent's
write is (:func:`memdir.history.review.screened`: an instruction aimed at the
agent, hidden characters, a forged frame) and against the scope's tombstones
(a forgotten memory a stale copy brings back). A flagged one:

- becomes a pending version in the history, the findings its reason, the
  author of its last commit its user (``memdir review approve`` applies it);
  with history off it is set aside by the caller's ``keep_aside`` (team sync
  quarantines it, private sync keeps a conflict copy);
- leaves the folder as it was before the merge (the file put back, or removed
  when new), its index line with it, in a commit of its own, so it reaches no
  prompt, recall or search until a person approves it.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import TYPE_CHECKING

from memdir.errors import MemdirError
from memdir.history.provenance import provenance
from memdir.history.review import screened
from memdir.history.tombstones import FORGOTTEN_NAME
from memdir.model import Memory, Scope
from memdir.storage.codec import parse_memory
from memdir.storage.fs import atomic_write
from memdir.storage.memory_index import INDEX_NAME, remove_entry
from memdir.storage.store_apply import FileChange
from memdir.team.index_repair import reconcile_index
from memdir.team.merge import MergeTree, memory_name

if TYPE_CHECKING:
    from memdir.history.project import ProjectMemory

__all__ = ["hold_flagged", "pulled_memory"]


def hold_flagged(
    tree: MergeTree,
    memdir: ProjectMemory,
    scope: Scope,
    before: str | None,
    changes: list[tuple[str, str]],
    *,
    is_memory: Callable[[str], bool],
    keep_aside: Callable[[str, bytes, str], None],
) -> dict[str, str]:
    """Hold each memory among ``changes`` (git statuses and paths since ``before``) that
    screening or a tombstone flags; returns path -> reason."""
    held: dict[str, str] = {}
    for status, path in changes:
        if status == "D" or posixpath.basename(path) == INDEX_NAME or not is_memory(path):
            continue
        if path == FORGOTTEN_NAME or path in held:
            continue  # the tombstones themselves: no memory
        source = tree.root / path
        if source.is_symlink() or not source.is_file():
            continue
        data = source.read_bytes()
        memory = pulled_memory(data, path)
        reason = screened(memory) or memdir.relearns(memory, scope=scope)
        if reason is None:
            continue
        old = None if before is None or status == "A" else tree.git.blob(f"{before}:{path}")
        _set_aside(tree, memdir, scope, (path, data, old, reason), keep_aside)
        held[path] = reason
    if held:
        _commit_held(tree, memdir, scope, held)
    return held


def pulled_memory(data: bytes, path: str) -> Memory:
    """A pulled memory file's bytes as screening and tombstones judge it."""
    text = data.decode("utf-8", "replace")
    try:
        return parse_memory(text, path=path)
    except MemdirError:  # not a memory as written: its text is read as a body
        return Memory(name="", description="", type=None, body=text)


def _set_aside(
    tree: MergeTree,
    memdir: ProjectMemory,
    scope: Scope,
    pulled: tuple[str, bytes, bytes | None, str],
    keep_aside: Callable[[str, bytes, str], None],
) -> None:
    """Keep a pulled file's text for review and put back what the file held before."""
    path, data, old, reason = pulled
    history = memdir.history_db
    if history is None:
        keep_aside(path, data, reason)
    else:
        author = tree.git.run(
            "log", "-1", "--format=%an <%ae>", "HEAD", "--", path, check=False
        ).stdout.strip()
        with provenance(route="sync", user=author or None):
            history.record(
                FileChange(
                    scope=scope,
                    file=path,
                    action="sync",
                    name=memory_name(data),
                    before=old,
                    after=data,
                    status="pending",
                    reason=reason,
                )
            )
    if old is None:
        tree.git.run("rm", "--quiet", "--cached", "--ignore-unmatch", "--", path)
        (tree.root / path).unlink(missing_ok=True)  # team sync's quarantine moved it already
    else:
        tree.put(path, old)


def _commit_held(
    tree: MergeTree, memdir: ProjectMemory, scope: Scope, held: dict[str, str]
) -> None:
    """Take the held files' index lines out (a file put back gets its own again) and
    commit the folder as it was, with the reasons in the message."""
    store = memdir.team if scope is Scope.TEAM else memdir.private
    index = store.read_index()
    kept = index
    for path in held:
        kept = remove_entry(kept, file=path)  # the line that came with it goes too
    if kept != index:
        atomic_write(store.index_path, kept)
    reconcile_index(store)
    if store.index_path.exists():
        tree.git.run("add", "--", INDEX_NAME)
    if tree.git.staged():
        lines = "\n".join(f"{path}: {reason}" for path, reason in held.items())
        tree.git.commit(f"memdir: hold {len(held)} pulled memory file(s) for review\n\n{lines}")
