"""Drift checks: do the paths and symbols a memory names still exist?

A memory that names `src/api.py`, `api.py:120` or `parse_config()` makes a
claim about the project as it was. :func:`find_claims` collects those claims
from the memory's ``anchors`` and, conservatively, from its body: only
backticked spans that look like code (a path with a known extension, a
qualified or called identifier, a snake_case or camelCase name) and bare
``file.ext:N`` references; fenced code blocks and URLs are ignored, so prose
never becomes a claim.

:class:`DriftChecker` checks claims against one project root. Paths resolve
inside the root only: a claim that leaves it (``../``, an absolute path
elsewhere, a symlink out) is left unchecked, never reported as existing.
Symbols are looked up as whole identifiers in the files git would track
(``git ls-files --cached --others --exclude-standard``), or, outside git, in a
walk that skips VCS, dependency and cache folders. Each file is read at most
once per checker, and only as far as the symbols asked for are not yet found:
its identifiers go into one set, so a symbol that still exists costs a
partial scan (recall, per prompt) and checking many memories (doctor) at most
one full scan. Binary and oversized files are skipped.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Literal

from memdir.model import Memory
from memdir.utils.records import record

__all__ = [
    "Claim",
    "ClaimKind",
    "ClaimStatus",
    "DriftChecker",
    "DriftFinding",
    "check_drift",
    "find_claims",
]

# File types whose names, written in a memory, are confidently paths. Extensions that
# double as common attribute names (`.lock`, `.env`, `.sum`) are left out; the
# well-known files that carry them are named instead.
_EXTENSIONS = frozenset(
    {
        "py", "pyi", "pyx", "ipynb", "js", "jsx", "mjs", "cjs", "ts", "tsx", "vue", "svelte",
        "go", "rs", "java", "kt", "kts", "scala", "groovy", "gradle", "rb", "php", "c", "h",
        "cc", "cpp", "cxx", "hpp", "cs", "swift", "dart", "lua", "pl", "ex", "exs", "erl", "hs",
        "clj", "cljs", "elm", "zig", "sh", "bash", "zsh", "fish", "ps1", "bat", "sql",
        "graphql", "gql", "proto", "thrift", "md", "mdx", "rst", "txt", "adoc", "toml", "yaml",
        "yml", "json", "jsonc", "json5", "ini", "cfg", "conf", "xml", "html", "htm", "css",
        "scss", "sass", "less", "csv", "tsv", "tf", "tfvars", "hcl", "nix",
    }
)  # fmt: skip
_BARE_FILENAMES = frozenset(
    {
        "Makefile", "Dockerfile", "Justfile", "Rakefile", "Gemfile", "Procfile", "Vagrantfile",
        "go.mod", "go.sum", "Cargo.lock", "poetry.lock", "uv.lock", "yarn.lock", "Gemfile.lock",
        "Pipfile.lock", "composer.lock", "flake.lock", ".gitignore", ".editorconfig",
    }
)  # fmt: skip
# Last parts of dotted names that are host names, not attributes.
_HOST_SUFFIXES = frozenset({"com", "org", "net", "io", "dev", "internal", "local", "ai", "co"})

_SKIP_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__",
        ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".nox", ".memdir",
    }
)  # fmt: skip
MAX_FILE_BYTES = 1_000_000
MAX_FILES = 50_000
_GIT_TIMEOUT = 30.0
# core.fsmonitor off: a repository's config must not make a drift check run a command.
_GIT_LS_FILES = (
    "git", "-c", "core.fsmonitor=false", "ls-files", "-z", "--cached", "--others",
    "--exclude-standard",
)  # fmt: skip

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_IDENT_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
# Every byte that cannot be part of an identifier becomes a space: translate and
# split run in C, about twice as fast as a regex over the same text.
_TO_WORDS = bytes(b if b in _IDENT_BYTES else 0x20 for b in range(256))
# Patterns as text, compiled on first use (re keeps them): recall runs in a fresh
# process per prompt, and most memories it shows cite no code at all.
_FENCE = r"(?ms)^ {0,3}(`{3,}|~{3,}).*?(?:^ {0,3}\1[ \t]*$|\Z)"
_URL = r"\b[A-Za-z][A-Za-z0-9+.-]*://\S+"
_SPAN = r"`([^`\n]+)`"
_PATH_CHARS = r"[\w.\-/]+"
_LINE_SUFFIX = (
    r"^(?P<path>.+?)(?::(?P<line>[0-9]{1,9})(?:-(?P<end>[0-9]{1,9}))?|#L(?P<l2>[0-9]{1,9}))$"
)
_SYMBOL = rf"(?P<name>{_IDENT}(?:(?:\.|::){_IDENT})*)(?P<call>\([^()]*\))?"
# A bare `file.ext:N` in prose: not preceded by a path or word character.
_BARE_LINE_REF = (
    r"(?<![\w./:-])(?P<path>(?:[\w.-]+/)*[\w-][\w.-]*\.(?P<ext>[A-Za-z0-9]+))"
    r":(?P<line>[0-9]{1,9})\b"
)


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)  # compiled once per process: re caches it


class ClaimKind(StrEnum):
    """What a claim says exists: a file or folder, a line in a file, a symbol."""

    PATH = "path"
    LINE = "line"
    SYMBOL = "symbol"


class ClaimStatus(StrEnum):
    """What a check found: the claim holds, it drifted, or it was not checked."""

    HOLDS = "holds"
    DRIFTED = "drifted"
    UNCHECKED = "unchecked"


@record
class Claim:
    """One thing a memory says exists; ``text`` is how the memory wrote it.

    ``target`` is the path (``PATH``, ``LINE``) or the dotted symbol
    (``SYMBOL``); ``line`` is the highest line a ``LINE`` claim cites.
    """

    kind: ClaimKind
    text: str
    target: str
    line: int | None = None
    origin: Literal["anchor", "body"] = "body"


@record
class DriftFinding:
    """A claim that no longer holds, with a message saying concretely why."""

    claim: Claim
    message: str


# -- finding claims ----------------------------------------------------------


def _is_path(text: str, *, explicit: bool) -> bool:
    """Whether ``text`` reads as a path; ``explicit`` (anchors) accepts any slash."""
    if not _rx(_PATH_CHARS).fullmatch(text) or text.startswith("-") or "//" in text:
        return False
    name = text.rstrip("/").rsplit("/", 1)[-1]
    stem, dot, ext = name.rpartition(".")
    if (dot and stem and ext.lower() in _EXTENSIONS) or name in _BARE_FILENAMES:
        return True
    # A slash alone is too weak in prose (`feature/login` is a branch, `owner/repo` a repo).
    return (explicit and "/" in text) or text.endswith("/") or text.startswith("./")


def _path_claims(text: str, origin: Literal["anchor", "body"]) -> list[Claim]:
    match = _rx(_LINE_SUFFIX).match(text)
    if match:
        path = match.group("path")
        numbers = [int(n) for n in match.group("line", "end", "l2") if n]
        if _is_path(path, explicit=origin == "anchor") and min(numbers) > 0:
            return [
                Claim(kind=ClaimKind.LINE, text=text, target=path, line=max(numbers), origin=origin)
            ]
        return []
    if _is_path(text, explicit=origin == "anchor"):
        return [Claim(kind=ClaimKind.PATH, text=text, target=text, origin=origin)]
    return []


def _looks_like_name(name: str) -> bool:
    """A lone identifier counts only if it cannot be an English word."""
    if len(name) < 3 or not any(c.isalpha() for c in name):
        return False
    snake = "_" in name.strip("_")
    camel = name[0].islower() and any(c.isupper() for c in name[1:])
    return snake or camel


def _symbol_claim(text: str, origin: Literal["anchor", "body"], *, explicit: bool) -> Claim | None:
    match = _rx(_SYMBOL).fullmatch(text)
    if match is None:
        return None
    name, called = match.group("name"), match.group("call") is not None
    parts = re.split(r"\.|::", name)
    if parts[-1].lower() in _HOST_SUFFIXES and not called:
        return None
    if not explicit and len(parts) == 1 and not called and not _looks_like_name(name):
        return None
    return Claim(kind=ClaimKind.SYMBOL, text=text, target=name, origin=origin)


def _claims_in(text: str, origin: Literal["anchor", "body"]) -> list[Claim]:
    text = text.strip()
    if not text or len(text) > 300:
        return []
    if "::" in text:
        # pytest node ids and `path::symbol` anchors: a path and a symbol.
        head, _, rest = text.partition("::")
        if _is_path(head, explicit=True):
            symbol = _symbol_claim(rest, origin, explicit=True)
            return _path_claims(head, origin) + ([symbol] if symbol else [])
    paths = _path_claims(text, origin)
    if paths:
        return paths
    symbol = _symbol_claim(text, origin, explicit=origin == "anchor")
    return [symbol] if symbol else []


def _may_cite_line(text: str) -> bool:
    """Whether a colon in ``text`` is followed by a digit (a bare ``file.ext:N`` needs one)."""
    at = text.find(":")
    while at != -1:
        if text[at + 1 : at + 2].isdigit():
            return True
        at = text.find(":", at + 1)
    return False


def _body_claims(body: str) -> Iterator[Claim]:
    if "`" not in body and not _may_cite_line(body):
        return  # no code span and no line reference: prose only, no pattern to run
    prose = _rx(_URL).sub(" ", _rx(_FENCE).sub("\n", body))
    for span in _rx(_SPAN).finditer(prose):
        yield from _claims_in(span.group(1), "body")
    outside_spans = _rx(_SPAN).sub(" ", prose)
    for ref in _rx(_BARE_LINE_REF).finditer(outside_spans):
        if ref.group("ext").lower() in _EXTENSIONS and int(ref.group("line")) > 0:
            path = ref.group("path")
            yield Claim(
                kind=ClaimKind.LINE, text=ref.group(0), target=path, line=int(ref.group("line"))
            )


def find_claims(memory: Memory) -> list[Claim]:
    """The paths, line references and symbols ``memory`` speaks of, anchors first.

    Duplicates (same kind, target and line) are kept once.
    """
    found: list[Claim] = []
    for anchor in memory.anchors:
        found.extend(_claims_in(str(anchor), "anchor"))
    found.extend(_body_claims(memory.body))
    seen: set[tuple[ClaimKind, str, int | None]] = set()
    unique: list[Claim] = []
    for claim in found:
        key = (claim.kind, claim.target, claim.line)
        if key not in seen:
            seen.add(key)
            unique.append(claim)
    return unique


# -- checking claims ---------------------------------------------------------


def _git_files(root: Path) -> list[str] | None:
    # Loaded here: most recalls check no symbol and no missing path, and never list files.
    import subprocess

    try:
        done = subprocess.run(
            [*_GIT_LS_FILES],
            cwd=root,
            capture_output=True,
            timeout=_GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    return list(dict.fromkeys(n for n in names if n))


def _walk_files(root: Path, limit: int) -> list[str]:
    files: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        rel = Path(folder).relative_to(root)
        for name in sorted(names):
            files.append((rel / name).as_posix())
            if len(files) >= limit:
                return files
    return files


def _count_lines(path: Path) -> int:
    count, last = 0, b"\n"
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 16), b""):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")


class DriftChecker:
    """Checks claims against one project root, scanning its files at most once.

    The file list is taken on first need and reused for every later check;
    call :meth:`refresh` after the project changes. Files are read for their
    identifiers only as far as a symbol check needs: the scan stops once the
    identifiers asked for are found and resumes there for the next check, so
    a symbol that still exists is confirmed without reading the whole project
    (recall checks a few memories per prompt), and the whole project is read
    at most once (doctor checks them all).
    """

    def __init__(self, project_root: Path, *, max_files: int = MAX_FILES) -> None:
        self.root = Path(project_root).resolve()
        self.max_files = max_files
        self._files: list[str] | None = None
        self._tokens: set[bytes] = set()
        self._scanned = 0  # how many of the listed files have given their identifiers
        self._by_name: dict[str, list[str]] | None = None
        self._git = False

    def refresh(self) -> None:
        """Forget the scan; the next check takes a new one."""
        self._files = None
        self._tokens = set()
        self._scanned = 0
        self._by_name = None

    # -- the scan --

    def _file_list(self) -> list[str]:
        if self._files is None:
            listed = _git_files(self.root)
            self._git = listed is not None
            names = listed[: self.max_files] if listed is not None else None
            if names is None:
                names = _walk_files(self.root, self.max_files)
            self._files = [n for n in names if os.path.lexists(self.root / n)]
        return self._files

    def _find_tokens(self, wanted: set[bytes]) -> set[bytes]:
        """Which of ``wanted`` no file holds (reading on only while some are not yet seen)."""
        tokens = self._tokens
        missing = wanted - tokens
        files = self._file_list()
        while missing and self._scanned < len(files):
            name = files[self._scanned]
            self._scanned += 1
            # Module and package names count too: `index.truncate_index` names index.py.
            tokens.update(name.encode("utf-8", "surrogateescape").translate(_TO_WORDS).split())
            data = self._read_text_file(self.root / name)
            if data is not None:
                tokens.update(data.translate(_TO_WORDS).split())
            missing = {token for token in missing if token not in tokens}
        return missing

    def _read_text_file(self, path: Path) -> bytes | None:
        # Symlinks are skipped (lstat: a tracked link may point outside the root).
        try:
            info = path.lstat()
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
                return None
            data = path.read_bytes()
        except OSError:
            return None
        return None if b"\0" in data[:8192] else data

    # -- resolving paths --

    def _inside(self, target: str) -> Path | None:
        """``target`` as a path inside the root, or ``None`` when it would leave it."""
        if not target or "\0" in target or target.startswith("~"):
            return None
        path = Path(target)
        if path.is_absolute():
            if not path.is_relative_to(self.root):
                return None
            target = path.relative_to(self.root).as_posix() or "."
        normal = posixpath.normpath(target)
        if normal == ".." or normal.startswith("../") or normal.startswith("/"):
            return None
        candidate = self.root / normal
        try:
            resolved = candidate.resolve()
        except (OSError, RuntimeError):
            return None
        return candidate if resolved.is_relative_to(self.root) else None

    def _entries(self) -> dict[str, list[str]]:
        """Every listed file and every folder above one, by last path part."""
        if self._by_name is None:
            entries = dict.fromkeys(self._file_list())
            for name in list(entries):
                parts = name.split("/")[:-1]
                for depth in range(1, len(parts) + 1):
                    entries.setdefault("/".join(parts[:depth]))
            by_name: dict[str, list[str]] = {}
            for entry in entries:
                by_name.setdefault(entry.rsplit("/", 1)[-1], []).append(entry)
            self._by_name = by_name
        return self._by_name

    def _locate(self, target: str) -> list[Path] | None:
        """Files or folders the claim may mean; ``None``: not checkable here.

        A path that does not exist from the root is also looked for as a
        suffix of the project's paths (`api.py` for `src/pkg/api.py`).
        """
        exact = self._inside(target)
        if exact is None:
            return None
        if exact.exists():
            return [exact]
        if Path(target).is_absolute():
            return []
        suffix = exact.relative_to(self.root).as_posix()
        same_name = self._entries().get(suffix.rsplit("/", 1)[-1], [])
        found = [e for e in same_name if e == suffix or e.endswith("/" + suffix)]
        return [self.root / e for e in found if self._inside(e) is not None]

    # -- checks --

    def status(self, claim: Claim) -> tuple[ClaimStatus, str | None]:
        """Whether ``claim`` holds, and the finding's message when it drifted."""
        if claim.kind is ClaimKind.SYMBOL:
            return self._symbol_status(claim)
        places = self._locate(claim.target)
        if places is None:
            return ClaimStatus.UNCHECKED, None
        if not places:
            return ClaimStatus.DRIFTED, f"`{claim.target}` no longer exists"
        if claim.kind is ClaimKind.PATH or claim.line is None:
            return ClaimStatus.HOLDS, None
        return self._line_status(claim, claim.line, places)

    def _line_status(
        self, claim: Claim, line: int, places: list[Path]
    ) -> tuple[ClaimStatus, str | None]:
        counts: list[int] = []
        for place in places:
            try:
                counts.append(_count_lines(place))
            except OSError:
                continue
        if not counts:
            return ClaimStatus.UNCHECKED, None
        if max(counts) >= line:
            return ClaimStatus.HOLDS, None
        most = max(counts)
        noun = "line" if most == 1 else "lines"
        return ClaimStatus.DRIFTED, f"`{claim.text}` — file has only {most} {noun}"

    def _symbol_status(self, claim: Claim) -> tuple[ClaimStatus, str | None]:
        parts = [p for p in re.split(r"\.|::", claim.target) if p]
        if not parts:
            return ClaimStatus.UNCHECKED, None
        absent = self._find_tokens({p.encode() for p in parts})
        missing = [p for p in parts if p.encode() in absent]
        if not missing:
            return ClaimStatus.HOLDS, None
        where = "tracked files" if self._git else "the project's files"
        detail = f" (no `{missing[0]}`)" if len(parts) > 1 else ""
        return ClaimStatus.DRIFTED, f"`{claim.target}` not found in {where}{detail}"

    def check(self, claims: Iterable[Claim]) -> list[DriftFinding]:
        """A finding for each claim that drifted; unchecked claims report nothing."""
        findings: list[DriftFinding] = []
        for claim in claims:
            state, message = self.status(claim)
            if state is ClaimStatus.DRIFTED and message is not None:
                findings.append(DriftFinding(claim=claim, message=message))
        return findings

    def changed_since(self, memory: Memory, when: float) -> list[str]:
        """The files the memory's anchors cite that changed after ``when`` (a timestamp).

        Only anchors that name a file inside the root count: one stat each.
        """
        changed = []
        for claim in find_claims(memory):
            if claim.origin != "anchor" or claim.kind is ClaimKind.SYMBOL:
                continue
            path = self._inside(claim.target)
            try:
                if path is not None and path.is_file() and path.stat().st_mtime > when:
                    changed.append(claim.target)
            except OSError:
                continue
        return list(dict.fromkeys(changed))

    def check_memory(self, memory: Memory) -> list[DriftFinding]:
        """The findings for every claim ``memory`` makes."""
        return self.check(find_claims(memory))


def check_drift(project_root: Path, claims: Iterable[Claim]) -> list[DriftFinding]:
    """Check ``claims`` against ``project_root`` with a one-off :class:`DriftChecker`."""
    return DriftChecker(project_root).check(claims)
