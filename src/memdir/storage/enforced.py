"""The enforced rules of one project, read fast enough for a hook that runs on every tool call.

:func:`load_rules` walks the private and team memory folders the way the
store does (dot entries, ``MEMORY.md`` and the private scope's ``team/`` and
``logs/`` left out) and stats every file: an edit made in place (an agent's
editor) moves no folder's mtime. A cache under the project's state folder
(``<state>/enforce-cache.json``) keeps the rules of the files that hold any
(one JSON line) and what the walk saw: each file's name, mtime, size and
inode, as plain text. Only files whose stat changed are read again, and a
file whose text does not mention ``enforce`` is not even parsed. With
nothing changed, a call costs one directory walk, one comparison of that
text with the cache's, and the JSON of the few files with rules: no YAML, no
validation, and no per-file JSON at ten thousand memories.

Rules come from feedback memories only. A rule that fails the checks of
:mod:`memdir.storage.rules` (a hand-edited file, a teammate's file pulled
through git) is skipped and reported in :attr:`RuleSet.problems`: it never
fires, and no rule can allow anything. The cache is a hint: a damaged one is
rebuilt, and a state folder that cannot be written only costs the reread.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from memdir.kinds import MemoryType, Scope
from memdir.records import record
from memdir.storage.rules import ACTIONS, FIELD, Rule, parse_rule, why_line
from memdir.storage.scope_files import scope_stats

TYPE_CHECKING = False  # no typing, pathlib or layout at run time: see memdir.records
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from memdir.storage.paths import Layout

__all__ = [
    "CACHE_NAME",
    "EnforcedRule",
    "RuleRoot",
    "RuleSet",
    "cache_path",
    "load_rules",
    "load_rules_at",
    "rule_roots",
]

CACHE_NAME = "enforce-cache.json"
_CACHE_VERSION = 4
_INDEX_NAME = "MEMORY.md"


# (scope, folder, names of its subfolders that belong to another scope)
RuleRoot = tuple[Scope, str, frozenset[str]]


@record
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


@record
class RuleSet:
    """Every valid rule of a project, and the reasons the invalid ones were skipped."""

    rules: tuple[EnforcedRule, ...]
    problems: tuple[str, ...]


def cache_path(layout: Layout) -> Path:
    """Where the compiled-rule cache of ``layout``'s project lives."""
    return layout.state_dir / CACHE_NAME


def rule_roots(layout: Layout, *, include_team: bool = True) -> list[RuleRoot]:
    """The folders whose memories may carry rules: private, then team."""
    roots = [(Scope.PRIVATE, str(layout.memory_dir), layout.private_excluded)]
    if include_team:
        roots.append((Scope.TEAM, str(layout.team_dir), frozenset()))
    return roots


def _seen(roots: Sequence[RuleRoot]) -> tuple[bytes, dict[str, str]]:
    """What the walk saw, as the cache keeps it, and ``scope:rel`` -> path of every file.

    One record per memory file: ``scope:rel``, NUL, ``mtime size inode``,
    NUL (a name may hold a line break, never a NUL).
    """
    seen: list[str] = []
    paths: dict[str, str] = {}
    for scope, root, excluded in roots:
        prefix = f"{scope.value}:"
        for rel, st in scope_stats(root, excluded):
            if not rel.endswith(".md") or rel == _INDEX_NAME:
                continue
            key = prefix + rel
            seen.append(f"{key}\0{st.st_mtime_ns} {st.st_size} {st.st_ino}\0")
            paths[key] = f"{root}/{rel}"
    return "".join(seen).encode("utf-8", "surrogateescape"), paths


def _stats(seen: bytes) -> dict[str, str]:
    """``scope:rel`` -> ``mtime size inode``, from what a walk saw."""
    fields = seen.decode("utf-8", "surrogateescape").split("\0")
    return dict(zip(fields[0:-1:2], fields[1::2], strict=True))


