"""Which memories a session used, and why: its log joined with its transcript and rule firings.

The hooks log what they delivered (:mod:`memdir.history.used_log`). What the
agent then did with memory is in its transcript: :func:`sync_transcript`
reads the session's transcript (the one its session start named, else
Claude Code's file for the session, else one given) and appends a ``read``
or ``write`` event for each tool call that read or changed a memory file
(``Read``, ``Edit``, ``Write``, ``MultiEdit``, ``NotebookEdit``; a Bash
``cat``/``head``/``tail``/``less``/``more``/``bat``/``nl`` of one; a Bash
command that writes, copies, moves, edits in place or removes one: a
redirection into it, ``tee``, ``cp``/``mv``/``install``/``ln``, ``sed -i``,
``rm``, ``touch``, ... read by :mod:`memdir.enforcement.shell_targets`, a
relative path after a ``cd`` on the line from the folder it went to), resolved
to the memory's ref (``file.md``, ``team/file.md``); each call once, however
often the log is looked at. A daily log is not a memory: its reads and writes
are not logged. A transcript unchanged since it was last read is
not read again, and a grown one only from where the last look stopped.

Rule firings are logged without a session
(:mod:`memdir.enforcement.rule_firings`): a firing is joined to a session
when it falls within the session's span (from its first event to its
transcript's last change), so two sessions of one project that run at the
same time both show it.

:func:`session_use` is one session's record (``memdir used``, the page);
:func:`last_uses` is, per memory, the session start that last showed its
index line and the last recall, read or write of it (``memdir why``, and
the review of memories left unused); :func:`log_began` is when the record
began, so that "unused for N days" never claims more than was recorded.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from memdir.enforcement.rule_firings import read_firings
from memdir.enforcement.shell_targets import changed_files
from memdir.enforcement.shell_words import Redirection, command_index, split_commands
from memdir.errors import MemdirError
from memdir.history.used_log import log_path, read_events, session_logs, update_log
from memdir.storage.paths import Layout
from memdir.transcripts.turns import ToolCall
from memdir.utils.records import record

__all__ = [
    "LastUse",
    "SessionUse",
    "Use",
    "last_uses",
    "log_began",
    "memory_touches",
    "newest_session",
    "recent_sessions",
    "session_use",
    "sync_transcript",
]

# Tools that name the file they read or change in one of these fields.
_READ_TOOLS = frozenset({"Read", "NotebookRead"})
_WRITE_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_PATH_FIELDS = ("file_path", "notebook_path", "path")
# Shell commands whose arguments are files they print.
_SHELL_READERS = frozenset({"cat", "head", "tail", "less", "more", "bat", "nl", "tac"})
_SHELL_TOOLS = frozenset({"Bash"})
_CHANGE_DIRECTORY = frozenset({"cd", "pushd"})
_GLOB = frozenset("*?[")  # a word holding one is expanded by the shell, to files unknown
# A firing this long after the span's last event still belongs to it (the hook answers
# before the tool runs, and the transcript line follows the call).
_SPAN_MARGIN = 5.0
# The kinds of event that are a use of a memory (an index line shown is not: it is
# what lets the agent find the memory).
_USES = ("recall", "read", "write")


@record
class Use:
    """One use of memory in a session: when, what kind, which memories, and its detail
    (a recall's query, the tool that read or wrote, the rule that fired)."""

    t: float
    kind: str  # start, recall, read, write, rule
    refs: tuple[str, ...]
    detail: str = ""
    session: str = ""

    @property
    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.t))


