"""doctor's look at derived state: the catalog, its journal, the caches, the root record.

Everything under ``.memdir/`` is made from the memory files; when it is
damaged memdir goes on (a write whose journal cannot be written still saves)
but gets slower or blind (search fails, every tool call recompiles its
rules). :func:`check_state` reports each damaged piece, and with ``fix``
repairs it: a folder, link or FIFO where a file belongs is moved into
``.memdir/set-aside/`` (kept, never deleted: it may hold someone's files); a
file SQLite or JSON cannot read is deleted and made again (the catalog is
rebuilt from the files at once, the caches on their next use).

The project folder's root record (``.memdir-root``) is checked too: a damaged
one makes every command refuse the folder, so ``--fix`` writes this
project's root in it again.

So are the files the pre-tool-use hook reads on every tool call: the rule
cache and the hook memos (where each folder's memory lives,
``<memdir home>/state/hooks/``). Both are sealed with a checksum
(:func:`memdir.enforcement.rule_cache.sealed`): one that does not hold is
damaged, and ``--fix`` removes it (the next tool call makes it again). The
hook never takes a damaged one for its rules, so this is about speed and
about saying what happened, not about the rules in force.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from memdir.enforcement.enforced import CACHE_NAME
from memdir.enforcement.rule_cache import file_damage
from memdir.search.catalog import Catalog
from memdir.search.schema import CATALOG_NAME, SCHEMA_VERSION
from memdir.storage.derived import is_misplaced, set_aside
from memdir.storage.fs import remove_database
from memdir.storage.journal import JOURNAL_NAME
from memdir.storage.paths import ROOT_RECORD, Layout

__all__ = ["StateFinding", "check_state"]

DAMAGED_STATE = "damaged-state"


@dataclass(frozen=True, kw_only=True)
class StateFinding:
    """A damaged piece of derived state (or the root record); ``path`` is absolute."""

    problem: str
    path: str
    message: str
    fixed: bool = False
    info: bool = False  # reported, never a failure


def _sqlite_damage(path: Path, *, version: int | None = None) -> str | None:
    """Why SQLite cannot use the database at ``path`` (None: it can, or it is absent)."""
    if not path.is_file():
        return None
    try:
        # Read-write (never creating): a write-ahead log left by a process that was
        # killed is replayed, where a read-only connection cannot and says "readonly".
        conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=5.0)
    except sqlite3.Error as exc:
        return str(exc)
    try:
        found = conn.execute("PRAGMA user_version").fetchone()[0]
        check = conn.execute("PRAGMA quick_check").fetchone()[0]
        empty = not conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.Error as exc:
        return str(exc)
    finally:
        conn.close()
    if check != "ok":
        return f"SQLite's check says: {check}"
    if version is not None and found != version and not empty:
        # (an empty file is one whose creator stopped before it made anything: the
        # next open builds it, so it is no damage)
        return f"schema version {found}, expected {version}"
    return None


def _vector_damage(path: Path) -> str | None:
    if not path.is_file():
        return None
    from memdir.search.vectors.vector_file import PAGE_ROWS, Damaged, read_file

    try:
        with open(path, "rb") as handle:
            read_file(handle, page_rows=PAGE_ROWS)
    except (OSError, Damaged) as exc:
        return str(exc) if isinstance(exc, Damaged) else f"not readable ({type(exc).__name__})"
    return None


def _json_damage(path: Path) -> str | None:
    if not path.is_file():
        return None
    try:
        with open(path, "rb") as handle:
            head = handle.readline()  # the rule cache is a JSON line, then text
        data = json.loads(head) if head.strip() else None
    except (OSError, ValueError) as exc:
        return f"not readable as JSON ({type(exc).__name__})"
    return None if isinstance(data, dict) else "not a JSON object"


def _sealed_damage(path: Path) -> str | None:
    return file_damage(str(path)) if path.is_file() else None


@dataclass(frozen=True, kw_only=True)
class _Piece:
    name: str  # relative to the state folder
    what: str  # for the message
    damage: Callable[[Path], str | None] | None = None
    rebuild: bool = False  # the catalog: rebuilt at once


def _pieces() -> list[_Piece]:
    catalog_damage = partial(_sqlite_damage, version=SCHEMA_VERSION)
    pieces = [
        _Piece(name=CATALOG_NAME, what="the search catalog", damage=catalog_damage, rebuild=True),
        _Piece(name=f"{CATALOG_NAME}-wal", what="the search catalog's WAL", rebuild=True),
        _Piece(name=f"{CATALOG_NAME}-shm", what="the search catalog's shared memory"),
        _Piece(
            name=str(Path(CATALOG_NAME).with_suffix(".vectors")),
            what="the search catalog's vector index",
            damage=_vector_damage,
        ),
        _Piece(name=JOURNAL_NAME, what="the search catalog's journal"),
        _Piece(name=f"{JOURNAL_NAME}.lock", what="the journal's lock"),
        _Piece(name=CACHE_NAME, what="the enforced rules' cache", damage=_sealed_damage),
    ]
    for scope in ("private", "team"):
        pieces += [
            _Piece(name=f"{scope}.keys.sqlite", what="the index key table", damage=_sqlite_damage),
            _Piece(name=f"{scope}.keys.sqlite-wal", what="the index key table's WAL"),
            _Piece(name=f"{scope}.counts.json", what="the file counts", damage=_json_damage),
        ]
    return pieces


def check_state(
    layout: Layout, *, fix: bool = False, memdir_home: Path | None = None
) -> list[StateFinding]:
    """Damaged derived state and root record of ``layout``'s project; repaired with ``fix``.

    ``memdir_home`` is memdir's own home, where the hook memos live (the memory
    home, ``layout.home``, unless a profile keeps memory elsewhere). The copies
    ``memdir edit`` left (an interrupted edit) are listed for information: they
    are someone's text, never removed.
    """
    memos = _memo_findings(memdir_home or layout.home, fix=fix)
    out = _root_findings(layout, fix=fix) + _edit_copies(layout) + memos
    state = layout.state_dir
    if is_misplaced(state) and not state.is_dir():
        out.append(_found(state, "the state folder is not a folder", fix, lambda: set_aside(state)))
        return out
    rebuild = False
    for piece in _pieces():
        path = state / piece.name
        if is_misplaced(path):
            kind = "a folder" if path.is_dir() else "not a regular file"
            message = f"{piece.what} is {kind}: memdir cannot write it"
            out.append(_found(path, message, fix, partial(set_aside, path)))
            rebuild = rebuild or piece.rebuild
            continue
        why = piece.damage(path) if piece.damage is not None else None
        if why is not None:
            out.append(_found(path, f"{piece.what} is damaged ({why})", fix, partial(_drop, path)))
            rebuild = rebuild or piece.rebuild
    locks = layout.lock_dir
    if os.path.lexists(locks) and not locks.is_dir():
        out.append(_found(locks, "the lock folder is a file", fix, lambda: set_aside(locks)))
    if fix and rebuild:
        with Catalog.open(layout) as catalog:
            catalog.rebuild()
    return out


# Where the pre-tool-use hook keeps its memos, under memdir's home (memdir.hooks.memo).
_MEMO_FOLDER = ("state", "hooks")
_MEMO_WHAT = "the hook memo (where the pre-tool-use hook finds a folder's memory)"


def _memo_findings(home: Path, *, fix: bool) -> list[StateFinding]:
    """The damaged hook memos: each names where one folder's rules live."""
    folder = home.joinpath(*_MEMO_FOLDER)
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.iterdir()):
        if not _is_memo_name(path.name):
            continue
        if is_misplaced(path):
            message = f"{_MEMO_WHAT} is not a regular file"
            out.append(_found(path, message, fix, partial(set_aside, path)))
        elif (why := file_damage(str(path))) is not None:
            message = f"{_MEMO_WHAT} is damaged ({why})"
            out.append(_found(path, message, fix, partial(_drop, path)))
    return out


