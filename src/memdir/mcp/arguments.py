"""The MCP tools' arguments: the names models guess, and what a bad one is told.

Argument names models often guess (``file_path`` for ``path``, ``content``
for ``body``...) are accepted as validation aliases (:func:`alias`), so the
published schema keeps one name per argument; the annotated types here
(:data:`PathArg`, :data:`BodyArg`...) carry those aliases and the
descriptions the model reads. Arguments that still fail validation get one
sentence per bad argument saying what to send (:func:`argument_errors`),
never the validator's dump, which echoes the input.

What validation lets through but no memory can hold is refused before the
tool runs (:func:`unusable_argument`): a string with a lone surrogate (JSON's
unpaired ``\\ud800`` escape, which is not text UTF-8 can carry: how a client
passes on bytes that were not UTF-8) and a path longer than any file system
takes. The agent is told which argument and what to send instead, never the
value itself (it may be megabytes). A call whose JSON itself holds such text
(bytes that are not UTF-8, an unpaired ``\\udXXX`` escape) never parses
under the SDK's strict reader, whose answer is a parse error without the
call's id: :func:`refused_call` is that call's tool error, for the
transports to answer in its place.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, ValidationError

__all__ = [
    "MAX_PATH_CHARS",
    "BodyArg",
    "PathArg",
    "QueryArg",
    "RefArg",
    "ScopeArg",
    "TypeArg",
    "alias",
    "argument_errors",
    "refused_call",
    "unusable_argument",
]


def alias(*names: str, description: str) -> Any:
    """A field accepting ``names[0]`` (the published name) or any of the others."""
    return Field(validation_alias=AliasChoices(*names), description=description)


# The names models guess for a memory's file.
_FILE_NAMES = ("path", "file", "file_path", "filename")

PathArg = Annotated[
    str,
    alias(
        *_FILE_NAMES,
        description="Path relative to the memory directory, e.g. 'testing_policy.md' or "
        "'team/deploys.md'. Omit (or '') for the index; a folder ('team/') for a listing.",
    ),
]
RefArg = Annotated[
    str,
    alias(
        *_FILE_NAMES,
        "name",
        "memory",
        description="The memory's file ('testing_policy.md', 'team/deploys.md') or its name.",
    ),
]
QueryArg = Annotated[
    str,
    alias("query", "q", "pattern", "search", description="What to look for."),
]
BodyArg = Annotated[
    str,
    alias(
        "body",
        "content",
        "text",
        description="The memory itself in markdown. For feedback and project memories: the "
        "rule or fact, then a '**Why:**' line and a '**How to apply:**' line.",
    ),
]
ScopeArg = Literal["private", "team"]
TypeArg = Literal["user", "feedback", "project", "reference"]


def argument_errors(tool: str, error: ValidationError, schema: Mapping[str, Any]) -> str:
    """One sentence per bad argument saying what to send; never the rejected value."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    sentences: dict[str, str] = {}
    for detail in error.errors(include_url=False, include_input=False):
        loc = detail.get("loc") or ("arguments",)
        arg = str(loc[0])
        if arg not in sentences:
            sentences[arg] = _argument_sentence(arg, str(detail.get("type")), properties.get(arg))
    lines = [f"{tool} was called with arguments it cannot use:"]
    lines += [f"- {sentence}" for sentence in sentences.values()]
    lines.append("Call it again with these fixed.")
    return "\n".join(lines)


def _argument_sentence(arg: str, kind: str, spec: Mapping[str, Any] | None) -> str:
    if spec is None:
        return f"{arg!r} is not an argument of this tool: leave it out."
    expected = _expected(spec)
    if kind == "missing":
        about = spec.get("description", "")
        return f"{arg!r} is required: send {expected}." + (f" ({about})" if about else "")
    return f"{arg!r} must be {expected}."


def _expected(spec: Mapping[str, Any]) -> str:
    options = spec.get("anyOf")
    if isinstance(options, list):
        kinds = [_expected(o) for o in options if o.get("type") != "null"]
        return " or ".join(kinds) if kinds else "null"
    if "enum" in spec:
        return "one of " + ", ".join(repr(v) for v in spec["enum"])
    if "const" in spec:
        return repr(spec["const"])
    names = {
        "string": "a string",
        "integer": "a whole number",
        "number": "a number",
        "boolean": "true or false",
        "array": "a list",
        "object": "an object",
    }
    return names.get(str(spec.get("type")), "a valid value")


MAX_PATH_CHARS = 4096
"""Characters a path argument may have (Linux's PATH_MAX in bytes; a memory's is far less)."""
# The arguments that name a file (by their parameter names: aliases are resolved by then).
_PATH_ARGS = frozenset({"path", "file"})


def unusable_argument(tool: str, arguments: Mapping[str, object]) -> str | None:
    """What the agent is told when an argument holds what no memory can; None when all can.

    A string with a lone surrogate, or a path past :data:`MAX_PATH_CHARS`:
    one sentence naming the argument and what to send instead.
    """
    for arg, value in arguments.items():
        if not isinstance(value, str):
            continue
        at = _lone_surrogate_at(value)
        if at is not None:
            return (
                f"{tool} was called with {arg!r} that is not UTF-8 text: character {at + 1} "
                f"is a lone surrogate (U+{ord(value[at]):04X}: a byte that is not UTF-8, or an "
                f"unpaired \\u escape). Next: send {arg!r} again as plain UTF-8 text, without it."
            )
        if arg in _PATH_ARGS and len(value) > MAX_PATH_CHARS:
            return (
                f"{tool} was called with a {arg!r} of {len(value)} characters; no path is "
                f"longer than {MAX_PATH_CHARS}. Next: send the memory's path relative to the "
                "memory directory, as the index shows it (e.g. 'testing_policy.md'), or its name."
            )
    return None


def _lone_surrogate_at(text: str) -> int | None:
    if text.isascii():
        return None  # the common case, without an encoding pass
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def refused_call(message: bytes) -> bytes | None:
    """The JSON-RPC answer (a tool error) to a ``tools/call`` whose arguments are not
    UTF-8 text; None for any other message, which the SDK reads as it does."""
    if b"\\u" not in message and message.isascii():
        return None  # nothing in it can be a lone surrogate: the usual call, at no cost
    try:
        call = json.loads(message.decode("utf-8", "surrogateescape"))  # takes lone escapes
    except ValueError:
        return None  # not JSON at all: the SDK's parse error says so
    if not isinstance(call, dict) or call.get("method") != "tools/call" or "id" not in call:
        return None
    params = call.get("params")
    tool = params.get("name") if isinstance(params, dict) else None
    arguments = params.get("arguments") if isinstance(params, dict) else None
    if not isinstance(tool, str) or not isinstance(arguments, dict) or not tool.isascii():
        return None
    texts = {k: v for k, v in arguments.items() if isinstance(v, str)}
    if all(_lone_surrogate_at(v) is None for v in texts.values()):
        return None  # strict readers take it: the tool answers for itself
    problem = unusable_argument(tool, texts)
    text = f"Error executing tool {tool}: {problem}"
    result = {"content": [{"type": "text", "text": text}], "isError": True}
    return json.dumps({"jsonrpc": "2.0", "id": call["id"], "result": result}).encode()
