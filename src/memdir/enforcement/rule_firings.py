"""A log of the enforced rules that fired: which memory's rule, its action, the tool, when.

The PreToolUse hook appends one JSON line per rule that fired to
``<project state>/hooks/rule-firings.jsonl``, and only when one fired: the call
no rule catches (nearly all of them) writes nothing and loads nothing of this.
One line is one ``write`` on a file opened for appending, so concurrent hooks
never interleave within a line. Past :data:`MAX_BYTES` the log becomes
``rule-firings.jsonl.1`` (the one before that is dropped), so it stays small
whatever the number of calls. :func:`read_firings` reads both back, for the
page that shows how often each rule fired and when last.
"""

from __future__ import annotations

import os
import time

from memdir.utils.json_text import dumps, loads

TYPE_CHECKING = False  # the hook loads this module: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

__all__ = ["FIRINGS_NAME", "MAX_BYTES", "firings_path", "read_firings", "record_firings"]

FIRINGS_NAME = "rule-firings.jsonl"
MAX_BYTES = 1_000_000


def firings_path(state_dir: str) -> str:
    """The log's path under a project's state folder (``.memdir``)."""
    return os.path.join(state_dir, "hooks", FIRINGS_NAME)


def record_firings(
    state_dir: str, tool: str, fired: Iterable[tuple[str, str, str]], *, now: float | None = None
) -> None:
    """Append one line per fired rule: ``(memory ref, rule summary, action)``.

    Never raises for a disk problem: a rule that fired must still decide the call.
    """
    path = firings_path(state_dir)
    when = time.time() if now is None else now
    lines = "".join(
        dumps({"t": round(when, 3), "ref": ref, "rule": rule, "action": action, "tool": tool})
        + "\n"
        for ref, rule, action in fired
    )
    if not lines:
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            if os.stat(path).st_size > MAX_BYTES:
                os.replace(path, path + ".1")
        except FileNotFoundError:
            pass
        # Not blocking: a FIFO in the log's place would hold the hook (and the call) for ever.
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(path, flags, 0o600)
        try:
            os.write(fd, lines.encode("utf-8"))
        finally:
            os.close(fd)
    except OSError:
        pass


def read_firings(state_dir: str) -> list[dict[str, Any]]:
    """Every logged firing, oldest first (lines that do not parse are skipped)."""
    path = firings_path(state_dir)
    out: list[dict[str, Any]] = []
    for name in (path + ".1", path):
        try:
            with open(name, encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    try:
                        item = loads(line)
                    except ValueError:
                        continue
                    if isinstance(item, dict) and isinstance(item.get("t"), int | float):
                        out.append(item)
        except FileNotFoundError:
            continue
    return out
