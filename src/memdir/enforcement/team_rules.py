"""Teammates' enforced rules, held until a person here accepts them.

A feedback memory's ``enforce:`` rules deny or hold back an agent's tool
calls. One that arrives through team sync was written by someone else, so
it takes effect only once this user accepts it. Two records say which:

* **what this user accepted** (and the team rules this user committed
  through sync, which are theirs): ``history/team-rules-accepted.json``
  beside the history database, kept, never derived (deleting ``.memdir/``
  leaves it). Per team memory: its rules, as one canonical string. Accepting
  (``memdir team rules accept``) writes it; nothing here can rebuild it;
* **what is held**: ``<state>/team-rules-pending.json`` (derived): per pulled
  memory whose rules are new or changed, the rules as they arrived, who pushed
  them, when. Team sync writes it (an empty one too, once a team syncs), and
  rebuilds it from the team repository and the accepted record when it is
  missing (:mod:`memdir.team.teammate_rules`; ``memdir doctor --fix`` too).

A team memory's rules are held (:class:`Holds`) unless this user accepted
exactly them; and, while the held list can be read, only when it holds
exactly them (an edit made here to held rules makes them this user's, and a
team rule written here is no pulled change). When the held list is missing
or damaged in a team folder that syncs (a ``.git`` there), every team rule
not accepted is held: a lost record never releases a teammate's rule, it
only holds this user's own new team rules until the next sync or ``memdir
doctor --fix`` rebuilds the list.

The pre-tool-use hook, on every tool call, pays for none of this unless a
team memory has rules: then one small read (two when the held list is gone);
no git, no YAML.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # the pre-tool-use hook loads this module: no typing at run time
if TYPE_CHECKING:
    from typing import Any

    from memdir.storage.paths import Layout

__all__ = [
    "ACCEPTED_NAME",
    "PENDING_NAME",
    "Holds",
    "accept",
    "accepted_path",
    "canonical",
    "hold",
    "pending_path",
    "read_accepted",
    "read_held",
    "read_pending",
    "record_accepted",
    "write_held",
]


# What is held waits beside the rule cache, in the state folder (derived).
PENDING_NAME = "team-rules-pending.json"
# What this user accepted is kept with the history (``Layout.history_dir``), not derived.
ACCEPTED_NAME = "team-rules-accepted.json"
_HISTORY_DIR = "history"  # Layout.history_dir's name, beside the state folder


def canonical(rules: Any) -> str:
    """The rules of one memory as one comparable string."""
    import json

    return json.dumps(rules, sort_keys=True, separators=(",", ":"))


def pending_path(layout: Layout) -> str:
    """Where ``layout``'s project keeps the held rules (beside the rule cache)."""
    return str(layout.state_dir / PENDING_NAME)


def accepted_path(layout: Layout) -> str:
    """Where ``layout``'s project keeps the rules this user accepted (with the history)."""
    return str(layout.history_dir / ACCEPTED_NAME)


def _accepted_near(cache_file: str) -> str:
    """:func:`accepted_path` from the rule cache's path, for the hook (no layout)."""
    project = os.path.dirname(os.path.dirname(cache_file))
    return os.path.join(project, _HISTORY_DIR, ACCEPTED_NAME)


def _read_object(path: str) -> dict[str, Any] | None:
    """A JSON object file's content; None when missing, unreadable or not an object."""
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def read_held(path: str) -> dict[str, dict[str, Any]] | None:
    """``team:<file>`` -> {rules, author, at}; None when missing or damaged (any entry)."""
    data = _read_object(path)
    if data is None:
        return None
    for key, value in data.items():
        if not key.startswith("team:") or not isinstance(value, dict):
            return None
        if not isinstance(value.get("rules"), str):
            return None
    return data


def read_pending(path: str) -> dict[str, dict[str, Any]]:
    """:func:`read_held`, empty when there is none (for what is shown: authors, times)."""
    return read_held(path) or {}


