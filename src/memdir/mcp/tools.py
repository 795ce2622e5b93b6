"""The MCP tools: view, search, recall, write, edit, delete, log, why.

Each tool is a plain typed function (the type hints are the input schema,
the docstring the description the model reads) that makes one call into
memdir and renders text; :data:`TOOLS` pairs each with its annotations
(read-only, destructive, idempotent) for the server to register. Paths are
shown relative to the memory directory, team files under ``team/``; a
memory's name works wherever a file is asked for. A change held for the
user's review says so, so the agent does not write it again.

Tools are plain functions, which the SDK runs on worker threads: a slow call
never holds the event loop, so an HTTP server keeps answering other clients
(grep patterns run on RE2, in linear time, besides).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

from memdir.api import Memdir
from memdir.errors import InvalidMemory, LimitExceeded, UnsafePath
from memdir.history.undo import render_why
from memdir.mcp._text import listing, numbered
from memdir.mcp.arguments import BodyArg, PathArg, QueryArg, RefArg, ScopeArg, TypeArg, alias
from memdir.mcp.context import MemdirCtx, agent_errors, memdir_of, state_of
from memdir.model import MemoryRecord, Scope
from memdir.storage.fs import read_bytes_nofollow, safe_join

# Search and recall (the catalog, its engine, the manifest, drift checks) load with
# the first search or recall call: a client waits for the server's first answer,
# and most sessions call neither.

__all__ = [
    "TOOLS",
    "TOOL_NAMES",
    "delete",
    "edit",
    "log",
    "recall",
    "search",
    "view",
    "why",
    "write",
]

TOOL_NAMES = ("view", "search", "recall", "write", "edit", "delete", "log", "why")
_ROOT_NAMES = frozenset({"", ".", "./", "/"})
_SEARCH_KINDS = ("memory", "log")

_AWAITS = (
    "{what} awaits the user's review ({why}): it is not "
    "in memory until they approve it with `memdir review approve`. Do not write it again."
)


def _awaits(named: str, plain: str, scope: str, why: str | None) -> str:
    """What the agent is told of a change kept for review; a screened one is not quoted."""
    why = why or f"{scope} memory is in manual review mode"
    return _AWAITS.format(what=plain if why.startswith("screened:") else named, why=why)


def _shown(record: MemoryRecord) -> str:
    """A record's path relative to the memory directory (team files under ``team/``)."""
    return f"team/{record.file}" if record.scope is Scope.TEAM else record.file


def _locate(mem: Memdir, ref: str, scope: ScopeArg | None) -> MemoryRecord:
    ref = ref.strip().removeprefix("./")
    if scope is None and ref.startswith("team/"):
        return mem.get(ref.removeprefix("team/"), scope=Scope.TEAM)
    return mem.get(ref, scope=scope)


# -- the tools ------------------------------------------------------------------------


@agent_errors
def view(
    ctx: MemdirCtx,
    path: PathArg = "",
    start_line: int = 1,
    end_line: int | None = None,
) -> str:
    """Read memory: the index, a folder listing, or one memory file with line numbers.

    Call with no path first: it returns MEMORY.md, the one-line index of every
    memory (private, then team when team memory is on). Pass a file path from the
    index to read that memory; for long files pass start_line/end_line (1-based,
    inclusive). A folder path ('team/', 'logs/2026/') lists its files with each
    memory's type and description. A memory's name also works as the path.
    """
    _check_range(start_line, end_line)
    mem = memdir_of(ctx)
    if path.strip() in _ROOT_NAMES:
        return _view_index(mem)
    rel = path.strip().removeprefix("./").rstrip("/")
    if any(part.startswith(".") and part.strip(".") for part in rel.split("/")):
        raise UnsafePath(
            f"{path!r} names a hidden file", hint="hidden files are memdir's own state"
        )
    target = safe_join(mem.layout.memory_dir, rel)
    if target.is_dir():
        lines = listing(target, f"{rel}/")
        return f"{rel}/ holds:\n" + "\n".join(lines) if lines else f"{rel}/ is empty."
    if not target.is_file():
        record = _locate(mem, path, None)  # a memory's name, else MemoryNotFound
        rel, target = _shown(record), mem.layout.memory_dir / _shown(record)
    return _view_file(mem, rel, target, start_line, end_line)


