"""Commands on memories: init, add, list, show, edit, rm, doctor, path."""

from __future__ import annotations

import datetime as dt
import os
import shlex
import subprocess
import sys
from pathlib import Path

import click

from memdir.cli._common import (
    emit,
    json_option,
    open_memdir,
    project_option,
    read_stdin_text,
    record_dict,
    scope_option,
    scope_project_json_options,
)
from memdir.errors import MemdirError, MemoryNotFound
from memdir.model import MemoryRecord, MemoryType
from memdir.storage.fs import read_text_file

__all__ = ["COMMANDS"]

_TYPES = click.Choice([t.value for t in MemoryType])


@click.command()
@project_option
@json_option
def init(project: Path, as_json: bool) -> None:
    """Create this project's memory folders and print where they are."""
    mem = open_memdir(project)
    data = {"memory_dir": mem.layout.memory_dir, "team_dir": mem.layout.team_dir}

    def human() -> None:
        click.echo(f"memory ready at {mem.layout.memory_dir}")
        click.echo(_NEXT_STEPS)

    emit(as_json, data, human)


_NEXT_STEPS = """next steps:
  memdir add --type feedback --name "..." --description "..."   save a first memory
  memdir hook install claude          give Claude Code this memory in every session
  memdir install <host>               or add the MCP server to Claude Desktop, Cursor, ...
  memdir team init --remote URL       share the team scope through a git remote
  memdir --help                       every command"""


@click.command()
@click.option("--type", "type_", type=_TYPES, required=True, help="The kind of memory.")
@click.option("--name", required=True, help="A short title.")
@click.option("--description", required=True, help="One specific line: what recall matches.")
@scope_option(default="private")
@click.option("--body", default="", help="The memory's text; '-' reads standard input.")
@click.option("--file", "file", default=None, help="File name (default: derived from --name).")
@click.option(
    "--replace",
    is_flag=True,
    help="Overwrite --file even if it holds another memory (the old file goes to the trash).",
)
@project_option
@json_option
def add(
    type_: str,
    name: str,
    description: str,
    scope: str,
    body: str,
    file: str | None,
    replace: bool,
    project: Path,
    as_json: bool,
) -> None:
    """Save a memory (or update the one with the same name)."""
    mem = open_memdir(project)
    text = (
        read_stdin_text("the memory's body", limit=mem.settings.max_memory_bytes)
        if body == "-"
        else body
    )
    result = mem.write(
        name=name,
        description=description,
        type=type_,
        body=text,
        scope=scope,
        file=file,
        replace=replace,
    )
    from memdir.recall.index_budget import overflow_warning

    overflow = overflow_warning(mem.store(result.record.scope), result.record.file)

    def human() -> None:
        verb = "created" if result.created else "updated"
        click.echo(f"{verb} {result.record.scope.value}:{result.record.file}")
        for warning in result.warnings:
            click.echo(f"warning: {warning}", err=True)
        if overflow is not None:
            click.echo(f"warning: {overflow}", err=True)

    emit(as_json, {**record_dict(result.record), "created": result.created}, human)


@click.command(name="list")
@scope_project_json_options(help="Only this scope.")
def list_(scope: str | None, project: Path, as_json: bool) -> None:
    """List memories: scope, file, type, name and description.

    A file that cannot be read as a memory (broken frontmatter) is named on
    stderr, so it does not vanish from the list without a word.
    """
    mem = open_memdir(project)
    stores = [mem.store(scope)] if scope is not None else [mem.private, mem.team]
    scans = [(store, store.scan()) for store in stores]
    records = [record for _, found in scans for record in found.records]
    for store, found in scans:
        for problem in found.problems:
            where = Path(problem.path).relative_to(store.root).as_posix() if problem.path else "?"
            click.echo(
                f"warning: {store.scope.value}:{where} is not listed: it cannot be read as a "
                f"memory ({_printable_reason(problem)}); fix its frontmatter (`memdir doctor` "
                "names every such file)",
                err=True,
            )

    def human() -> None:
        if not records:
            click.echo("no memories yet")
            return
        for line in _table(records, _width()):
            click.echo(line)

    emit(as_json, [record_dict(r, body=False) for r in records], human)


def _printable_reason(problem: MemdirError) -> str:
    """The parse error's words without the path (said already) and on one line."""
    text = problem.message
    if problem.path is not None:
        text = text.replace(f"{problem.path}: ", "").replace(problem.path, "the file")
    return " ".join(text.split())


def _width() -> int | None:
    """The terminal's width ($COLUMNS first); ``None`` for a pipe: rows are not cut."""
    import shutil

    if not sys.stdout.isatty() and not os.environ.get("COLUMNS"):
        return None
    return shutil.get_terminal_size((80, 24)).columns