@record
class SessionUse:
    """One session's use of memory, oldest first, and the transcript it was read from."""

    session: str
    transcript: str | None
    uses: tuple[Use, ...]

    def refs(self, *kinds: str) -> tuple[str, ...]:
        """The memories of the uses of ``kinds``, first use first, each once."""
        found = (ref for use in self.uses if use.kind in kinds for ref in use.refs)
        return tuple(dict.fromkeys(found))

    @property
    def shown(self) -> tuple[str, ...]:
        """Memories whose index lines a session start delivered."""
        return self.refs("start")

    @property
    def recalled(self) -> tuple[str, ...]:
        return self.refs("recall")

    @property
    def read(self) -> tuple[str, ...]:
        return self.refs("read")

    @property
    def written(self) -> tuple[str, ...]:
        return self.refs("write")

    @property
    def fired(self) -> tuple[Use, ...]:
        return tuple(use for use in self.uses if use.kind == "rule")

    @property
    def seen(self) -> frozenset[str]:
        """Every memory the session was shown or touched."""
        return frozenset(self.refs("start", *_USES))

    def json_fields(self) -> dict[str, object]:
        """Its fields, and the memories of each kind of use, for JSON."""
        return {
            "session": self.session,
            "transcript": self.transcript,
            "uses": self.uses,
            "shown": self.shown,
            "recalled": self.recalled,
            "read": self.read,
            "written": self.written,
        }


@record
class LastUse:
    """Per memory: the last session start that showed its index line, and its last use
    (a recall that delivered it, a read or a write of its file)."""

    ref: str
    shown: Use | None = None
    used: Use | None = None


# -- the transcript ---------------------------------------------------------------------


class _Roots:
    """The memory folders: a file under them is named by its ref.

    A path is resolved (links followed) only when, as written, it already lies under a
    memory folder as written or as resolved: most paths an agent names are the
    project's, and resolving each costs a ``stat`` per folder of it.
    """

    def __init__(self, layout: Layout) -> None:
        self.base = os.fspath(layout.project_root)
        folders = (layout.team_dir, layout.memory_dir)
        self.prefixes = tuple(
            {os.path.normpath(f) for f in folders} | {os.path.realpath(f) for f in folders}
        )
        self.team = os.path.realpath(layout.team_dir)
        self.memory = os.path.realpath(layout.memory_dir)
        self.logs = os.path.realpath(layout.logs_dir)

    def ref(self, raw: str) -> str | None:
        """``raw``'s ref when it names a memory file (``.md`` under a memory folder,
        neither a daily log nor a hidden folder's), else None."""
        if not raw.endswith(".md") or "\0" in raw:
            return None
        path = os.path.expanduser(raw)
        path = os.path.normpath(path if os.path.isabs(path) else os.path.join(self.base, path))
        if not any(_within(path, prefix) for prefix in self.prefixes):
            return None
        real = os.path.realpath(path)
        if not real.endswith(".md") or _within(real, self.logs):
            return None
        for root, prefix in ((self.team, "team/"), (self.memory, "")):
            if _within(real, root):
                rel = real[len(root) + 1 :]
                if any(part.startswith(".") for part in rel.split(os.sep)):
                    return None  # .git, the store's staging and meta folders
                return prefix + rel.replace(os.sep, "/")
        return None


def _within(path: str, root: str) -> bool:
    return path.startswith(root.rstrip(os.sep) + os.sep)


def _call_paths(call: ToolCall) -> Iterator[tuple[str, str]]:
    """(``read`` or ``write``, a path) for each file ``call`` reads or changes."""
    if call.name in _READ_TOOLS or call.name in _WRITE_TOOLS:
        kind = "read" if call.name in _READ_TOOLS else "write"
        for field in _PATH_FIELDS:
            value = call.input.get(field)
            if isinstance(value, str):
                yield kind, value
                return
    elif call.name in _SHELL_TOOLS and isinstance(call.input.get("command"), str):
        command = call.input["command"]
        # A command naming no ``.md`` file reads or changes no memory file (a copy into a
        # memory folder names its source, which keeps its name there): not read as shell.
        if ".md" in command:
            yield from _shell_paths(command)


