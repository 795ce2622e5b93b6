"""Commands on memories: init, add, list, show, edit, rm, doctor, path.

``show``, ``edit`` and ``rm`` reach a memory file whatever state it is in: a
file whose frontmatter does not parse (``list`` and ``doctor`` name it) is
shown as it is with the parse error, edited, and removed, by its file name
(:func:`~memdir.cli._common.unreadable_memory`).

``edit`` works on a copy and saves it only if it still holds a valid memory.
When it does not, it says why and asks to edit again, as ``crontab -e`` does:
the editor opens on the same text with the error in ``# memdir:`` lines at the
top (dropped before saving). Answering no (or nothing: no terminal) keeps the
memory as it was and puts the refused copy in the trash, where ``doctor`` does
not count it as an interrupted edit; saving an empty file gives up as well.
"""

from __future__ import annotations

import datetime as dt
import os
import shlex
import subprocess
import sys
from pathlib import Path

import click

from memdir.cli._common import (
    Unreadable,
    emit,
    json_option,
    named_memory_options,
    open_memdir,
    project_option,
    read_stdin_text,
    record_dict,
    scope_option,
    scope_project_json_options,
    unreadable_memory,
)
from memdir.errors import (
    Conflict,
    InvalidMemory,
    LimitExceeded,
    MemdirError,
    MemoryNotFound,
    SecretDetected,
)
from memdir.model import MemoryRecord, MemoryType
from memdir.storage.fs import read_text_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memdir.api import Memdir
    from memdir.storage.paths import Layout
    from memdir.storage.store import MemoryStore

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
        click.echo(_next_steps(claude=mem.settings.profile == "claude"))

    emit(as_json, data, human)


