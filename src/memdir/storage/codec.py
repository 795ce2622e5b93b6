"""Markdown with YAML frontmatter <-> :class:`~memdir.model.Memory`.

Pure functions, no I/O beyond :func:`read_frontmatter_head`. Parsing is
forgiving where the original format was loose (legacy files without a type,
descriptions with a bare ``:``): a frontmatter block that fails to parse is
retried with every value quoted; if it still fails, :class:`ParseError` names
the line. Rendering is canonical: known fields in a fixed order, then unknown
fields in the order they were read, so a rewrite never drops or reorders what
another tool put there.

One reader for both shapes a memory file has (:class:`~memdir.model.FrontmatterStyle`):
a top-level ``metadata:`` mapping marks Claude Code's, which is folded the way
Claude Code reads it (:func:`memdir.storage.claude_format.fold`) and then read
like memdir's own; the memory remembers its shape, and :func:`render_memory`
writes it back in that shape. Every part of memdir that reads frontmatter
(store, catalog, manifest, recall, doctor, team sync, the MCP listing) goes
through :func:`memory_from_fields`.
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
from memdir.model import KNOWN_FIELDS, FrontmatterStyle, Memory, MemoryType, memory_slug
from memdir.storage import claude_format

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
# it is a plain date, timestamp or UUID (read as text: memdir's loader drops YAML's
# timestamps), or a one-line quoted string with no escape but ``\"``, ``\\`` or ``''``.
# After its first letter, a plain value holds these characters (and single spaces).
_PLAIN_CHARS = "A-Za-z0-9.,;/()+=?$%'_-"
_PLAIN_LINE = re.compile(r"(?P<key>[A-Za-z][A-Za-z0-9_-]*):(?: +(?P<value>\S.*?))? *")
# Also read for certain: a letter (any script), ``/`` or a ``.`` before no digit (a path)
# first, then those and the characters that mean something to YAML only at a value's
# start (``! @ * & | > ~``), and any character past ASCII YAML accepts in a stream but
# reads as no line break or byte-order mark.
_PLAIN_SCALAR = re.compile(
    r"(?:[^\W\d_]|/|\.(?!\d))(?:[ A-Za-z0-9.,;/()+=?$%'_!@*&|>~-]"
    "|[^\x00-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff])*"
    r"|\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?)?"
    r"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
)
_DOUBLE_QUOTED = re.compile(r'"((?:[^"\\]|\\["\\])*)"')
_SINGLE_QUOTED = re.compile(r"'((?:[^']|'')*)'")
_UNESCAPE = re.compile(r"\\([\"\\])")
# Plain words YAML 1.1 reads as booleans, null or floats rather than text.
_NOT_TEXT = frozenset("y n yes no true false on off null .inf .nan".split())


class _NotPlain(Exception):
    """A line the fast reader does not read for certain: the YAML parser decides."""


def _plain_scalar(value: str) -> str | bool:
    """The text of one value as YAML reads it (see above), or :class:`_NotPlain`.

    ``true`` and ``false`` are read as the booleans YAML reads them as: a pinned
    memory (``pinned: true``) is then read without the YAML parser too.
    """
    if value in ("true", "false"):
        return value == "true"
    if _PLAIN_SCALAR.fullmatch(value):
        if value.lower() in _NOT_TEXT:
            raise _NotPlain
        return value
    quoted = _DOUBLE_QUOTED.fullmatch(value)
    if quoted is not None and quoted.group(1).isprintable():
        return _UNESCAPE.sub(r"\1", quoted.group(1))
    quoted = _SINGLE_QUOTED.fullmatch(value)
    if quoted is not None and quoted.group(1).isprintable():
        return quoted.group(1).replace("''", "'")
    raise _NotPlain


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _plain_mapping(lines: list[str], start: int, indent: int) -> tuple[dict[str, Any], int]:
    """The ``key: value`` lines at ``indent`` from ``start``; a key with no value may
    hold a deeper mapping or a ``- value`` list. Returns where the mapping ends."""
    fields: dict[str, Any] = {}
    at = start
    while at < len(lines) and _indent(lines[at]) >= indent:
        if _indent(lines[at]) > indent:
            raise _NotPlain  # a continued value, or a block YAML would read otherwise
        match = _PLAIN_LINE.fullmatch(lines[at][indent:])
        if match is None:
            raise _NotPlain
        value = match.group("value")
        at += 1
        if value is not None:
            fields[match.group("key")] = _plain_scalar(value.rstrip(" "))
        elif at < len(lines) and _indent(lines[at]) > indent:
            fields[match.group("key")], at = _plain_block(lines, at, _indent(lines[at]))
        else:
            fields[match.group("key")] = None
    return fields, at


def _plain_block(lines: list[str], start: int, indent: int) -> tuple[Any, int]:
    """A nested mapping or a list of one-line values, at ``indent``."""
    if not lines[start][indent:].startswith("- "):
        return _plain_mapping(lines, start, indent)
    items: list[str | bool] = []
    at = start
    while at < len(lines) and _indent(lines[at]) >= indent:
        line = lines[at][indent:]
        if _indent(lines[at]) > indent or not line.startswith("- "):
            raise _NotPlain
        items.append(_plain_scalar(line[2:].strip(" ")))
        at += 1
    return items, at


def _plain_fields(block: str) -> dict[str, Any] | None:
    """The frontmatter ``block`` as YAML reads it, when every line is one the fast
    reader reads for certain (above): plain ``key: value`` lines, and the nested
    ``metadata:`` block and ``- item`` lists Claude Code writes.

    None when any line is anything else (the caller asks the YAML parser).
    """
    lines = [line for line in block.split("\n") if line.strip()]
    try:
        fields, end = _plain_mapping(lines, 0, 0)
    except _NotPlain:
        return None
    return fields if end == len(lines) else None


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


_TRUE_WORDS = ("true", "yes", "on")
_FALSE_WORDS = ("false", "no", "off", "")


def _as_pinned(value: Any, path: str | Path | None) -> bool:
    """``pinned:`` as a boolean: YAML's ``true``/``false`` (a quoted one too); absent is
    false. Anything else is refused, naming the file, rather than read as either."""
    if value is None or isinstance(value, bool):
        return bool(value)
    word = str(value).strip().lower() if isinstance(value, str) else None
    if word in _TRUE_WORDS or word in _FALSE_WORDS:
        return word in _TRUE_WORDS
    raise ParseError(
        f"field 'pinned' is not true or false: {value!r}",
        path=path,
        hint="write pinned: true, or remove the line to unpin",
    )


def _as_modified(value: Any) -> str | None:
    text = "" if value is None else str(value).strip()
    return text or None


def memory_from_fields(
    fields: dict[str, Any], body: str, *, path: str | Path | None = None
) -> Memory:
    """Build a Memory from a parsed frontmatter mapping (of either shape) and a body."""
    style = FrontmatterStyle.MEMDIR
    if isinstance(fields.get("metadata"), dict):
        fields, style = claude_format.fold(fields), FrontmatterStyle.CLAUDE
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
        pinned=_as_pinned(fields.get("pinned"), path),
        modified=_as_modified(fields.get("modified")),
        extra=extra,
        style=style,
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
    """Every field but ``name`` and ``description``, in the order memdir writes them."""
    if memory.type is not None:
        type_value: Any = memory.type.value
    else:
        type_value = memory.extra.get("type")
    pairs: list[tuple[str, Any]] = [
        ("type", type_value),
        ("created", memory.created.isoformat() if memory.created else None),
        ("updated", memory.updated.isoformat() if memory.updated else None),
        ("verified", memory.verified.isoformat() if memory.verified else None),
        ("source", memory.source),
        ("anchors", list(memory.anchors) or None),
        ("supersedes", list(memory.supersedes) or None),
        ("review_after", memory.review_after.isoformat() if memory.review_after else None),
        ("pinned", True if memory.pinned else None),  # unpinned: no line at all
    ]
    extra = [(k, v) for k, v in memory.extra.items() if k != "type"]
    # Claude Code appends ``modified`` last, after its own keys; memdir's shape has no
    # place of its own for it, so it follows the other known fields there too.
    if memory.style is FrontmatterStyle.CLAUDE:
        pairs += [*extra, ("modified", memory.modified)]
    else:
        pairs += [("modified", memory.modified), *extra]
    return [(k, v) for k, v in pairs if v is not None]


def _written(key: str, value: Any) -> str:
    """``value`` as memdir's shape writes it: a date field as is, the rest as YAML."""
    dated = key in _DATE_FIELDS or key == "modified"
    if dated and isinstance(value, str) and claude_format.scalar(value, _yaml_value) == value:
        return value  # a date or timestamp, which memdir's loader reads back as text
    return _yaml_value(value)