def _shell_paths(command: str) -> Iterator[tuple[str, str]]:
    """(``read`` or ``write``, a path) for each file a shell command line prints or
    changes (:func:`~memdir.enforcement.shell_targets.changed_files`); a relative path
    after a ``cd`` on the line is taken from the folder it went to."""
    commands, _ = split_commands(command)
    cwd = ""  # the session's own folder: a relative path is left relative
    for words in commands:
        at = command_index(words)
        name = words[at].rsplit("/", 1)[-1] if at < len(words) else ""
        if name in _CHANGE_DIRECTORY:
            cwd = _changed_directory(cwd, words[at + 1 :])
            continue
        if not any(".md" in word for word in words):
            continue  # a memory file it reads or changes is named here, or a copy's source
        if name in _SHELL_READERS:
            read = (w for w in map(_operand, words[at + 1 :]) if w)
            yield from (("read", path) for path in _placed(cwd, read))
        yield from (("write", path) for path in _placed(cwd, changed_files(words, _folder)))


def _changed_directory(cwd: str, args: list[str]) -> str:
    """The folder a ``cd``/``pushd`` goes to from ``cwd`` (``cd -``: unknown, left)."""
    given = [a for a in args if not isinstance(a, Redirection) and (a == "-" or a[:1] != "-")]
    if not given:
        return os.path.expanduser("~")
    return cwd if given[0] == "-" else _joined(cwd, given[0])


def _placed(cwd: str, words: Iterable[str]) -> Iterator[str]:
    """``words`` as paths from ``cwd``; a word a glob would expand names no one file."""
    return (_joined(cwd, word) for word in words if not _GLOB.intersection(word))


def _joined(cwd: str, word: str) -> str:
    """``word`` as a path: ``~`` and ``$HOME`` expanded, a relative one taken from ``cwd``."""
    for home in ("$HOME", "${HOME}"):
        if word == home or word.startswith(home + "/"):
            word = "~" + word[len(home) :]
    word = os.path.expanduser(word)
    return word if not cwd or os.path.isabs(word) else os.path.join(cwd, word)


def _folder(word: str) -> bool:
    """Whether a copy's destination, named alone, is taken for a folder: one not named
    ``.md`` is no memory file, so it brings one into memory only as the folder the copy
    lands in (under the source's name)."""
    return not word.endswith(".md")


def _operand(word: str) -> str:
    """A file a reader's word names: ``< file`` reads it; an option or other redirection none."""
    if isinstance(word, Redirection):
        return word[1:] if word.startswith("<") and not word.startswith("<<") else ""
    return "" if word.startswith("-") else word


def memory_touches(
    transcript: Path | str, layout: Layout, *, start: int = 0
) -> tuple[list[dict[str, Any]], int]:
    """A ``read``/``write`` event per memory file each tool call of ``transcript`` names,
    from byte ``start`` on; and the byte where the last whole line read ends.

    Trigger: the transcript is read from where the last look stopped, not through
    :func:`memdir.transcripts.reader.iter_turns`. Why: a live session's transcript
    grows by megabytes, and the reader parses every line from the first (1.7 s for
    11 MB here) when only the lines that hold a tool call matter. Outcome: the lines
    past ``start`` are scanned, and only those naming a ``tool_use`` are parsed; a last
    line still being written is left for the next look.
    """
    roots = _Roots(layout)
    found: list[dict[str, Any]] = []
    at = start
    with open(transcript, "rb") as handle:
        handle.seek(start)
        for raw in handle:
            if not raw.endswith(b"\n"):
                break  # a line its writer has not finished
            line_at, at = at, at + len(raw)
            if b'"tool_use"' not in raw:
                continue
            for when, call in _line_calls(raw, f"@{line_at}"):
                found += _touches(call, when, roots)
    return found, at


def _touches(call: ToolCall, when: float, roots: _Roots) -> list[dict[str, Any]]:
    """The ``read``/``write`` events of one tool call: one per memory file it names."""
    found = []
    seen: set[tuple[str, str]] = set()  # a shell line may write one file twice
    for kind, named in _call_paths(call):
        ref = roots.ref(named)
        if ref is not None and (kind, ref) not in seen:
            seen.add((kind, ref))
            found.append({"t": when, "event": kind, "ref": ref, "tool": call.name, "call": call.id})
    return found