def _next_steps(*, claude: bool) -> str:
    """What to run next: a first memory, then the setup the README recommends.

    For Claude Code that is memdir in Claude Code's own memory folder (``--profile
    claude``): its auto memory stays on, and both read and write the same files.
    """
    folder = (
        "this folder"
        if claude
        else "Claude Code's own memory folder (~/.claude/projects/…), not this one"
    )
    return f"""next steps:
  memdir add --type feedback --name "..." --description "..."   save a first memory
  with Claude Code, the recommended setup (memory in {folder};
  Claude Code's auto memory stays on):
    memdir --profile claude hook install claude    the hooks, in .claude/settings.local.json
    memdir --profile claude install claude-code    the MCP server, for this project
    memdir --profile claude doctor                 checks that both answer
  memdir install <host>               other agents: codex, gemini, cursor, claude-desktop
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


def _named(mem: Memdir, name: str, scope: str | None) -> MemoryRecord | Unreadable:
    """The memory ``name`` names, or the file it names whose frontmatter does not parse."""
    try:
        return mem.get(name, scope=scope)
    except MemoryNotFound:
        broken = unreadable_memory(mem, name, scope)
        if broken is None:
            raise
        return broken


def _say_unreadable(broken: Unreadable) -> None:
    click.echo(
        f"memdir: warning: {broken.ref} cannot be read as a memory: {broken.reason}; "
        f"fix it with `memdir edit {broken.file}` (or remove it: `memdir rm {broken.file}`)",
        err=True,
    )


@click.command()
@named_memory_options
def show(name: str, scope: str | None, project: Path, as_json: bool) -> None:
    """Print a memory (by file name or name); a file whose frontmatter is broken is printed
    as it is, with the parse error on stderr."""
    mem = open_memdir(project)
    found = _named(mem, name, scope)
    path = found.path if isinstance(found, Unreadable) else mem.store(found.scope).root / found.file
    try:
        text = read_text_file(path)
    except FileNotFoundError:  # deleted since it was found
        raise MemoryNotFound(f"{found.file} was just removed", path=path) from None
    if isinstance(found, Unreadable):
        _say_unreadable(found)
        data = {
            "scope": found.scope.value,
            "file": found.file,
            "readable": False,
            "error": found.reason,
            "line": found.error.line,
            "text": text,
        }
        emit(as_json, data, lambda: click.echo(text, nl=False))
        return
    emit(as_json, record_dict(found), lambda: click.echo(text, nl=False))


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
    """Open a memory in $EDITOR; saved only if it still holds a valid memory.

    The editor works on a copy in the project's ``edits/`` folder (0600, in the
    memory home, not a shared /tmp), named on stderr first: an edit that is
    interrupted, even by a kill, is kept there. A refused edit can be edited
    again, with the error at the top of the file. A file whose frontmatter is
    broken is edited as it is, to fix it.
    """
    mem = open_memdir(project)
    found = _named(mem, name, scope)
    store = mem.store(found.scope)
    path = found.path if isinstance(found, Unreadable) else store.root / found.file
    original = read_text_file(path)
    from memdir.storage.store import content_version

    version = content_version(original.encode("utf-8"))
    problem = found.error if isinstance(found, Unreadable) else None
    tmp = _edit_copy(mem.layout.edits_dir, found.file, _with_note(original, problem))
    click.echo(f"memdir: editing a copy at {tmp} (kept there if the edit is interrupted)", err=True)
    while True:
        try:
            _run_editor(tmp)
        except MemdirError:
            os.unlink(tmp)  # nothing was edited: the copy holds only the original
            raise
        text, refused = _try_save(store, found.file, tmp, version)
        if refused is None:
            break
        if not _edit_again(refused):
            kept = _set_aside(mem.layout, tmp)
            raise MemdirError(
                f"not saved: {refused.message}",
                path=refused.path,
                hint=f"{found.scope.value}:{found.file} is as it was; your edit is kept in {kept}",
            )
        _rewrite(tmp, _with_note(text, refused))
    os.unlink(tmp)
    if text == original:
        click.echo("no changes")
    elif not text.strip():
        click.echo(f"the file was saved empty: not saved, {found.file} is as it was")
    else:
        click.echo(f"saved {found.scope.value}:{found.file}")


# The lines memdir puts at the top of an edit it refused; dropped before saving.
_NOTE = "# memdir: "
# What a person may fix by editing again; a conflict or a failing disk is no such thing.
_FIXABLE_BY_EDITING = (InvalidMemory, LimitExceeded, SecretDetected)


def _try_save(
    store: MemoryStore, file: str, tmp: Path, version: str
) -> tuple[str, MemdirError | None]:
    """Save the copy's text over ``file`` (read at ``version``): the text, and the error
    that refused it when editing again could fix it (None: saved, or nothing to save)."""
    try:
        text = _without_note(read_text_file(tmp, nofollow=False))
    except MemdirError as exc:  # not UTF-8: rewriting the copy would lose what it holds
        raise MemdirError(f"not saved: {exc.message}", hint=f"your edit is kept in {tmp}") from None
    if text == read_text_file(store.root / file) or not text.strip():
        return text, None
    try:
        store.write_text(file, text, expected_version=version)
    except Conflict as exc:
        raise MemdirError(
            f"not saved: {exc.message}", path=exc.path, hint=f"your edit is kept in {tmp}"
        ) from None
    except _FIXABLE_BY_EDITING as exc:
        return text, exc
    except MemdirError as exc:
        raise MemdirError(
            f"not saved: {exc.message}", path=exc.path, hint=f"your edit is kept in {tmp}"
        ) from None
    return text, None


def _with_note(text: str, problem: MemdirError | None) -> str:
    if problem is None:
        return text
    line = getattr(problem, "line", None)
    # The line as this copy numbers it: after the note's three lines.
    where = f" (line {line + 3} here)" if line else ""
    return (
        f"{_NOTE}not saved: {' '.join(problem.message.split())}{where}\n"
        f"{_NOTE}fix it below and save; save an empty file to leave the memory as it was.\n"
        f"{_NOTE}these lines are dropped before saving.\n"
    ) + text


def _without_note(text: str) -> str:
    lines = text.splitlines(keepends=True)
    at = 0
    while at < len(lines) and lines[at].startswith(_NOTE):
        at += 1
    return "".join(lines[at:])


def _edit_again(problem: MemdirError) -> bool:
    """Ask whether to edit again; no answer (end of input: no terminal) is no.

    Read by hand, not with click's prompt: Ctrl-C here stops memdir (exit 130,
    the copy kept), while end of input only answers no.
    """
    click.echo(f"memdir: not saved: {' '.join(str(problem).split())}", err=True)
    click.echo("edit again? [Y/n] ", err=True, nl=False)
    answer = sys.stdin.readline() if sys.stdin is not None else ""
    if not answer:
        click.echo("", err=True)
        return False
    return answer.strip().lower() in ("", "y", "yes")


def _rewrite(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def _set_aside(layout: Layout, copy: Path) -> Path:
    """Move a refused edit into today's trash folder (pruned with it), out of ``edits/``,
    where ``doctor`` lists copies of interrupted edits."""
    from memdir.storage.fs import ensure_dir

    folder = layout.trash_dir / dt.date.today().isoformat() / "refused-edits"
    ensure_dir(folder)
    target = folder / copy.name
    os.replace(copy, target)
    return target


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
@named_memory_options
def rm(name: str, scope: str | None, project: Path, as_json: bool) -> None:
    """Delete a memory (moved to the trash and kept in the history: `memdir restore NAME`);
    a file whose frontmatter is broken is removed the same way, by its file name."""
    mem = open_memdir(project)
    found = _named(mem, name, scope)
    trashed = mem.store(found.scope).delete(found.file)
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
    job (hooks): failed, or skipped for want of a model, with the fix, team sync and
    private sync (a stuck repository, the last failure, conflict copies, ahead/behind),
    and what awaits a person."""
    from memdir.agents.consolidate.proposal import proposal_notice
    from memdir.hooks.job_status import run_problem
    from memdir.hosts.install_check import check_installs
    from memdir.llm.spend import today_summary

    # Drift checks and repairs: doctor alone loads them.
    from memdir.recall.doctor import Finding, diagnose
    from memdir.sync.health import check_private
    from memdir.team.health import check_team

    mem = open_memdir(project, check_root=False)  # a damaged root record is doctor's to fix
    # Team sync first: its fixes (a note renamed to .md) change what the index check sees.
    team_health = check_team(mem, fix=fix)
    private_health = check_private(mem)
    report = diagnose(mem, fix=fix, drift=drift, attention=True)
    waiting = [*report.notices, *proposal_notice(mem)]
    installs = check_installs(project)
    background = run_problem(mem.layout)
    named = (mem.settings.provider or "none").lower() != "none"
    spend = today_summary(mem.env, cap=mem.settings.daily_token_cap, configured=named)
    job_failed = background is not None and background.status == "failed"
    # A skipped job is a choice to make, not a fault.
    syncs = [*team_health, *private_health]
    ok = report.ok and not installs and not job_failed and all(t.ok for t in syncs)

    def line(f: Finding) -> str:
        mark = "fixed" if f.fixed else f.problem.value
        where = f"{f.scope.value}:{f.file}" if f.file else f.scope.value
        how = "" if f.fixed or (fix and f.fixable) else f"; fix: {f.fix}"
        return f"[{mark}] {where} {f.message}{how}"

    def human() -> None:
        sync_problems = [t for t in syncs if not t.info]
        quiet = not (report.findings or report.state or installs or waiting or sync_problems)
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
        for t in private_health:
            fix_text = f"; fix: {t.fix}" if t.fix else ""
            click.echo(f"[sync:{t.problem}] {t.message}{fix_text}")
        if background is not None:
            click.echo(f"[background] {background.describe()}")
        if spend is not None:
            click.echo(f"[spend] {spend}")
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
        "spend": spend,
        "notices": waiting,
        "team": team_health,
        "sync": private_health,
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