def render_memory(memory: Memory) -> str:
    """The file text for ``memory``, in the shape its ``style`` names.

    memdir's: the fields one per line, then the body. Claude Code's:
    ``name`` (as a slug), ``description``, the rest under ``metadata:``, a
    blank line, the body. Raises :class:`InvalidMemory` when a field cannot
    be represented.
    """
    if memory.style is FrontmatterStyle.CLAUDE:
        try:
            lines = claude_format.render(
                memory_slug(memory.name),
                memory.description,
                _field_lines(memory),
                fallback=_yaml_value,
            )
        except _yaml()[0].YAMLError as exc:
            raise InvalidMemory(f"a metadata field cannot be written as YAML: {exc}") from None
    else:
        pairs = [("name", memory.name), ("description", memory.description)]
        lines = []
        for key, value in pairs + _field_lines(memory):
            try:
                lines.append(f"{key}: {_written(key, value)}")
            except _yaml()[0].YAMLError as exc:
                raise InvalidMemory(f"field {key!r} cannot be written as YAML: {exc}") from None
    head = "\n".join([_FENCE, *lines, _FENCE]) + "\n"
    body = memory.body
    if body and memory.style is FrontmatterStyle.CLAUDE:
        head += "\n"  # Claude Code's writer leaves a blank line after the fence
    text = head + body
    return text if text.endswith("\n") else text + "\n"
