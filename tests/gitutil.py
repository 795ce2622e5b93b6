"""Running real git in tests, with a fixed identity and no user configuration."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` with a fixed identity; return its stdout."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(cwd),
    }
    result = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return result.stdout


def committed_repo(root: Path, file: str, text: str, message: str = "init") -> Path:
    """A new git repository at ``root`` (branch ``main``) whose one commit adds ``file``
    holding ``text``; ``root``."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / file).write_text(text)
    git(root, "add", file)
    git(root, "commit", "-q", "-m", message)
    return root


def add_submodule(project: Path, scratch: Path) -> Path:
    """Make a one-commit repository under ``scratch`` and add it to ``project`` as
    the submodule ``vendor/lib``; return the submodule's folder."""
    lib = committed_repo(scratch / "lib", "x.txt", "x", message="lib")
    git(project, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib),
        "vendor/lib")  # fmt: skip
    return project / "vendor" / "lib"
