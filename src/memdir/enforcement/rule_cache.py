"""The cache behind enforced rules: what the last walk saw, and what it found.

One file (``<state>/enforce-cache.json``): a JSON line (the header: the
rules and problems of the files that have any, and what the call between
walks needs), then what the walk saw as plain text, one record per memory
file: ``scope:rel``, NUL, ``mtime size inode``, NUL (a name may hold a line
break, never a NUL). Comparing that text with a new walk's is one
comparison in C.

The header line is sealed (:func:`sealed`): its first member is a CRC-32 of
the rest, so a header cut short, overwritten, or changed in one byte (a
rule's pattern, a file's name, the watch's tokens) is not read as rules: it
is damaged, and the rules are read again from the files. A header that is
whole but not of this shape (another version's) is read again too. Only the
header decides which rules apply; damage to what the walk saw only makes the
next walk reread the files it names. The hook memo (:mod:`memdir.hooks.memo`)
is sealed the same way.

A walk stats every file, because an edit made in place moves no folder's
mtime: 1,000 files cost a few milliseconds, 100,000 about half a second, on
every tool call. So in a scope of more than :data:`LARGE_STORE` files, a
call within :data:`WALK_EVERY` seconds of the last walk does not walk
(:func:`between_walks`): it checks the mtime of every folder the walk
listed (a file created, deleted, renamed or replaced there: walk again), and
the stat of the files with rules and of the files the agent's own edit tools
were aimed at (``touched``). An edit made in place by anything else (an
editor open on a memory, an append from a shell) is seen by the next walk,
at most :data:`WALK_EVERY` seconds later. Smaller scopes walk on every call.

Where the hook server runs, its folder watch
(:mod:`memdir.hooks.folder_watch`) spares the walk whatever the
store's size: the header keeps the watch's tokens as they were before the
last walk, and a call that gets the same tokens again does not walk, since
every change under the folders (also in place) would have moved them. Below
:data:`WATCH_FROM` files the walk is cheaper than asking, and is done.
"""

from __future__ import annotations

import os
import time
import zlib
from stat import S_ISREG

from memdir.storage.scope_files import in_scope, scope_stats
from memdir.utils.json_text import loads

TYPE_CHECKING = False  # the pre-tool-use hook loads this module: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

__all__ = [
    "LARGE_STORE",
    "WALK_EVERY",
    "WATCH_FROM",
    "RuleRoot",
    "Walk",
    "between_walks",
    "current_header",
    "file_damage",
    "header_for",
    "header_gate",
    "header_rules",
    "open_regular",
    "read",
    "sealed",
    "stats",
    "unsealed",
    "walk",
    "write",
]

VERSION = 7
LARGE_STORE = 20_000  # memory files from which calls between walks skip the files' stats
WATCH_FROM = 100  # memory files from which asking the folder watch beats walking
WALK_EVERY = 30.0  # seconds between two walks of a large store
_INDEX_NAME = "MEMORY.md"
_MISSING = -2  # the stamp of a root that could not be listed

# (scope name, folder, names of its subfolders that belong to another scope); a Scope is
# a scope name, and the pre-tool-use hook passes plain names (the enum module costs it).
RuleRoot = tuple[str, str, frozenset[str]]


class Walk:
    """What one walk saw: ``seen`` (the cache's text), each file's path, each folder's stamp."""

    def __init__(self, seen: bytes, paths: dict[str, str], folders: dict[str, int]) -> None:
        self.seen = seen
        self.paths = paths
        self.folders = folders


def walk(roots: Sequence[RuleRoot]) -> Walk:
    """Stat every memory file under ``roots`` (see the module docstring)."""
    seen: list[str] = []
    paths: dict[str, str] = {}
    folders: dict[str, int] = {}
    for scope, root, excluded in roots:
        prefix = f"{scope}:"
        for rel, st in scope_stats(root, excluded, folders=folders):
            # _is_memory and _fields, written out: this loop runs once per file per call.
            if not rel.endswith(".md") or rel == _INDEX_NAME:
                continue
            key = prefix + rel
            seen.append(f"{key}\0{st.st_mtime_ns} {st.st_size} {st.st_ino}\0")
            paths[key] = f"{root}/{rel}"
        folders.setdefault(root, _MISSING)  # not there (yet): its creation is looked for
    return Walk("".join(seen).encode("utf-8", "surrogateescape"), paths, folders)