def _line_calls(raw: bytes, where: str) -> list[tuple[float, ToolCall]]:
    """The tool calls one transcript line holds (Claude Code's ``message.content``, or a
    plain line's ``content``), each with its line's time; ``where`` names a call without
    an id."""
    try:
        event = json.loads(raw)
    except ValueError:
        return []
    message = event.get("message") if isinstance(event, dict) else None
    content = (message if isinstance(message, dict) else event).get("content")
    if not isinstance(content, list):
        return []
    when = _seconds(event.get("timestamp"))
    calls = []
    for number, block in enumerate(content):
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            continue
        name, arguments = block.get("name"), block.get("input")
        if isinstance(name, str) and name:
            call_id = block.get("id") if isinstance(block.get("id"), str) else ""
            call = ToolCall(
                id=call_id or f"{where}.{number}",
                name=name,
                input=arguments if isinstance(arguments, dict) else {},
            )
            calls.append((when, call))
    return calls


def _seconds(value: object) -> float:
    """A line's ISO timestamp as Unix time (now, when it has none that reads)."""
    if isinstance(value, str):
        try:
            stamp = dt.datetime.fromisoformat(value.strip())
        except ValueError:
            return round(time.time(), 3)
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=dt.UTC)
        return round(stamp.timestamp(), 3)
    return round(time.time(), 3)


def _named_transcript(events: list[dict[str, Any]]) -> str | None:
    """The transcript the session's latest start named."""
    named = [e["transcript"] for e in events if isinstance(e.get("transcript"), str)]
    return named[-1] if named else None


def _client_transcript(layout: Layout, session: str, env: Mapping[str, str]) -> str | None:
    """Claude Code's transcript of ``session`` for this project, when it is there."""
    from memdir.storage.claude import claude_config_dir, slugify

    if "/" in session or session in ("", ".", ".."):
        return None
    path = claude_config_dir(env) / "projects" / slugify(layout.project_root) / f"{session}.jsonl"
    return str(path) if path.is_file() else None


def sync_transcript(
    layout: Layout,
    session: str,
    *,
    env: Mapping[str, str],
    transcript: str | Path | None = None,
) -> str | None:
    """Append the session's memory reads and writes found in its transcript; returns the
    transcript read (None: none is known). A call already logged is not logged again."""
    path = log_path(layout, session)
    events = read_events(path)
    chosen = (
        os.fspath(transcript)
        if transcript is not None
        else (_named_transcript(events) or _client_transcript(layout, session, env))
    )
    if chosen is None:
        return None
    try:
        info = os.stat(chosen)
    except OSError:
        return chosen  # gone: what was read of it before stays in the log
    mark = {"transcript": chosen, "size": info.st_size, "mtime_ns": info.st_mtime_ns}
    synced = [e for e in events if e.get("event") == "synced" and e.get("transcript") == chosen]
    last = synced[-1] if synced else {}
    if all(last.get(k) == v for k, v in mark.items()):
        return chosen
    offset = last.get("offset")
    # A transcript shorter than what was read was rewritten: read it again from the start.
    start = offset if isinstance(offset, int) and 0 <= offset <= info.st_size else 0
    try:
        touches, end = memory_touches(chosen, layout, start=start)
    except OSError:
        return chosen

    def more(current: list[dict[str, Any]]) -> list[dict[str, Any]]:
        done = {(e.get("call"), e.get("ref")) for e in current if e.get("event") in _USES}
        fresh = [t for t in touches if (t["call"], t["ref"]) not in done]
        return [*fresh, {"t": round(time.time(), 3), "event": "synced", **mark, "offset": end}]

    update_log(path, more)
    return chosen


# -- reading it back --------------------------------------------------------------------


def _uses(events: list[dict[str, Any]], session: str) -> list[Use]:
    out = []
    for event in events:
        kind = event.get("event")
        if kind in ("start", "recall"):
            refs = tuple(str(r) for r in event.get("refs", ()) if isinstance(r, str))
            detail = str(event.get("query") or event.get("source") or "")
        elif kind in ("read", "write") and isinstance(event.get("ref"), str):
            refs, detail = (event["ref"],), str(event.get("tool") or "")
        else:
            continue
        out.append(
            Use(t=float(event["t"]), kind=str(kind), refs=refs, detail=detail, session=session)
        )
    return out


