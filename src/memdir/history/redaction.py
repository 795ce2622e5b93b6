"""Redaction: a version's text removed from every copy memdir keeps.

A secret saved in a memory is in more places than its version's blob:

- the history: the blob, and every version that held the same bytes (the
  next change's "before"), with a note's sidecar blobs beside them; the index
  lines those changes wrote (each version's hunk), whole copies of
  ``MEMORY.md`` (a consolidation's snapshot, a repair's version); and, when
  the memory's name or file name held it, the name and file columns of every
  version that names them;
- the trash: the copies a delete or a replace moved there;
- the enforced-rule cache, which names memory files and the rules' memories;
- the search catalog, above this room: the facade asks it to forget
  (:meth:`memdir.search.catalog.Catalog.forget`).

The name, the description and the file name are each taken as the redacted
text has them, and scrubbed unless a text that stays has them too (a version
that keeps its text names the same memory or file, the memory as it is now,
the other text of a version that lost one): what the history still holds in
clear elsewhere hides nothing, what only the redacted texts held may be the
secret. An index line is dropped (its hunk side, or the whole copy of the
index) when it links to one of the memory's files and holds one of those
strings, or holds a file name that is scrubbed.

Order, for a second run after a kill: the files (the trash, the rule cache)
go first while the history still says which; one transaction then scrubs the
history; the file is then rewritten (``VACUUM``) and its WAL cut to nothing,
since a freed page or an old WAL frame would still hold the bytes. A second
run of the same redaction finds the history done and repeats the rest.
Versions whose file is scrubbed are named by their id alone afterwards.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.errors import MemdirError
from memdir.history.project import ProjectMemory
from memdir.history.versions import REDACTED, REDACTED_FILE, History, Version, blob_hash, name_key
from memdir.model import Scope
from memdir.storage.fs import read_bytes_nofollow, safe_join
from memdir.storage.memory_index import INDEX_NAME, format_entry
from memdir.utils.records import record

if TYPE_CHECKING:
    import sqlite3

__all__ = ["Forget", "RedactReport", "redact_version"]

Forget = Callable[[frozenset[str]], Sequence[str]]
"""Drops the copies of texts (by blob hash) kept above the history; one line per copy."""

_MARK_CHARS = 24  # how much of a name or description marks its index line (a line cuts them)
# A version's own text: the one it left, or for a delete the one it removed.
_OWN = "coalesce(after, before)"
_KEPT = f"({_OWN} IS NOT NULL AND {_OWN} != '{REDACTED}')"


@record
class RedactReport:
    """What a redact removed, and where else the text may be."""

    version: int
    versions: tuple[int, ...]  # every version whose text was dropped (the same bytes)
    message: str
    removed: tuple[str, ...] = ()  # each copy removed besides the text itself, one a line
    elsewhere: tuple[str, ...] = ()  # where memdir cannot reach and the text may be


@record
class _Plan:
    """What one redaction removes (computed while the history still holds it all)."""

    texts: frozenset[str]  # blob hashes of the text (and a note's sidecar) to drop
    touched: tuple[int, ...]  # versions that held the text
    files: tuple[tuple[Scope, str], ...]  # every file the memory had in those versions
    names: tuple[str, ...]  # name keys no kept text has: scrubbed from every version
    gone_files: tuple[tuple[Scope, str], ...]  # file names no kept text has
    marks: tuple[bytes, ...]  # a name or description, as an index line holds its start


def _fields(text: bytes | None, meta: bytes | None) -> tuple[str, str]:
    """The name and description a text (or its note's sidecar) holds; "" when unreadable."""
    from memdir.storage.codec import parse_frontmatter, parse_memory

    try:
        if meta is not None:
            fields = parse_frontmatter(meta.decode("utf-8", "replace"))
            return str(fields.get("name") or ""), str(fields.get("description") or "")
        if text is None:
            return "", ""
        memory = parse_memory(text.decode("utf-8", "replace"))
    except (MemdirError, ValueError):
        return "", ""
    return memory.name or "", memory.description or ""


def _marks(name: str, description: str) -> list[bytes]:
    """How an index line starts the title and the hook of a memory with these fields."""
    out = []
    if name.strip():
        line = format_entry(name, "x", "")
        out.append(("[" + line[3 : line.rindex("](x)")][:_MARK_CHARS]).encode("utf-8"))
    if description.strip():
        line = format_entry("t", "x", description)
        out.append(line.split(" — ", 1)[-1][:_MARK_CHARS].encode("utf-8"))
    return out


def _links(file: str) -> list[bytes]:
    """How an index line links to ``file``."""
    return [f"({file})".encode(), f"(<{file}>)".encode()]


def _touched(conn: sqlite3.Connection, digest: str) -> list[Version]:
    from memdir.history.table import VERSION_COLUMNS, version_of

    rows = conn.execute(
        f"SELECT {VERSION_COLUMNS} FROM versions WHERE before = ? OR after = ? ORDER BY id",
        (digest, digest),
    )
    return [version_of(row) for row in rows]


def _sidecar_texts(conn: sqlite3.Connection, versions: Sequence[Version], digest: str) -> set[str]:
    """The sidecar blobs that go with ``digest``: those no version keeps with another text."""
    metas = {v.meta_after for v in versions if v.after == digest}
    metas |= {v.meta_before for v in versions if v.before == digest}
    dropped = set()
    for meta in metas - {None, REDACTED}:
        assert meta is not None
        kept = conn.execute(
            "SELECT 1 FROM versions WHERE (meta_before = ? AND coalesce(before, '') != ?) "
            "OR (meta_after = ? AND coalesce(after, '') != ?) LIMIT 1",
            (meta, digest, meta, digest),
        ).fetchone()
        if kept is None:
            dropped.add(meta)
    return dropped


def _kept_texts(history: History, versions: Sequence[Version], digest: str) -> list[bytes]:
    """The texts that stay beside ``digest`` in the versions that held it."""
    out = []
    for v in versions:
        for other in (v.before, v.after):
            if other not in (None, REDACTED, digest):
                data = history.blob(other)
                if data is not None:
                    out.append(data)
    return out


def _plan(memdir: ProjectMemory, history: History, chosen: Version) -> _Plan | None:
    """What redacting ``chosen`` removes; None when its text is gone already."""
    digest = chosen.after if chosen.after is not None else chosen.before
    if digest is None or digest == REDACTED:
        return None
    conn = history._conn()
    versions = _touched(conn, digest)
    metas = _sidecar_texts(conn, versions, digest)
    texts = frozenset({digest} | metas)
    meta = next((history.blob(m) for m in metas), None)
    name, description = _fields(history.blob(digest), meta)
    files = tuple(dict.fromkeys((v.scope, f) for v in versions for f in (v.file, v.old_file) if f))
    kept_names, kept_descriptions = _current_fields(memdir, files)
    for data in _kept_texts(history, versions, digest):
        other_name, other_description = _fields(data, None)
        kept_names.add(name_key(other_name) or "")
        kept_descriptions.add(other_description)
    key = name_key(name)
    names = () if not key or key in kept_names or _name_kept(conn, key, texts) else (key,)
    gone_files = tuple(f for f in files if not _file_kept(memdir, conn, f, texts))
    marks = _marks(name if names else "", "" if description in kept_descriptions else description)
    return _Plan(
        texts=texts,
        touched=tuple(v.id for v in versions),
        files=files,
        names=names,
        gone_files=gone_files,
        marks=tuple(marks),
    )


def _current_fields(
    memdir: ProjectMemory, files: Iterable[tuple[Scope, str]]
) -> tuple[set[str], set[str]]:
    """The name keys and descriptions the memory's files hold now."""
    names, descriptions = set(), set()
    for scope, file in files:
        found = memdir.store(scope).find(file)
        if found is not None and found.file == file:
            names.add(name_key(found.memory.name) or "")
            descriptions.add(found.memory.description)
    return names, descriptions


def _not_these(texts: frozenset[str]) -> tuple[str, list[str]]:
    marks = ",".join("?" * len(texts))
    return f"{_KEPT} AND {_OWN} NOT IN ({marks})", sorted(texts)


def _name_kept(conn: sqlite3.Connection, key: str, texts: frozenset[str]) -> bool:
    clause, args = _not_these(texts)
    sql = f"SELECT 1 FROM versions WHERE name_key = ? AND {clause} LIMIT 1"
    return conn.execute(sql, [key, *args]).fetchone() is not None


def _file_kept(
    memdir: ProjectMemory, conn: sqlite3.Connection, ref: tuple[Scope, str], texts: frozenset[str]
) -> bool:
    scope, file = ref
    with contextlib.suppress(MemdirError, OSError):
        if os.path.lexists(safe_join(memdir.store(scope).root, file)):
            return True
    clause, args = _not_these(texts)
    for column in ("file", "old_file"):
        sql = f"SELECT 1 FROM versions WHERE scope = ? AND {column} = ? AND {clause} LIMIT 1"
        if conn.execute(sql, [scope.value, file, *args]).fetchone() is not None:
            return True
    return False


# -- what an index copy holds ----------------------------------------------------------------


def _holds(data: bytes | None, plan: _Plan) -> bool:
    """Whether index text ``data`` has a line of this memory holding a scrubbed string."""
    if not data:
        return False
    gone = [m for _, f in plan.gone_files for m in _links(f)]
    links = [m for _, f in plan.files for m in _links(f)]
    for line in data.split(b"\n"):
        if any(m in line for m in gone):
            return True
        if plan.marks and any(m in line for m in links) and any(m in line for m in plan.marks):
            return True
    return False


def _hunk_sides(conn: sqlite3.Connection, plan: _Plan, digest: str) -> list[tuple[int, str]]:
    """(version, "index_old" / "index_new") of each hunk side to drop."""
    sides = []
    for vid, before, after in conn.execute(
        "SELECT id, before, after FROM versions WHERE before = ? OR after = ?", (digest, digest)
    ):
        if after == digest:
            sides.append((vid, "index_new"))
        if before == digest:
            sides.append((vid, "index_old"))
    if not plan.marks and not plan.gone_files:
        return sides
    links = [m for _, f in plan.files for m in _links(f)]
    where = " OR ".join("instr(index_old, ?) OR instr(index_new, ?)" for _ in links)
    sql = f"SELECT id, index_old, index_new FROM versions WHERE index_at IS NOT NULL AND ({where})"
    for vid, old, new in conn.execute(sql, [m for m in links for _ in (0, 1)]):
        if _holds(None if old is None else bytes(old), plan):
            sides.append((vid, "index_old"))
        if _holds(None if new is None else bytes(new), plan):
            sides.append((vid, "index_new"))
    return sides


def _index_copies(history: History, plan: _Plan) -> set[str]:
    """Blob hashes of whole ``MEMORY.md`` copies (snapshots, repairs) that hold a line to drop."""
    if not plan.marks and not plan.gone_files:
        return set()
    conn = history._conn()
    hashes = {h for (h,) in conn.execute("SELECT DISTINCT hash FROM snapshots") if h}
    for before, after in conn.execute(
        "SELECT before, after FROM versions WHERE file = ?", (INDEX_NAME,)
    ):
        hashes |= {h for h in (before, after) if h}
    return {h for h in hashes - {REDACTED} if _holds(history.blob(h), plan)}


# -- the files: trash and rule cache -------------------------------------------------------


def _walk(folder: Path) -> Iterator[Path]:
    if not folder.is_dir():
        return
    for top, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(top, d))]
        for name in names:
            yield Path(top) / name