def stats(seen: bytes) -> dict[str, str]:
    """``scope:rel`` -> ``mtime size inode``, from what a walk saw."""
    fields = seen.decode("utf-8", "surrogateescape").split("\0")
    if len(fields) % 2 == 0:  # damaged (records end in NUL): nothing is known of any file
        return {}
    return dict(zip(fields[0:-1:2], fields[1::2], strict=True))


_SEAL = b'{"check": "'
_SEAL_END = len(_SEAL) + 8
_ACTIONS = ("deny", "ask", "warn")


def sealed(text: str) -> str:
    """A JSON object's ``text`` with a CRC-32 of its members as its first member."""
    rest = text[1:]  # after the opening brace: what the checksum covers
    check = zlib.crc32(rest.encode("utf-8", "surrogatepass"))
    return f'{{"check": "{check:08x}", {rest}'


def unsealed(line: bytes) -> dict[str, Any] | None:
    """The object of a :func:`sealed` line (without its checksum); None when the line
    is not one, or its checksum does not hold."""
    line = line.rstrip(b"\n")
    if not line.startswith(_SEAL) or line[_SEAL_END : _SEAL_END + 3] != b'", ':
        return None
    digits = line[len(_SEAL) : _SEAL_END]
    if not digits.isalnum() or zlib.crc32(line[_SEAL_END + 3 :]) != _hex(digits):
        return None
    try:
        data = loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    data.pop("check", None)
    return data


def _hex(digits: bytes) -> int:
    try:
        return int(digits, 16)
    except ValueError:
        return -1


def file_damage(path: str) -> str | None:
    """What is wrong with a file whose first line is :func:`sealed` (the rule cache, a
    hook memo); None when it is absent or whole. A whole line of another version
    (unsealed JSON naming its version) is no damage: its next use replaces it."""
    if not os.path.lexists(path):
        return None
    try:
        with open_regular(path) as handle:
            line = handle.readline()
    except OSError as exc:
        return f"not readable ({type(exc).__name__})"
    if unsealed(line) is not None:
        return None
    try:
        older = loads(line)
    except ValueError:
        older = None
    if isinstance(older, dict) and "check" not in older and "version" in older:
        return None
    return "cut short or changed: its checksum does not hold"


def open_regular(path: str) -> Any:
    """``path`` opened for reading in binary, when it is a regular file (a FIFO in a
    derived file's place would block the hook, a folder cannot be read); raises OSError."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not S_ISREG(os.fstat(fd).st_mode):
            raise IsADirectoryError(path)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read(path: str) -> tuple[dict[str, Any], bytes]:
    """The cached (header, walk); ``({}, b"")`` when absent, damaged or of another version.

    Read together, so that what is written back is a pair one process made.
    """
    try:
        with open_regular(path) as handle:
            head = handle.readline()
            seen = handle.read()
    except OSError:
        return {}, b""
    header = unsealed(head)
    if header is None or header.get("version") != VERSION or not _entries_hold(header):
        return {}, b""
    return header, seen


def _entries_hold(header: dict[str, Any]) -> bool:
    """Whether every entry is shaped as :func:`memdir.enforcement.enforced` writes it.

    The checksum rules out damage; this rules out a header another writer made
    (by hand, another version): its rules are not trusted, they are read again.
    """
    entries = header.get("entries")
    if not isinstance(entries, dict):
        return False
    for key, entry in entries.items():
        if not isinstance(entry, dict) or not key.startswith(("private:", "team:")):
            return False
        if "name" in entry and "rules" not in entry:
            return False  # a memory read whole always lists its rules, if only []
        rules = entry.get("rules", [])
        problems = entry.get("problems", [])
        if not isinstance(rules, list) or not isinstance(problems, list):
            return False
        if not all(_rule_holds(rule) for rule in rules):
            return False
    return True


def _rule_holds(rule: object) -> bool:
    if not isinstance(rule, dict) or rule.get("action") not in _ACTIONS:
        return False
    texts = [rule.get(k, "") for k in ("tool", "match", "command", "args")]
    return all(isinstance(t, str) for t in texts) and bool(texts[0]) and bool(texts[1] or texts[2])


def write(path: str, header: dict[str, Any], seen: bytes) -> None:
    """Replace the cache (atomically); a state folder that cannot be written is left be."""
    # Imported here: the cache is rewritten only when something changed.
    import json
    from pathlib import Path

    from memdir.enforcement.rule_gate import gate_of
    from memdir.storage.fs import atomic_write, ensure_dir

    gate = gate_of(header_rules(header))  # written with the rules: no call derives it again
    # JSON escapes line breaks: the header stays one line.
    head = sealed(json.dumps({**header, "gate": gate, "version": VERSION}))
    target = Path(path)
    try:
        ensure_dir(target.parent)
        if not os.path.isfile(target) and os.path.lexists(target):
            from memdir.storage.derived import set_aside

            # A folder (or link) in the cache's place would make every call walk and
            # compile again: it is moved aside, kept, and the cache written.
            set_aside(target)
        atomic_write(target, head.encode("utf-8") + b"\n" + seen)
    except OSError:
        pass  # a read-only state folder: the rules are still right, only slower next time


def header_for(
    roots: Sequence[RuleRoot],
    done: Walk,
    entries: dict[str, Any],
    touched: Sequence[str],
    tokens: list[str] | None = None,
) -> dict[str, Any]:
    """The header after a walk, with the watch's ``tokens`` asked before it; a large
    store's also holds what calls until the next check."""
    header: dict[str, Any] = {
        "entries": entries,
        "roots": _roots_text(roots),
        "files": len(done.paths),
    }
    if tokens is not None:
        header["tokens"] = tokens
    if len(done.paths) <= LARGE_STORE:
        return header  # every call walks: nothing to watch
    watch = {key: _stat_text(_path(roots, key)) for key in [*entries, *_keys(roots, touched)]}
    return {**header, "walked_at": time.time(), "folders": done.folders, "watch": watch}


