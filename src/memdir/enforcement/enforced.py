"""The enforced rules of one project, read fast enough for a hook that runs on every tool call.

:func:`load_rules` walks the private and team memory folders the way the
store does (dot entries, ``MEMORY.md`` and the private scope's ``team/`` and
``logs/`` left out) and stats every file: an edit made in place (an agent's
editor) moves no folder's mtime. A cache under the project's state folder
(:mod:`memdir.enforcement.rule_cache`) keeps the rules of the files that hold
any and what the walk saw; only files whose stat changed are read again, and
a file whose text does not mention ``enforce`` is not even parsed. With
nothing changed, a call costs one directory walk and one comparison: no
YAML, no validation. In a store too large to walk on every call, calls
between walks check folder mtimes and the files that matter instead.

Rules come from feedback memories only. A teammate's rules pulled by team
sync are held (:attr:`RuleSet.held`) until this user accepts them
(:mod:`memdir.enforcement.team_rules`): what was accepted is kept with the
history, not in the state folder, so a lost held list or cache holds every
teammate's rule not accepted rather than releasing it. A rule that fails the checks of
:mod:`memdir.enforcement.rules` (a hand-edited file, a teammate's file pulled
through git) is skipped and reported in :attr:`RuleSet.problems`: it never
fires, and no rule can allow anything. The cache is a hint: a damaged one is
rebuilt, and a state folder that cannot be written only costs the reread.
"""

from __future__ import annotations

from collections.abc import Sequence

from memdir.enforcement import rule_cache, team_rules
from memdir.enforcement.rule_cache import RuleRoot
from memdir.enforcement.rules import ACTIONS, FIELD, Rule, parse_rule, why_line
from memdir.kinds import MemoryType, Scope, memory_ref
from memdir.utils.records import record

TYPE_CHECKING = False  # no typing, pathlib or layout at run time: see memdir.utils.records
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from memdir.storage.paths import Layout

__all__ = [
    "CACHE_NAME",
    "EnforcedRule",
    "RuleSet",
    "cache_path",
    "load_rules",
    "load_rules_at",
    "rule_roots",
    "rule_set",
    "text_rules",
]

CACHE_NAME = "enforce-cache.json"


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
        return memory_ref(self.scope, self.file)


@record
class RuleSet:
    """Every valid rule of a project, and the reasons the invalid ones were skipped.

    ``held``: teammates' rules that arrived through team sync and are not
    enforced until this user accepts them (:mod:`memdir.enforcement.team_rules`).
    """

    rules: tuple[EnforcedRule, ...]
    problems: tuple[str, ...]
    held: tuple[EnforcedRule, ...] = ()


def cache_path(layout: Layout) -> Path:
    """Where the compiled-rule cache of ``layout``'s project lives."""
    return layout.state_dir / CACHE_NAME


def rule_roots(layout: Layout, *, include_team: bool = True) -> list[RuleRoot]:
    """The folders whose memories may carry rules: private, then team."""
    roots: list[RuleRoot] = [(Scope.PRIVATE, str(layout.memory_dir), layout.private_excluded)]
    if include_team:
        roots.append((Scope.TEAM, str(layout.team_dir), frozenset()))
    return roots


def _entry_for(path: str) -> dict[str, Any]:
    """What one file contributes: its name, Why line, raw rules, problems."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return {}
    return _entry_of(text, path)


def _entry_of(text: str, path: str) -> dict[str, Any]:
    entry: dict[str, Any] = {}
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
    where = memory_ref(scope, rel)
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
    tool, match, action = raw.get("tool"), raw.get("match", ""), raw.get("action")
    command, args = raw.get("command", ""), raw.get("args", "")
    texts = (match, command, args)
    if not isinstance(tool, str) or not all(isinstance(t, str) for t in texts):
        return None
    if action not in ACTIONS or not (match or command):
        return None
    return Rule(tool=tool, match=match, command=command, args=args, action=action)


def load_rules(layout: Layout, *, include_team: bool = True) -> RuleSet:
    """Every rule of the project's feedback memories (private first, then team)."""
    return load_rules_at(rule_roots(layout, include_team=include_team), str(cache_path(layout)))


def load_rules_at(
    roots: Sequence[RuleRoot],
    cache_file: str,
    *,
    touched: Sequence[str] = (),
    tokens: list[str] | None = None,
) -> RuleSet:
    """Every rule of the feedback memories under ``roots``, cached in ``cache_file``.

    What :func:`load_rules` does once the folders are known: the pre-tool-use
    hook calls it with folders it remembered, without computing a layout, and
    with the files the call's edit tool is aimed at (``touched``: absolute,
    resolved paths), which a large store watches until its next walk, and the
    folder watch's ``tokens`` asked before this call walks (see
    :mod:`memdir.enforcement.rule_cache`).
    """
    header, seen = rule_cache.read(cache_file)
    changed = None
    if header and tokens is None:  # the watch's tokens moved: something changed, walk
        changed = rule_cache.between_walks(header, roots, touched, _entry_for)
    if changed is None:
        header = _walked(roots, cache_file, touched, header, seen, tokens=tokens)
    elif changed:
        rule_cache.write(cache_file, header, seen)
    return rule_set(header, cache_file)


def rule_set(header: dict[str, Any], cache_file: str) -> RuleSet:
    """The rules of a cache header that matches the files (teammates' new rules held)."""
    entries: dict[str, Any] = header["entries"]
    rules: list[EnforcedRule] = []
    held: list[EnforcedRule] = []
    problems: list[str] = []
    holds: team_rules.Holds | None = None  # read only when a team memory has rules
    for key in sorted(entries, key=lambda k: (not k.startswith("private:"), k)):
        entry = entries[key]
        if isinstance(entry, dict):
            found, bad = _rules_of(key, entry)
            problems += bad
            if found and key.startswith(f"{Scope.TEAM}:"):
                if holds is None:
                    holds = team_rules.Holds(cache_file, header.get("roots"))
                if holds.held(key, team_rules.canonical(entry.get("rules", []))):
                    held += found  # a teammate's rules, as they arrived: not accepted yet
                    continue
            rules += found
    return RuleSet(rules=tuple(rules), problems=tuple(problems), held=tuple(held))


def text_rules(text: str, path: str = "memory") -> list[dict[str, str]]:
    """The valid rules of a memory file's text, as the cache keeps them."""
    found = _entry_of(text, path).get("rules", [])
    return found if isinstance(found, list) else []


def _walked(
    roots: Sequence[RuleRoot],
    cache_file: str,
    touched: Sequence[str],
    cached: dict[str, Any],
    cached_seen: bytes,
    *,
    tokens: list[str] | None,
) -> dict[str, Any]:
    """The header after a walk, rereading only the files whose stat changed (``tokens``:
    the folder watch's, asked before the walk)."""
    done = rule_cache.walk(roots)
    entries = cached.get("entries", {})
    same = bool(cached) and cached_seen == done.seen  # one comparison in C: nothing changed
    if not same:
        stats = rule_cache.stats
        entries = _refresh(stats(done.seen), done.paths, stats(cached_seen), entries)
    header = rule_cache.header_for(roots, done, entries, touched, tokens)
    dated = len(done.paths) > rule_cache.LARGE_STORE  # a large store's walk is dated
    if not same or dated or cached.get("tokens") != tokens:
        rule_cache.write(cache_file, header, done.seen)
    return header


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
