"""Commands on the history: history, restore, undo, redact, why.

Each is parse -> one call on the facade -> render (see
:mod:`memdir.history.undo` for what the calls do). ``memdir history`` without
a name is the timeline: the changes to every memory, newest first, a page at a
time; ``--show VERSION`` prints the text a version left and ``--diff VERSION``
its difference from the memory's text now, before a restore. Every id these
commands print they take back as printed: a version as ``v19`` (or ``19``),
a change as ``undo`` names it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from memdir.cli._common import (
    VERSION_ID,
    emit,
    json_option,
    named_memory_options,
    open_memdir,
    project_option,
    reaching,
    record_dict,
    scope_option,
    scope_project_json_options,
)
from memdir.history.undo import render_why, version_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memdir.api import Memdir
    from memdir.history.undo import UndoReport
    from memdir.history.versions import History, Version

__all__ = ["COMMANDS", "history", "redact", "restore", "undo", "why"]

F = TypeVar("F", bound=Callable[..., Any])
_TIMELINE_PAGE = 20  # changes per page of ``memdir history`` without a name
_VERSIONS_PAGE = 50  # versions per page of ``memdir history NAME`` (--limit)


@click.command()
@click.argument("name", required=False)
@scope_option()
@click.option("--prune", is_flag=True, help="Drop versions and trash past the retention.")
@click.option(
    "--show", "show", type=VERSION_ID, default=None, help="Print the text version vN left."
)
@click.option(
    "--diff",
    "diff",
    type=VERSION_ID,
    default=None,
    help="Print how version vN's text differs from the memory's text now.",
)
@click.option(
    "--page",
    "page",
    type=click.IntRange(1, 100_000),
    default=1,
    show_default=True,
    help=f"Without NAME: which page of the timeline ({_TIMELINE_PAGE} changes a page).",
)
@click.option(
    "--limit",
    type=click.IntRange(1, 100_000),
    default=_VERSIONS_PAGE,
    show_default=True,
    help="With NAME: how many of its versions to list.",
)
@click.option(
    "--before",
    type=VERSION_ID,
    default=None,
    help="With NAME: list its versions older than this one (the next page).",
)
@project_option
@json_option
def history(
    name: str | None,
    scope: str | None,
    prune: bool,
    show: int | None,
    diff: int | None,
    page: int,
    limit: int,
    before: int | None,
    project: Path,
    as_json: bool,
) -> None:
    """List a memory's versions, newest first (deleted memories too); without NAME, the
    changes to every memory, newest first."""
    mem = open_memdir(project)
    if show is not None or diff is not None:
        _one_version(mem, name, scope, show, diff, as_json)
        return
    if name is None and not prune:
        _timeline(mem, page, as_json)
        return
    if prune:
        report = mem.prune_history()
        emit(
            as_json,
            report,
            lambda: click.echo(
                f"pruned {report.versions} versions, {report.blobs} texts and "
                f"{report.trash_folders} trash folders older than "
                f"{mem.settings.history_retention_days:g} days"
            ),
        )
        return
    assert name is not None
    # One page: each query stops at its LIMIT, whatever the memory's count of versions.
    found = mem.history(name, scope=scope, limit=limit + 1, before=before)
    versions = found[:limit]

    def human() -> None:
        if not versions:
            click.echo(f"no version of {name!r} is kept" + (" before that" if before else ""))
        for v in versions:
            click.echo(version_line(v))
        if len(found) > limit:
            click.echo(f"older versions: memdir history {name!r} --before v{versions[-1].id}")

    emit(as_json, versions, human)


def _timeline(mem: Memdir, page: int, as_json: bool) -> None:
    """One page of the changes to every memory, newest first."""
    from memdir.history.undo import require_history

    rows, more = _timeline_page(require_history(mem), page)

    def human() -> None:
        if not rows:
            click.echo("no change is kept yet" if page == 1 else f"no page {page}")
            return
        for v in rows:
            status = f" [{v.status}]" if v.status else ""
            name = f"  {v.name}" if v.name else ""
            click.echo(f"{version_line(v)}{status}{name}")
        if more:
            click.echo(f"older changes: memdir history --page {page + 1}")
        click.echo("one memory's versions: memdir history NAME; a version's text: --show vN")

    emit(as_json, {"page": page, "more": more, "versions": rows}, human)


def _timeline_page(history: History, page: int) -> tuple[list[Version], bool]:
    """The versions of page ``page`` (every memory's, the index's own left out) and whether
    an older page follows."""
    from memdir.history.reads import changes_since
    from memdir.storage.memory_index import INDEX_NAME

    want = page * _TIMELINE_PAGE + 1
    found: list[Version] = []
    before = None
    while len(found) < want:
        batch = changes_since(history, 0.0, limit=want, before=before)
        found += [v for v in batch if v.file != INDEX_NAME]
        if len(batch) < want:
            break
        before = batch[-1].id
    start = (page - 1) * _TIMELINE_PAGE
    return found[start : start + _TIMELINE_PAGE], len(found) > start + _TIMELINE_PAGE


def _one_version(
    mem: Memdir,
    name: str | None,
    scope: str | None,
    show: int | None,
    diff: int | None,
    as_json: bool,
) -> None:
    """``--show``: the text a version left; ``--diff``: how it differs from the text now."""
    from memdir.errors import MemdirError, MemoryNotFound
    from memdir.history.undo import require_history

    if show is not None and diff is not None:
        raise click.UsageError("give --show or --diff, not both")
    wanted = show if show is not None else diff
    assert wanted is not None
    history = require_history(mem)
    v = history.version(wanted)
    if v is None:
        raise MemoryNotFound(
            f"no version v{wanted} is kept",
            hint="`memdir history` lists the changes, `memdir history NAME` one memory's",
        )
    if name is not None:
        with reaching(mem, name, scope):
            ids = {kept.id for kept in mem.history(name, scope=scope)}
        if v.id not in ids:
            raise MemoryNotFound(
                f"v{v.id} is not a version of {name!r} (it is of {v.scope.value}:{v.file})",
                hint=f"`memdir history {name}` lists its versions",
            )
    if v.redacted:
        raise MemdirError(f"the text of v{v.id} was redacted", hint="choose another version")
    left = v.after if v.after is not None else v.before  # a deletion: the text it removed
    data = history.blob(left) if left is not None else None
    text = "" if data is None else data.decode("utf-8", "replace")
    if show is not None:
        _print_text(v, text, as_json)
    else:
        _print_diff(mem, v, text, as_json)


def _print_text(v: Version, text: str, as_json: bool) -> None:
    what = "removed" if v.after is None else "left"

    def human() -> None:
        click.echo(f"{version_line(v)}  (the text it {what})", err=True)
        click.echo(text, nl=False)

    emit(as_json, {"version": v, "text": text}, human)


def _print_diff(mem: Memdir, v: Version, text: str, as_json: bool) -> None:
    import difflib

    from memdir.storage.fs import read_bytes_nofollow, safe_join

    try:
        data = read_bytes_nofollow(safe_join(mem.store(v.scope).root, v.file))
        now = data.decode("utf-8", "replace")
    except FileNotFoundError:
        now = ""  # deleted since: every line of the version is gone now
    where = f"{v.scope.value}/{v.file}"
    lines = difflib.unified_diff(
        text.splitlines(keepends=True),
        now.splitlines(keepends=True),
        fromfile=f"{where} (v{v.id})",
        tofile=f"{where} (now)" if now else f"{where} (deleted)",
    )
    patch = "".join(lines)

    def human() -> None:
        if not patch:
            click.echo(f"{where} holds the text of v{v.id} now")
            return
        click.echo(patch, nl=False)
        click.echo(f"restore it: memdir restore {v.file} --version v{v.id}", err=True)

    emit(as_json, {"version": v, "diff": patch, "same": not patch}, human)


def _version_option(help: str, *, required: bool = False) -> Callable[[F], F]:
    """``--version vN``: a version as `memdir history` prints it."""
    return click.option("--version", "version", type=VERSION_ID, required=required, help=help)


@click.command()
@click.argument("name")
@_version_option("The version, as `memdir history` prints it (v12).")
@scope_project_json_options()
def restore(
    name: str, version: int | None, scope: str | None, project: Path, as_json: bool
) -> None:
    """Bring back a memory's previous version (or --version V), deleted ones too."""
    mem = open_memdir(project)
    result = mem.restore(name, version=version, scope=scope)
    record = result.record
    # Restoring brings the text back; a tombstone left by `forget` still holds agents'
    # writes that repeat it, and only `unforget` lifts it: said, so the hold is no surprise.
    forgotten = [t for t in mem.forgotten[record.scope].read() if t.answers_to(record.file)]

    def human() -> None:
        click.echo(f"restored {record.scope.value}:{record.file}")
        if forgotten:
            click.echo(
                f"it is still forgotten: agents' writes that repeat it are held for review; "
                f"`memdir unforget {forgotten[0].name}` lets them learn it again"
            )

    emit(as_json, {**record_dict(record), "forgotten": bool(forgotten)}, human)