def between_walks(
    header: dict[str, Any],
    roots: Sequence[RuleRoot],
    touched: Sequence[str],
    reread: Callable[[str], dict[str, Any]],
) -> bool | None:
    """Bring ``header`` up to date without a walk; None when a walk is due.

    Returns whether the header changed (to be written back). ``reread``
    gives the entry of a file whose stat moved.
    """
    if not _may_skip_walk(header, roots):
        return None
    for folder, stamp in header["folders"].items():
        try:
            mtime = os.stat(folder).st_mtime_ns
        except OSError:
            if stamp == _MISSING:
                continue
            return None
        if stamp < 0 or mtime != stamp:
            return None
    watch: dict[str, str] = header["watch"]
    entries: dict[str, Any] = header["entries"]
    changed = False
    for key in _keys(roots, touched):
        if key not in watch:  # aimed at by an edit tool: its next state is looked for
            watch[key] = _stat_text(_path(roots, key))
            changed = True
    for key, before in list(watch.items()):
        path = _path(roots, key)
        now = _stat_text(path)
        if now == before:
            continue
        entry = reread(path) if now else {}
        if entry.get("rules") or entry.get("problems"):
            entries[key] = entry
        else:
            entries.pop(key, None)
        watch[key] = now
        changed = True
    return changed


class _Moved(Exception):
    """A watched file changed: the cache is behind (see :func:`current_header`)."""


def _moved(path: str) -> dict[str, Any]:
    raise _Moved(path)


def current_header(
    roots: Sequence[RuleRoot],
    cache_file: str,
    touched: Sequence[str] = (),
    ask: Callable[[], list[str] | None] | None = None,
) -> tuple[dict[str, Any] | None, list[str] | None]:
    """The cached header when it matches the files (else None), and the watch's tokens.

    ``ask`` gives the folder watch's tokens (see the module docstring); it is
    called, once, before any walk, when the cache holds at least
    :data:`WATCH_FROM` files. Tokens the same as the cached ones mean no walk.
    A cache that is behind (or absent) is brought up to date by
    :func:`memdir.enforcement.enforced.load_rules_at`, which the caller then runs
    with the tokens returned here; this function writes only new tokens, when
    its walk found the files as cached. A large store's walk is dated in the
    cache, so a due walk is also left to that function.
    """
    header, seen = read(cache_file)
    if not header:
        return None, None
    tokens = ask() if ask is not None and _files(header) >= WATCH_FROM else None
    same_roots = header.get("roots") == _roots_text(roots)
    if tokens is not None:
        if not same_roots:
            return None, tokens
        if header.get("tokens") == tokens:
            return header, tokens  # nothing under the folders changed since the cached walk
        done = walk(roots)
        if done.seen != seen:
            return None, tokens
        write(cache_file, {**header, "tokens": tokens}, seen)
        return header, tokens
    try:
        changed = between_walks(header, roots, touched, _moved)
    except _Moved:
        return None, None
    if changed:
        return None, None
    if changed is None:
        done = walk(roots)
        if done.seen != seen or len(done.paths) > LARGE_STORE or not same_roots:
            return None, None
    return header, None


