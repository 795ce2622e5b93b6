"""doctor: find, and where it is safe, repair what agents break.

Agents save a memory in two steps (write the file, add the index line) and
sometimes stop after one. doctor compares each scope's files with its index
and reports orphan files, dangling pointers, duplicate lines, over-long
lines, entries that truncation would drop, unparseable files, missing or
unknown types, memories in a scope they do not belong to, and (on request)
memories whose claims about the code have drifted. A pinned memory whose
index line a session start leaves out all the same (the pinned lines alone
exceed its room, or the client loads the index itself) is a finding too. A
``[[name]]`` link to a memory not written yet is listed for information
(``unwritten-link``): Claude Code's own prompt asks for such links, so it
never makes the report fail.

A memory folder (or index) memdir cannot write is a finding too
(``read-only``): agents told to save there would fail at every write. Each
finding carries the step that settles it (:attr:`Finding.fix`).

``fix=True`` repairs only the index: it adds missing lines (for files that
parse: a file memdir cannot read gets no line), drops dangling
and duplicate ones, and shortens long ones. It never deletes, moves or
rewrites a memory file. The repair runs under the scope's lock and reads the
folder and the index again inside it, so a memory written meanwhile is never
dropped from the index. It also reports the temp files a killed writer left
(``.<name>.<random>.tmp``, beside the file or in the scope's ``.staging/``)
and, with ``fix``, removes those older than a minute (younger ones may belong
to a write in progress). Derived state (catalog, journal, caches) and the
root record are checked by :mod:`memdir.recall.state_check`.

A drift check records its result per memory (:mod:`memdir.recall.freshness`).
With ``notices``, the report also counts what waits for a person, each with
the command that settles it (:mod:`memdir.recall.doctor_notices`): information,
never a failure.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from memdir.config import memdir_home
from memdir.errors import MemdirError
from memdir.history.project import ProjectMemory
from memdir.model import FrontmatterStyle, MemoryRecord, MemoryType, Scope
from memdir.recall.doctor_notices import Notice, notices
from memdir.recall.drift import DriftChecker, find_claims
from memdir.recall.freshness import forget_missing, record_checks
from memdir.recall.index_budget import hidden_files, pins_lift
from memdir.recall.start_index import StartView, start_view
from memdir.recall.state_check import StateFinding, check_state
from memdir.recall.team_index import left_out
from memdir.storage.codec import memory_from_fields, read_frontmatter_head
from memdir.storage.fs import TEMP_PATTERN, atomic_write
from memdir.storage.links import Linkable, LinkIndex, link_targets
from memdir.storage.memory_index import parse_entries, remove_entry, upsert_entry
from memdir.storage.store import MemoryStore
from memdir.storage.store_apply import STAGING_DIR

__all__ = ["TEMP_MIN_AGE", "DoctorReport", "Finding", "Problem", "diagnose"]

# A temp file younger than this may be a write in progress: reported, kept.
TEMP_MIN_AGE = 60.0


class Problem(StrEnum):
    """The kinds of trouble doctor reports."""

    ORPHAN = "orphan"  # a memory file the index does not point at
    DANGLING = "dangling"  # an index line pointing at no file
    DUPLICATE = "duplicate"  # two index lines for one file
    LONG_LINE = "long-line"  # an index line over the length limit
    TRUNCATED = "truncated"  # an entry past the index's load limits
    UNPARSEABLE = "unparseable"  # frontmatter that cannot be read
    MISSING_TYPE = "missing-type"  # legacy file without a type
    UNKNOWN_TYPE = "unknown-type"
    MISSING_FIELD = "missing-field"  # no name or no description
    WRONG_SCOPE = "wrong-scope"  # e.g. a user memory in team memory
    DRIFT = "drift"  # a path or symbol the memory names is gone
    TEMP_FILE = "temp-file"  # left by a writer killed mid-write
    UNWRITTEN_LINK = "unwritten-link"  # a [[name]] no memory answers to yet: information
    NOT_AN_ENTRY = "not-an-entry"  # a team index line that is no entry: kept out of prompts
    PINNED_LEFT_OUT = "pinned-left-out"  # pinned, yet its line does not reach session start
    READ_ONLY = "read-only"  # a memory folder or index memdir cannot write


# The step that settles each kind of finding, for a person reading the report.
_FIXES = {
    Problem.ORPHAN: "memdir doctor --fix adds its index line",
    Problem.DANGLING: "memdir doctor --fix drops the line",
    Problem.DUPLICATE: "memdir doctor --fix keeps one line",
    Problem.LONG_LINE: "memdir doctor --fix shortens it",
    Problem.TRUNCATED: "shorten or merge index lines, or pin it: memdir pin NAME",
    Problem.UNPARSEABLE: "fix its frontmatter: memdir edit FILE (memdir rm FILE removes it)",
    Problem.MISSING_TYPE: "add a type line: memdir edit FILE",
    Problem.UNKNOWN_TYPE: "set type to user, feedback, project or reference: memdir edit FILE",
    Problem.MISSING_FIELD: "add the missing line: memdir edit FILE",
    Problem.WRONG_SCOPE: "move it to private memory, or change its type: memdir edit FILE",
    Problem.DRIFT: "correct it (memdir edit FILE), or delete it (memdir rm FILE)",
    Problem.TEMP_FILE: "memdir doctor --fix removes it",
    Problem.UNWRITTEN_LINK: "write that memory, or drop the link",
    Problem.NOT_AN_ENTRY: "make it a memory, or remove the line",
    Problem.PINNED_LEFT_OUT: "unpin some (memdir unpin NAME) or shorten their index lines",
    Problem.READ_ONLY: "make it writable (chmod u+w), or move the memory home (MEMDIR_HOME)",
}


_FIXABLE = {
    Problem.ORPHAN,
    Problem.DANGLING,
    Problem.DUPLICATE,
    Problem.LONG_LINE,
    Problem.TEMP_FILE,
}
# Reported, never a failure.
_INFO = {Problem.UNWRITTEN_LINK}


@dataclass(frozen=True, kw_only=True)
class Finding:
    """One problem in one scope; ``file`` is relative to that scope's folder."""

    problem: Problem
    scope: Scope
    file: str | None
    message: str
    fixed: bool = False

    @property
    def fixable(self) -> bool:
        return self.problem in _FIXABLE

    @property
    def info(self) -> bool:
        """Information only: the report is still ok."""
        return self.problem in _INFO

    @property
    def fix(self) -> str:
        """The step that settles this finding (FILE: the finding's file)."""
        return _FIXES[self.problem].replace("FILE", self.file or "FILE")


