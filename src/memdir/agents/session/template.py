"""The session-notes template, the update prompt, and the checks on their shape.

The template is ten ``# Header`` sections, each followed by an italic
instruction line; the update prompt tells the sub-agent how to fill them.
Both can be replaced by files (the prompt with ``{{currentNotes}}`` and
``{{notesPath}}`` placeholders). The notes a run leaves behind must still hold
every header and italic line of the template (:func:`missing_structure`), and
their size is measured per section (:func:`section_sizes`) so that the prompt
can ask for condensing when a section or the whole grows past its cap.
Pure text functions; only :func:`load_text` reads a file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memdir.errors import ConfigError

__all__ = [
    "DEFAULT_TEMPLATE",
    "DEFAULT_UPDATE_PROMPT",
    "PROTECTED_SECTIONS",
    "Section",
    "condense_instruction",
    "load_text",
    "missing_structure",
    "parse_sections",
    "render_update_prompt",
    "section_sizes",
]

TokenCounter = Callable[[str], int]

DEFAULT_TEMPLATE = """\
# Session Title
_A short, distinctive 5-10 word title for the session: dense, no filler_

# Current State
_What is being worked on right now? Pending tasks not yet done. The immediate next steps._

# Task specification
_What did the user ask for? Design decisions and the context that explains them_

# Files and Functions
_The important files: in short, what they contain and why they matter_

# Workflow
_The commands usually run, in which order, and how to read their output when not obvious_

# Errors & Corrections
_Errors met and how they were fixed. What the user corrected. Approaches that failed and \
must not be tried again_

# Codebase and System Documentation
_The important components of the system: how they work and fit together_

# Learnings
_What worked well, what did not, what to avoid. Nothing already said in another section_

# Key results
_If the user asked for a specific output (an answer, a table, a document), its exact text_

# Worklog
_Step by step, what was tried and done: one terse line per step_
"""

DEFAULT_UPDATE_PROMPT = """\
Update the session notes file at {{notesPath}} with what the conversation above adds.
This is not part of the conversation: do not answer it, only maintain the notes.

The current notes:
<current_notes>
{{currentNotes}}
</current_notes>

Rules:
- Edit only {{notesPath}}, with the edit tool (old_string must match the file exactly, once).
  You may make several edits in one reply.
- Keep every section header (lines starting with '# ') and the italic line under it exactly
  as they are; write a section's content below its italic line.
- Always update "Current State" to say what is happening now and what comes next.
- Skip sections with nothing new; never add filler such as "none yet".
- Be specific and dense: file paths, function names, exact commands and error messages.
- Keep each section under about {{maxSectionTokens}} tokens and the whole file under
  {{maxTotalTokens}} tokens: summarise older detail rather than appending without end.
- When you are done, reply with a one-line summary and no tool calls."""

# Sections a condense pass must keep accurate and detailed.
PROTECTED_SECTIONS = ("Current State", "Errors & Corrections")

_HEADER = re.compile(r"^# (?P<title>\S.*?)\s*$")
_ITALIC = re.compile(r"^_.*_\s*$")


@dataclass(frozen=True, kw_only=True)
class Section:
    """One ``# Header`` section: its title, its italic line (or ``""``), its content."""

    title: str
    instruction: str
    content: str


def load_text(path: Path | None, default: str, *, what: str) -> str:
    """The text of an override file, or ``default`` when no file is configured."""
    if path is None:
        return default
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"cannot read the session {what} file: {exc.strerror or exc}",
            path=path,
            hint=f"fix the path, or remove the setting to use the built-in {what}",
        ) from None
    if not text.strip():
        raise ConfigError(f"the session {what} file is empty", path=path, hint="fill it in")
    return text


def parse_sections(text: str) -> list[Section]:
    """The ``# Header`` sections of ``text``, in order (text before the first is ignored)."""
    sections: list[Section] = []
    title: str | None = None
    lines: list[str] = []
    for line in text.splitlines():
        match = _HEADER.match(line)
        if match:
            if title is not None:
                sections.append(_section(title, lines))
            title, lines = match.group("title"), []
        elif title is not None:
            lines.append(line)
    if title is not None:
        sections.append(_section(title, lines))
    return sections


def _section(title: str, lines: list[str]) -> Section:
    instruction = lines[0].strip() if lines and _ITALIC.match(lines[0]) else ""
    body = lines[1:] if instruction else lines
    return Section(title=title, instruction=instruction, content="\n".join(body).strip())


def missing_structure(template: str, notes: str) -> list[str]:
    """Template headers (with their italic line) that ``notes`` lost or changed, in order."""
    have = {(s.title, s.instruction) for s in parse_sections(notes)}
    return [
        f"# {s.title}" for s in parse_sections(template) if (s.title, s.instruction) not in have
    ]


def section_sizes(notes: str, count: TokenCounter) -> dict[str, int]:
    """Tokens per section (header, italic line and content)."""
    return {
        s.title: count("\n".join(p for p in (f"# {s.title}", s.instruction, s.content) if p))
        for s in parse_sections(notes)
    }


def condense_instruction(
    notes: str, count: TokenCounter, *, max_section: int, max_total: int
) -> str:
    """The extra prompt text asking to condense, or ``""`` when the notes fit their caps."""
    total = count(notes)
    over = [(title, n) for title, n in section_sizes(notes, count).items() if n > max_section]
    if total <= max_total and not over:
        return ""
    lines = ["", "IMPORTANT: the notes are over their size limits. Condense them in this update."]
    if total > max_total:
        lines.append(f"- The whole file is ~{total} tokens; the limit is {max_total}.")
    lines.extend(f'- "# {title}" is ~{n} tokens; the limit is {max_section}.' for title, n in over)
    protected = " and ".join(f'"{title}"' for title in PROTECTED_SECTIONS)
    lines.append(
        "Shorten the oversized sections: drop minor details, merge related items, summarise "
        f"old worklog entries. Keep {protected} accurate and detailed."
    )
    return "\n".join(lines)


def render_update_prompt(
    prompt: str, *, notes: str, notes_path: Path, max_section: int, max_total: int
) -> str:
    """Fill the placeholders of an update prompt (unknown ones are left as they are)."""
    values = {
        "currentNotes": notes,
        "notesPath": str(notes_path),
        "maxSectionTokens": str(max_section),
        "maxTotalTokens": str(max_total),
    }
    # One pass, so a placeholder inside the notes themselves is never expanded.
    return re.sub(r"\{\{(\w+)\}\}", lambda m: values.get(m.group(1), m.group(0)), prompt)