def _table(records: list[MemoryRecord], width: int | None) -> list[str]:
    """Aligned rows: scope, updated, type, file, then name and description.

    The file is the handle show, edit and rm take: it is never wrapped or cut. Only
    the name and description, last on the row, give way to a narrow terminal.
    """
    rows = [
        ((r.scope.value, _date(r), r.memory.type.value if r.memory.type else "?", r.file), r)
        for r in records
    ]
    header = ("scope", "updated", "type", "file")
    widths = [max(len(header[i]), *(len(cells[i]) for cells, _ in rows)) for i in range(4)]

    def line(cells: tuple[str, ...], tail: str) -> str:
        head = "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))
        text = f"{head}  {tail}"
        if width is not None and len(text) > width:
            room = width - 1 - len(head) - 2
            text = f"{head}  {tail[:room].rstrip()}…" if room > 0 else f"{head}  …"
        return text.rstrip()

    out = [line(header, "name — description")]
    out += [line(cells, f"{r.memory.name} — {r.memory.description}") for cells, r in rows]
    return out


def _date(record: MemoryRecord) -> str:
    """When the memory last changed: its ``updated`` (or ``created``) date, else the mtime."""
    day = record.memory.updated or record.memory.created
    return (day or dt.date.fromtimestamp(record.mtime)).isoformat()


@click.command()
@click.argument("name")
@scope_project_json_options()
def show(name: str, scope: str | None, project: Path, as_json: bool) -> None:
    """Print a memory (by file name or name)."""
    mem = open_memdir(project)
    record = mem.get(name, scope=scope)
    path = mem.store(record.scope).root / record.file
    try:
        text = read_text_file(path)
    except FileNotFoundError:  # deleted since it was found
        raise MemoryNotFound(f"{record.file} was just removed", path=path) from None
    emit(as_json, record_dict(record), lambda: click.echo(text, nl=False))