def _is_memo_name(name: str) -> bool:
    stem, dot, suffix = name.partition(".")
    return (
        dot == "."
        and suffix == "json"
        and len(stem) == 16
        and all(c in "0123456789abcdef" for c in stem)
    )


def _edit_copies(layout: Layout) -> list[StateFinding]:
    folder = layout.edits_dir
    if not folder.is_dir():
        return []
    return [
        StateFinding(
            problem="edit-copy",
            path=str(path),
            message="is the copy of an edit that was interrupted (or is still open): compare "
            "it with the memory, keep what you want, then delete it",
            info=True,
        )
        for path in sorted(folder.iterdir())
        if path.is_file()
    ]


def _drop(path: Path) -> None:
    if path.suffix in (".sqlite", ".sqlite3"):
        remove_database(path)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _found(path: Path, message: str, fix: bool, repair: Callable[[], object]) -> StateFinding:
    done = ""
    if fix:
        moved = repair()
        where = f"moved to {moved}; " if isinstance(moved, Path) else ""
        done = f" ({where}made again from the memory files)"
    else:
        message += "; `memdir doctor --fix` repairs it"
    return StateFinding(problem=DAMAGED_STATE, path=str(path), message=message + done, fixed=fix)


def _root_findings(layout: Layout, *, fix: bool) -> list[StateFinding]:
    record = layout.project_dir / ROOT_RECORD
    try:
        recorded: bytes | None = record.read_bytes().strip()
    except FileNotFoundError:
        return []
    except IsADirectoryError:
        recorded = None
    damage = layout.root_record_damage(recorded)
    if damage is None:
        return []
    message = f"the project folder's root record is damaged: {damage}"
    if fix:
        layout.claim(repair=True)
        message += f" (now records {str(layout.project_root)!r})"
    else:
        message += "; every command refuses the folder until `memdir doctor --fix` repairs it"
    return [StateFinding(problem="damaged-root", path=str(record), message=message, fixed=fix)]
