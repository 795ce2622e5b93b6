"""The Anthropic memory tool (``memory_20250818``) backed by a memdir scope.

Claude's memory tool works on a virtual ``/memories`` folder with six
commands: view, create, str_replace, insert, delete, rename.
:class:`MemoryToolBackend` maps that folder onto one memdir scope (private by
default) and runs every command through :class:`~memdir.storage.store.MemoryStore`,
so each write is atomic, taken under the scope's inter-process lock, and
keeps ``MEMORY.md`` in step. It fixes what the SDK's local reference helper
gets wrong:

- ``/memories`` is matched on path components, so ``/memories_backup/x`` is
  refused; every path then goes through :func:`~memdir.storage.fs.safe_join`;
- the root can be neither renamed nor deleted; deletes go to memdir's trash;
- error text names ``/memories/...`` paths only, never a host path;
- files are memories: only ``*.md`` files (not ``MEMORY.md``, which memdir
  maintains and the tool may only view), each with valid frontmatter.

Trigger: a ``create`` whose text has no (or incomplete) frontmatter.
Why: Claude writes plain notes, but a memory without name, description and
type is invisible to recall and breaks the index. Outcome: the missing fields
are derived (name from the file name, description from the first line, type
``default_type``) and the result says so; the text itself is kept as the body.
Edits (str_replace, insert) work on the whole file and are refused when they
would break the frontmatter; a concurrent change makes them re-read and
re-apply (compare-and-swap), never overwrite.

:meth:`MemoryToolBackend.execute` takes the command as a dict and returns the
tool result text (errors start with ``Error:``). :func:`anthropic_memory_tool`
wraps the backend in the SDK's ``BetaAbstractMemoryTool`` so it plugs into
``client.beta.messages.tool_runner``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from memdir.api import Memdir
from memdir.errors import (
    Conflict,
    InvalidMemory,
    LimitExceeded,
    MemdirError,
    MemoryExists,
    MemoryNotFound,
    UnsafePath,
)
from memdir.model import MAX_NAME_CHARS, Memory, MemoryType, Scope
from memdir.storage.codec import parse_memory, split_frontmatter
from memdir.storage.fs import safe_join
from memdir.storage.memory_index import INDEX_NAME
from memdir.storage.store import MemoryStore, content_version

if TYPE_CHECKING:
    from anthropic.lib.tools import BetaAbstractMemoryTool

__all__ = [
    "VIRTUAL_ROOT",
    "MemoryToolBackend",
    "MemoryToolResult",
    "anthropic_memory_tool",
]

VIRTUAL_ROOT = "/memories"
_LINE_WIDTH = 6
_RETRIES = 8
# Subtrees of the memory directory that belong to other owners when the
# backend serves the private scope (they mirror the facade's exclusions).


@dataclass(frozen=True, kw_only=True)
class MemoryToolResult:
    """The text the tool returns to the model, and whether it reports an error."""

    text: str
    is_error: bool = False


class MemoryToolBackend:
    """``memory_20250818`` commands over one memdir scope (see the module docstring)."""

    def __init__(
        self,
        memdir: Memdir,
        *,
        scope: Scope | str = Scope.PRIVATE,
        default_type: MemoryType | str = MemoryType.PROJECT,
    ) -> None:
        self.memdir = memdir
        self.store: MemoryStore = memdir.store(scope)
        self.scope = self.store.scope
        self.default_type = MemoryType(default_type)
        self._foreign = self.store.excluded

    # -- dispatch ------------------------------------------------------------------

    def execute(self, command: Mapping[str, Any]) -> str:
        """Run one command (the tool input as a dict); errors come back as ``Error: ...``."""
        result = self.run(command)
        return f"Error: {result.text}" if result.is_error else result.text

    def run(self, command: Mapping[str, Any]) -> MemoryToolResult:
        """Run one command; every failure becomes an error result the model can act on."""
        name = command.get("command")
        handler = self._handlers().get(str(name))
        if handler is None:
            return MemoryToolResult(
                text=f"unknown command {name!r}: use one of view, create, str_replace, "
                "insert, delete, rename",
                is_error=True,
            )
        try:
            return MemoryToolResult(text=handler(command))
        except MemdirError as exc:
            return MemoryToolResult(text=self._message(exc), is_error=True)
        except (KeyError, TypeError, ValueError) as exc:
            return MemoryToolResult(text=f"malformed {name} command: {exc}", is_error=True)
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            return MemoryToolResult(text=f"{name} failed: {reason}", is_error=True)

    def _handlers(self) -> dict[str, Callable[[Mapping[str, Any]], str]]:
        return {
            "view": lambda c: self.view(c["path"], c.get("view_range")),
            "create": lambda c: self.create(c["path"], c["file_text"]),
            "str_replace": lambda c: self.str_replace(c["path"], c["old_str"], c["new_str"]),
            "insert": lambda c: self.insert(c["path"], int(c["insert_line"]), c["insert_text"]),
            "delete": lambda c: self.delete(c["path"]),
            "rename": lambda c: self.rename(c["old_path"], c["new_path"]),
        }

    def _message(self, exc: MemdirError) -> str:
        text = self._scrub(exc.message)
        return f"{text} ({self._scrub(exc.hint)})" if exc.hint else text

    def _scrub(self, text: str) -> str:
        root = self.store.root
        for host in sorted({str(root), os.path.realpath(root)}, key=len, reverse=True):
            text = text.replace(host.rstrip("/") + "/", f"{VIRTUAL_ROOT}/")
            text = text.replace(host, VIRTUAL_ROOT)
        return text

    # -- paths ---------------------------------------------------------------------

    def _relative(self, path: str) -> str:
        """``path`` below ``/memories`` ("" for the root); compared by component."""
        if not isinstance(path, str):
            raise UnsafePath(f"path must be a string, got {type(path).__name__}")
        parts = path.split("/")
        if len(parts) < 2 or parts[0] != "" or parts[1] != VIRTUAL_ROOT.strip("/"):
            raise UnsafePath(
                f"{path!r} is outside {VIRTUAL_ROOT}",
                hint=f"every path starts with {VIRTUAL_ROOT}/, e.g. {VIRTUAL_ROOT}/notes.md",
            )
        rest = "/".join(parts[2:])
        if rest == "":  # "/memories" or "/memories/"
            return ""
        safe_join(self.store.root, rest)  # refuses traversal, encodings, symlink escapes
        top = rest.split("/", 1)[0]
        if top in self._foreign or any(p.startswith(".") for p in rest.split("/") if p):
            raise UnsafePath(
                f"{path!r} is not part of this memory",
                hint=f"use a file directly in {VIRTUAL_ROOT}/ or a subfolder of your own",
            )
        return rest.rstrip("/")

    def _file(self, path: str, *, readable_index: bool = False) -> str:
        rel = self._relative(path)
        if not rel:
            raise InvalidMemory(f"{VIRTUAL_ROOT} is a directory, not a file")
        if readable_index and rel == INDEX_NAME:
            return rel
        if not rel.endswith(".md") or PurePosixPath(rel).name == INDEX_NAME:
            raise InvalidMemory(
                f"{path!r} is not a memory file",
                hint=f"memory files end in .md (not {INDEX_NAME}, which memdir keeps), "
                f"e.g. {VIRTUAL_ROOT}/notes.md",
            )
        return rel

    def _virtual(self, rel: str) -> str:
        return f"{VIRTUAL_ROOT}/{rel}" if rel else VIRTUAL_ROOT

    # -- commands ------------------------------------------------------------------

    def view(self, path: str, view_range: list[int] | None = None) -> str:
        """A directory listing (two levels) or a file with line numbers."""
        rel = self._relative(path)
        target = self.store.root / rel
        if not rel or target.is_dir():
            return self._listing(rel)
        rel = self._file(path, readable_index=True)
        if not target.is_file():
            raise MemoryNotFound(
                f"{path} does not exist", hint=f"view {VIRTUAL_ROOT} to see what there is"
            )
        return self._numbered(path, target.read_text(encoding="utf-8"), view_range)

    def _listing(self, rel: str) -> str:
        shown = self._virtual(rel)
        lines = [f"{_size(self.store.root / rel)}\t{shown}"]
        for sub, size in self._walk(self.store.root / rel, rel, depth=2):
            lines.append(f"{size}\t{self._virtual(sub)}")
        header = (
            f"Here're the files and directories up to 2 levels deep in {shown}, "
            "excluding hidden items:"
        )
        return header + "\n" + "\n".join(lines)

    def _walk(self, directory: Path, rel: str, *, depth: int) -> Iterator[tuple[str, str]]:
        for entry in sorted(os.scandir(directory), key=lambda e: e.name):
            sub = f"{rel}/{entry.name}" if rel else entry.name
            if entry.name.startswith(".") or (not rel and entry.name in self._foreign):
                continue
            if entry.is_dir(follow_symlinks=False):
                yield f"{sub}/", _size(Path(entry.path))
                if depth > 1:
                    yield from self._walk(Path(entry.path), sub, depth=depth - 1)
            elif entry.is_file(follow_symlinks=False):
                yield sub, _size(Path(entry.path))

    def _numbered(self, path: str, text: str, view_range: list[int] | None) -> str:
        lines = text.split("\n")
        start, end = 1, len(lines)
        if view_range:
            if len(view_range) != 2:
                raise InvalidMemory("view_range must be [start_line, end_line]")
            start = max(1, int(view_range[0]))
            end = len(lines) if int(view_range[1]) == -1 else min(int(view_range[1]), end)
        body = "\n".join(
            f"{str(n).rjust(_LINE_WIDTH)}\t{lines[n - 1]}" for n in range(start, end + 1)
        )
        limit = self.memdir.settings.max_view_bytes
        if len(body.encode("utf-8")) > limit:
            raise LimitExceeded(
                f"{path} lines {start}-{end} are more than {limit} bytes",
                hint="pass a smaller view_range",
            )
        return f"Here's the content of {path} with line numbers:\n{body}"

    def create(self, path: str, file_text: str) -> str:
        """Create a memory file; frontmatter it lacks is derived (see the module docstring)."""
        rel = self._file(path)
        memory, added = self._memory_for(rel, file_text)
        try:
            if added:
                self.store.write(memory, file=rel, expected_version="")
            else:
                self.store.write_text(rel, file_text, expected_version="")
        except Conflict:
            raise MemoryExists(
                f"{path} already exists",
                hint="change it with str_replace or insert, or delete it first",
            ) from None
        note = f" (frontmatter added: {', '.join(added)})" if added else ""
        return f"File created successfully at: {path}{note}"

    def _memory_for(self, rel: str, text: str) -> tuple[Memory, list[str]]:
        block, body, _ = split_frontmatter(text)
        memory = (
            parse_memory(text)
            if block is not None
            else Memory(name="", description="", type=None, body=body)
        )
        derived = {
            "name": re.sub(r"[_\-\s]+", " ", PurePosixPath(rel).stem).strip()[:MAX_NAME_CHARS]
            or "memory",
            "description": _first_line(memory.body) or "notes",
        }
        added = [k for k in ("name", "description") if not getattr(memory, k)]
        extra = dict(memory.extra)
        fills: dict[str, Any] = {k: derived[k] for k in added}
        if memory.type is None:
            added.append("type")
            extra.pop("type", None)
            fills["type"] = self.default_type
        if self.scope is Scope.TEAM and memory.type is MemoryType.USER:
            raise InvalidMemory("user memories are always private", hint="use another type")
        return replace(memory, extra=extra, **fills), added

    def str_replace(self, path: str, old_str: str, new_str: str) -> str:
        """Replace the one occurrence of ``old_str`` in the file."""
        if not old_str:
            raise InvalidMemory("old_str is empty", hint="pass the exact text to replace")

        def change(text: str) -> str:
            count = text.count(old_str)
            if count == 0:
                raise InvalidMemory(
                    f"No replacement was performed, old_str `{old_str}` did not appear "
                    f"verbatim in {path}",
                    hint="view the file and copy the text exactly",
                )
            if count > 1:
                lines = sorted(
                    {text.count("\n", 0, m.start()) + 1 for m in _finditer(text, old_str)}
                )
                raise InvalidMemory(
                    f"No replacement was performed. Multiple occurrences of old_str "
                    f"`{old_str}` in lines: {', '.join(map(str, lines))}",
                    hint="include more surrounding text so that it is unique",
                )
            return text.replace(old_str, new_str, 1)

        new_text = self._edit(path, change)
        line = new_text.count("\n", 0, new_text.find(new_str)) if new_str else 0
        snippet = new_text.split("\n")[max(0, line - 2) : line + 3]
        numbered = "\n".join(
            f"{str(n).rjust(_LINE_WIDTH)}\t{s}" for n, s in enumerate(snippet, max(1, line - 1))
        )
        return (
            "The memory file has been edited. Here is the snippet showing the change "
            f"(with line numbers):\n{numbered}"
        )

    def insert(self, path: str, insert_line: int, insert_text: str) -> str:
        """Insert ``insert_text`` after line ``insert_line`` (0: at the top)."""

        def change(text: str) -> str:
            lines = text.split("\n")
            if text.endswith("\n"):
                lines.pop()
            if not 0 <= insert_line <= len(lines):
                raise InvalidMemory(
                    f"Invalid `insert_line` parameter: {insert_line}. It should be within "
                    f"the range [0, {len(lines)}]"
                )
            lines[insert_line:insert_line] = insert_text.rstrip("\n").split("\n")
            return "\n".join(lines) + "\n"

        self._edit(path, change)
        return f"The file {path} has been edited."

    def _edit(self, path: str, change: Callable[[str], str]) -> str:
        """Apply ``change`` to the file's text with compare-and-swap, re-applying on races."""
        rel = self._file(path)
        for _ in range(_RETRIES):
            try:
                data = (self.store.root / rel).read_bytes()
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                raise MemoryNotFound(
                    f"The path {path} does not exist",
                    hint=f"view {VIRTUAL_ROOT} to see what there is, or create it",
                ) from None
            new_text = change(data.decode("utf-8", errors="replace"))
            try:
                self.store.write_text(rel, new_text, expected_version=content_version(data))
            except Conflict:
                continue  # changed by another process since we read it: re-read, re-apply
            except InvalidMemory as exc:
                raise InvalidMemory(
                    f"the edit would leave {path} without valid frontmatter ({exc.message})",
                    hint="keep the name, description and type lines between the --- fences",
                ) from None
            return new_text
        raise Conflict(f"{path} kept changing while being edited", hint="retry the edit")

    def delete(self, path: str) -> str:
        """Delete a memory file, or a folder of them (to memdir's trash)."""
        rel = self._relative(path)
        if not rel:
            raise UnsafePath(f"cannot delete the {VIRTUAL_ROOT} directory itself")
        target = self.store.root / rel
        if target.is_dir() and not target.is_symlink():
            files = self._memories_in(rel, path)
            for file in files:
                self.store.delete(file)
            _remove_empty_dirs(target)
            return f"Successfully deleted {path} ({len(files)} memories)"
        rel = self._file(path)
        if not target.is_file():
            raise MemoryNotFound(f"The path {path} does not exist")
        self.store.delete(rel)
        return f"Successfully deleted {path}"

    def rename(self, old_path: str, new_path: str) -> str:
        """Move a memory file, or a folder of them; the index follows."""
        old, new = self._relative(old_path), self._relative(new_path)
        if not old:
            raise UnsafePath(f"cannot rename the {VIRTUAL_ROOT} directory itself")
        if not new:
            raise UnsafePath(f"cannot rename onto the {VIRTUAL_ROOT} directory itself")
        if (self.store.root / new).exists():
            raise MemoryExists(f"The destination {new_path} already exists")
        source = self.store.root / old
        if source.is_dir() and not source.is_symlink():
            files = self._memories_in(old, old_path)
            moves = [(f, new + f[len(old) :]) for f in files]
            for _, target in moves:
                self._file(self._virtual(target))
            for file, target in moves:
                self.store.rename(file, target)
            _remove_empty_dirs(source)
            return f"Successfully renamed {old_path} to {new_path}"
        old, new = self._file(old_path), self._file(new_path)
        if not source.is_file():
            raise MemoryNotFound(f"The path {old_path} does not exist")
        self.store.rename(old, new)
        return f"Successfully renamed {old_path} to {new_path}"

    def _memories_in(self, rel: str, shown: str) -> list[str]:
        files = [f for f in self.store.files() if f.startswith(rel + "/")]
        others = [
            p
            for p in (self.store.root / rel).rglob("*")
            if p.is_file() and not p.name.endswith(".md") and not p.name.startswith(".")
        ]
        if others:
            raise InvalidMemory(
                f"{shown} holds files that are not memories",
                hint="move or delete those files one by one first",
            )
        return files


