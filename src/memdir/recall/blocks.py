"""What recall hands an agent: one ``<memory …>`` block per memory, and the result.

Each chosen memory becomes a block (:func:`render_block`): its file, scope,
type and age in the header, a staleness note when it is over a day old, what
the drift checker found about the paths and symbols it names, then its body
capped at a line boundary (:func:`cap_body`, within ``recall_max_lines`` /
``recall_max_bytes``) with a note saying where the rest is. Whatever a memory
says, :func:`fence_safe` keeps it from closing its fence or opening a forged one
(it lives with the screening rules, :mod:`memdir.screening.fences`, so that every
prompt that quotes memory text, the session start's index too, can use it).
A :class:`Candidate` is what selection sees of one memory, a :class:`RecallItem`
one block and what it cost; a :class:`RecallResult` joins them under one heading
with the drift caveat, or says why there are none (:class:`SkipReason`).
:func:`~memdir.recall.relevant.recall` chooses the memories and fits the blocks
to the session's budget.
"""

from __future__ import annotations

from enum import StrEnum

from memdir.kinds import MemoryType, Scope
from memdir.recall.context_budget import text_length
from memdir.screening.fences import fence_safe
from memdir.utils.records import record

# Not typing.TYPE_CHECKING: blocks are rendered in the fresh process of a prompt's hook.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any

    from memdir.model import Memory
    from memdir.recall.age import Age
    from memdir.recall.drift import DriftFinding
    from memdir.recall.memory_files import ManifestEntry

__all__ = [
    "Candidate",
    "CappedBody",
    "RecallItem",
    "RecallResult",
    "SkipReason",
    "cap_body",
    "fence_safe",
    "frame_length",
    "render_block",
]

_MAX_CHANGED = 5
_HEADING = "Memories recalled for this request:"


# --- results --------------------------------------------------------------------------


class SkipReason(StrEnum):
    """Why a recall returned nothing."""

    DISABLED = "disabled"
    SINGLE_WORD = "single-word"
    BUDGET_SPENT = "budget-spent"
    NO_MEMORIES = "no-memories"
    NO_MATCH = "no-match"
    NONE_SELECTED = "none-selected"
    UNREADABLE = "unreadable"


@record
class Candidate:
    """What a selector sees of one memory: its manifest entry, age and pre-ranking score.

    ``ref`` (what a selector answers with) is the path from the memory
    directory (``team/x.md`` for team memories), ``file`` the path inside its
    scope. ``score`` is the pre-ranking's (0 for memories that did not match).
    """

    entry: ManifestEntry
    age: Age
    score: float

    @property
    def ref(self) -> str:
        return self.entry.ref

    @property
    def file(self) -> str:
        return self.entry.file

    @property
    def scope(self) -> Scope:
        return self.entry.scope

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def description(self) -> str:
        return self.entry.description

    @property
    def type(self) -> MemoryType | None:
        return self.entry.type

    @property
    def age_days(self) -> int:
        return self.age.days

    @property
    def age_label(self) -> str:
        return self.age.label


@record
class RecallItem:
    """One recalled memory: the candidate it was, its block of text, and what that cost."""

    candidate: Candidate
    text: str
    bytes: int
    truncated: bool
    drift: tuple[DriftFinding, ...]
    changed: tuple[str, ...] = ()  # cited files changed since the memory's date
    cites: bool = False  # the memory has anchors: its check is recorded

    @property
    def ref(self) -> str:
        return self.candidate.ref

    @property
    def file(self) -> str:
        return self.candidate.file

    @property
    def scope(self) -> Scope:
        return self.candidate.scope

    @property
    def path(self) -> Path:
        return self.candidate.entry.path

    @property
    def name(self) -> str:
        return self.candidate.name

    @property
    def type(self) -> MemoryType | None:
        return self.candidate.type

    @property
    def age_days(self) -> int:
        return self.candidate.age_days

    @property
    def age_label(self) -> str:
        return self.candidate.age_label

    def json_fields(self) -> dict[str, Any]:
        """The item as one flat record (what ``--json`` prints)."""
        where = ("ref", "file", "scope", "path", "name", "type")
        cost = ("text", "bytes", "age_days", "age_label", "truncated", "drift", "changed")
        return {name: getattr(self, name) for name in (*where, *cost)}