def _trash_name_gone(rel: Sequence[str], plan: _Plan) -> bool:
    """Whether a trash path (``<day>/<scope>/<file>``) names a scrubbed file."""
    if len(rel) < 3:
        return False
    scope, file = rel[1], "/".join(rel[2:])
    for gone_scope, gone in plan.gone_files:
        stem = gone.removesuffix(".md")
        if scope == gone_scope.value and (file == gone or file.startswith(f"{stem}.")):
            return True
    return False


def _drop_trash(trash: Path, plan: _Plan) -> list[str]:
    """Delete the trash copies of the text (by their bytes) or of a scrubbed file (by name)."""
    removed = []
    for path in _walk(trash):
        rel = path.relative_to(trash).parts
        try:
            data = read_bytes_nofollow(path)
        except (OSError, MemdirError):
            continue
        if blob_hash(data) in plan.texts or _trash_name_gone(rel, plan):
            path.unlink(missing_ok=True)
            removed.append(path.relative_to(trash.parent).as_posix())
            _drop_empty(path.parent, trash)
    return removed


def _drop_empty(folder: Path, top: Path) -> None:
    while folder != top and top in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _drop_rule_cache(memdir: ProjectMemory, plan: _Plan) -> list[str]:
    """Delete the enforced-rule cache when it names the memory (it is rebuilt on the next
    tool call: derived state)."""
    from memdir.enforcement.enforced import cache_path

    path = cache_path(memdir.layout)
    try:
        data = path.read_bytes()
    except OSError:
        return []
    strings = [f.encode() for _, f in plan.gone_files] + list(plan.marks)
    if not any(s and s in data for s in strings):
        return []
    path.unlink(missing_ok=True)
    return [f"the enforced-rule cache ({path.name}), rebuilt on the next tool call"]


