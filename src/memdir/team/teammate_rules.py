"""Teammates' ``enforce:`` rules that a sync pulled: held until a person here accepts them.

A merge brings memories other people wrote; a feedback memory among them
may carry rules that deny this user's agent tool calls. :func:`hold_pulled`
records, for each pulled memory whose rules are new or differ from this
clone's version before the merge (and from what this user accepted), the
rules as they arrived and who pushed them in the held list
(:mod:`memdir.enforcement.team_rules`); the pre-tool-use hook leaves them
out until ``memdir team rules accept`` (:func:`accept_held`), which records
them as accepted. A teammate's edit that leaves a memory's rules as they
were holds nothing; a pulled memory with no rules drops what was held for it.

The rules this clone commits are this user's: :func:`record_own` records
them as accepted when the sync commits them. The held list is derived state:
:func:`ensure_held` rebuilds a missing or damaged one from the repository and
the accepted record (a committed memory whose rules are not accepted is a
teammate's; one changed here and not committed yet is this user's), before a
sync pulls anything and on ``memdir doctor --fix``.
"""

from __future__ import annotations

import posixpath
import time
from pathlib import Path
from typing import Any

from memdir.enforcement.enforced import load_rules, text_rules
from memdir.enforcement.team_rules import (
    accept,
    accepted_path,
    canonical,
    hold,
    pending_path,
    read_accepted,
    read_held,
    record_accepted,
    write_held,
)
from memdir.storage.memory_index import INDEX_NAME
from memdir.storage.paths import Layout
from memdir.team.git import Git

__all__ = ["accept_held", "ensure_held", "hold_pulled", "record_own"]


def hold_pulled(
    git: Git, layout: Layout, before: str | None, changes: list[tuple[str, str]]
) -> None:
    """Hold the rules ``changes`` (status, path) brought since commit ``before``."""
    accepted = read_accepted(accepted_path(layout)) or {}
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
            old = _committed_rules(git, before, path)
        if canonical(new) in (canonical(old), accepted.get(f"team:{path}")):
            continue
        arrived[path] = (canonical(new), _author(git, path))
    hold(pending_path(layout), arrived)


def record_own(git: Git, layout: Layout, changes: list[tuple[str, str]]) -> None:
    """Record the rules of the memories this clone just committed as this user's."""
    own: dict[str, str | None] = {}
    for status, path in changes:
        if not path.endswith(".md") or posixpath.basename(path) == INDEX_NAME:
            continue
        rules = [] if status == "D" else _committed_rules(git, "HEAD", path)
        own[path] = canonical(rules) if rules else None
    if own:
        record_accepted(accepted_path(layout), own)


def ensure_held(git: Git, layout: Layout) -> bool:
    """Rebuild the held list when it is missing or damaged; whether it was rebuilt.

    Held: each committed memory with rules, unchanged here since, whose rules
    this user never accepted (a damaged accepted record accepts nothing).
    """
    path = pending_path(layout)
    if read_held(path) is not None:
        return False
    accepted = read_accepted(accepted_path(layout)) or {}
    held: dict[str, dict[str, Any]] = {}
    head = git.rev("HEAD")
    tracked = git.run("ls-files", "-z").paths() if head is not None else []
    for rel in tracked:
        if not rel.endswith(".md") or posixpath.basename(rel) == INDEX_NAME:
            continue
        rules = _rules_in(git.work_tree / rel)
        if not rules or canonical(rules) == accepted.get(f"team:{rel}"):
            continue
        if canonical(rules) != canonical(_committed_rules(git, "HEAD", rel)):
            continue  # changed here, not committed yet: this user's own
        held[f"team:{rel}"] = {
            "rules": canonical(rules),
            "author": _author(git, rel),
            "at": time.time(),
        }
    write_held(path, held)
    return True


def accept_held(layout: Layout, file: str | None) -> list[str]:
    """Accept the held rules of team ``file`` (every memory's when None); the files accepted.

    What is accepted is exactly what is held now (as ``memdir team rules`` showed).
    """
    held: dict[str, list[dict[str, str]]] = {}
    for rule in load_rules(layout).held:
        if file is None or rule.file == file:
            held.setdefault(rule.file, []).append(rule.rule.as_dict())
    rules = {name: canonical(found) for name, found in held.items()}
    return accept(pending_path(layout), accepted_path(layout), rules)


def _committed_rules(git: Git, commit: str, path: str) -> list[dict[str, str]]:
    found = git.run_bytes("cat-file", "blob", f"{commit}:{path}", check=False)
    if found.returncode != 0:
        return []
    return text_rules(found.stdout.decode("utf-8", "replace"), path)


def _author(git: Git, path: str) -> str:
    return git.run(
        "log", "-1", "--format=%an <%ae>", "HEAD", "--", path, check=False
    ).stdout.strip()


def _rules_in(path: Path) -> list[dict[str, str]]:
    try:
        text = path.read_text("utf-8", "replace")
    except OSError:  # quarantined, or gone
        return []
    return text_rules(text, str(path))