def _files(header: dict[str, Any]) -> int:
    files = header.get("files")
    return files if isinstance(files, int) else 0


def header_rules(header: dict[str, Any]) -> list[dict[str, Any]]:
    """Every rule a header holds, as written in the memories."""
    rules: list[dict[str, Any]] = []
    for entry in header["entries"].values():
        found = entry.get("rules") if isinstance(entry, dict) else None
        if isinstance(found, list):
            rules += [rule for rule in found if isinstance(rule, dict)]
    return rules


def header_gate(header: dict[str, Any]) -> list[list[Any]]:
    """The gate of a header's rules (:func:`memdir.enforcement.rule_gate.gate_of`), as written
    with them; worked out again when it is missing, malformed, or not one entry per rule
    (a gate that left a rule out would let its calls through unjudged)."""
    gate = header.get("gate")
    rules = header_rules(header)
    if (
        isinstance(gate, list)
        and len(gate) == len(rules)
        and all(_gate_entry(entry, rule) for entry, rule in zip(gate, rules, strict=True))
    ):
        return gate
    from memdir.enforcement.rule_gate import gate_of

    return gate_of(rules)


def _gate_entry(entry: object, rule: dict[str, Any]) -> bool:
    if not isinstance(entry, list) or len(entry) != 3:
        return False
    tool, kind, texts = entry
    return (
        tool == rule.get("tool")
        and kind == ("command" if rule.get("command") else "match")
        and (texts is None or (isinstance(texts, list) and all(isinstance(t, str) for t in texts)))
    )


def _may_skip_walk(header: dict[str, Any], roots: Sequence[RuleRoot]) -> bool:
    files, walked, folders, watch = (
        header.get(k) for k in ("files", "walked_at", "folders", "watch")
    )
    return (
        isinstance(files, int)
        and files > LARGE_STORE
        and isinstance(walked, int | float)
        and 0 <= time.time() - walked < WALK_EVERY
        and isinstance(folders, dict)
        and bool(folders)
        and all(isinstance(v, int) for v in folders.values())
        and isinstance(watch, dict)
        and all(isinstance(v, str) for v in watch.values())
        and header.get("roots") == _roots_text(roots)
    )


def _roots_text(roots: Sequence[RuleRoot]) -> list[list[Any]]:
    return [[str(scope), root, sorted(excluded)] for scope, root, excluded in roots]


def _path(roots: Sequence[RuleRoot], key: str) -> str:
    scope, _, rel = key.partition(":")
    for root_scope, root, _ in roots:
        if root_scope == scope:
            return f"{root}/{rel}"
    return ""


def _keys(roots: Sequence[RuleRoot], touched: Sequence[str]) -> list[str]:
    """The keys of the memory files among ``touched`` (absolute, resolved paths)."""
    keys = []
    for path in touched:
        for scope, root, excluded in roots:
            real = os.path.realpath(root)
            if not path.startswith(real + os.sep):
                continue
            rel = path[len(real) + 1 :].replace(os.sep, "/")
            if _is_memory(rel) and in_scope(rel, excluded):
                keys.append(f"{scope}:{rel}")
                break
    return keys


def _stat_text(path: str) -> str:
    """The file's ``mtime size inode`` as a walk records it; ``""`` when it is not a file."""
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return ""
    return _fields(st) if S_ISREG(st.st_mode) else ""  # not a link, not a folder


def _fields(st: os.stat_result) -> str:
    """What the cache keeps of a file's stat: ``mtime size inode``."""
    return f"{st.st_mtime_ns} {st.st_size} {st.st_ino}"


def _is_memory(rel: str) -> bool:
    """Whether a file the walk reaches is a memory (rules live in memories only)."""
    return rel.endswith(".md") and rel != _INDEX_NAME
