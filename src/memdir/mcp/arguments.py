"""The MCP tools' arguments: the names models guess, and what a bad one is told.

Argument names models often guess (``file_path`` for ``path``, ``content``
for ``body``...) are accepted as validation aliases (:func:`alias`), so the
published schema keeps one name per argument; the annotated types here
(:data:`PathArg`, :data:`BodyArg`...) carry those aliases and the
descriptions the model reads. Arguments that still fail validation get one
sentence per bad argument saying what to send (:func:`argument_errors`),
never the validator's dump, which echoes the input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, ValidationError

__all__ = [
    "BodyArg",
    "PathArg",
    "QueryArg",
    "RefArg",
    "ScopeArg",
    "TypeArg",
    "alias",
    "argument_errors",
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
