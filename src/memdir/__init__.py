"""memdir: layered, file-based, typed memory for LLM agents.

Open a project's memory with :meth:`Memdir.open`; everything else hangs off
that object. The names below are the public API; the modules behind them are
implementation details and may move.
"""

from typing import TYPE_CHECKING, Any

from memdir.config import Settings, load_settings
from memdir.errors import (
    ConfigError,
    Conflict,
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
    SyncError,
    UnsafePath,
)
from memdir.model import Memory, MemoryRecord, MemoryType, Scope

if TYPE_CHECKING:
    from memdir.api import Memdir
    from memdir.storage.store import MemoryStore, WriteResult

__all__ = [
    "ConfigError",
    "Conflict",
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
    "SyncError",
    "UnsafePath",
    "WriteResult",
    "load_settings",
]

# Resolved on first use, so that `import memdir` (and every CLI start) stays cheap.
_LAZY = {
    "Memdir": "memdir.api",
    "MemoryStore": "memdir.storage.store",
    "WriteResult": "memdir.storage.store",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'memdir' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