@dataclass(frozen=True, kw_only=True)
class DoctorReport:
    """Everything doctor found (and fixed), and what waits for a person."""

    findings: tuple[Finding, ...]
    notices: tuple[Notice, ...] = ()
    state: tuple[StateFinding, ...] = ()  # derived state and the root record

    @property
    def ok(self) -> bool:
        return all(f.fixed or f.info for f in self.findings) and all(
            f.fixed or f.info for f in self.state
        )

    def count(self, problem: Problem) -> int:
        return sum(1 for f in self.findings if f.problem is problem)


def _file_findings(store: MemoryStore, records: list[MemoryRecord]) -> list[Finding]:
    out: list[Finding] = []
    for record in records:
        memory, scope = record.memory, store.scope
        if memory.type is None:
            raw = memory.raw_type
            problem = Problem.MISSING_TYPE if raw is None else Problem.UNKNOWN_TYPE
            what = "has no type" if raw is None else f"has unknown type {raw!r}"
            where = "metadata: type:" if memory.style is FrontmatterStyle.CLAUDE else "type:"
            message = f"{what}; add {where} user, feedback, project or reference"
            out.append(Finding(problem=problem, scope=scope, file=record.file, message=message))
        if not memory.name or not memory.description:
            missing = "name" if not memory.name else "description"
            out.append(
                Finding(
                    problem=Problem.MISSING_FIELD,
                    scope=scope,
                    file=record.file,
                    message=f"has no {missing} in its frontmatter",
                )
            )
        if memory.type is MemoryType.USER and scope is Scope.TEAM:
            out.append(
                Finding(
                    problem=Problem.WRONG_SCOPE,
                    scope=scope,
                    file=record.file,
                    message="is a user memory in team memory; user memories are always private",
                )
            )
    return out