def _check_range(start: int, end: int | None) -> None:
    if start < 1:
        raise InvalidMemory(
            f"start_line must be 1 or more (got {start})",
            hint="pass start_line=1 for the first line, or omit it",
        )
    if end is not None and end != -1 and end < start:
        raise InvalidMemory(
            f"end_line ({end}) is before start_line ({start})",
            hint="pass an end_line at or after start_line, or omit it (or -1) for the end",
        )


def _view_index(mem: Memdir) -> str:
    from memdir.screening.fences import fence_safe  # a description cannot forge a fence

    private = fence_safe(mem.private.read_index().strip())
    parts = [f"# MEMORY.md (private)\n\n{private or '(empty)'}"]
    if mem.team_enabled:
        team = fence_safe(mem.team.read_index().strip())
        parts.append(f"# team/MEMORY.md (team)\n\n{team or '(empty)'}")
    return "\n\n".join(parts) + "\n"


def _view_file(mem: Memdir, rel: str, target: Path, start: int, end: int | None) -> str:
    text = read_bytes_nofollow(target).decode("utf-8", errors="replace")
    shown, total = numbered(text, start=start, end=end)
    limit = mem.settings.max_view_bytes
    if len(shown.encode("utf-8")) > limit:
        raise LimitExceeded(
            f"{rel} lines {start}-{end or total} are more than {limit} bytes",
            hint="pass start_line and end_line to read a smaller part",
        )
    return f"{rel} ({total} lines):\n{shown}\n"


@agent_errors
def search(
    ctx: MemdirCtx,
    query: QueryArg,
    mode: Literal["ranked", "grep"] = "ranked",
    scope: ScopeArg | None = None,
    limit: int = 10,
    regex: bool = False,
) -> str:
    """Search memories and daily logs.

    mode='ranked' (default) finds the best matches for a few specific words
    (an error message, a file or function name, a topic) and returns each hit's
    path, title and a snippet. mode='grep' finds lines containing the exact text
    (or a regular expression with regex=true), case-insensitive, with line
    numbers. Use view on a path from the results to read the whole memory.
    """
    mem = memdir_of(ctx)
    limit = max(1, min(limit, 100))
    if mode == "grep":
        return _grep(mem, query, scope=scope, limit=limit, regex=regex)
    # The facade's search: hybrid where the embeddings extra is (its catalog and model
    # stay open between calls, and the server embeds the store as it starts).
    hits = mem.search(
        query, kinds=_SEARCH_KINDS, limit=limit, scope=None if scope is None else Scope(scope)
    )
    if not hits:
        return (
            f"No memory matches {query!r}. Try other specific words, or mode='grep' for exact text."
        )
    lines = []
    for hit in hits:
        kind = hit.type.value if hit.type is not None else hit.kind
        when = f" ({hit.date:%Y-%m-%d})" if hit.date is not None else ""
        snippet = " ".join(hit.snippet.split())
        lines.append(f"- {hit.ref} [{kind}]{when} {hit.title}: {snippet}")
    return "\n".join(lines) + "\n"


def _grep(mem: Memdir, query: str, *, scope: ScopeArg | None, limit: int, regex: bool) -> str:
    from memdir.search.query import grep

    root = mem.layout.memory_dir
    found = []
    for hit in grep(root, query, regex=regex, ignore_case=True):
        rel = hit.path.relative_to(root).as_posix()
        in_team = rel.startswith("team/")
        if (scope == "team" and not in_team) or (scope == "private" and in_team):
            continue
        found.append(f"{rel}:{hit.line}: {hit.text.strip()}")
    if not found:
        return f"No line contains {query!r}. Try a shorter or different string."
    more = f"\n({len(found) - limit} more lines: narrow the search)" if len(found) > limit else ""
    return "\n".join(found[:limit]) + more + "\n"