def _read_cache(path: str) -> tuple[bytes, dict[str, Any]]:
    """The cached (walk, entries with rules or problems); empty when absent or damaged."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return b"", {}
    head, _, seen = data.partition(b"\n")
    try:
        header = json.loads(head)
    except ValueError:
        return b"", {}
    if not isinstance(header, dict) or header.get("version") != _CACHE_VERSION:
        return b"", {}
    entries = header.get("entries")
    if not isinstance(entries, dict) or seen.count(b"\0") % 2:
        return b"", {}
    return seen, entries


def _entry_for(path: str) -> dict[str, Any]:
    """What one file contributes: its name, Why line, raw rules, problems."""
    entry: dict[str, Any] = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
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
    # Validated once here, when the file changed: a cache hit only rebuilds the values.
    rules: list[dict[str, str]] = []
    problems: list[str] = []
    for index, item in enumerate(raw if isinstance(raw, list) else [raw]):
        try:
            rules.append(parse_rule(index, item).as_dict())
        except MemdirError as exc:
            problems.append(exc.message)
    return {
        **entry,
        "name": memory.name,
        "why": why_line(memory.body),
        "rules": rules,
        "problems": problems,
    }


def _rules_of(key: str, entry: dict[str, Any]) -> tuple[list[EnforcedRule], list[str]]:
    scope_name, _, rel = key.partition(":")
    scope = Scope(scope_name)
    where = f"team/{rel}" if scope is Scope.TEAM else rel
    problems = [f"{where}: {p}" for p in entry.get("problems", ()) if isinstance(p, str)]
    rules: list[EnforcedRule] = []
    items = entry.get("rules", ())
    for raw in items if isinstance(items, list) else ():
        rule = _cached_rule(raw)
        if rule is None:
            continue  # a damaged cache entry: the file is reread once its stat changes
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


def _cached_rule(raw: Any) -> Rule | None:
    if not isinstance(raw, dict):
        return None
    tool, match, action = raw.get("tool"), raw.get("match"), raw.get("action")
    if not (isinstance(tool, str) and isinstance(match, str) and action in ACTIONS):
        return None
    return Rule(tool=tool, match=match, action=action)


def load_rules(layout: Layout, *, include_team: bool = True) -> RuleSet:
    """Every rule of the project's feedback memories (private first, then team)."""
    return load_rules_at(rule_roots(layout, include_team=include_team), str(cache_path(layout)))


def load_rules_at(roots: Sequence[RuleRoot], cache_file: str) -> RuleSet:
    """Every rule of the feedback memories under ``roots``, cached in ``cache_file``.

    What :func:`load_rules` does once the folders are known: the pre-tool-use
    hook calls it with folders it remembered, without computing a layout.
    """
    seen, paths = _seen(roots)
    cached_seen, entries = _read_cache(cache_file)
    if cached_seen != seen:  # one comparison in C for the common case: nothing changed
        entries = _refresh(_stats(seen), paths, _stats(cached_seen), entries)
        _write_cache(cache_file, seen, entries)
    rules: list[EnforcedRule] = []
    problems: list[str] = []
    for key in sorted(entries, key=lambda k: (not k.startswith("private:"), k)):
        entry = entries[key]
        if isinstance(entry, dict):
            found, bad = _rules_of(key, entry)
            rules += found
            problems += bad
    return RuleSet(rules=tuple(rules), problems=tuple(problems))


def _refresh(
    stats: dict[str, str],
    paths: dict[str, str],
    cached_stats: dict[str, str],
    cached: dict[str, Any],
) -> dict[str, Any]:
    """The entries (files with rules or problems), rereading only the files that changed."""
    entries: dict[str, Any] = {}
    for key, stat in stats.items():
        if cached_stats.get(key) == stat:
            if key in cached:
                entries[key] = cached[key]
            continue
        entry = _entry_for(paths[key])
        if entry.get("rules") or entry.get("problems"):
            entries[key] = entry
    return entries


def _write_cache(path: str, seen: bytes, entries: dict[str, Any]) -> None:
    # Imported here: the cache is rewritten only when a memory file changed.
    from pathlib import Path

    from memdir.storage.fs import atomic_write, ensure_dir

    try:
        ensure_dir(Path(path).parent)
        head = json.dumps({"version": _CACHE_VERSION, "entries": entries})  # one line
        atomic_write(Path(path), head.encode("utf-8") + b"\n" + seen)
    except OSError:
        pass  # a read-only state folder: the rules are still right, only slower next time
