"""``memdir scan``: look for secrets in a file or a folder (the memory folder by default)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from memdir.cli._common import emit, json_option, open_memdir, project_option, read_stdin_text
from memdir.team.secrets import Finding, scan_file, scan_text, scan_tree

__all__ = ["COMMANDS"]


@click.command()
@click.argument(
    "path", required=False, type=click.Path(exists=True, allow_dash=True, path_type=Path)
)
@project_option
@json_option
def scan(path: Path | None, project: Path, as_json: bool) -> None:
    """Report likely secrets (rule and line, never the value); exit 1 if any.

    PATH is a file or folder ('-' reads standard input); the default is the memory folder.
    """
    target = path if path is not None else open_memdir(project).layout.memory_dir
    found: dict[Path, list[Finding]]
    if str(target) == "-":
        found = {target: scan_text(read_stdin_text("the text to scan"))}
    else:
        found = scan_tree(target) if target.is_dir() else {target: scan_file(target)}
    found = {p: f for p, f in found.items() if f}

    def human() -> None:
        if not found:
            click.echo(f"no secrets found in {target}")
        for file, findings in sorted(found.items()):
            for f in findings:
                click.echo(f"{file}:{f.line}:{f.column}: {f.label} ({f.rule_id})")

    data = [
        {"path": str(p), "line": f.line, "column": f.column, "rule": f.rule_id, "label": f.label}
        for p, findings in sorted(found.items())
        for f in findings
    ]
    emit(as_json, data, human)
    if found:
        sys.exit(1)


COMMANDS = [scan]