def _index_findings(store: MemoryStore, files: set[str], readable: set[str]) -> list[Finding]:
    """The index against the files: ``files`` exist, ``readable`` also parse (only those
    are orphans: a file memdir cannot read gets no index line from a fix)."""
    text, scope = store.read_index(), store.scope
    entries = parse_entries(text)
    out: list[Finding] = []
    counts = Counter(e.file for e in entries)
    for file, n in counts.items():
        if n > 1:
            out.append(
                Finding(
                    problem=Problem.DUPLICATE,
                    scope=scope,
                    file=file,
                    message=f"is listed {n} times in the index",
                )
            )
        if file not in files:
            out.append(
                Finding(
                    problem=Problem.DANGLING,
                    scope=scope,
                    file=file,
                    message="is listed in the index but does not exist",
                )
            )
    for file in sorted(readable - set(counts)):
        out.append(
            Finding(
                problem=Problem.ORPHAN,
                scope=scope,
                file=file,
                message="is not listed in the index",
            )
        )
    limit = store.settings.max_index_line_chars
    for entry in entries:
        if len(entry.raw) > limit and entry.file in files:
            out.append(
                Finding(
                    problem=Problem.LONG_LINE,
                    scope=scope,
                    file=entry.file,
                    message=f"index line is {len(entry.raw)} characters (limit {limit})",
                )
            )
    out += _truncation_findings(store, text)
    return out


def _truncation_findings(store: MemoryStore, text: str) -> list[Finding]:
    # A pinned entry past the limits still loads (but where the client loads the index).
    return [
        Finding(
            problem=Problem.TRUNCATED,
            scope=store.scope,
            file=file,
            message="is past the index's load limits: agents will not see this entry "
            "(shorten or merge index lines, or pin it: `memdir pin NAME`)",
        )
        for file in hidden_files(text, store.settings, pinned=pins_lift(store))
    ]


def _pin_findings(view: StartView | None) -> list[Finding]:
    """Pinned memories whose index line a session start leaves out all the same."""
    if view is None:
        return []
    out = []
    for entry in view.pinned_left_out:
        if view.client_loads and entry.scope == Scope.PRIVATE.value:
            why = (
                "the client loads this MEMORY.md itself and knows nothing of pins: move its "
                "line up, within the load limits"
            )
        else:
            why = (
                f"the pinned entries alone exceed what a session start holds "
                f"({view.limit:,} characters): unpin some (`memdir unpin NAME`) or shorten "
                "their index lines"
            )
        out.append(
            Finding(
                problem=Problem.PINNED_LEFT_OUT,
                scope=Scope(entry.scope),
                file=entry.file,
                message=f"is pinned, yet its index line is left out of the session start: {why}",
            )
        )
    return out


def _start_view(memdir: ProjectMemory) -> StartView | None:
    """What a session start shows now (None: memory is off, or it cannot be worked out)."""
    if not memdir.enabled:
        return None
    try:
        return start_view(
            memdir.settings, memdir.layout, memdir.env, team_enabled=memdir.team_enabled
        )
    except (MemdirError, OSError):
        return None  # an unreadable index: the scope's own findings say why


def _hook_for(store: MemoryStore, file: str, records: dict[str, MemoryRecord]) -> tuple[str, str]:
    record = records.get(file)
    if record is not None:
        return record.memory.name or file, record.memory.description
    try:
        head = memory_from_fields(read_frontmatter_head(store.root / file), "")
    except (MemdirError, OSError):
        return file, ""
    return head.name or file, head.description


