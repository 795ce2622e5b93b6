"""An agent's own file write into memory, judged before it lands.

With the ``files`` prompt tools (the default), memdir tells an agent to save a
memory by writing its file with the host's edit tools. Such a write reaches the
folder as a person's hand edit would, and a hand edit is never held. So the
PreToolUse hook judges it first, as the agent's change (route ``hook``): the text
the file would hold after the call (a ``Write``'s content; an ``Edit``'s or
``MultiEdit``'s replacements applied to the file as it is now; for a Codex patch,
whose changed lines come without their context, the added lines after the file)
meets the scope's review gate, the one an MCP write meets
(:func:`memdir.history.review.hold_reason`): screening for instructions aimed at
the agent, hidden characters and forged frames, a forgotten memory learned again,
and the scope's review mode.

- A memory the gate holds is kept as a pending version (``memdir review``) and
  the call is denied, the reason telling the agent that it waits for the user. A
  patch's change to a memory is denied instead, the agent pointed to memdir's write
  tool: its lines' place is not known, so its text cannot wait as a version.
- A scope that is read-only for agents denies the call with the gate's reason.
- Other text under a memory folder (``MEMORY.md``, a daily log, a note without
  frontmatter) cannot wait as a version: when screening finds something in it,
  the call is denied with the finding; otherwise it goes on.

Calls that write elsewhere cost a name check and a path comparison
(:func:`memory_calls`). A write through the shell is read by
:mod:`memdir.hooks.shell_writes`, and what it can judge meets the same gate here.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing's: the pre-tool-use hook loads this module for writes
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = [
    "WRITE_TOOLS",
    "MemoryCall",
    "after_call",
    "current_text",
    "held_write",
    "memory_calls",
    "memory_place",
]

# The host tools (Claude Code's names; the dialects map Codex's and Gemini's to them)
# that write a file's text.
WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})


class MemoryCall:
    """One tool call that writes a file under a memory folder (a plain class: the hook
    that makes it loads no dataclass machinery)."""

    __slots__ = ("path", "rel", "scope", "tool", "tool_input")

    def __init__(
        self, *, tool: str, tool_input: Mapping[str, Any], scope: str, path: str, rel: str
    ) -> None:
        self.tool = tool
        self.tool_input = tool_input
        self.scope = scope  # "private" or "team"
        self.path = path  # resolved
        self.rel = rel  # the file, relative to its scope's folder (POSIX separators)


def memory_calls(
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    roots: Sequence[tuple[str, str, frozenset[str]]],
    cwd: object,
) -> list[MemoryCall]:
    """The calls among ``calls`` that write a file inside one of ``roots``.

    ``roots`` are (scope, folder, names excluded from it: another scope's folder
    inside it); a path is resolved (links, ``..``) before it is compared.
    """
    from memdir.hooks.dialects import resolved_path

    found = []
    for tool, given in calls:
        if tool not in WRITE_TOOLS:
            continue
        path = resolved_path(given.get("file_path"), cwd)
        place = None if path is None else memory_place(path, roots)
        if path is not None and place is not None:
            scope, rel = place
            found.append(MemoryCall(tool=tool, tool_input=given, scope=scope, path=path, rel=rel))
    return found


def memory_place(
    path: str, roots: Sequence[tuple[str, str, frozenset[str]]]
) -> tuple[str, str] | None:
    """(scope, file relative to the scope's folder) of the resolved ``path``, when it
    lies in one of ``roots``: the innermost (the team folder inside the private one).
    What a root leaves out of its rules (the daily logs) is still memory here."""
    best: tuple[str, str] | None = None
    for scope, root, _ in roots:
        rel = _inside(path, os.path.realpath(root))
        if rel is not None and (best is None or len(rel) < len(best[1])):
            best = (scope, rel)
    return best


def _inside(path: str, root: str) -> str | None:
    if not path.startswith(root + os.sep):
        return None
    return path[len(root) + 1 :].replace(os.sep, "/")


def after_call(tool: str, tool_input: Mapping[str, Any], current: str | None) -> str | None:
    """The file's text once ``tool`` has run on it (``current``: its text now, None: no
    file); None when the call would fail on its own (an edit of text the file lacks)."""
    if tool == "Write":
        content = tool_input.get("content")
        return content if isinstance(content, str) else None
    edits: Any = tool_input.get("edits") if tool == "MultiEdit" else [tool_input]
    if not isinstance(edits, list):
        return None
    text = current or ""
    for edit in edits:
        if not isinstance(edit, dict):
            return None
        changed = _edited(text, edit)
        if changed is None:
            return None
        text = changed
    return text


def _edited(text: str, edit: Mapping[str, Any]) -> str | None:
    new = edit.get("new_string")
    if not isinstance(new, str):
        return None
    old = edit.get("old_string")
    if old is None:  # a patch's added lines, their place not given: judged after the file
        return f"{text}\n{new}" if text else new
    if not isinstance(old, str) or not old or old not in text:
        return None
    return text.replace(old, new) if edit.get("replace_all") is True else text.replace(old, new, 1)


def held_write(
    payload: Mapping[str, Any], env: Mapping[str, str], found: Sequence[MemoryCall]
) -> str | None:
    """Why the call must not run (its reason for the agent), or None: it may."""
    from memdir.api import Memdir
    from memdir.history.provenance import provenance

    session = payload.get("session_id")
    cwd = payload.get("cwd")
    mem = Memdir.open(cwd if isinstance(cwd, str) and cwd else ".", env=env)
    with provenance(route="hook", session=session if isinstance(session, str) else None):
        for call in found:
            reason = _judged(mem, call)
            if reason is not None:
                return reason
    return None


def _judged(mem: Any, call: MemoryCall) -> str | None:
    from memdir.errors import MemdirError
    from memdir.history.review import AWAITING_REVIEW
    from memdir.model import Scope
    from memdir.storage import sidecar

    text = after_call(call.tool, call.tool_input, current_text(call.path))
    if text is None:
        return None
    if not _memory_file(call.rel, text):
        return _screened_text(call, text)
    store = mem.store(Scope(call.scope))
    try:
        memory = sidecar.load_memory(text, path=call.path)
    except (MemdirError, ValueError):
        return _screened_text(call, text)
    try:
        reason = store.hold_reason(memory)
        if reason is None:
            return None
        if not _exact(call):
            return (
                f"memdir did not let this change to {call.rel} through ({reason}): save the "
                "memory with memdir's write tool instead, so that it can wait for the user's "
                "review."
            )
        store.write_text(call.rel, text, replace=True)
    except MemdirError as exc:
        hint = f" ({exc.hint})" if exc.hint else ""
        return f"memdir did not let this write to {call.rel} through: {exc.message}{hint}"
    return (
        f"memdir kept this write to {call.rel} for the user's review ({reason}) "
        f"{AWAITING_REVIEW}. Do not write it another way; tell the user what you "
        "wanted to save."
    )


def _exact(call: MemoryCall) -> bool:
    """Whether the text judged is the file the call leaves (a patch's added lines are
    judged after the file, not where they go: that text cannot wait as a version)."""
    return call.tool != "Edit" or "old_string" in call.tool_input


def _memory_file(rel: str, text: str) -> bool:
    """Whether ``rel`` is a memory file and ``text`` opens with frontmatter."""
    from memdir.storage.codec import split_frontmatter
    from memdir.storage.memory_index import INDEX_NAME

    name = rel.rsplit("/", 1)[-1]
    return name.endswith(".md") and name != INDEX_NAME and split_frontmatter(text)[0] is not None


def _screened_text(call: MemoryCall, text: str) -> str | None:
    from memdir.screening.findings import reason_line
    from memdir.screening.screen import screen_text

    findings = screen_text(text)
    if not findings:
        return None
    return (
        f"memdir did not let this write to {call.rel} through: an agent's text in memory "
        f"is screened ({reason_line(findings)}). Tell the user what you wanted to save."
    )


def current_text(path: str) -> str | None:
    """The text of the file at ``path`` now (None: there is none, or it cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None