@click.command()
@click.argument("change", required=False)
@project_option
@json_option
def undo(change: str | None, project: Path, as_json: bool) -> None:
    """Reverse the last change (a whole consolidation run at once), or CHANGE: a change
    as undo prints it (12), or a version (v19) for the change that made it."""
    mem = open_memdir(project)
    report = mem.undo() if change is None else _undo_named(mem, change)

    def human() -> None:
        if report.change is None:
            click.echo("nothing to undo")
            return
        if report.resumed:  # an undo a kill or a full disk cut short, finished now
            click.echo("finished an undo that was cut short:")
        click.echo(f"undid change {report.change} ({report.action}, by {report.route}):")
        for file in report.files:
            click.echo(f"  {file}")
        for warning in report.warnings:
            click.echo(f"warning: {warning}", err=True)

    emit(as_json, report, human)


def _undo_named(mem: Memdir, change: str) -> UndoReport:
    from memdir.errors import MemoryNotFound
    from memdir.history.undo import require_history, undo_change

    text = change.strip()
    if text[:1] in ("v", "V"):
        version = VERSION_ID.convert(text, None, None)
        found = require_history(mem).version(version)
        if found is None:
            raise MemoryNotFound(
                f"no version v{version} is kept", hint="`memdir history` lists the changes"
            )
        return undo_change(mem, found.change)
    if not (text.isascii() and text.isdigit() and len(text) <= 18):
        raise click.BadParameter(
            f"{change!r} is neither a change (12) nor a version (v19)", param_hint="CHANGE"
        )
    return undo_change(mem, int(text))


@click.command()
@click.argument("name")
@_version_option("The version to remove, as `memdir history` prints it (v12).", required=True)
@scope_project_json_options()
def redact(name: str, version: int, scope: str | None, project: Path, as_json: bool) -> None:
    """Remove a version's text (a secret) from the history."""
    report = open_memdir(project).redact(name, version, scope=scope)

    def human() -> None:
        click.echo(report.message)
        for line in report.removed:
            click.echo(f"  removed: {line}")
        for line in report.elsewhere:
            click.echo(f"  it may still be in {line}")

    emit(as_json, report, human)


@click.command()
@named_memory_options
def why(name: str, scope: str | None, project: Path, as_json: bool) -> None:
    """Why memdir holds a memory: where it came from, the turns behind it, its history."""
    mem = open_memdir(project)
    with reaching(mem, name, scope):
        answer = mem.why(name, scope=scope)

    emit(as_json, answer, lambda: click.echo(render_why(answer)))


COMMANDS = [history, restore, undo, redact, why]