@record
class RecallResult:
    """What a recall returned, or why it returned nothing, and the session's budget."""

    query: str
    items: tuple[RecallItem, ...]
    skipped: SkipReason | None
    reason: str | None
    budget_used: int
    budget_left: int
    session: str | None = None

    def render(self) -> str:
        """The text an agent gets: the blocks and the drift caveat, or ``""``."""
        if not self.items:
            return ""
        from memdir.recall.prompt import DRIFT_CAVEAT

        blocks = "\n\n".join(item.text for item in self.items)
        return f"{_HEADING}\n\n{blocks}\n\n{DRIFT_CAVEAT}\n"


# --- body caps and blocks -------------------------------------------------------------


@record
class CappedBody:
    """A body cut to its first lines, with the counts the truncation note gives."""

    text: str
    truncated: bool
    shown_lines: int
    total_lines: int
    shown_bytes: int
    total_bytes: int


def cap_body(body: str, *, max_lines: int, max_bytes: int) -> CappedBody:
    """The first lines of ``body`` within ``max_lines`` and ``max_bytes``.

    The cut falls at a line boundary; only a first line longer than
    ``max_bytes`` is cut inside (at a character boundary).
    """
    lines = body.splitlines(keepends=True)
    total = len(body.encode("utf-8"))
    kept: list[str] = []
    size = 0
    for line in lines[: max(max_lines, 0)]:
        width = len(line.encode("utf-8"))
        if size + width > max_bytes:
            break
        kept.append(line)
        size += width
    if not kept and lines and max_lines > 0 and max_bytes > 0:
        head = lines[0].encode("utf-8")[:max_bytes].decode("utf-8", "ignore")
        kept, size = [head.rstrip("\n") + "\n"], len(head.encode("utf-8"))
    text = "".join(kept)
    if text and not text.endswith("\n"):
        text += "\n"
    return CappedBody(
        text=text,
        truncated=size < total,
        shown_lines=len(kept),
        total_lines=len(lines),
        shown_bytes=size,
        total_bytes=total,
    )


def _escape(text: str) -> str:
    """``html.escape(text, quote=True)``, without loading ``html``'s entity table per prompt."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;").replace("'", "&#x27;")


def _show_command(file: str, scope: Scope) -> str:
    return f"memdir show {file}" + (" --scope team" if scope is Scope.TEAM else "")


def render_block(
    *,
    ref: str,
    file: str,
    scope: Scope,
    path: Path,
    memory: Memory,
    age: Age,
    drift: Sequence[DriftFinding],
    body: CappedBody,
    changed: Sequence[str] = (),
) -> str:
    """One recalled memory as the agent reads it (see the module docstring)."""
    kind = memory.type.value if memory.type is not None else "untyped"
    attrs = {"file": ref, "scope": scope.value, "type": kind, "saved": age.label}
    head = " ".join(f'{k}="{_escape(v)}"' for k, v in attrs.items())
    lines = [f"<memory {head}>", fence_safe(f"{memory.name}: {memory.description}")]
    if age.note:
        lines.append(age.note)
    if drift:
        lines.append("Checked against the project now:")
        lines.extend(f"- {fence_safe(finding.message)}" for finding in drift)
    if changed:
        cited = ", ".join(f"`{fence_safe(c)}`" for c in changed[:_MAX_CHANGED])
        lines.append(
            f"The code it cites changed after {age.date.isoformat()}: {cited}. "
            "Check it before relying on this memory."
        )
    lines.append("")
    text = "\n".join(lines) + "\n" + fence_safe(body.text)
    if body.truncated:
        text += (
            f"[Truncated: {body.shown_lines} of {body.total_lines} lines shown "
            f"({body.shown_bytes:,} of {body.total_bytes:,} bytes). Read the rest with "
            f"`{_show_command(file, scope)}` or open {path}]\n"
        )
    return text + "</memory>"


def frame_length() -> int:
    """What :meth:`RecallResult.render` adds around the blocks, in code units."""
    from memdir.recall.prompt import DRIFT_CAVEAT

    return text_length(f"{_HEADING}\n\n") + text_length(f"\n\n{DRIFT_CAVEAT}\n")
