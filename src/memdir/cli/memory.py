"""Commands on memories: init, add, list, show, edit, rm, doctor, path."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import click

from memdir.cli._common import (
    emit,
    json_option,
    open_memdir,
    project_option,
    read_stdin_text,
    record_dict,
)
from memdir.errors import MemdirError, MemoryNotFound
from memdir.model import MemoryType, Scope
from memdir.storage.fs import read_text_file

__all__ = ["COMMANDS"]

_TYPES = click.Choice([t.value for t in MemoryType])
_SCOPES = click.Choice([s.value for s in Scope])


@click.command()
@project_option
@json_option
def init(project: Path, as_json: bool) -> None:
    """Create this project's memory folders and print where they are."""
    mem = open_memdir(project)
    data = {"memory_dir": mem.layout.memory_dir, "team_dir": mem.layout.team_dir}
    emit(as_json, data, lambda: click.echo(f"memory ready at {mem.layout.memory_dir}"))


@click.command()
@click.option("--type", "type_", type=_TYPES, required=True, help="The kind of memory.")
@click.option("--name", required=True, help="A short title.")
@click.option("--description", required=True, help="One specific line: what recall matches.")
@click.option("--scope", type=_SCOPES, default="private", show_default=True)
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
    text = read_stdin_text(limit=mem.settings.max_memory_bytes) if body == "-" else body
    result = mem.write(
        name=name,
        description=description,
        type=type_,
        body=text,
        scope=scope,
        file=file,
        replace=replace,
    )

    def human() -> None:
        verb = "created" if result.created else "updated"
        click.echo(f"{verb} {result.record.scope.value}:{result.record.file}")
        for warning in result.warnings:
            click.echo(f"warning: {warning}", err=True)

    emit(as_json, {**record_dict(result.record), "created": result.created}, human)


@click.command(name="list")
@click.option("--scope", type=_SCOPES, default=None, help="Only this scope.")
@project_option
@json_option
def list_(scope: str | None, project: Path, as_json: bool) -> None:
    """List memories: scope, file, type, name and description."""
    records = open_memdir(project).list(scope=scope)

    def human() -> None:
        if not records:
            click.echo("no memories yet")
            return
        from rich.console import Console  # loaded to draw the table, not by every command
        from rich.table import Table

        table = Table("scope", "file", "type", "name", "description", box=None)
        for r in records:
            kind = r.memory.type.value if r.memory.type else "?"
            table.add_row(r.scope.value, r.file, kind, r.memory.name, r.memory.description)
        Console(width=200 if not sys.stdout.isatty() else None).print(table)

    emit(as_json, [record_dict(r, body=False) for r in records], human)


@click.command()
@click.argument("name")
@click.option("--scope", type=_SCOPES, default=None)
@project_option
@json_option
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
@click.option("--scope", type=_SCOPES, default=None)
@project_option
def edit(name: str, scope: str | None, project: Path) -> None:
    """Open a memory in $EDITOR; saved only if it still parses."""
    mem = open_memdir(project)
    record = mem.get(name, scope=scope)
    store = mem.store(record.scope)
    original = read_text_file(store.root / record.file)
    fd, tmp = tempfile.mkstemp(prefix="memdir-edit-", suffix=".md")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(original)
    try:
        _run_editor(Path(tmp))
    except MemdirError:
        os.unlink(tmp)  # nothing was edited: the copy holds only the original
        raise
    try:
        text = read_text_file(Path(tmp), nofollow=False)
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


@click.command()
@click.argument("name")
@click.option("--scope", type=_SCOPES, default=None)
@project_option
@json_option
def rm(name: str, scope: str | None, project: Path, as_json: bool) -> None:
    """Delete a memory (it is moved to the trash folder, not destroyed)."""
    trashed = open_memdir(project).delete(name, scope=scope)
    emit(as_json, {"trashed": trashed}, lambda: click.echo(f"moved to {trashed}"))


@click.command()
@click.option("--fix", is_flag=True, help="Repair the index where it is safe.")
@click.option("--drift", is_flag=True, help="Also check paths and symbols memories name.")
@project_option
@json_option
def doctor(fix: bool, drift: bool, project: Path, as_json: bool) -> None:
    """Check memories and indexes: orphans, dangling lines, bad files, drift."""
    from memdir.recall.doctor import diagnose  # drift checks and repairs: doctor alone

    report = diagnose(open_memdir(project), fix=fix, drift=drift)

    def human() -> None:
        if not report.findings:
            click.echo("all good")
        for f in report.findings:
            mark = "fixed" if f.fixed else f.problem.value
            where = f"{f.scope.value}:{f.file}" if f.file else f.scope.value
            click.echo(f"[{mark}] {where} {f.message}")

    emit(as_json, {"ok": report.ok, "findings": report.findings}, human)
    if not report.ok:
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