def _first_line(body: str) -> str:
    for line in body.splitlines():
        text = line.strip().lstrip("#>*-").strip()
        if text:
            return text[:140]
    return ""


def _finditer(text: str, needle: str) -> Iterator[re.Match[str]]:
    return re.finditer(re.escape(needle), text)


def _size(path: Path) -> str:
    try:
        size = float(path.stat().st_size)
    except OSError:
        size = 0.0
    if size < 1024:
        return f"{int(size)}B"
    for unit in ("K", "M", "G"):
        size /= 1024
        if size < 1024 or unit == "G":
            break
    return f"{size:.1f}{unit}"


def _remove_empty_dirs(top: Path) -> None:
    for dirpath, _, _ in sorted(os.walk(top), key=lambda t: len(t[0]), reverse=True):
        try:
            os.rmdir(dirpath)
        except OSError:
            continue  # not empty (hidden files): leave it


def anthropic_memory_tool(backend: MemoryToolBackend) -> BetaAbstractMemoryTool:
    """``backend`` as the SDK's memory tool, for ``client.beta.messages.tool_runner``.

    Needs the ``anthropic`` SDK; errors are raised as the SDK's ``ToolError``
    so the runner marks the result ``is_error``.
    """
    from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError

    def forward(command: Any) -> str:
        result = backend.run(command.model_dump(exclude_none=True))
        if result.is_error:
            raise ToolError(result.text)
        return result.text

    class MemdirMemoryTool(BetaAbstractMemoryTool):
        """Claude's memory tool over a memdir scope."""

        def view(self, command: Any) -> str:
            return forward(command)

        def create(self, command: Any) -> str:
            return forward(command)

        def str_replace(self, command: Any) -> str:
            return forward(command)

        def insert(self, command: Any) -> str:
            return forward(command)

        def delete(self, command: Any) -> str:
            return forward(command)

        def rename(self, command: Any) -> str:
            return forward(command)

    return MemdirMemoryTool()
