"""Markdown with YAML frontmatter <-> :class:`~memdir.model.Memory`.

Pure functions, no I/O beyond :func:`read_frontmatter_head`. Parsing is
forgiving where the original format was loose (legacy files without a type,
descriptions with a bare ``:``): a frontmatter block that fails to parse is
retried with every value quoted; if it still fails, :class:`ParseError` names
the line. Rendering is canonical: known fields in a fixed order, then unknown
fields in the order they were read, so a rewrite never drops or reorders what
another tool put there.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml

from memdir.errors import InvalidMemory, ParseError
from memdir.model import KNOWN_FIELDS, Memory, MemoryType

__all__ = [
    "FRONTMATTER_HEAD_LINES",
    "memory_from_fields",
    "parse_frontmatter",
    "parse_memory",
    "read_frontmatter_head",
    "render_memory",
    "split_frontmatter",
]

FRONTMATTER_HEAD_LINES = 30
_FENCE = "---"
_DATE_FIELDS = ("created", "updated", "verified", "review_after")
_LIST_FIELDS = ("anchors", "supersedes")
_KEY_LINE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)\s*:\s?(?P<value>.*)$")


def split_frontmatter(text: str) -> tuple[str | None, str, int]:
    """Split ``text`` into (frontmatter block or None, body, body's first line number).

    The block sits between a first line ``---`` and the next ``---`` line.
    """
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r").strip() != _FENCE:
        return None, text, 1
    for number, line in enumerate(lines[1:], start=1):
        if line.rstrip("\r").strip() == _FENCE:
            block = "\n".join(lines[1:number])
            body = "\n".join(lines[number + 1 :])
            return block, body, number + 2
    return None, text, 1


def _quote_values(block: str) -> str:
    """Quote every top-level scalar value so YAML reads it as a plain string."""
    out = []
    for line in block.split("\n"):
        match = _KEY_LINE.match(line)
        value = match.group("value").strip() if match else ""
        if match and value and value[0] not in "\"'[{|>&*!":
            escaped = value.replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'{match.group("key")}: "{escaped}"')
        else:
            out.append(line)
    return "\n".join(out)


@cache
def _yaml() -> tuple[ModuleType, type[yaml.SafeLoader]]:
    """PyYAML and memdir's loader, imported on first use.

    Listing, searching and the hooks mostly never parse YAML (the catalog holds
    the fields), and PyYAML costs every process that imports it ~20 ms.
    """
    import yaml

    # libyaml's parser when PyYAML was built with it: ten times faster on listings.
    base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class StringDateLoader(base):  # type: ignore[valid-type,misc]
        """SafeLoader that leaves timestamps as text, so unknown fields round-trip.

        Keys are kept as written: YAML 1.1 would read a key ``no`` or ``on`` as a
        boolean (and ``1`` as a number), and the rewrite would then say ``False``.
        """

        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
            for key_node, _ in node.value:
                if (
                    isinstance(key_node, yaml.ScalarNode)
                    and key_node.tag != "tag:yaml.org,2002:str"
                ):
                    key_node.tag = "tag:yaml.org,2002:str"
            return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]

    StringDateLoader.yaml_implicit_resolvers = {
        key: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return yaml, StringDateLoader


def _load_yaml(block: str) -> Any:
    # Dates stay strings in the raw mapping; memdir converts known date fields.
    # A SafeLoader subclass: no arbitrary object construction.
    module, loader = _yaml()
    return module.load(block, Loader=loader)


# A line YAML reads as ``key: "value"`` for certain: the value starts with a letter and holds
# no character YAML gives a meaning (no ``: ``, `` #``, quotes, brackets, anchors, tags), or
# it is a plain date (read as text: memdir's loader drops YAML's timestamps).
# After its first letter, a plain value holds these characters (and single spaces).
_PLAIN_CHARS = "A-Za-z0-9.,;/()+=?$%'_-"
_PLAIN_LINE = re.compile(
    r"(?P<key>[A-Za-z][A-Za-z0-9_-]*):"
    rf"(?: +(?P<value>[A-Za-z][ {_PLAIN_CHARS}]*|\d{{4}}-\d{{2}}-\d{{2}}))? *"
)
# Plain words YAML 1.1 reads as booleans or null rather than text.
_NOT_TEXT = frozenset("y n yes no true false on off null".split())


def _plain_fields(block: str) -> dict[str, Any] | None:
    """The frontmatter ``block`` as YAML reads it, when every line is a plain ``key: value``.

    None when any line is anything else (the caller asks the YAML parser).
    """
    fields: dict[str, Any] = {}
    for line in block.split("\n"):
        match = _PLAIN_LINE.fullmatch(line)
        if match is None:
            if line.strip():
                return None
            continue
        value = (match.group("value") or "").rstrip()
        if value.lower() in _NOT_TEXT:
            return None
        fields[match.group("key")] = value or None
    return fields


def parse_frontmatter(block: str, *, path: str | Path | None = None) -> dict[str, Any]:
    """The frontmatter block as an ordered mapping; retried with values quoted.

    A block of plain ``key: word`` lines (what memdir writes, mostly) is read
    without the YAML parser, to the same result (:func:`_plain_fields`).
    """
    plain = _plain_fields(block)
    if plain is not None:
        return plain
    return _yaml_frontmatter(block, path=path)


def _yaml_frontmatter(block: str, *, path: str | Path | None = None) -> dict[str, Any]:
    error = _yaml()[0].YAMLError
    try:
        data = _load_yaml(block)
    except error as first:
        try:
            data = _load_yaml(_quote_values(block))
        except error:
            mark = getattr(first, "problem_mark", None)
            line = mark.line + 2 if mark is not None else None  # +1 fence, +1 one-based
            raise ParseError(
                f"frontmatter is not valid YAML: {getattr(first, 'problem', first)}",
                path=path,
                line=line,
                hint="fix the YAML between the --- lines; memdir will not rewrite this file",
            ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ParseError(
            "frontmatter must be a mapping of key: value lines",
            path=path,
            line=2,
            hint="write name:, description: and type: lines between the --- fences",
        )
    return {str(k): v for k, v in data.items()}


def _as_date(value: Any, key: str, path: str | Path | None) -> dt.date | None:
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    text = str(value).strip()
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        raise ParseError(
            f"field {key!r} is not an ISO date: {text!r}",
            path=path,
            hint="write dates as YYYY-MM-DD",
        ) from None


def _as_tuple(value: Any) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, list | tuple):
        return tuple(str(v) for v in value if v is not None and str(v) != "")
    return (str(value),)


def _as_type(value: Any) -> MemoryType | None:
    if value is None:
        return None
    try:
        return MemoryType(str(value).strip().lower())
    except ValueError:
        return None


def _as_text(value: Any) -> str:
    return "" if value is None else " ".join(str(value).split())


def memory_from_fields(
    fields: dict[str, Any], body: str, *, path: str | Path | None = None
) -> Memory:
    """Build a Memory from a parsed frontmatter mapping and a body."""
    dates = {key: _as_date(fields.get(key), key, path) for key in _DATE_FIELDS}
    extra = {k: v for k, v in fields.items() if k not in KNOWN_FIELDS}
    raw_type = fields.get("type")
    if raw_type is not None and _as_type(raw_type) is None:
        extra = {"type": raw_type, **extra}  # unknown type: kept verbatim for doctor
    return Memory(
        name=_as_text(fields.get("name")),
        description=_as_text(fields.get("description")),
        type=_as_type(raw_type),
        body=body,
        created=dates["created"],
        updated=dates["updated"],
        verified=dates["verified"],
        review_after=dates["review_after"],
        source=None if fields.get("source") is None else str(fields["source"]),
        anchors=_as_tuple(fields.get("anchors")),
        supersedes=_as_tuple(fields.get("supersedes")),
        extra=extra,
    )


def parse_memory(text: str, *, path: str | Path | None = None) -> Memory:
    """Parse a memory file's text. A file without frontmatter is all body.

    Raises :class:`ParseError` when the frontmatter cannot be read even with
    its values quoted.
    """
    block, body, _ = split_frontmatter(text)
    fields = parse_frontmatter(block, path=path) if block is not None else {}
    return memory_from_fields(fields, body.lstrip("\n"), path=path)


def read_frontmatter_head(path: Path, *, max_lines: int = FRONTMATTER_HEAD_LINES) -> dict[str, Any]:
    """The frontmatter of ``path`` read from its first ``max_lines`` lines only."""
    lines: list[str] = []
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for _ in range(max_lines):
            line = handle.readline()
            if not line:
                break
            lines.append(line)
    block, _, _ = split_frontmatter("".join(lines))
    return parse_frontmatter(block, path=path) if block is not None else {}


# A text value written as is: the plain reader (``_PLAIN_LINE``) takes it back unchanged,
# and PyYAML's emitter writes it the same way (no quotes), so files do not change with
# the path that rendered them.
_PLAIN_VALUE = re.compile(rf"[A-Za-z](?:[{_PLAIN_CHARS}]| (?! ))*")
_PLAIN_MAX = 2_000


def _plain_value(value: Any) -> str | None:
    """``value`` written as a plain YAML scalar without the emitter; None when it cannot be."""
    if (
        isinstance(value, str)
        and _PLAIN_VALUE.fullmatch(value)
        and not value.endswith(" ")
        and len(value) <= _PLAIN_MAX  # the emitter folds a long line; this path never does
        and value.lower() not in _NOT_TEXT
    ):
        return value
    return None


def _yaml_value(value: Any) -> str:
    plain = _plain_value(value)
    if plain is not None:
        return plain
    dumped: str = _yaml()[0].safe_dump(
        value, default_flow_style=True, allow_unicode=True, width=10_000, sort_keys=False
    )
    return dumped.removesuffix("\n...\n").rstrip("\n")


def _field_lines(memory: Memory) -> list[tuple[str, Any]]:
    if memory.type is not None:
        type_value: Any = memory.type.value
    else:
        type_value = memory.extra.get("type")
    pairs: list[tuple[str, Any]] = [
        ("name", memory.name),
        ("description", memory.description),
        ("type", type_value),
        ("created", memory.created.isoformat() if memory.created else None),
        ("updated", memory.updated.isoformat() if memory.updated else None),
        ("verified", memory.verified.isoformat() if memory.verified else None),
        ("source", memory.source),
        ("anchors", list(memory.anchors) or None),
        ("supersedes", list(memory.supersedes) or None),
        ("review_after", memory.review_after.isoformat() if memory.review_after else None),
    ]
    pairs += [(k, v) for k, v in memory.extra.items() if k != "type"]
    return [(k, v) for k, v in pairs if v is not None]


def render_memory(memory: Memory) -> str:
    """The file text for ``memory``: frontmatter, a blank-free join, the body.

    Raises :class:`InvalidMemory` when a field cannot be represented.
    """
    out = [_FENCE]
    for key, value in _field_lines(memory):
        if isinstance(value, str) and key in _DATE_FIELDS:
            out.append(f"{key}: {value}")
            continue
        try:
            out.append(f"{key}: {_yaml_value(value)}")
        except _yaml()[0].YAMLError as exc:
            raise InvalidMemory(f"field {key!r} cannot be written as YAML: {exc}") from None
    out.append(_FENCE)
    body = memory.body
    text = "\n".join(out) + "\n" + body
    return text if text.endswith("\n") else text + "\n"
