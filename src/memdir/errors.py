"""The one exception tree of memdir.

Every error memdir raises on purpose derives from :class:`MemdirError` and
carries the file it concerns (``path``), the rule it broke and a ``hint``
naming the next step. Adapters (CLI, MCP, hooks) translate these; the core
never branches on message text::

    MemdirError
    ├── ConfigError            bad setting or environment value
    ├── UnsafePath             a path escapes its root or is malformed
    ├── ProjectMismatch        two project roots map to one slug
    ├── MemoryNotFound         no memory by that name or file
    ├── MemoryExists           create refused: the file is already there
    ├── Conflict               compare-and-swap: the file changed since it was read
    ├── InvalidMemory          a memory value breaks a rule (type, name, scope)
    │   └── ParseError         a file's frontmatter cannot be read
    ├── LimitExceeded          a size or count limit
    ├── SecretDetected         a secret in content bound for team memory
    ├── LockTimeout            a lock could not be taken in time
    ├── TranscriptError        a transcript file cannot be opened or read
    ├── SyncError              team git sync failed; local state is intact
    ├── StorageError           a file or database could not be read or written
    │   └── DiskFull           no space left on the device (or the quota is spent)
    └── ProviderError          a language-model provider failed
        ├── ProviderAuthError  credentials missing or refused (never retried)
        └── ProviderBlocked    real requests are blocked (tests)
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself is not imported: the per-call hooks load this module
if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "ConfigError",
    "Conflict",
    "DiskFull",
    "InvalidMemory",
    "LimitExceeded",
    "LockTimeout",
    "MemdirError",
    "MemoryExists",
    "MemoryNotFound",
    "ParseError",
    "ProjectMismatch",
    "ProviderAuthError",
    "ProviderBlocked",
    "ProviderError",
    "SecretDetected",
    "StorageError",
    "SyncError",
    "TranscriptError",
    "UnsafePath",
]


class MemdirError(Exception):
    """Base of every memdir error.

    ``path`` is the file or directory concerned (or ``None``); ``hint`` tells
    the caller what to do next. ``str(err)`` joins message, path and hint.
    """

    def __init__(
        self, message: str, *, path: str | Path | None = None, hint: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.hint = hint

    def __str__(self) -> str:
        text = self.message
        if self.path is not None and self.path not in text:
            text = f"{self.path}: {text}"
        if self.hint:
            text = f"{text} ({self.hint})"
        return text


class ConfigError(MemdirError):
    """A setting or environment variable has an invalid value."""


class UnsafePath(MemdirError):
    """A path handed to memdir is malformed or escapes its root."""


class ProjectMismatch(MemdirError):
    """Two different project roots map to one project folder."""


class MemoryNotFound(MemdirError):
    """No memory by that name or file."""


class MemoryExists(MemdirError):
    """A create was refused because the file already exists."""


class Conflict(MemdirError):
    """The file changed since the caller read it (compare-and-swap failed)."""

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        hint: str | None = None,
        expected: str | None = None,
        actual: str | None = None,
    ) -> None:
        super().__init__(message, path=path, hint=hint)
        self.expected = expected
        self.actual = actual


class InvalidMemory(MemdirError):
    """A memory value breaks a rule (missing name, unknown type, wrong scope)."""


class ParseError(InvalidMemory):
    """A memory file's frontmatter cannot be parsed; ``line`` is 1-based."""

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        hint: str | None = None,
        line: int | None = None,
    ) -> None:
        super().__init__(message, path=path, hint=hint)
        self.line = line

    def __str__(self) -> str:
        base = super().__str__()
        if self.line is not None and self.path is not None:
            return base.replace(f"{self.path}:", f"{self.path}:{self.line}:", 1)
        return base


class LimitExceeded(MemdirError):
    """A size or count limit was reached."""


class SecretDetected(MemdirError):
    """Content bound for team memory contains a secret; ``labels`` name the rules."""

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        hint: str | None = None,
        labels: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message, path=path, hint=hint)
        self.labels = labels


class LockTimeout(MemdirError):
    """A file lock could not be acquired in time."""


class TranscriptError(MemdirError):
    """A transcript file could not be opened or read."""


class SyncError(MemdirError):
    """Team sync failed; the local memory is left as it was."""


class StorageError(MemdirError):
    """A file or database could not be read or written (I/O error, damaged, a folder in
    the way); ``path`` names it. What memdir derives from the memory files (catalog,
    caches) is rebuilt from them: ``memdir doctor --fix`` repairs it."""


class DiskFull(StorageError):
    """No space left on the device (or the disk quota is spent) writing ``path``."""


class ProviderError(MemdirError):
    """A language-model provider call failed."""


class ProviderAuthError(ProviderError):
    """Credentials are missing or were refused; never retried."""


class ProviderBlocked(ProviderError):
    """Real provider requests are blocked (the test-suite switch is on)."""