def _firings(
    firings: list[dict[str, Any]], uses: list[Use], transcript: str | None, session: str
) -> list[Use]:
    """The rule firings (as logged) that fell within the session's span."""
    if not uses:
        return []
    start, end = min(u.t for u in uses), max(u.t for u in uses)
    if transcript is not None:
        with contextlib.suppress(OSError):  # gone: the log's last event ends the span
            end = max(end, os.stat(transcript).st_mtime)
    return [
        Use(
            t=float(item["t"]),
            kind="rule",
            refs=(str(item.get("ref")),),
            detail=f"{item.get('action')} {item.get('tool')}: {item.get('rule')}",
            session=session,
        )
        for item in firings
        if start - _SPAN_MARGIN <= float(item["t"]) <= end + _SPAN_MARGIN
    ]


def session_use(
    layout: Layout,
    session: str,
    *,
    env: Mapping[str, str],
    transcript: str | Path | None = None,
    sync: bool = True,
) -> SessionUse:
    """What ``session`` used of memory; its transcript read first (:func:`sync_transcript`)
    unless not ``sync``."""
    chosen: str | None = None
    try:
        if sync:
            chosen = sync_transcript(layout, session, env=env, transcript=transcript)
    except (MemdirError, OSError):
        pass  # the log as it stands: a transcript that cannot be read adds nothing
    return _logged(layout, session, chosen, read_firings(str(layout.state_dir)))


def _logged(
    layout: Layout, session: str, transcript: str | None, firings: list[dict[str, Any]]
) -> SessionUse:
    """A session's use as its log holds it, with the firings of its span."""
    events = read_events(log_path(layout, session))
    chosen = transcript or _named_transcript(events)
    uses = _uses(events, session)
    uses += _firings(firings, uses, chosen, session)
    return SessionUse(
        session=session, transcript=chosen, uses=tuple(sorted(uses, key=lambda u: u.t))
    )


def newest_session(layout: Layout) -> str | None:
    """The session that used memory last (None: no session has a log)."""
    found = recent_sessions(layout, limit=1)
    return found[0].session if found else None


def recent_sessions(layout: Layout, *, limit: int = 50) -> list[SessionUse]:
    """The ``limit`` sessions that used memory last, latest first, as logged (their
    transcripts not read again). Ordered by their events' times, not by when their
    logs were last written: looking at a session reads its transcript into its log."""
    firings = read_firings(str(layout.state_dir))  # read once for all of them
    found = [_logged(layout, session, None, firings) for session, _, _ in session_logs(layout)]
    found.sort(key=lambda use: (use.uses[-1].t if use.uses else 0.0, use.session), reverse=True)
    return found[:limit]


def last_uses(layout: Layout, *, env: Mapping[str, str], sync: bool = True) -> dict[str, LastUse]:
    """Per memory ref, the last session start that showed it and its last use, across every
    session (each one's transcript read first when ``sync``)."""
    found: dict[str, LastUse] = {}
    for session, path, _ in session_logs(layout):
        if sync:
            with contextlib.suppress(MemdirError, OSError):  # the log as it stands
                sync_transcript(layout, session, env=env)
        for use in _uses(read_events(path), session):
            for ref in use.refs:
                last = found.get(ref) or LastUse(ref=ref)
                if use.kind == "start" and (last.shown is None or use.t > last.shown.t):
                    last = LastUse(ref=ref, shown=use, used=last.used)
                elif use.kind != "start" and (last.used is None or use.t > last.used.t):
                    last = LastUse(ref=ref, shown=last.shown, used=use)
                found[ref] = last
    return found


def log_began(layout: Layout) -> float | None:
    """When the oldest event of any session's log was recorded (None: nothing is)."""
    times = [
        float(event["t"]) for _, path, _ in session_logs(layout) for event in read_events(path)
    ]
    return min(times, default=None)