# -- the history ---------------------------------------------------------------------------


def _scrub(history: History, plan: _Plan, digest: str) -> list[str]:
    """One transaction: the text, its index lines and the scrubbed names and files."""
    said = []
    copies = _index_copies(history, plan)
    with history._transaction() as conn:
        sides = _hunk_sides(conn, plan, digest)
        for vid, side in sides:
            conn.execute(f"UPDATE versions SET {side} = NULL, redacted = 1 WHERE id = ?", (vid,))
        gone = sorted(plan.texts | copies)
        for column in ("before", "after", "meta_before", "meta_after"):
            conn.executemany(
                f"UPDATE versions SET {column} = ?, redacted = 1 WHERE {column} = ?",
                [(REDACTED, h) for h in gone],
            )
        conn.executemany(
            "UPDATE snapshots SET hash = ? WHERE hash = ?", [(REDACTED, h) for h in gone]
        )
        conn.executemany("DELETE FROM blobs WHERE hash = ?", [(h,) for h in gone])
        named = 0
        for key in plan.names:
            named += conn.execute(
                "UPDATE versions SET name = NULL, name_key = NULL, redacted = 1 WHERE name_key = ?",
                (key,),
            ).rowcount
        for scope, file in plan.gone_files:
            for column in ("file", "old_file"):
                named += conn.execute(
                    f"UPDATE versions SET {column} = ?, redacted = 1 "
                    f"WHERE scope = ? AND {column} = ?",
                    (REDACTED_FILE, scope.value, file),
                ).rowcount
    if sides:
        said.append(f"history: {len({v for v, _ in sides})} index line edit(s) that held it")
    if copies:
        said.append(f"history: {len(copies)} copy(ies) of MEMORY.md that held it")
    if named:
        said.append(f"history: the name or file name in {named} version record(s)")
    return said


