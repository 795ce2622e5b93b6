"""Teammates' enforced rules, held until a person here accepts them.

A feedback memory's ``enforce:`` rules deny or hold back an agent's tool
calls. One that arrives through team sync was written by someone else, so
it takes effect only once this user accepts it: team sync records each
pulled memory whose rules are new or changed in ``<state>/team-rules-pending.json``
(the memory's file, its rules as they arrived, who pushed them, when), and
:func:`memdir.enforcement.enforced.load_rules_at` leaves a memory out while its
rules are exactly the ones held. Accepting (``memdir team rules accept``)
drops the entry. The user's own team rules are never held: a memory written
here is no pulled change, and an edit made here to held rules makes them
this user's.

The pre-tool-use hook, on every tool call, costs one ``stat`` for this when
the file does not exist (this module is not even loaded then), one small
read when it does; no git, no YAML.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # the pre-tool-use hook loads this module: no typing at run time
if TYPE_CHECKING:
    from typing import Any

    from memdir.storage.paths import Layout

__all__ = [
    "PENDING_NAME",
    "accept",
    "canonical",
    "hold",
    "pending_path",
    "read_pending",
]


# Where teammates' rules wait to be accepted: beside the rule cache, in the state folder.
PENDING_NAME = "team-rules-pending.json"


def canonical(rules: Any) -> str:
    """The rules of one memory as one comparable string."""
    import json

    return json.dumps(rules, sort_keys=True, separators=(",", ":"))


def pending_path(layout: Layout) -> str:
    """Where ``layout``'s project keeps the held rules (beside the rule cache)."""
    return str(layout.state_dir / PENDING_NAME)


def read_pending(path: str) -> dict[str, dict[str, Any]]:
    """``team:<file>`` -> {rules, author, at}; empty when there is none (or it is damaged)."""
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        k: v for k, v in data.items() if isinstance(v, dict) and isinstance(v.get("rules"), str)
    }


def _write(path: str, entries: dict[str, dict[str, Any]]) -> None:
    import json
    from pathlib import Path

    from memdir.storage.fs import atomic_write, ensure_dir

    if not entries:
        if os.path.lexists(path):
            os.unlink(path)
        return
    ensure_dir(Path(path).parent)
    atomic_write(Path(path), json.dumps(entries, indent=1, sort_keys=True) + "\n")


def hold(path: str, arrived: dict[str, tuple[str, str] | None]) -> None:
    """Record what a sync pulled: team file -> (canonical rules, author), or None (no rules)."""
    if not arrived:
        return
    import time

    entries = read_pending(path)
    for file, found in arrived.items():
        key = f"team:{file}"
        if found is None:
            entries.pop(key, None)
        else:
            rules, author = found
            entries[key] = {"rules": rules, "author": author, "at": time.time()}
    _write(path, entries)


def accept(path: str, file: str | None) -> list[str]:
    """Accept the held rules of team ``file`` (every memory's when None); the files accepted."""
    entries = read_pending(path)
    keys = [k for k in entries if file is None or k == f"team:{file}"]
    for key in keys:
        del entries[key]
    _write(path, entries)
    return [k.partition(":")[2] for k in keys]