@agent_errors
def recall(ctx: MemdirCtx, query: QueryArg, session: str | None = None) -> str:
    """Recall the few memories most likely to help with a request.

    Pass the user's request (a sentence, not one word). Returns at most a few
    memories, each with its age and what no longer matches the project; an
    empty answer is normal. Pass session (any stable id for this conversation)
    so that memories already recalled in it are not repeated.
    """
    from memdir.recall.relevant import recall as recall_memories

    state = state_of(ctx)
    result = recall_memories(state.memdir, query, session=session, enabled=state.memdir.enabled)
    if not result.items:
        return f"No memory recalled: {result.reason or 'nothing relevant'}."
    return state.scrub(result.render())


@agent_errors
def write(
    ctx: MemdirCtx,
    name: Annotated[str, alias("name", "title", description="A short title.")],
    description: Annotated[
        str,
        alias(
            "description",
            "summary",
            description="One specific line: future conversations decide from it whether "
            "the memory is relevant.",
        ),
    ],
    type: Annotated[
        TypeArg,
        alias(
            "type",
            "memory_type",
            "kind",
            description="user: who the user is; feedback: how to work (corrections, "
            "confirmed choices); project: ongoing work, decisions, deadlines; reference: "
            "where information lives outside the project.",
        ),
    ],
    body: BodyArg = "",
    scope: ScopeArg = "private",
    file: Annotated[
        str | None,
        alias(
            "file",
            "path",
            "file_path",
            "filename",
            description="File name to use; omit to derive it from the name.",
        ),
    ] = None,
    replace: Annotated[
        bool,
        Field(
            description="Only with file: overwrite it even if it holds another memory (the "
            "old one goes to the trash). Leave false unless the user asked for it."
        ),
    ] = False,
) -> str:
    """Save a memory, or update the one with the same name (the index follows).

    Save what will matter in future conversations and cannot be read from the
    project itself: who the user is, how they want you to work, decisions and
    deadlines, where things live. Never save code patterns, git history, fix
    recipes or temporary task state. scope='team' shares the memory with the
    whole team (never put secrets there; user memories are always private).
    To change a few words of an existing memory, prefer edit.
    """
    mem = memdir_of(ctx)
    result = mem.write(
        name=name,
        description=description,
        type=type,
        body=body,
        scope=scope,
        file=file,
        replace=replace,
    )
    verb = "Created" if result.created else "Updated"
    record = result.record
    text = f"{verb} {record.scope.value} memory {record.name!r} in {_shown(record)}; index updated."
    warnings = list(result.warnings)
    if result.pending is not None:
        text = _awaits(
            f"Your write of {record.name!r}", "Your write", record.scope.value, result.held_because
        )
    else:
        from memdir.recall.index_budget import overflow_warning

        overflow = overflow_warning(mem.store(record.scope), record.file)
        if overflow is not None:
            warnings.append(overflow)  # past the index's load limit: say what is no longer seen
    return "\n".join([text, *(f"Warning: {w}" for w in warnings)])


@agent_errors
def edit(
    ctx: MemdirCtx,
    path: RefArg,
    old_str: Annotated[
        str,
        alias(
            "old_str",
            "old_string",
            "old_text",
            "old",
            description="Exact text in the body to replace; must occur exactly once.",
        ),
    ],
    new_str: Annotated[
        str,
        alias("new_str", "new_string", "new_text", "new", description="Replacement text."),
    ],
    scope: ScopeArg | None = None,
) -> str:
    """Replace one exact, unique piece of text in a memory's body.

    old_str must appear exactly once in the body (copy it from view, whitespace
    included); new_str replaces it. To change the name, description or type,
    use write instead. The edit is refused if the memory changed meanwhile.
    """
    mem = memdir_of(ctx)
    record = _locate(mem, path, scope)
    body = record.memory.body
    if not old_str:
        raise InvalidMemory("old_str is empty", hint="pass the exact text to replace")
    count = body.count(old_str)
    if count != 1:
        raise InvalidMemory(_edit_mismatch(_shown(record), body, old_str, count))
    memory = replace(record.memory, body=body.replace(old_str, new_str, 1))
    store = mem.store(record.scope)
    result = store.write(memory, file=record.file, expected_version=record.version)
    if result.pending is not None:
        return _awaits(
            f"Your edit of {_shown(record)}", "Your edit", record.scope.value, result.held_because
        )
    return f"Edited {_shown(record)}: 1 replacement."