def _repair(store: MemoryStore, findings: list[Finding], records: list[MemoryRecord]) -> str:
    by_file = {r.file: r for r in records}
    text = store.read_index()
    for finding in findings:
        file = finding.file or ""
        if finding.problem is Problem.DANGLING:
            text = remove_entry(text, file=file)
        elif finding.problem in (Problem.ORPHAN, Problem.DUPLICATE, Problem.LONG_LINE):
            title, description = _hook_for(store, file, by_file)
            hook = store.index_hook(title, file, description)
            text = upsert_entry(text, title=title, file=file, hook=hook)
    return text


def _link_findings(examined: list[tuple[MemoryStore, list[MemoryRecord]]]) -> list[Finding]:
    """Links no memory of either scope answers to: not written yet (information)."""
    linkable: list[Linkable] = []
    home = examined[0][0].root  # the private scope's folder: refs are relative to it
    for store, records in examined:
        prefix = "" if store.root == home else f"{store.root.relative_to(home).as_posix()}/"
        titles = {e.file: e.title for e in reversed(parse_entries(store.read_index()))}
        linkable += [
            Linkable(ref=prefix + r.file, name=r.memory.name, title=titles.get(r.file, ""))
            for r in records
        ]
    links = [(s, r, link_targets(r.memory.body)) for s, records in examined for r in records]
    every = {target for _, _, targets in links for target in targets}
    written = LinkIndex(linkable).resolve_all(every) if every else {}
    out = []
    for store, record, targets in links:
        for target in targets:
            if target not in written:
                message = f"links to [[{target}]], a memory not written yet"
                out.append(
                    Finding(
                        problem=Problem.UNWRITTEN_LINK,
                        scope=store.scope,
                        file=record.file,
                        message=message,
                    )
                )
    return out


def _drift_findings(
    checker: DriftChecker, records: list[MemoryRecord], state_dir: Path
) -> list[Finding]:
    out = []
    checked = []
    for record in records:
        found = checker.check_memory(record.memory)
        if found or find_claims(record.memory):
            checked.append((f"{record.scope.value}:{record.file}", record.name, found))
        for finding in found:
            out.append(
                Finding(
                    problem=Problem.DRIFT,
                    scope=record.scope,
                    file=record.file,
                    message=finding.message,
                )
            )
    record_checks(
        state_dir, ((ref, name, [f.message for f in found]) for ref, name, found in checked),
        now=time.time(),
    )  # fmt: skip
    return out


def _diagnose_scope(store: MemoryStore, *, fix: bool) -> tuple[list[Finding], list[MemoryRecord]]:
    if not fix:
        findings, records = _examine(store)
        return findings + _temp_findings(store, clean=False), records
    # Listing, judging and rewriting the index in one critical section: a
    # writer holds the same lock from its file write to its index line.
    with store.lock():
        findings, records = _examine(store)
        fixable = [f for f in findings if f.fixable]
        if fixable:
            atomic_write(store.index_path, _repair(store, fixable, records))
            findings = [replace(f, fixed=True) if f.fixable else f for f in findings]
            # Fixing lines can bring entries back under the load limits: judge again.
            findings = [f for f in findings if f.problem is not Problem.TRUNCATED]
            findings += _truncation_findings(store, store.read_index())
    return findings + _temp_findings(store, clean=True), records


def _examine(store: MemoryStore) -> tuple[list[Finding], list[MemoryRecord]]:
    scan = store.scan()
    records = list(scan.records)
    findings = [
        Finding(problem=Problem.UNPARSEABLE, scope=store.scope, file=_rel(store, p), message=str(p))
        for p in scan.problems
    ]
    findings += _file_findings(store, records)
    findings += _index_findings(store, set(scan.files), {r.file for r in records})
    findings += _write_findings(store)
    if store.scope is Scope.TEAM:
        findings += _left_out_findings(store)
    return findings, records