def _compact(memdir: ProjectMemory, history: History) -> list[str]:
    """Rewrite the history without free pages and cut its WAL, and the index key tables'
    likewise (they name the memory's file): no freed byte stays readable."""
    said = _vacuumed(history._conn(), history.path)
    for scope in (Scope.PRIVATE, Scope.TEAM):
        keys = memdir.store(scope)._keys_db
        if keys is not None and keys.is_file():
            import sqlite3

            with contextlib.closing(sqlite3.connect(keys, timeout=30, isolation_level=None)) as db:
                said += _vacuumed(db, keys)
    return said


def _vacuumed(conn: sqlite3.Connection, path: Path) -> list[str]:
    conn.execute("PRAGMA secure_delete = ON")
    conn.execute("VACUUM")
    busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    if busy:
        return [
            f"the write-ahead log {path.name}-wal is in use by another memdir process and may "
            "still hold the text: run the same redact again once it has ended"
        ]
    return []


# -- the verb --------------------------------------------------------------------------------


def redact_version(
    memdir: ProjectMemory, chosen: Version, *, also: Forget | None = None
) -> RedactReport:
    """Remove the text ``chosen`` left (or removed) from every copy memdir keeps.

    ``also`` is told the blob hashes of the texts going (before the history
    forgets them) and drops the copies kept above this room (consolidation
    proposals), answering one line per copy. Refuses the text a memory holds
    now (change or remove it first) and runs while no undo or approval is under
    way (their plans name the texts). Running it again (after a kill) finishes
    what is left.
    """
    history = memdir.history_db
    if history is None:
        raise MemdirError("history is off for this project: there is nothing to redact")
    if history.has_intents():
        raise MemdirError(
            "an undo or a review approval is under way (cut short): redact waits for it",
            hint="finish it with `memdir undo` (or `memdir review approve`), then redact",
        )
    _refuse_current(memdir, chosen)
    removed: list[str] = []
    store = memdir.store(chosen.scope)
    with store.lock():
        plan = _plan(memdir, history, chosen)
        if plan is not None:
            digest = chosen.after if chosen.after is not None else chosen.before
            assert digest is not None
            trashed = _drop_trash(memdir.layout.trash_dir, plan)
            removed += [f"trash: deleted {path}" for path in trashed]
            removed += _drop_rule_cache(memdir, plan)
            if also is not None:
                removed += also(plan.texts)
            removed = _scrub(history, plan, digest) + removed
    warnings = _compact(memdir, history)
    return _report(chosen, plan, removed + warnings)


