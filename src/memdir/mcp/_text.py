"""What the MCP tools say: errors an agent can act on, views, listings.

Every message leaves the server through :func:`agent_error`, which keeps the
error's own words and a hint naming the next step *for an agent holding these
tools* (not a shell user), and rewrites any host path into a path relative to
the memory directory: an agent never learns where memdir keeps its files.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from memdir.errors import (
    Conflict,
    LockTimeout,
    MemdirError,
    MemoryExists,
    MemoryNotFound,
    ParseError,
    SecretDetected,
    UnsafePath,
)
from memdir.storage import sidecar
from memdir.storage.codec import memory_from_fields, read_frontmatter_head
from memdir.storage.memory_index import INDEX_NAME

__all__ = ["Scrubber", "agent_error", "listing", "numbered"]

# Hints written for a model that calls these tools. Matched on the class, never on text.
_HINTS: tuple[tuple[type[MemdirError], str], ...] = (
    (
        MemoryNotFound,
        "call view without a path to read the index, or search to find the memory",
    ),
    (
        MemoryExists,
        "choose another file name, or update the existing memory with write (pass "
        "replace=true only to overwrite that file on purpose: the old one goes to the trash)",
    ),
    (Conflict, "the memory changed since you read it: view it again, then retry your change"),
    (
        UnsafePath,
        "use a path relative to the memory directory, e.g. 'topic.md' or 'team/topic.md'",
    ),
    (LockTimeout, "another memdir process is busy with this memory: retry in a moment"),
    (SecretDetected, "remove the secret (team memory is shared), or save it privately"),
    (
        ParseError,
        "the file's frontmatter is broken: rewrite the memory with write (name, description, "
        "type, body)",
    ),
)


class Scrubber:
    """Rewrites host paths in text: the memory directory becomes relative paths."""

    def __init__(self, memory_dir: Path, others: Iterable[tuple[Path, str]] = ()) -> None:
        pairs = [(memory_dir, ""), *others, (Path.home(), "~")]
        variants: list[tuple[str, str]] = []
        for root, label in pairs:
            for form in {str(root), os.path.realpath(root)}:
                variants.append((form.rstrip("/") + "/", f"{label}/" if label else ""))
                variants.append((form.rstrip("/"), label or "."))
        # Longest first, so a subfolder is rewritten before its parent.
        self._variants = sorted(variants, key=lambda pair: len(pair[0]), reverse=True)

    def __call__(self, text: str) -> str:
        for host, shown in self._variants:
            if host and host in text:
                text = text.replace(host, shown)
        return text


def agent_error(exc: MemdirError, scrub: Scrubber) -> str:
    """The message a tool returns for ``exc``: what went wrong and what to do next."""
    hint = next((h for cls, h in _HINTS if isinstance(exc, cls)), exc.hint)
    text = scrub(exc.message)
    return f"{text}. Next: {scrub(hint)}." if hint else f"{text}."


def numbered(text: str, *, start: int = 1, end: int | None = None) -> tuple[str, int]:
    """Lines ``start``..``end`` (1-based, inclusive) of ``text`` with line numbers."""
    lines = text.splitlines()
    first = max(start, 1)
    last = len(lines) if end is None or end < 0 else min(end, len(lines))
    shown = [f"{n:>6}\t{lines[n - 1]}" for n in range(first, last + 1)]
    return "\n".join(shown), len(lines)


def listing(directory: Path, prefix: str, *, depth: int = 2) -> list[str]:
    """Memory files (with type and description) and folders under ``directory``."""
    out: list[str] = []
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return out
    for entry in entries:
        if entry.name.startswith("."):
            continue
        rel = f"{prefix}{entry.name}"
        if entry.is_dir(follow_symlinks=False):
            out.append(f"{rel}/")
            if depth > 1:
                out.extend("  " + line for line in listing(Path(entry.path), f"{rel}/", depth=1))
        elif (entry.name.endswith(".md") or sidecar.exists(entry.path)) and entry.is_file(
            follow_symlinks=False
        ):
            out.append(_describe(Path(entry.path), rel))
    return out


def _describe(path: Path, rel: str) -> str:
    if path.name == INDEX_NAME:
        return f"{rel} (index)"
    try:
        fields = sidecar.read_fields(path)
        fields = read_frontmatter_head(path) if fields is None else fields
        head = memory_from_fields(fields, "", path=path)
    except (MemdirError, OSError):
        return f"{rel} (frontmatter unreadable)"
    kind = head.type.value if head.type is not None else head.raw_type or "untyped"
    return f"{rel} [{kind}] {head.description}".rstrip()
