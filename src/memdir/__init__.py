"""memdir: layered, file-based, typed memory for LLM agents.

Open a project's memory with :meth:`Memdir.open`; everything else hangs off
that object. The names below are the public API; the modules behind them are
implementation details and may move.
"""

from memdir.api import Memdir
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
