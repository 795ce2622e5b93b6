"""The enforced rules of one project, read fast enough for a hook that runs on every tool call.

:func:`load_rules` walks the private and team memory folders the way the
store does (dot entries, ``MEMORY.md`` and the private scope's ``team/`` and
``logs/`` left out) and stats every file. A JSON cache under the project's
state folder (``<state>/enforce-cache.json``) keeps, per file, its mtime and
size and the rules it held; only files whose stat changed are read again, and
a file whose text does not mention ``enforce`` is not even parsed. With
nothing changed, a call costs one directory walk and no YAML.

Rules come from feedback memories only. A rule that fails the checks of
:mod:`memdir.storage.rules` (a hand-edited file, a teammate's file pulled
through git) is skipped and reported in :attr:`RuleSet.problems`: it never
fires, and no rule can allow anything. The cache is a hint: a damaged one is
rebuilt, and a state folder that cannot be written only costs the reread.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memdir.model import MemoryType, Scope
from memdir.storage.paths import Layout
from memdir.storage.rules import FIELD, Rule, parse_rule, why_line

__all__ = ["CACHE_NAME", "EnforcedRule", "RuleSet", "cache_path", "load_rules"]

CACHE_NAME = "enforce-cache.json"
_CACHE_VERSION = 1
_INDEX_NAME = "MEMORY.md"


@dataclass(frozen=True, kw_only=True)
class EnforcedRule:
    """A rule and the memory it comes from: scope, file, name and its **Why** line."""

    rule: Rule
    scope: Scope
    file: str
    name: str
    why: str

    @property
    def ref(self) -> str:
        """The memory as named from the memory directory (team files as ``team/<file>``)."""
        return f"team/{self.file}" if self.scope is Scope.TEAM else self.file


@dataclass(frozen=True, kw_only=True)
class RuleSet:
    """Every valid rule of a project, and the reasons the invalid ones were skipped."""

    rules: tuple[EnforcedRule, ...]
    problems: tuple[str, ...]


def cache_path(layout: Layout) -> Path:
    """Where the compiled-rule cache of ``layout``'s project lives."""
    return layout.state_dir / CACHE_NAME


def _walk(root: str, prefix: str, excluded: frozenset[str]) -> Iterator[tuple[str, str]]:
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if name.startswith("."):
            continue
        rel = prefix + name
        if entry.is_dir(follow_symlinks=False):
            if rel not in excluded:
                yield from _walk(entry.path, rel + "/", excluded)
        elif name.endswith(".md") and rel != _INDEX_NAME and entry.is_file(follow_symlinks=False):
            yield rel, entry.path


def _files(layout: Layout, include_team: bool) -> dict[str, tuple[str, list[int]]]:
    """``scope:rel`` -> (path, [mtime_ns, size, inode]) for every memory file."""
    roots = [(Scope.PRIVATE, layout.memory_dir, layout.private_excluded)]
    if include_team:
        roots.append((Scope.TEAM, layout.team_dir, frozenset()))
    found: dict[str, tuple[str, list[int]]] = {}
    for scope, root, excluded in roots:
        for rel, path in _walk(str(root), "", frozenset(excluded)):
            try:
                st = os.stat(path)
            except OSError:
                continue  # removed while we walked
            found[f"{scope.value}:{rel}"] = (path, [st.st_mtime_ns, st.st_size, st.st_ino])
    return found


def _read_cache(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != _CACHE_VERSION:
        return {}
    files = data.get("files")
    return files if isinstance(files, dict) else {}


def _entry_for(path: str, stat: list[int]) -> dict[str, Any]:
    """What one file contributes: its name, Why line, raw rules, problems."""
    entry: dict[str, Any] = {"stat": stat}
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return entry
    if FIELD not in text:
        return entry  # the common case: no rules, no YAML parsing
    from memdir.errors import MemdirError
    from memdir.storage.codec import parse_memory

    try:
        memory = parse_memory(text, path=path)
    except MemdirError as exc:
        return {**entry, "problems": [f"cannot read its frontmatter: {exc.message}"]}
    raw = memory.extra.get(FIELD)
    if raw is None:
        return entry
    if memory.type is not MemoryType.FEEDBACK:
        return {**entry, "problems": ["enforce: rules are ignored: it is not a feedback memory"]}
    items = raw if isinstance(raw, list) else [raw]
    return {
        **entry,
        "name": memory.name,
        "why": why_line(memory.body),
        "rules": items,
    }


def _rules_of(key: str, entry: dict[str, Any]) -> tuple[list[EnforcedRule], list[str]]:
    scope_name, _, rel = key.partition(":")
    scope = Scope(scope_name)
    where = f"team/{rel}" if scope is Scope.TEAM else rel
    problems = [f"{where}: {p}" for p in entry.get("problems", ()) if isinstance(p, str)]
    rules: list[EnforcedRule] = []
    items = entry.get("rules", ())
    for index, raw in enumerate(items if isinstance(items, list) else ()):
        try:
            rule = parse_rule(index, raw)
        except Exception as exc:  # InvalidMemory, or a damaged cache entry
            problems.append(f"{where}: {getattr(exc, 'message', exc)}")
            continue
        rules.append(
            EnforcedRule(
                rule=rule,
                scope=scope,
                file=rel,
                name=str(entry.get("name", rel)),
                why=str(entry.get("why", "")),
            )
        )
    return rules, problems


def load_rules(layout: Layout, *, include_team: bool = True) -> RuleSet:
    """Every rule of the project's feedback memories (private first, then team)."""
    files = _files(layout, include_team)
    cache_file = cache_path(layout)
    cached = _read_cache(cache_file)
    entries: dict[str, dict[str, Any]] = {}
    changed = set(cached) != set(files)
    for key, (path, stat) in files.items():
        old = cached.get(key)
        if isinstance(old, dict) and old.get("stat") == stat:
            entries[key] = old
        else:
            entries[key] = _entry_for(path, stat)
            changed = True
    if changed:
        _write_cache(cache_file, entries)
    rules: list[EnforcedRule] = []
    problems: list[str] = []
    for key in sorted(entries, key=lambda k: (not k.startswith("private:"), k)):
        found, bad = _rules_of(key, entries[key])
        rules += found
        problems += bad
    return RuleSet(rules=tuple(rules), problems=tuple(problems))


def _write_cache(path: Path, entries: dict[str, dict[str, Any]]) -> None:
    # Imported here: the cache is rewritten only when a memory file changed.
    from memdir.storage.fs import atomic_write, ensure_dir

    try:
        ensure_dir(path.parent)
        atomic_write(path, json.dumps({"version": _CACHE_VERSION, "files": entries}) + "\n")
    except OSError:
        pass  # a read-only state folder: the rules are still right, only slower next time