def _write_findings(store: MemoryStore) -> list[Finding]:
    """The scope's folder and index, when memdir (and so an agent) cannot write them."""
    for path, what in ((store.root, "folder"), (store.index_path, "index")):
        if path.exists() and not os.access(path, os.W_OK):  # a read-only folder says it all
            return [
                Finding(
                    problem=Problem.READ_ONLY,
                    scope=store.scope,
                    file=None if what == "folder" else path.name,
                    message=f"the {store.scope.value} memory {what} is read-only ({path}): "
                    "no memory can be saved there",
                )
            ]
    return []


def _left_out_findings(store: MemoryStore) -> list[Finding]:
    """The team index's lines that no prompt shows: not well-formed entries."""
    return [
        Finding(
            problem=Problem.NOT_AN_ENTRY,
            scope=store.scope,
            file=None,
            message=f"MEMORY.md line {number} is not an index entry and is kept out of "
            f"every prompt: {json.dumps(line[:80], ensure_ascii=True)} (a teammate's "
            "text is never read as instructions; make it a memory or remove it)",
        )
        for number, line in left_out(store.read_index())
    ]


def _temp_files(store: MemoryStore) -> Iterator[tuple[str, Path]]:
    """The scope's leftover temp files (atomic writes, staged copies), links not followed."""
    root = store.root
    if not root.is_dir():
        return
    for folder, dirs, names in os.walk(root):
        rel_folder = Path(folder).relative_to(root).as_posix()
        # Other owners' folders, and dot-folders (.git): not this scope's files; but the
        # store's own staging folder, where a killed writer leaves its staged copy.
        dirs[:] = [
            d
            for d in dirs
            if (not d.startswith(".") or (rel_folder == "." and d == STAGING_DIR))
            and (f"{rel_folder}/{d}" if rel_folder != "." else d) not in store.excluded
        ]
        for name in names:
            if TEMP_PATTERN.match(name):
                rel = name if rel_folder == "." else f"{rel_folder}/{name}"
                yield rel, Path(folder) / name


def _temp_findings(store: MemoryStore, *, clean: bool) -> list[Finding]:
    out = []
    now = time.time()
    for rel, path in _temp_files(store):
        try:
            age = now - path.lstat().st_mtime
        except FileNotFoundError:
            continue  # renamed into place by its writer meanwhile
        if age < TEMP_MIN_AGE:
            continue  # may be a write in progress
        if clean:
            try:
                path.unlink()
            except FileNotFoundError:
                continue
        out.append(
            Finding(
                problem=Problem.TEMP_FILE,
                scope=store.scope,
                file=rel,
                message=f"is a temp file left by a writer killed mid-write "
                f"({int(age // 60)} min old); `memdir doctor --fix` removes it",
                fixed=clean,
            )
        )
    return out


def _rel(store: MemoryStore, error: MemdirError) -> str | None:
    if error.path is None:
        return None
    try:
        return Path(error.path).relative_to(store.root).as_posix()
    except ValueError:
        return error.path


def diagnose(
    memdir: ProjectMemory, *, fix: bool = False, drift: bool = False, attention: bool = False
) -> DoctorReport:
    """Check both scopes and derived state; with ``fix``, repair what is safe to.

    ``attention`` adds the :func:`notices` (what waits for a person).
    """
    state = check_state(memdir.layout, fix=fix, memdir_home=memdir_home(memdir.env))
    findings: list[Finding] = []
    # One checker for both scopes: it scans the project's files once.
    checker = DriftChecker(memdir.layout.project_root) if drift else None
    examined = []
    for store in (memdir.private, memdir.team):
        scope_findings, records = _diagnose_scope(store, fix=fix)
        findings += scope_findings
        examined.append((store, records))
        if checker is not None:
            findings += _drift_findings(checker, records, memdir.layout.state_dir)
    findings += _link_findings(examined)  # a link may name a memory of the other scope
    if checker is not None:
        every = {f"{r.scope.value}:{r.file}" for _, records in examined for r in records}
        forget_missing(memdir.layout.state_dir, every)
    view = _start_view(memdir)
    findings += _pin_findings(view)
    found = tuple(notices(memdir, view=view)) if attention else ()
    return DoctorReport(findings=tuple(findings), notices=found, state=tuple(state))