def _refuse_current(memdir: ProjectMemory, chosen: Version) -> None:
    if chosen.after in (None, REDACTED) or chosen.file == REDACTED_FILE:
        return
    store = memdir.store(chosen.scope)
    try:
        path = safe_join(store.root, chosen.file)
        now = read_bytes_nofollow(path)
    except (MemdirError, OSError):
        return  # gone (or not a file memdir reads): not what the memory holds now
    if blob_hash(now) == chosen.after:
        raise MemdirError(
            f"version {chosen.id} is what {chosen.scope.value}:{chosen.file} holds now",
            path=path,
            hint="change the memory (`memdir edit`) or remove it (`memdir rm`) first, "
            "then redact this version",
        )


def _elsewhere() -> list[str]:
    return [
        "the transcripts of the sessions that wrote or read it (kept by the agent, "
        "e.g. ~/.claude/projects/): delete those sessions if it was a secret",
        "backups or copies of the memory home, and the daily logs if it was logged",
    ]


def _report(chosen: Version, plan: _Plan | None, removed: list[str]) -> RedactReport:
    version = chosen.id
    if plan is None:
        message = f"version {version} holds no text any more (redacted already)"
        touched: tuple[int, ...] = ()
    else:
        touched = plan.touched
        message = f"removed the text of version {version} from memdir's history"
        others = [str(t) for t in touched if t != version]
        if others:
            label = "version" if len(others) == 1 else "versions"
            message += f" (and from {label} {', '.join(others)}, which held the same text)"
    if chosen.scope is Scope.TEAM:
        message += (
            ". Team memory is also a git repository, which redact does not rewrite: if the "
            "text was committed but not pushed, run `memdir team rewrite-unpushed`; if it was "
            "pushed, it stays in the remote's history and in every teammate's clone (and "
            "their memdir history), since memdir never rewrites what was published: purge it "
            "there, ask them to redact it too, and rotate the secret"
        )
    return RedactReport(
        version=version,
        versions=touched,
        message=message,
        removed=tuple(removed),
        elsewhere=tuple(_elsewhere()),
    )
