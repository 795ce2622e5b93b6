"""Claude Code's memory frontmatter: how it is read, and written the way Claude Code writes it.

Claude Code 2.1's memory prompt has the model write::

    ---
    name: <short-kebab-case-slug>
    description: <one-line summary, used to decide relevance during recall>
    metadata:
      type: user | feedback | project | reference
    ---

and Claude Code's own writer (it restamps every memory file its tools write)
produces ``name`` as a slug, ``description``, then ``metadata:`` holding
``node_type: memory`` first, every other field in the order it read them, and
``originSessionId`` and ``modified`` (an ISO timestamp) last, with a blank line
after the closing fence. Its reader takes ``name`` and ``description`` from the
top level and folds every other top-level key into ``metadata`` (``metadata``'s
own keys win), so a ``type:`` at the top level counts as ``metadata.type``.

memdir reads the same way (:func:`fold`) and writes the same shape
(:func:`render`): its own fields (``created``, ``anchors``, ``enforce``...)
go under ``metadata:`` too, where Claude Code keeps them as they are, and
scalars are quoted where Claude Code's YAML writer quotes them (a comma, a
quote, ``#``, ``: ``, a leading ``-``, a number or a YAML keyword), lists are
block sequences. A file either tool rewrites keeps this shape; only the
formatting of values an odd writer chose may change.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memdir.model import Memory

__all__ = ["CLAUDE_CODE_KEYS", "NODE_TYPE", "carry_claude_keys", "fold", "render", "scalar"]

NODE_TYPE = "memory"
"""The ``metadata.node_type`` Claude Code writes first in every memory file."""

CLAUDE_CODE_KEYS = ("originSessionId", "claudeCodeItem", "typedTurn")
"""The ``metadata`` keys Claude Code keeps for itself: provenance and its own bookkeeping."""

_TOP = ("name", "description")
# A text value written as is: a letter, ``/`` or a ``.`` before no digit (a path), then
# letters, digits, single spaces and punctuation neither YAML nor Claude Code's writer
# gives a meaning to inside a value.
_PLAIN = re.compile(
    r"(?:[^\W\d_]|/|\.(?!\d))(?:[A-Za-z0-9._/()+=?$%;!@*&|>~-]| (?! )"
    "|[^\x00-\xa0\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff])*"
)
# Dates, timestamps and UUIDs: Claude Code writes them unquoted, and memdir's
# loader reads them back as text (it drops YAML's timestamps).
_UNQUOTED = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?)?"
    r"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
)
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
# Words YAML 1.1 reads as booleans, null or floats.
_KEYWORDS = frozenset("y n yes no true false on off null .inf .nan".split())
# What a double-quoted scalar must escape: the quote and backslash, the characters
# YAML refuses in a stream, and those it reads as line breaks (NEL, LS, PS).
_ESCAPE = re.compile('["\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]')
_NAMED = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def fold(fields: dict[str, Any]) -> dict[str, Any]:
    """A Claude Code-shaped mapping as one flat mapping, as Claude Code reads it.

    ``name`` and ``description`` from the top level; then every other top-level
    key, then ``metadata``'s keys (``metadata`` wins a key both hold, in the
    place the top level gave it). ``node_type`` is Claude Code's marker, not a
    field: :func:`render` writes it back.
    """
    metadata = fields.get("metadata")
    nested = metadata if isinstance(metadata, dict) else {}
    flat = {key: fields[key] for key in _TOP if key in fields}
    others = {k: v for k, v in fields.items() if k not in (*_TOP, "metadata")}
    flat.update({**others, **{str(k): v for k, v in nested.items()}})
    flat.pop("node_type", None)
    return flat


def carry_claude_keys(memory: Memory, previous: Memory | None) -> Memory:
    """``memory`` holding the keys Claude Code keeps for itself that ``previous`` (the
    same memory's file) held and ``memory`` does not name: memdir updates the fact,
    never Claude Code's record of where it came from."""
    if previous is None:
        return memory
    kept = {k: previous.extra[k] for k in CLAUDE_CODE_KEYS if k in previous.extra}
    missing = {k: v for k, v in kept.items() if k not in memory.extra}
    return replace(memory, extra={**memory.extra, **missing}) if missing else memory


def render(
    name: str,
    description: str,
    metadata: Iterable[tuple[str, Any]],
    *,
    fallback: Callable[[Any], str],
) -> list[str]:
    """The frontmatter lines (between the fences) of a memory in Claude Code's shape.

    ``metadata`` is every other field, in order, ``None`` values left out.
    ``fallback`` writes a value this module does not (a float, an odd type)
    as one line of flow YAML.
    """
    lines = [f"name: {scalar(name, fallback)}", f"description: {scalar(description, fallback)}"]
    lines.append("metadata:")
    lines += _entry("node_type", NODE_TYPE, "  ", fallback)
    for key, value in metadata:
        if value is not None:
            lines += _entry(key, value, "  ", fallback)
    return lines


def scalar(value: Any, fallback: Callable[[Any], str]) -> str:
    """One value on one line, quoted where Claude Code's writer quotes it."""
    if isinstance(value, str):
        plain = (
            _PLAIN.fullmatch(value) is not None
            and not value.endswith(" ")  # YAML drops a plain value's trailing space
            and value.lower() not in _KEYWORDS
        ) or _UNQUOTED.fullmatch(value) is not None
        return value if plain else _double_quoted(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, list | tuple | dict) and not value:
        return "[]" if not isinstance(value, dict) else "{}"
    return fallback(value)


def _double_quoted(value: str) -> str:
    def escape(match: re.Match[str]) -> str:
        char = match.group()
        return _NAMED.get(char) or f"\\u{ord(char):04x}"

    return '"' + _ESCAPE.sub(escape, value) + '"'


def _key(key: str) -> str:
    return key if _KEY.fullmatch(key) and key.lower() not in _KEYWORDS else _double_quoted(key)


def _cleaned(value: Any) -> Any:
    """A mapping without its ``None`` values (Claude Code's writer drops them too)."""
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items() if v is not None}
    return value


def _nested(value: Any) -> bool:
    return isinstance(value, list | tuple | dict) and bool(value)


def _entry(key: str, value: Any, pad: str, fallback: Callable[[Any], str]) -> list[str]:
    """``key: value`` at ``pad``; a non-empty list or mapping as a block below it."""
    value = _cleaned(value)
    if not _nested(value):
        return [f"{pad}{_key(key)}: {scalar(value, fallback)}"]
    return [f"{pad}{_key(key)}:", *_block(value, pad + "  ", fallback)]


def _block(value: Any, pad: str, fallback: Callable[[Any], str]) -> list[str]:
    """A non-empty list (``- item`` lines) or mapping (``key: value`` lines) at ``pad``."""
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            lines += _entry(key, item, pad, fallback)
        return lines
    for item in value:
        item = _cleaned(item)
        if not _nested(item):
            lines.append(f"{pad}- {scalar(item, fallback)}")
            continue
        # A list or mapping inside a list: its first line shares the dash.
        inner = _block(item, pad + "  ", fallback)
        lines.append(f"{pad}- {inner[0].lstrip()}")
        lines += inner[1:]
    return lines
