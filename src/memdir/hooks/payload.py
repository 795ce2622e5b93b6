"""What a hook gets on stdin: one JSON object, of which memdir reads a few fields.

Claude Code (and the agents that copy its hooks) pass ``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name``, and ``source`` or
``trigger``; unknown keys are ignored and a field of another type is taken as
missing. :class:`StartInput` is a plain slotted class and :class:`HookInput` a
:func:`~memdir.utils.records.record`, so a session start that reads its payload
loads neither ``dataclasses`` nor ``typing``.
"""

from __future__ import annotations

from memdir.utils.json_text import loads
from memdir.utils.records import record

__all__ = ["HookInput", "StartInput", "parse_hook_input", "read_hook_object"]

_START_FIELDS = ("cwd", "session_id", "source", "hook_event_name", "transcript_path")
_HOOK_FIELDS = ("session_id", "transcript_path", "cwd", "hook_event_name", "source", "trigger")


def read_hook_object(text: str) -> dict[str, object]:
    """The JSON object a hook gets on stdin; anything else is a :class:`ConfigError`."""
    from memdir.errors import ConfigError

    hint = "run this command from a coding agent's hook: it passes JSON on stdin"
    try:
        data = loads(text) if text.strip() else None
    except ValueError as exc:  # json.JSONDecodeError, whose msg leaves out the position
        message = getattr(exc, "msg", str(exc))
        raise ConfigError(f"the hook input is not JSON ({message})", hint=hint) from None
    if not isinstance(data, dict):
        raise ConfigError("the hook input is not a JSON object", hint=hint)
    return data


class StartInput:
    """The fields of a SessionStart hook's stdin JSON that memdir uses."""

    __slots__ = _START_FIELDS

    def __init__(self, data: dict[str, object]) -> None:
        for name in _START_FIELDS:
            value = data.get(name)
            setattr(self, name, value if isinstance(value, str) else None)

    cwd: str | None
    session_id: str | None
    source: str | None
    hook_event_name: str | None
    transcript_path: str | None


@record
class HookInput:
    """The fields of a hook's stdin JSON that memdir uses."""

    session_id: str | None = None
    transcript_path: str | None = None
    cwd: str | None = None
    hook_event_name: str | None = None
    source: str | None = None
    trigger: str | None = None


def parse_hook_input(text: str) -> HookInput:
    """Read the JSON object a hook gets on stdin; unknown keys are ignored."""
    data = read_hook_object(text)
    return HookInput(**{k: v for k in _HOOK_FIELDS if isinstance(v := data.get(k), str)})
