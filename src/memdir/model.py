"""Frozen values: memory types, scopes, a memory, and a memory as stored.

A :class:`Memory` is what a file says (frontmatter + body), whichever of the
two shapes the file has (:class:`FrontmatterStyle`: memdir's flat fields, or
Claude Code's ``name`` slug with the rest under ``metadata:``). A
:class:`MemoryRecord` is a memory as found on disk: which scope, which file,
the content hash a compare-and-swap writer passes back, and the mtime.

Reading is forgiving (a hand-written file with an odd name still loads);
writing is not: :func:`check_memory_text` is the one rule every write route
(API, CLI, MCP, memory tool, extraction) meets through the store. Names and
descriptions are single lines, free of control characters, bidi overrides
and lone surrogates, and bounded (:data:`MAX_NAME_CHARS`,
:data:`MAX_DESCRIPTION_CHARS`) so that a memory's index line fits its budget.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field, replace
from typing import Any

from memdir.errors import InvalidMemory
from memdir.kinds import FrontmatterStyle, MemoryType, Scope

__all__ = [
    "KNOWN_FIELDS",
    "MAX_DESCRIPTION_CHARS",
    "MAX_NAME_CHARS",
    "FrontmatterStyle",
    "Memory",
    "MemoryRecord",
    "MemoryType",
    "Scope",
    "check_memory_text",
    "claude_slug",
    "claude_timestamp",
    "is_slug",
    "memory_slug",
    "normalize_body",
    "plain_line",
    "stamp_memory",
    "text_problem",
]

# A name is the title of an index line `- [name](file.md) — description`
# (150 characters in all): 60 leaves room for a derived file name and a hook.
MAX_NAME_CHARS = 60
# Descriptions are shortened in the index, but stay one readable line.
MAX_DESCRIPTION_CHARS = 500
# Embeddings, overrides and isolates reorder how a line displays.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


# Frontmatter keys memdir understands, in the order it writes them.
KNOWN_FIELDS: tuple[str, ...] = (
    "name",
    "description",
    "type",
    "created",
    "updated",
    "verified",
    "source",
    "anchors",
    "supersedes",
    "review_after",
    "pinned",
    "modified",
)

# Claude Code keeps a ``name`` that is already all ``[a-z0-9_-]`` and slugs any other:
# lower case, each run of other characters one ``-``, no ``-`` at either end.
_SLUG = re.compile(r"[a-z0-9_-]+")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def is_slug(name: str) -> bool:
    """Whether ``name`` is a name Claude Code keeps as written (``[a-z0-9_-]+``)."""
    return _SLUG.fullmatch(name) is not None


def claude_slug(name: str) -> str:
    """``name`` as Claude Code writes it in a memory's ``name:`` (may be ``""``)."""
    if is_slug(name):
        return name
    return _NOT_SLUG.sub("-", name.lower()).strip("-")


def memory_slug(name: str) -> str:
    """:func:`claude_slug`, never empty: a name without a Latin letter or digit
    (``日本語``) becomes ``memory-`` and a checksum of the name."""
    slug = claude_slug(name)
    if slug or not name.strip():
        return slug
    import zlib  # only for names without one ASCII letter or digit

    return f"memory-{zlib.crc32(name.encode('utf-8')):08x}"


def claude_timestamp(now: dt.datetime) -> str:
    """``now`` as Claude Code stamps ``modified``: UTC, milliseconds, ``Z``."""
    utc = now.astimezone(dt.UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def _modified_at(text: str | None) -> dt.datetime | None:
    """A ``modified`` value as a time; None when it is not ISO 8601 (Claude Code then
    falls back on the file's mtime, and so does memdir)."""
    if not text:
        return None
    try:
        return dt.datetime.fromisoformat(text.strip())
    except ValueError:
        return None


@dataclass(frozen=True, kw_only=True)
class Memory:
    """One memory: its frontmatter fields and its markdown body.

    ``type`` is ``None`` for legacy files that lack one (read, reported by
    doctor). ``extra`` holds unknown frontmatter keys in file order; they are
    written back unchanged. ``modified`` is Claude Code's timestamp, as written
    (ISO 8601). ``style`` is the shape the file has (the codec renders a memory
    in its ``style``; a store decides it on write: a file keeps its shape, a new
    one takes the store's, Claude Code's under the ``claude`` profile). In
    Claude Code's shape ``name`` is a slug (:func:`claude_slug`) and ``extra``
    holds the unknown keys of ``metadata:`` and of the top level together, as
    Claude Code reads them. ``pinned`` (``pinned: true``) makes the memory's index
    line load at every session start, before any other.
    """

    name: str
    description: str
    type: MemoryType | None
    body: str = ""
    created: dt.date | None = None
    updated: dt.date | None = None
    verified: dt.date | None = None
    source: str | None = None
    anchors: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()
    review_after: dt.date | None = None
    pinned: bool = False
    modified: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=True, hash=False)
    style: FrontmatterStyle = FrontmatterStyle.MEMDIR

    def __post_init__(self) -> None:
        # Canonical forms, so that a memory read back from its file is equal to
        # the one written: one-line name and description, body without leading
        # blank lines and with exactly one final newline.
        object.__setattr__(self, "name", " ".join(self.name.split()))
        object.__setattr__(self, "description", " ".join(self.description.split()))
        object.__setattr__(self, "body", normalize_body(self.body))
        object.__setattr__(self, "anchors", tuple(self.anchors))
        object.__setattr__(self, "supersedes", tuple(self.supersedes))
        if not isinstance(self.pinned, bool):
            raise InvalidMemory(
                f"pinned must be true or false, not {self.pinned!r}",
                hint="pass pinned=True or pinned=False",
            )

    def __hash__(self) -> int:
        return hash((self.name, self.description, self.type, self.body))

    @property
    def modified_at(self) -> dt.datetime | None:
        """``modified`` as a time, or None when absent or not ISO 8601."""
        return _modified_at(self.modified)

    @property
    def last_updated(self) -> dt.date | None:
        """When the memory last changed: the later of ``updated`` and ``modified``
        (as a local date), so a memory either tool rewrote counts as new."""
        when = self.modified_at
        stamped = (when.astimezone() if when.tzinfo else when).date() if when else None
        if stamped is None or (self.updated is not None and self.updated >= stamped):
            return self.updated
        return stamped

    @property
    def raw_type(self) -> Any:
        """The ``type`` as written when it is none of the four (for doctor), else None."""
        return None if self.type is not None else self.extra.get("type")

    def answers_to(self, name: str) -> bool:
        """Whether ``name`` names this memory: the same name (case and spacing aside),
        or, for a memory in Claude Code's shape, a name with the same slug."""
        wanted = " ".join(name.split())
        if self.name.casefold() == wanted.casefold():
            return True
        if self.style is not FrontmatterStyle.CLAUDE:
            return False
        slug = claude_slug(wanted)
        return bool(slug) and claude_slug(self.name) == slug


