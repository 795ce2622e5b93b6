"""JSON answers from a model: extract, validate against a schema, retry once.

memdir's schemas use a small subset of JSON Schema (``type``, ``properties``,
``required``, ``additionalProperties``, ``enum``, ``const``, ``items``,
``minItems``/``maxItems``, ``minLength``/``maxLength``, ``minimum``/``maximum``),
so a ~100-line validator here beats a dependency: it also words its errors for
the model, which is who reads them. Keywords outside the subset are ignored, like
any JSON Schema validator ignores unknown keywords.

:func:`complete_json` asks for JSON, validates, and on failure tells the model what
was wrong and asks once more before raising :class:`ProviderError`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from memdir.errors import ProviderError
from memdir.llm.base import Completion, Message, Provider, Request, StopReason

__all__ = ["complete_json", "parse_json_reply", "schema_instruction", "validate_json"]

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def validate_json(value: Any, schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """Return every way ``value`` breaks ``schema`` (empty when it conforms)."""
    errors = _check_type(value, schema, path)
    if errors:
        return errors
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} is not one of {list(schema['enum'])!r}")
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: must be {schema['const']!r}")
    if isinstance(value, dict):
        errors.extend(_check_object(value, schema, path))
    elif isinstance(value, list):
        errors.extend(_check_array(value, schema, path))
    elif isinstance(value, str):
        errors.extend(_check_bounds(len(value), schema, path, "minLength", "maxLength", "chars"))
    elif isinstance(value, int | float) and not isinstance(value, bool):
        errors.extend(_check_bounds(value, schema, path, "minimum", "maximum", ""))
    return errors


def _check_type(value: Any, schema: Mapping[str, Any], path: str) -> list[str]:
    expected = schema.get("type")
    if expected is None:
        return []
    names = [expected] if isinstance(expected, str) else list(expected)
    for name in names:
        kinds = _TYPES.get(name, ())
        # bool is an int subclass in Python but not a number in JSON.
        if isinstance(value, kinds) and not (isinstance(value, bool) and name != "boolean"):
            return []
    return [f"{path}: expected {' or '.join(names)}, got {_json_type(value)}"]


def _check_object(value: dict[str, Any], schema: Mapping[str, Any], path: str) -> list[str]:
    properties: Mapping[str, Any] = schema.get("properties", {})
    errors = [
        f"{path}: missing required key {k!r}" for k in schema.get("required", ()) if k not in value
    ]
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in properties:
            errors.extend(validate_json(item, properties[key], f"{path}.{key}"))
        elif extra is False:
            errors.append(f"{path}: unexpected key {key!r}")
        elif isinstance(extra, Mapping):
            errors.extend(validate_json(item, extra, f"{path}.{key}"))
    return errors


def _check_array(value: list[Any], schema: Mapping[str, Any], path: str) -> list[str]:
    errors = _check_bounds(len(value), schema, path, "minItems", "maxItems", "items")
    items = schema.get("items")
    if isinstance(items, Mapping):
        for index, item in enumerate(value):
            errors.extend(validate_json(item, items, f"{path}[{index}]"))
    return errors


def _check_bounds(
    size: float, schema: Mapping[str, Any], path: str, low: str, high: str, unit: str
) -> list[str]:
    suffix = f" {unit}" if unit else ""
    errors = []
    if low in schema and size < schema[low]:
        errors.append(f"{path}: {size}{suffix} is fewer than the minimum {schema[low]}")
    if high in schema and size > schema[high]:
        errors.append(f"{path}: {size}{suffix} is more than the maximum {schema[high]}")
    return errors


def _json_type(value: Any) -> str:
    for name, kinds in _TYPES.items():
        if isinstance(value, kinds) and not (isinstance(value, bool) and name != "boolean"):
            return name
    return type(value).__name__


def parse_json_reply(text: str) -> Any:
    """Parse a model's JSON reply, tolerating code fences and prose around one object.

    Raises ``ValueError`` (with a message meant for the model) when no JSON is found.
    """
    candidates = [text.strip()]
    candidates.extend(m.strip() for m in _FENCE.findall(text))
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    shown = text if len(text) <= 200 else text[:200] + "…"
    raise ValueError(f"the reply is not a JSON object: {shown!r}")


def schema_instruction(schema: Mapping[str, Any]) -> str:
    """The system-prompt text that asks for JSON where the endpoint cannot enforce it."""
    return (
        "Reply with one JSON object and nothing else: no prose, no code fences. "
        f"It must match this JSON schema:\n{json.dumps(dict(schema), indent=None)}"
    )


def _check_reply(completion: Completion, schema: Mapping[str, Any]) -> tuple[Any, str | None]:
    try:
        value = parse_json_reply(completion.text)
    except ValueError as err:
        problem = str(err)
        if completion.stop_reason is StopReason.MAX_TOKENS:
            problem += " (the reply was cut off at max_tokens; answer more briefly)"
        return None, problem
    errors = validate_json(value, schema)
    return value, "; ".join(errors) if errors else None


def complete_json(
    provider: Provider, request: Request, schema: Mapping[str, Any], *, retries: int = 1
) -> dict[str, Any]:
    """Ask for a JSON object matching ``schema``; validate it; retry with the error.

    The model gets ``retries`` more tries (default one), each told exactly what was
    wrong with its last reply. Raises :class:`ProviderError` if no reply conforms.
    ``schema`` must describe an object.
    """
    if schema.get("type") != "object":
        raise ValueError("complete_json needs a schema whose type is 'object'")
    current = replace(request, json_schema=schema)
    problem = ""
    for _attempt in range(retries + 1):
        completion = provider.complete(current)
        value, error = _check_reply(completion, schema)
        if error is None:
            return dict(value)
        problem = error
        feedback = (
            f"Your reply was not valid: {error}. "
            "Reply again with only a JSON object that matches the schema."
        )
        current = replace(
            current,
            messages=(
                *current.messages,
                Message.assistant(completion.text),
                Message.user(feedback),
            ),
        )
    raise ProviderError(
        f"the model did not return valid JSON after {retries + 1} tries: {problem}",
        hint="retry, simplify the request, or configure a stronger model (MEMDIR_MODEL)",
    )
