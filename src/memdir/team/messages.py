"""The words of team sync: its commit messages and the errors of a refused commit or push.

Every text here names files, lines and rules, never a value a scan found.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from memdir.errors import MemdirError, SecretDetected, SyncError
from memdir.storage.memory_index import INDEX_NAME
from memdir.team.checks import Problem
from memdir.team.reports import QuarantinedFile

__all__ = [
    "RETRY_SYNC",
    "REWRITE",
    "commit_message",
    "refusal",
    "repair_message",
    "rewrite_message",
]

REWRITE = "memdir team rewrite-unpushed"
RETRY_SYNC = "memdir team sync"


_VERBS = {"A": "added", "D": "deleted"}


def commit_message(changes: list[tuple[str, str]]) -> str:
    """A local commit's message: how many memories changed, and each change."""
    memories = [path for _, path in changes if posixpath.basename(path) != INDEX_NAME]
    if not memories:
        return "memdir: update the team index"
    shown = ", ".join(memories[:3]) + (
        f" and {len(memories) - 3} more" if len(memories) > 3 else ""
    )
    noun = "memory" if len(memories) == 1 else "memories"
    body = "\n".join(f"{_VERBS.get(status, 'modified')}: {path}" for status, path in changes)
    return f"memdir: {len(memories)} team {noun} changed: {shown}\n\n{body}"


def refusal(root: Path, problems: list[Problem], *, committed: bool) -> MemdirError:
    """The error for a push or commit refused: where and which rule, never a value."""
    shown = problems[:20]
    lines = "; ".join(p.describe() for p in shown)
    more = f" and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
    secret = [p.rule for p in problems if not p.rule.startswith("not a memory file")]
    what = "likely secrets" if secret else "files that are not memories"
    if committed:
        message = f"refused to push team memory: {what} in unpushed commits: {lines}{more}"
        hint = (
            f"nothing was pushed; run `{REWRITE}` to rewrite the unpushed commits "
            "without them (the files move to the project's .quarantine folder), then "
            f"`{RETRY_SYNC}`; rotate any secret that was shared elsewhere"
        )
    else:
        message = f"refused to sync: {what} in the team folder: {lines}{more}"
        hint = (
            "nothing was committed; remove the values (name where they live instead) "
            "or move the files out of the team folder, then run `memdir team sync` again"
        )
    if secret:
        return SecretDetected(message, path=root, hint=hint, labels=tuple(dict.fromkeys(secret)))
    return SyncError(message, path=root, hint=hint)


def rewrite_message(replaced: int, moved: list[QuarantinedFile]) -> str:
    """The message of the commit ``team rewrite-unpushed`` makes."""
    body = "\n".join(f"quarantined: {q.file} ({', '.join(q.labels)})" for q in moved)
    head = f"memdir: local team memory changes ({replaced} unpushed commit(s) rewritten)"
    return f"{head}\n\n{body}".rstrip()


def repair_message(quarantined: list[QuarantinedFile]) -> str:
    """The message of a sync's own repair commit (quarantine, index)."""
    if not quarantined:
        return "memdir: repair the team index"
    lines = "\n".join(f"{q.file}: {', '.join(q.labels)}" for q in quarantined)
    return f"memdir: quarantine {len(quarantined)} file(s) holding likely secrets\n\n{lines}"
