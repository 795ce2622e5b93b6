"""memdir: layered, file-based, typed memory for LLM agents.

Open a project's memory with :meth:`Memdir.open`; everything else hangs off
that object. The names below are the public API; the modules behind them are
implementation details and may move.

The names are imported on first use (PEP 562): ``import memdir.enforcement.rules``
must not load the facade, so the hooks that run on every tool call start fast.
"""

from __future__ import annotations

# The one version string: pyproject.toml reads it from here (hatch's version source), and
# ``memdir --version``, ``-V`` and the MCP server report it.
__version__ = "0.1.0"

# Not ``typing.TYPE_CHECKING``: importing typing costs the per-call hooks ~10 ms,
# and type checkers treat any name ``TYPE_CHECKING`` as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memdir.api import Memdir
    from memdir.config import Settings, load_settings
    from memdir.errors import (
        ConfigError,
        Conflict,
        DiskFull,
        InvalidMemory,
        LimitExceeded,
        LockTimeout,
        MemdirError,
        MemoryExists,
        MemoryNotFound,
        ParseError,
        ProjectMismatch,
        ProviderError,
        SecretDetected,
        StorageError,
        SyncError,
        UnsafePath,
    )
    from memdir.model import Memory, MemoryRecord, MemoryType, Scope
    from memdir.storage.store import MemoryStore, WriteResult

__all__ = [
    "ConfigError",
    "Conflict",
    "DiskFull",
    "InvalidMemory",
    "LimitExceeded",
    "LockTimeout",
    "Memdir",
    "MemdirError",
    "Memory",
    "MemoryExists",
    "MemoryNotFound",
    "MemoryRecord",
    "MemoryStore",
    "MemoryType",
    "ParseError",
    "ProjectMismatch",
    "ProviderError",
    "Scope",
    "SecretDetected",
    "Settings",
    "StorageError",
    "SyncError",
    "UnsafePath",
    "WriteResult",
    "load_settings",
]

_HOMES = {
    "Memdir": "memdir.api",
    "Settings": "memdir.config",
    "load_settings": "memdir.config",
    "Memory": "memdir.model",
    "MemoryRecord": "memdir.model",
    "MemoryType": "memdir.model",
    "Scope": "memdir.model",
    "MemoryStore": "memdir.storage.store",
    "WriteResult": "memdir.storage.store",
}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'memdir' has no attribute {name!r}")
    import importlib  # here: the hooks import this package and never need it

    value = getattr(importlib.import_module(_HOMES.get(name, "memdir.errors")), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