def _run_editor(path: Path) -> None:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        subprocess.run([*shlex.split(editor), str(path)], check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise MemdirError(f"the editor {editor!r} failed: {exc}", hint="set $EDITOR") from None


@click.command()
@click.argument("name")
@scope_option()
@project_option
def edit(name: str, scope: str | None, project: Path) -> None:
    """Open a memory in $EDITOR; saved only if it still parses.

    The editor works on a copy in the project's ``edits/`` folder (0600, in the
    memory home, not a shared /tmp), named on stderr first: an edit that is
    interrupted, even by a kill, is kept there.
    """
    mem = open_memdir(project)
    record = mem.get(name, scope=scope)
    store = mem.store(record.scope)
    original = read_text_file(store.root / record.file)
    tmp = _edit_copy(mem.layout.edits_dir, record.file, original)
    click.echo(f"memdir: editing a copy at {tmp} (kept there if the edit is interrupted)", err=True)
    try:
        _run_editor(tmp)
    except MemdirError:
        os.unlink(tmp)  # nothing was edited: the copy holds only the original
        raise
    try:
        text = read_text_file(tmp, nofollow=False)
    except MemdirError as exc:
        raise MemdirError(f"not saved: {exc.message}", hint=f"your edit is kept in {tmp}") from None
    if text == original:
        os.unlink(tmp)
        click.echo("no changes")
        return
    try:
        store.write_text(record.file, text, expected_version=record.version)
    except MemdirError as exc:
        raise MemdirError(
            f"not saved: {exc.message}", path=exc.path, hint=f"your edit is kept in {tmp}"
        ) from None
    os.unlink(tmp)
    click.echo(f"saved {record.scope.value}:{record.file}")


def _edit_copy(folder: Path, file: str, text: str) -> Path:
    """A new file (0600) in ``folder`` holding ``text``, named after the memory and the time."""
    from memdir.storage.fs import FILE_MODE, ensure_dir

    ensure_dir(folder)
    stem = file.replace("/", "__").removesuffix(".md")
    stamp = dt.datetime.now().strftime("%Y%m%dT%H%M%S")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    while True:
        path = folder / f"{stem}.{stamp}-{os.urandom(3).hex()}.md"
        try:
            fd = os.open(path, flags, FILE_MODE)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        return path


@click.command()
@click.argument("name")
@scope_project_json_options()
def rm(name: str, scope: str | None, project: Path, as_json: bool) -> None:
    """Delete a memory (moved to the trash and kept in the history: `memdir restore NAME`)."""
    trashed = open_memdir(project).delete(name, scope=scope)
    emit(as_json, {"trashed": trashed}, lambda: click.echo(f"moved to {trashed}"))


# Past this many findings, doctor prints counts and the first few of each kind.
_DOCTOR_FULL = 40
_DOCTOR_FIRST = 5


@click.command()
@click.option("--fix", is_flag=True, help="Repair the index where it is safe.")
@click.option("--drift", is_flag=True, help="Also check paths and symbols memories name.")
@click.option("--all", "show_all", is_flag=True, help="Print every finding, not a summary.")
@project_option
@json_option
def doctor(fix: bool, drift: bool, show_all: bool, project: Path, as_json: bool) -> None:
    """Check memories and indexes (orphans, dangling lines, bad files, drift), that the
    hook and MCP commands installed for Claude Code start memdir, the last background
    job (hooks): failed, or skipped for want of a model, with the fix, team sync (a
    stuck repository, the last failure, ahead/behind), and what awaits a person."""
    from memdir.agents.consolidate.proposal import proposal_notice
    from memdir.hooks.job_status import run_problem
    from memdir.hosts.install_check import check_installs

    # Drift checks and repairs: doctor alone loads them.
    from memdir.recall.doctor import Finding, diagnose
    from memdir.team.health import check_team

    mem = open_memdir(project, check_root=False)  # a damaged root record is doctor's to fix
    # Team sync first: its fixes (a note renamed to .md) change what the index check sees.
    team_health = check_team(mem, fix=fix)
    report = diagnose(mem, fix=fix, drift=drift, attention=True)
    waiting = [*report.notices, *proposal_notice(mem)]
    installs = check_installs(project)
    background = run_problem(mem.layout)
    job_failed = background is not None and background.status == "failed"
    # A skipped job is a choice to make, not a fault.
    ok = report.ok and not installs and not job_failed and all(t.ok for t in team_health)

    def line(f: Finding) -> str:
        mark = "fixed" if f.fixed else f.problem.value
        where = f"{f.scope.value}:{f.file}" if f.file else f.scope.value
        return f"[{mark}] {where} {f.message}"

    def human() -> None:
        team_problems = [t for t in team_health if not t.info]
        quiet = not (report.findings or report.state or installs or waiting or team_problems)
        if quiet and background is None:
            click.echo("all good")
        for s in report.state:
            click.echo(f"[{'fixed' if s.fixed else s.problem}] {s.path} {s.message}")
        for n in waiting:
            click.echo(f"[{n.kind}] {n.message}; fix: {n.fix}")
            for item in n.items:
                click.echo(f"  {item}")
        for i in installs:
            click.echo(f"[{i.problem}] {i.path} {i.message}; fix: {i.fix}")
        for t in team_health:
            fix_text = f"; fix: {t.fix}" if t.fix and not t.fixed else ""
            click.echo(f"[{'fixed' if t.fixed else 'team:' + t.problem}] {t.message}{fix_text}")
        if background is not None:
            click.echo(f"[background] {background.describe()}")
        if show_all or len(report.findings) <= _DOCTOR_FULL:
            for f in report.findings:
                click.echo(line(f))
            return
        groups: dict[str, list[Finding]] = {}
        for f in report.findings:
            groups.setdefault("fixed" if f.fixed else f.problem.value, []).append(f)
        ordered = sorted(groups.items(), key=lambda item: -len(item[1]))  # most first
        counts = ", ".join(f"{len(found)} {kind}" for kind, found in ordered)
        click.echo(f"{len(report.findings)} findings: {counts}")
        for kind, found in ordered:
            click.echo(f"\n{kind} ({len(found)}):")
            for f in found[:_DOCTOR_FIRST]:
                click.echo(f"  {line(f)}")
            if len(found) > _DOCTOR_FIRST:
                click.echo(f"  ... and {len(found) - _DOCTOR_FIRST} more")
        click.echo("\nmemdir doctor --all prints every finding (--json for a program)")

    payload = {
        "ok": ok,
        "findings": report.findings,
        "state": report.state,
        "installs": installs,
        "background": background,
        "notices": waiting,
        "team": team_health,
    }
    emit(as_json, payload, human)
    if not ok:
        sys.exit(1)


@click.command()
@project_option
@json_option
def path(project: Path, as_json: bool) -> None:
    """Print where this project's memory lives."""
    layout = open_memdir(project).layout
    data = {
        "project_root": layout.project_root,
        "memory_dir": layout.memory_dir,
        "team_dir": layout.team_dir,
        "logs_dir": layout.logs_dir,
        "sessions_dir": layout.sessions_dir,
        "state_dir": layout.state_dir,
    }
    emit(as_json, data, lambda: click.echo(str(layout.memory_dir)))


COMMANDS = [init, add, list_, show, edit, rm, doctor, path]
