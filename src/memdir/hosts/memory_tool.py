"""The Anthropic memory tool (``memory_20250818``) backed by a memdir scope.

Claude's memory tool works on a virtual ``/memories`` folder with six
commands: view, create, str_replace, insert, delete, rename.
:class:`MemoryToolBackend` maps that folder onto one memdir scope (private by
default) and runs every write through :class:`~memdir.storage.store.MemoryStore`,
so each write is atomic, taken under the scope's inter-process lock, and
keeps ``MEMORY.md`` in step.

What Claude writes reads back byte for byte, with the same line numbers,
whatever the extension (text only). A ``.md`` whose frontmatter is complete
is an ordinary memdir memory; any other note (a ``.txt``, a ``.json``, a
``.md`` without frontmatter) is written exactly as given and its fields
(name from the file name, description from the first line, type
``default_type``) live in a hidden sidecar (:mod:`memdir.storage.sidecar`):
derived on the first write, kept across edits, moved and trashed with the
note, so recall and search see the note while the tool never shows the
sidecar. An edit that breaks a memory's frontmatter turns it into such a note
(its last fields go to the sidecar) rather than being refused. A concurrent
change makes an edit re-read and re-apply (compare-and-swap), never overwrite.

In team scope only ``.md`` notes are created (or renamed to): team sync
shares ``*.md`` files only. A ``.md`` note's text and index line are shared;
its sidecar stays on this machine (team sync keeps ``.meta/`` out of git).

Results and error texts follow the SDK's reference tool
(``BetaLocalFilesystemMemoryTool``) where it is safe to. Deliberately stricter
(listed in docs/memory-tool.md): ``/memories`` is matched on path components (the SDK
writes ``/memories_x/a.md`` to ``memories/_x/a.md``); every path goes through
:func:`~memdir.storage.fs.safe_join` (traversal, encodings, look-alikes,
control characters, symlink escapes); hidden names, names that are not
portable or too long, binary extensions and text with NUL are refused; sizes
are limited; ``MEMORY.md`` may be viewed, never written; deletes go to
memdir's trash; error text names ``/memories/...`` paths, never a host path.

The backend's classes each hold one part, in a module of its own: the
``/memories`` paths and what they may name
(:class:`~memdir.hosts.memory_tool_paths.VirtualFolder`), delete and
rename (:class:`~memdir.hosts.memory_tool_moves.MovingNotes`); this
module runs the commands, views, creates and edits notes.

:meth:`MemoryToolBackend.execute` takes the command as a dict and returns the
tool result text (errors start with ``Error:``). :func:`anthropic_memory_tool`
wraps the backend in the SDK's ``BetaAbstractMemoryTool`` so it plugs into
``client.beta.messages.tool_runner``.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import re
import time
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
)
from memdir.history.provenance import provenance
from memdir.hosts.memory_tool_moves import MovingNotes
from memdir.hosts.memory_tool_paths import VIRTUAL_ROOT, decode_note
from memdir.model import MAX_NAME_CHARS, Memory, MemoryType, Scope, plain_line
from memdir.storage import sidecar
from memdir.storage.codec import parse_memory, split_frontmatter
from memdir.storage.store import MemoryStore, WriteResult, content_version

if TYPE_CHECKING:
    from anthropic.lib.tools import BetaAbstractMemoryTool

__all__ = [
    "VIRTUAL_ROOT",
    "Memdir",
    "MemoryToolBackend",
    "MemoryToolResult",
    "anthropic_memory_tool",
]

_LINE_WIDTH = 6
_MAX_LINES = 999_999
_RETRIES = 40  # compare-and-swap attempts before an edit gives up under contention


@dataclass(frozen=True, kw_only=True)
class MemoryToolResult:
    """The text the tool returns to the model, and whether it reports an error."""

    text: str
    is_error: bool = False


_CHANGES = frozenset({"create", "str_replace", "insert", "delete", "rename"})


def _string(command: Mapping[str, Any], key: str) -> str:
    value = command[key]
    if not isinstance(value, str):
        raise InvalidMemory(f"`{key}` must be a string, got {type(value).__name__}")
    return value


def _integer(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InvalidMemory(f"`{key}` must be an integer, got {type(value).__name__}")
    try:
        return int(value)
    except ValueError:
        raise InvalidMemory(f"`{key}` must be an integer, got {value!r}") from None


class MemoryToolBackend(MovingNotes):
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
        self._held: str | None = None  # why this command's write awaits review, if it does

    @property
    def memory_root(self) -> Path:
        """The host folder that ``/memories`` stands for."""
        return self.store.root

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
            self._held = None
            with provenance(route="memory-tool"):  # the history names the route of each change
                # A delete or rename is judged before it runs; a write, by what it writes.
                before = self.store.hold_reason() if name in _CHANGES else None
                text = handler(command)
            reason = self._held or before
            if reason:
                text += (
                    f" This change awaits the user's review ({reason}): it is not in memory "
                    "until they approve it (`memdir review approve`)."
                )
            return MemoryToolResult(text=text)
        except MemdirError as exc:
            return MemoryToolResult(text=self._message(exc), is_error=True)
        except KeyError as exc:
            return MemoryToolResult(text=f"malformed {name} command: missing {exc}", is_error=True)
        except (TypeError, ValueError) as exc:
            return MemoryToolResult(text=f"malformed {name} command: {exc}", is_error=True)
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            return MemoryToolResult(text=f"{name} failed: {reason}", is_error=True)

    def _handlers(self) -> dict[str, Callable[[Mapping[str, Any]], str]]:
        return {
            "view": lambda c: self.view(_string(c, "path"), c.get("view_range")),
            "create": lambda c: self.create(_string(c, "path"), _string(c, "file_text")),
            "str_replace": lambda c: self.str_replace(
                _string(c, "path"), _string(c, "old_str"), _string(c, "new_str")
            ),
            "insert": lambda c: self.insert(
                _string(c, "path"),
                _integer(c["insert_line"], "insert_line"),
                _string(c, "insert_text"),
            ),
            "delete": lambda c: self.delete(_string(c, "path")),
            "rename": lambda c: self.rename(_string(c, "old_path"), _string(c, "new_path")),
        }

    def _message(self, exc: MemdirError) -> str:
        text = self._scrub(exc.message)
        return f"{text} ({self._scrub(exc.hint)})" if exc.hint else text

    # -- commands ------------------------------------------------------------------

    def view(self, path: str, view_range: Any = None) -> str:
        """A directory listing (two levels) or a file with line numbers."""
        rel = self._relative(path)
        target = self.store.root / rel
        if not rel or (target.is_dir() and not target.is_symlink()):
            return self._listing(rel)
        text = decode_note(path, self._read(path, target))
        return self._numbered(path, text, view_range)

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

    def _numbered(self, path: str, text: str, view_range: Any) -> str:
        lines = text.split("\n")
        if len(lines) > _MAX_LINES:
            raise LimitExceeded(f"File {path} exceeds maximum line limit of 999,999 lines.")
        shown, first = lines, 1
        # The SDK's forms: [start, end], end -1 for "to the end"; anything else shows all.
        if isinstance(view_range, list | tuple) and len(view_range) == 2:
            start = max(1, _integer(view_range[0], "view_range")) - 1
            end = _integer(view_range[1], "view_range")
            shown, first = lines[start : len(lines) if end == -1 else end], start + 1
        body = "\n".join(f"{str(n).rjust(_LINE_WIDTH)}\t{s}" for n, s in enumerate(shown, first))
        limit = self.memdir.settings.max_view_bytes
        if len(body.encode("utf-8")) > limit:
            raise LimitExceeded(
                f"{path} is more than {limit} bytes with line numbers",
                hint="pass a view_range of fewer lines",
            )
        return f"Here's the content of {path} with line numbers:\n{body}"

    def create(self, path: str, file_text: str) -> str:
        """Create a note holding exactly ``file_text`` (see the module docstring)."""
        rel = self._new_note(path)
        if "\x00" in file_text:
            raise InvalidMemory(f"{path}: file_text holds NUL characters; memory files are text")
        if os.path.lexists(self.store.root / rel):
            raise MemoryExists(
                f"File {path} already exists",
                hint="change it with str_replace or insert, or delete it first",
            )
        memory, complete = self._derive(rel, file_text)
        try:
            if complete and rel.endswith(".md"):
                self._wrote(self.store.write_text(rel, file_text, expected_version=""))
            else:
                self._wrote(self.store.write_note(rel, file_text, memory, expected_version=""))
        except Conflict:
            raise MemoryExists(
                f"File {path} already exists",
                hint="change it with str_replace or insert, or delete it first",
            ) from None
        return f"File created successfully at: {path}"

    def _derive(self, rel: str, text: str) -> tuple[Memory, bool]:
        """The note's fields: its own frontmatter's, the rest derived; and if none was missing."""
        block, body, _ = split_frontmatter(text)
        try:
            parsed = parse_memory(text) if block is not None else None
        except MemdirError:
            parsed = None  # frontmatter that does not parse is just text
        if parsed is None:
            parsed, body = Memory(name="", description="", type=None), text
        complete = bool(parsed.name and parsed.description and parsed.type is not None)
        memory = replace(
            parsed,
            name=parsed.name or _name_from(rel),
            description=parsed.description or _first_line(body) or "notes",
            type=parsed.type or self.default_type,
            created=parsed.created or dt.date.today(),
            updated=dt.date.today(),
            extra={k: v for k, v in parsed.extra.items() if k != "type" or parsed.type},
        )
        if self.scope is Scope.TEAM and memory.type is MemoryType.USER:
            raise InvalidMemory("user memories are always private", hint="use another type")
        return memory, complete

    def str_replace(self, path: str, old_str: str, new_str: str) -> str:
        """Replace the one occurrence of ``old_str`` in the file."""
        if not old_str:
            raise InvalidMemory("old_str is empty", hint="pass the exact text to replace")

        def change(text: str) -> str:
            count = text.count(old_str)
            if count == 0:
                raise InvalidMemory(
                    f"No replacement was performed, old_str `{old_str}` did not appear "
                    f"verbatim in {path}."
                )
            if count > 1:
                lines = [text.count("\n", 0, m.start()) + 1 for m in _finditer(text, old_str)]
                raise InvalidMemory(
                    f"No replacement was performed. Multiple occurrences of old_str "
                    f"`{old_str}` in lines: {', '.join(map(str, lines))}. Please ensure it is "
                    "unique"
                )
            return text.replace(old_str, new_str, 1)

        old_text, new_text = self._edit(path, change)
        line = old_text.count("\n", 0, old_text.find(old_str))  # 0-based, where the change starts
        new_lines = new_text.split("\n")
        first, last = max(0, line - 2), min(len(new_lines), line + 3)
        numbered = "\n".join(
            f"{str(n + 1).rjust(_LINE_WIDTH)}\t{new_lines[n]}" for n in range(first, last)
        )
        return (
            "The memory file has been edited. Here is the snippet showing the change "
            f"(with line numbers):\n{numbered}"
        )

    def insert(self, path: str, insert_line: int, insert_text: str) -> str:
        """Insert ``insert_text`` after line ``insert_line`` (0: at the top)."""

        def change(text: str) -> str:
            lines = text.split("\n")
            if lines[-1] == "":
                lines.pop()  # the empty tail a final newline leaves
            if not 0 <= insert_line <= len(lines):
                raise InvalidMemory(
                    f"Invalid `insert_line` parameter: {insert_line}. It should be within "
                    f"the range [0, {len(lines)}]."
                )
            lines.insert(insert_line, insert_text.rstrip("\n"))
            joined = "\n".join(lines)
            return joined if joined.endswith("\n") else joined + "\n"

        self._edit(path, change)
        return f"The file {path} has been edited."

    def _edit(self, path: str, change: Callable[[str], str]) -> tuple[str, str]:
        """Apply ``change`` to the file's text with compare-and-swap, re-applying on races."""
        rel = self._writable(path)
        target = self.store.root / rel
        for attempt in range(_RETRIES):
            data = self._read(path, target)
            old_text = decode_note(path, data)
            new_text = change(old_text)
            try:
                self._save(rel, data, new_text)
            except Conflict:
                # Changed by another process since we read it: re-read and re-apply,
                # after a short random pause so that contending writers spread out.
                time.sleep(random.uniform(0, 0.002 * (attempt + 1)))
                continue
            return old_text, new_text
        raise Conflict(f"{path} kept changing while being edited", hint="retry the edit")

    def _save(self, rel: str, data: bytes, new_text: str) -> None:
        """Write an edit: a memory stays one, a note keeps its sidecar, a plain file gets one."""
        version = content_version(data)
        target = self.store.root / rel
        if sidecar.exists(target):
            memory = sidecar.load_memory("", path=target)
            memory = replace(memory, updated=dt.date.today())
            self._wrote(self.store.write_note(rel, new_text, memory, expected_version=version))
            return
        current = self._memory_of(rel, data)
        if current is not None:
            try:
                self._wrote(self.store.write_text(rel, new_text, expected_version=version))
                return
            except InvalidMemory:
                # The edit broke the frontmatter: the text is kept as written, and the
                # last good fields move to the sidecar, so recall still finds it.
                memory = replace(current, updated=dt.date.today())
        else:
            memory, _ = self._derive(rel, new_text)
        self._wrote(self.store.write_note(rel, new_text, memory, expected_version=version))

    def _wrote(self, result: WriteResult) -> None:
        """Note why a write was held for review (what the reply then says), if it was."""
        if result.pending is not None:
            self._held = result.held_because or self._held


