"""Where a hook call's project keeps its memory, remembered between calls.

The pre-tool-use hook runs before every tool call, and most of its cost was
working out where the project's memory lives: loading the settings, finding
the git root, applying Claude Code's folder rules, and importing the modules
that do all that. The answer only changes when one of the files it read
changes, or the environment does. So the first call in a directory works it
out while :mod:`memdir.utils.inputs` records every file it looked at, and stores
the answer with those files' states in ``<memdir home>/state/hooks/<hash of
the directory>.json``. A later call in the same directory uses the answer
when the relevant environment variables are the same and
:func:`memdir.utils.inputs.unchanged` holds for every recorded file (a few
``lstat`` calls); otherwise it works the answer out again and replaces it.

The memdir modules that compute the answer are among the recorded files, so
an upgrade of memdir is a change too. The memo is a cache: a missing,
damaged or unwritable one only costs the slow path. It is one sealed JSON
line (:func:`memdir.enforcement.rule_cache.sealed`): a memo cut short,
overwritten or changed in any byte (a folder's name: the rules of another
folder) fails its checksum and is worked out again, never taken as the answer.
``memdir doctor`` names a damaged memo, and ``--fix`` removes it
(:mod:`memdir.recall.state_check`).
"""

from __future__ import annotations

import os
import zlib

from memdir.enforcement.rule_cache import open_regular, sealed, unsealed
from memdir.utils.inputs import states, unchanged

TYPE_CHECKING = False  # the pre-tool-use hook loads this module: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = ["ENV_NAMES", "MEMO_FOLDER", "memdir_home_path", "memo_path", "remember", "remembered"]

_VERSION = 2
MEMO_FOLDER = ("state", "hooks")  # under memdir's home: one memo per folder hooks ran in
# Every environment variable the settings and the folder rules read
# (memdir.config, memdir.storage.paths, memdir.storage.claude); a test keeps
# this list in step with those modules.
ENV_NAMES = (
    "HOME",
    "MEMDIR_HOME", "MEMDIR_CONFIG", "MEMDIR_PROFILE", "MEMDIR_TEAM", "MEMDIR_DAILY_LOG",
    "MEMDIR_EXTRA_GUIDELINES", "MEMDIR_MODEL", "MEMDIR_PROVIDER", "MEMDIR_DISABLE", "MEMDIR_REVIEW",
    "MEMDIR_EMBEDDINGS",
    "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_REMOTE_MEMORY_DIR", "CLAUDE_CODE_PROJECT_DIR_NAME",
    "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
)  # fmt: skip
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_CODE = tuple(
    os.path.join(_PACKAGE, *parts)
    for parts in (
        ("config.py",),
        ("utils", "inputs.py"),
        ("hooks", "memo.py"),
        ("hooks", "entry.py"),
        ("storage", "paths.py"),
        ("storage", "claude.py"),
        ("enforcement", "enforced.py"),
    )
)


def memdir_home_path(env: Mapping[str, str]) -> str:
    """memdir's own home as :func:`memdir.config.memdir_home` finds it (a test checks)."""
    raw = env.get("MEMDIR_HOME", "").strip()
    return os.path.expanduser(raw) if raw else os.path.join(os.path.expanduser("~"), ".memdir")


def memo_path(cwd: str, env: Mapping[str, str]) -> str:
    """The memo file for hook calls made in ``cwd``."""
    # Two checksums, not hashlib (whose import costs the hook ~6 ms): the memo holds
    # its cwd, so a collision only makes two folders share, and rewrite, one file.
    raw = os.fsencode(cwd)
    digest = f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}"
    return os.path.join(memdir_home_path(env), *MEMO_FOLDER, f"{digest}.json")


def _env_key(env: Mapping[str, str]) -> dict[str, str]:
    return {name: env[name] for name in ENV_NAMES if name in env}


def _read(path: str) -> dict[str, Any] | None:
    """The memo at ``path`` when it is whole and of this version; None otherwise."""
    try:
        with open_regular(path) as handle:
            data = unsealed(handle.read())
    except OSError:
        return None
    if data is None or data.get("version") != _VERSION:
        return None
    return data if isinstance(data.get("answer"), dict) else None


def remembered(cwd: str, env: Mapping[str, str]) -> dict[str, Any] | None:
    """The answer remembered for ``cwd`` and ``env``, or None when it may be stale."""
    data = _read(memo_path(cwd, env))
    if data is None or data.get("cwd") != cwd or data.get("env") != _env_key(env):
        return None
    answer: dict[str, Any] = data["answer"]
    return answer if unchanged(data.get("inputs")) else None


def remember(cwd: str, env: Mapping[str, str], answer: dict[str, Any], read: Sequence[str]) -> None:
    """Store ``answer`` for ``cwd`` and ``env``, valid while the files in ``read`` stay as now."""
    import json
    from pathlib import Path

    from memdir.storage.fs import atomic_write, ensure_dir

    data = {
        "version": _VERSION,
        "cwd": cwd,
        "env": _env_key(env),
        "inputs": states([*_CODE, *read]),
        "answer": answer,
    }
    path = Path(memo_path(cwd, env))
    try:
        ensure_dir(path.parent)
        atomic_write(path, sealed(json.dumps(data)) + "\n")
    except OSError:
        pass  # a read-only home: the answer is still right, only slower next time
