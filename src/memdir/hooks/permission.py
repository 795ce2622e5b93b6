"""A PreToolUse permission decision (deny or ask) in the shape the host reads.

Both answers that hold a call back print it: the rules' (:mod:`memdir.hooks.pre_tool_use`)
and the fail-closed one of the hook's fast path when the rules cannot be read
(:mod:`memdir.hooks.entry`), so it imports only the JSON writer: a module that
failed to load cannot stop the call being held. Claude Code and Codex read
``hookSpecificOutput.permissionDecision``; a host whose hooks read a top-level
decision (Gemini, :attr:`~memdir.hooks.dialects.Dialect.top_level_decision`)
gets ``{"decision": ..., "reason": ...}``.
"""

from __future__ import annotations

from memdir.utils.json_text import dumps

TYPE_CHECKING = False  # not typing's: every hook process imports this module
if TYPE_CHECKING:
    from memdir.hooks.dialects import Dialect

__all__ = ["permission_json"]


def permission_json(dialect: Dialect, action: str, reason: str) -> str:
    """The JSON that answers ``action`` (``"deny"`` or ``"ask"``) with ``reason``."""
    if dialect.top_level_decision:
        return dumps({"decision": action, "reason": reason}, ensure_ascii=False)
    decision = {
        "hookEventName": "PreToolUse",
        "permissionDecision": action,
        "permissionDecisionReason": reason,
    }
    return dumps({"hookSpecificOutput": decision}, ensure_ascii=False)
