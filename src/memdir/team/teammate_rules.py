"""Teammates' ``enforce:`` rules that a sync pulled: held until a person here accepts them.

A merge brings memories other people wrote; a feedback memory among them
may carry rules that deny this user's agent tool calls. :func:`hold_pulled`
records, for each pulled memory whose rules are new or differ from this
clone's version before the merge, the rules as they arrived and who pushed
them (:mod:`memdir.enforcement.team_rules`); the pre-tool-use hook leaves them
out until ``memdir team rules accept``. A teammate's edit that leaves a
memory's rules as they were holds nothing; a pulled memory with no rules
drops what was held for it.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from memdir.enforcement.enforced import text_rules
from memdir.enforcement.team_rules import canonical, hold, pending_path
from memdir.storage.memory_index import INDEX_NAME
from memdir.storage.paths import Layout
from memdir.team.git import Git

__all__ = ["hold_pulled"]


def hold_pulled(
    git: Git, layout: Layout, before: str | None, changes: list[tuple[str, str]]
) -> None:
    """Hold the rules ``changes`` (status, path) brought since commit ``before``."""
    arrived: dict[str, tuple[str, str] | None] = {}
    for status, path in changes:
        if not path.endswith(".md") or posixpath.basename(path) == INDEX_NAME:
            continue
        new = _rules_in(git.work_tree / path) if status != "D" else []
        if not new:
            arrived[path] = None
            continue
        old: list[dict[str, str]] = []
        if before is not None and status != "A":
            found = git.run_bytes("cat-file", "blob", f"{before}:{path}", check=False)
            if found.returncode == 0:
                old = text_rules(found.stdout.decode("utf-8", "replace"), path)
        if canonical(new) == canonical(old):
            continue
        author = git.run(
            "log", "-1", "--format=%an <%ae>", "HEAD", "--", path, check=False
        ).stdout.strip()
        arrived[path] = (canonical(new), author)
    hold(pending_path(layout), arrived)


def _rules_in(path: Path) -> list[dict[str, str]]:
    try:
        text = path.read_text("utf-8", "replace")
    except OSError:  # quarantined, or gone
        return []
    return text_rules(text, str(path))
