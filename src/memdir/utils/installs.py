"""The command that adds a package or an extra to this installation of memdir.

A hint like ``pip install 'memdir[mcp]'`` is wrong for a person who installed
memdir with pipx: pip in pipx's venv is not on their PATH, and ``pipx inject
memdir`` is how pipx adds packages to it (a venv holding ``pipx_metadata.json``
is pipx's). Every "install this" hint memdir prints comes from here, so it is
right for the installation that prints it.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

__all__ = ["install_hint", "package_hint", "under_pipx"]


def under_pipx() -> bool:
    """Whether this Python is the venv of a pipx installation."""
    return (Path(sys.prefix) / "pipx_metadata.json").is_file()


def install_hint(extra: str) -> str:
    """The command that adds memdir's ``extra`` (under pipx: its own requirements)."""
    if not under_pipx():
        return f"pip install 'memdir[{extra}]'"
    # Metadata not found (a source tree on sys.path): the extra by name.
    return package_hint(*(_extra_requirements(extra) or [f"memdir[{extra}]"]))


def package_hint(*packages: str, no_deps: bool = False) -> str:
    """The command that installs ``packages`` beside memdir (pipx: ``pipx inject``)."""
    if under_pipx():
        flag = "--pip-args=--no-deps " if no_deps else ""
        return f"pipx inject {flag}memdir {shlex.join(packages)}"
    return f"pip install {'--no-deps ' if no_deps else ''}{shlex.join(packages)}"


def _extra_requirements(extra: str) -> list[str]:
    """The requirements memdir's metadata lists under ``extra``, without their markers."""
    from importlib import metadata

    try:
        declared = metadata.requires("memdir") or []
    except metadata.PackageNotFoundError:
        return []
    marker = f'extra == "{extra}"'
    return [r.split(";", 1)[0].strip() for r in declared if marker in r.replace("'", '"')]