def read_accepted(path: str) -> dict[str, str] | None:
    """``team:<file>`` -> canonical rules accepted; ``{}`` when none were, None when damaged."""
    if not os.path.lexists(path):
        return {}
    data = _read_object(path)
    if data is None or not all(isinstance(v, str) for v in data.values()):
        return None
    return data


def _write(path: str, entries: dict[str, Any]) -> None:
    import json
    from pathlib import Path

    from memdir.storage.fs import atomic_write, ensure_dir

    ensure_dir(Path(path).parent)
    atomic_write(Path(path), json.dumps(entries, indent=1, sort_keys=True) + "\n")


def write_held(path: str, entries: dict[str, dict[str, Any]]) -> None:
    """Replace the held list (an empty one says: nothing is held)."""
    _write(path, entries)


def hold(path: str, arrived: dict[str, tuple[str, str] | None]) -> None:
    """Record what a sync pulled: team file -> (canonical rules, author), or None (no rules).

    The list is written even when nothing changed in it, so that a team that syncs
    always has one (its absence means it was lost, see :class:`Holds`).
    """
    import time

    entries = read_pending(path)
    for file, found in arrived.items():
        key = f"team:{file}"
        if found is None:
            entries.pop(key, None)
        else:
            rules, author = found
            entries[key] = {"rules": rules, "author": author, "at": time.time()}
    if arrived or not os.path.exists(path):
        _write(path, entries)


def record_accepted(path: str, rules: dict[str, str | None]) -> None:
    """Record team file -> canonical rules as this user's (None: forget the file's)."""
    entries = read_accepted(path) or {}
    changed = dict(entries)
    for file, found in rules.items():
        if found is None:
            changed.pop(f"team:{file}", None)
        else:
            changed[f"team:{file}"] = found
    if changed != entries or not os.path.exists(path):
        _write(path, changed)


def accept(pending: str, accepted: str, rules: dict[str, str]) -> list[str]:
    """Accept the held ``rules`` (team file -> canonical rules); the files accepted.

    The accepted record is written first: a run killed between the two writes
    leaves the rules accepted, and the held list's entry stale (ignored).
    """
    record_accepted(accepted, dict(rules))
    entries = read_held(pending)
    if entries is not None:
        kept = {k: v for k, v in entries.items() if k.partition(":")[2] not in rules}
        if kept != entries:
            write_held(pending, kept)
    return sorted(rules)


class Holds:
    """Whether a team memory's rules are held, for one reading of the rules.

    Reads the held list at once (one stat when there is none), the accepted
    record and the team folder's ``.git`` only when asked about rules.
    """

    def __init__(self, cache_file: str, roots: Any) -> None:
        self._pending = read_held(os.path.join(os.path.dirname(cache_file), PENDING_NAME))
        self._accepted_file = _accepted_near(cache_file)
        self._accepted: dict[str, str] | None = None
        self._roots = roots

    def held(self, key: str, rules: str) -> bool:
        """Whether the rules ``rules`` (canonical) of memory ``key`` are held."""
        if self._pending is not None:
            waiting = self._pending.get(key)
            if waiting is None or waiting["rules"] != rules:
                return False  # not a pulled change: this user's own, or accepted
        elif not self._team_syncs():
            return False  # no sync, no teammate: every team rule is this user's
        if self._accepted is None:
            # A damaged record accepts nothing: every teammate's rule stays held.
            self._accepted = read_accepted(self._accepted_file) or {}
        return self._accepted.get(key) != rules

    def _team_syncs(self) -> bool:
        for item in self._roots if isinstance(self._roots, list) else ():
            if isinstance(item, list) and len(item) > 1 and item[0] == "team":
                root = item[1]
                return not isinstance(root, str) or os.path.lexists(os.path.join(root, ".git"))
        return True  # no team folder named: held (fail closed)