def _edit_mismatch(shown: str, body: str, old: str, count: int) -> str:
    if count == 0:
        return (
            f"old_str was not found in the body of {shown}. Next: view {shown} and copy the "
            "text exactly, whitespace included; to change name, description or type use write"
        )
    starts = [i for i in range(len(body)) if body.startswith(old, i)]
    lines = ", ".join(str(body.count("\n", 0, i) + 1) for i in starts)
    return (
        f"old_str occurs {count} times in the body of {shown} (body lines {lines}). Next: "
        "include more of the surrounding text so that it matches exactly once"
    )


@agent_errors
def delete(ctx: MemdirCtx, path: RefArg, scope: ScopeArg | None = None) -> str:
    """Delete a memory that turned out wrong or obsolete; its index line goes too.

    Its text stays in memdir's history, so the user can bring it back with
    `memdir restore NAME` (or `memdir undo`). Pass the file (from the index) or
    the memory's name.
    """
    mem = memdir_of(ctx)
    record = _locate(mem, path, scope)
    store = mem.store(record.scope)
    held = store.review_held()
    store.delete(record.file, expected_version=record.version)
    if held:
        return _awaits(f"Deleting {_shown(record)}", "Deleting", record.scope.value, None)
    kept = "kept in memdir's history" if mem.history_db is not None else "moved to the trash"
    return (
        f"Deleted {_shown(record)} ({kept}: `memdir restore {record.name}` brings it back); "
        "index updated."
    )


@agent_errors
def why(ctx: MemdirCtx, path: RefArg, scope: ScopeArg | None = None) -> str:
    """Why memdir holds a memory: where it came from and what it rests on.

    Returns its provenance (route, client, session, when), the conversation
    turns it was learned from when their transcript is still there, and its
    versions. Use it before relying on a memory you doubt, or when the user
    asks why you believe something.
    """
    state = state_of(ctx)
    return state.scrub(render_why(state.memdir.why(path, scope=scope)))


@agent_errors
def log(
    ctx: MemdirCtx,
    text: Annotated[
        str,
        alias(
            "text",
            "entry",
            "content",
            "message",
            description="What happened or was learned, with the reason when there is one.",
        ),
    ],
) -> str:
    """Append a timestamped entry to today's daily log.

    For long-lived sessions: note decisions, surprises and facts worth keeping
    as they happen; a later consolidation distils the logs into memories. Logs
    are append-only: entries are never rewritten.
    """
    mem = memdir_of(ctx)
    written = mem.log(text)
    return f"Logged to {written.relative_to(mem.layout.memory_dir).as_posix()}."


def _annotations(*, read_only: bool, destructive: bool, idempotent: bool) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


TOOLS: tuple[tuple[Callable[..., str], ToolAnnotations], ...] = (
    (view, _annotations(read_only=True, destructive=False, idempotent=True)),
    (search, _annotations(read_only=True, destructive=False, idempotent=True)),
    # Recall records what a session has seen, so a repeat returns less: not idempotent.
    (recall, _annotations(read_only=True, destructive=False, idempotent=False)),
    (write, _annotations(read_only=False, destructive=False, idempotent=True)),
    (edit, _annotations(read_only=False, destructive=False, idempotent=False)),
    (delete, _annotations(read_only=False, destructive=True, idempotent=False)),
    (log, _annotations(read_only=False, destructive=False, idempotent=False)),
    (why, _annotations(read_only=True, destructive=False, idempotent=True)),
)