def stamp_memory(
    memory: Memory,
    *,
    previous: Memory | None,
    today: dt.date,
    now: dt.datetime | None = None,
) -> Memory:
    """``memory`` dated for a write over ``previous`` (what the file held, if anything).

    ``created`` is kept (the memory's, else the file's, else today). memdir's
    shape records the change as ``updated`` (today). Claude Code's records it
    as Claude Code does, as ``modified`` (``now``); ``updated`` is kept current
    only where the memory or the file already has one, since Claude Code never
    touches it.
    """
    before = previous.created if previous is not None else None
    created = memory.created or before or today
    if memory.style is not FrontmatterStyle.CLAUDE:
        return replace(memory, created=created, updated=today)
    had = memory.updated is not None or (previous is not None and previous.updated is not None)
    stamp = claude_timestamp(now or dt.datetime.now(dt.UTC))
    return replace(memory, created=created, updated=today if had else None, modified=stamp)


def normalize_body(body: str) -> str:
    """A body without leading blank lines, ending in exactly one newline (or empty)."""
    body = body.replace("\r\n", "\n").lstrip("\n").rstrip("\n")
    return body + "\n" if body.strip() else ""


@dataclass(frozen=True, kw_only=True)
class MemoryRecord:
    """A memory as stored: scope, file name relative to the scope root, version."""

    scope: Scope
    file: str
    memory: Memory
    version: str
    mtime: float

    @property
    def name(self) -> str:
        return self.memory.name


def text_problem(value: str, *, single_line: bool) -> str | None:
    """What makes ``value`` unfit to be written, or ``None``.

    Refused everywhere: NUL and lone surrogates (a byte that was not UTF-8
    arrives as U+DC80..U+DCFF). With ``single_line``, also every other control
    character and the bidi controls that make a line display as something else.
    """
    for index, char in enumerate(value):
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:
            return f"is not valid UTF-8 (byte 0x{code - 0xDC00:02x} at character {index + 1})"
        if 0xD800 <= code <= 0xDFFF:
            return f"contains a lone surrogate U+{code:04X} at character {index + 1}"
        if char == "\x00":
            return f"contains a NUL character at character {index + 1}"
        if single_line and (code < 0x20 or 0x7F <= code < 0xA0 or char in _BIDI):
            return f"contains the control character U+{code:04X} at character {index + 1}"
    return None


def plain_line(value: str, limit: int) -> str:
    """``value`` made fit for a name or description: the characters
    :func:`text_problem` refuses on one line dropped, spaces collapsed, at most
    ``limit`` characters. For text memdir derives itself (a note's first line)."""
    kept = "".join(c for c in value if text_problem(c, single_line=True) is None)
    return " ".join(kept.split())[:limit].strip()


def _check_line(field_name: str, value: str, limit: int | None) -> None:
    problem = text_problem(value, single_line=True)
    if problem is not None:
        raise InvalidMemory(
            f"the {field_name} {problem}",
            hint=f"write the {field_name} as one line of plain UTF-8 text",
        )
    if limit is not None and len(value) > limit:
        raise InvalidMemory(
            f"the {field_name} is {len(value)} characters; the limit is {limit}",
            hint=f"shorten the {field_name} to at most {limit} characters",
        )


def check_memory_text(
    memory: Memory, *, previous: Memory | None = None, limits: bool = True
) -> None:
    """Refuse a memory whose text cannot be written as given (see :func:`text_problem`).

    Raises :class:`~memdir.errors.InvalidMemory` naming the field, the problem
    and the limit. Length limits apply to what is new: a name or description
    equal to ``previous``'s (a hand-written memory being edited) is kept.
    ``limits=False`` checks the characters only.
    """
    same_name = previous is not None and previous.name == memory.name
    same_description = previous is not None and previous.description == memory.description
    _check_line("name", memory.name, MAX_NAME_CHARS if limits and not same_name else None)
    _check_line(
        "description",
        memory.description,
        MAX_DESCRIPTION_CHARS if limits and not same_description else None,
    )
    others = [("body", memory.body), ("source", memory.source or "")]
    others += [("modified", memory.modified or "")]
    others += [("anchor", a) for a in memory.anchors]
    others += [("supersedes entry", s) for s in memory.supersedes]
    others += [(f"field {k!r}", v) for k, v in memory.extra.items() if isinstance(v, str)]
    for field_name, value in others:
        problem = text_problem(value, single_line=False)
        if problem is not None:
            raise InvalidMemory(
                f"the {field_name} {problem}",
                hint="send text as UTF-8; convert the input first, e.g. with iconv -t utf-8",
            )