def _name_from(rel: str) -> str:
    stem = re.sub(r"[_\-\s.]+", " ", PurePosixPath(rel).stem)
    return plain_line(stem, MAX_NAME_CHARS) or "memory"


def _first_line(body: str) -> str:
    for line in body.splitlines():
        text = plain_line(line.strip().lstrip("#>*-"), 140)
        if any(c.isalnum() for c in text):
            return text
    return ""


def _finditer(text: str, needle: str) -> Iterator[re.Match[str]]:
    return re.finditer(re.escape(needle), text)


def _size(path: Path) -> str:
    """A byte count as the SDK's tool prints it: 512B, 4K, 1.5M."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    units = ("B", "K", "M", "G")
    step = min(max(size.bit_length() - 1, 0) // 10, len(units) - 1)
    value = size / 1024**step
    return f"{int(value)}{units[step]}" if value == int(value) else f"{value:.1f}{units[step]}"


def anthropic_memory_tool(backend: MemoryToolBackend) -> BetaAbstractMemoryTool:
    """``backend`` as the SDK's memory tool, for ``client.beta.messages.tool_runner``.

    Needs the ``anthropic`` SDK; errors are raised as the SDK's ``ToolError``
    so the runner marks the result ``is_error``.
    """
    from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError

    def forward(command: Any) -> str:
        result = backend.run(command.model_dump(exclude_none=True, warnings=False))
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
