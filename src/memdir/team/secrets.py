"""Secret scanning for team memory: find, refuse, redact — never echo.

Team memory is shared through git, so every write to it (and every sync) is
scanned with the high-confidence rules of :mod:`memdir.team.secret_rules`
(cloud, AI, git-host, messaging, dev-tooling, observability and commerce
tokens, private keys). A :class:`Finding` says which rule fired and where
(line, column), never what it matched; :func:`ensure_no_secrets` turns
findings into :class:`~memdir.errors.SecretDetected`; :func:`redact` replaces
the values. Scanning runs on UTF-8 bytes: runs of token characters are found
with ``bytes.translate`` + ``bytes.find``, and each rule runs only where its
anchor (``ghp_``, ``-----BEGIN``...) occurs, so 100 KB of markdown takes
about 2 ms (``benchmarks/secrets_scan.py``).

Trigger: SPEC §13 suggests ``detect-secrets`` where its plugins cover a family.
Why not: measured with detect-secrets 1.5.0 on the same 100 KB markdown, its
default plugins take 1.0-1.5 s (0.1 MB/s, about 700 times slower; the budget
is 10 ms). Its family-specific plugins find 26 of the 53 true-positive vectors
in ``tests/test_secrets.py`` and nothing for Anthropic, Hugging Face,
DigitalOcean, Azure AD, Databricks, Terraform, Pulumi, Postman, Grafana,
Sentry or Shopify (some only through its generic base64-entropy plugin, the
kind of rule prose cannot afford); it flags 11 of our 81 near misses (the AWS
documentation key, the Slack documentation webhook, a Twilio account SID, a
``BEGIN ... PRIVATE KEY`` line quoted in prose). Its last release is from May
2024, it pulls in ``requests`` and four more packages, takes 0.2 s to import
and scans files on disk under a global settings context, not text in memory.
Outcome: memdir keeps its own table, in the core install, with no dependency.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from memdir.errors import SecretDetected
from memdir.team.secret_rules import MIN_TOKEN_RUN, RULES, TOKEN_CHARS, Rule

__all__ = [
    "RULES",
    "Finding",
    "Rule",
    "ensure_no_secrets",
    "labels_of",
    "redact",
    "scan_bytes",
    "scan_file",
    "scan_text",
    "scan_tree",
]

# A file whose first block holds a NUL byte is binary (git's own heuristic).
_BINARY_SNIFF = 8192
_SKIPPED_DIRS = frozenset({".git"})

# Values that read as made up rather than issued: a run of 8 equal characters
# (XXXXXXXX, 00000000) or 8 in alphabet order (12345678, abcdefgh). Issued
# tokens are random; the chance of either in one is below about 1e-6.
_MADE_UP = re.compile(
    rb"(.)\1{7}|"
    + b"|".join(
        alphabet[i : i + 8]
        for alphabet in (
            b"0123456789",
            b"abcdefghijklmnopqrstuvwxyz",
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        )
        for i in range(len(alphabet) - 7)
    ),
    re.DOTALL,
)

# Token characters become "x", everything else " ": runs are then found with
# bytes.find on a run of "x".
_RUN_MASK = bytes(ord("x") if byte in TOKEN_CHARS else ord(" ") for byte in range(256))
_LONG_RUN = b"x" * MIN_TOKEN_RUN


@dataclass(frozen=True, kw_only=True)
class Finding:
    """Where a rule matched: 1-based line and column of the secret's first character.

    It carries no part of the secret, so it can be logged, shown and raised.
    """

    rule_id: str
    label: str
    line: int
    column: int


@dataclass(frozen=True, kw_only=True)
class _Hit:
    start: int
    end: int
    rule: Rule


def scan_text(text: str) -> list[Finding]:
    """Every likely secret in ``text``, in order of position; ``[]`` when clean."""
    return _scan(_encode(text))


def scan_file(path: str | os.PathLike[str]) -> list[Finding]:
    """Scan one file; binary files (a NUL byte in the first 8 KiB) yield ``[]``.

    The bytes are scanned as they are, so text that is not UTF-8 is scanned
    too; an unreadable file raises the ``OSError``.
    """
    return scan_bytes(Path(path).read_bytes())


def scan_bytes(data: bytes) -> list[Finding]:
    """Scan a file's content as it is; binary data (a NUL byte in the first 8 KiB) yields ``[]``."""
    if b"\x00" in data[:_BINARY_SNIFF]:
        return []
    return _scan(data)


def labels_of(findings: Iterable[Finding]) -> tuple[str, ...]:
    """The labels of the rules that fired, each once, in the order first found."""
    return tuple(dict.fromkeys(f.label for f in findings))


def scan_tree(path: str | os.PathLike[str]) -> dict[Path, list[Finding]]:
    """Scan every regular file under ``path``; only files with findings are keys.

    ``.git`` directories, binary files and symbolic links (which may point out
    of the tree) are skipped. Keys are ``path`` joined with the relative path,
    in sorted order.
    """
    found: dict[Path, list[Finding]] = {}
    for file in _walk_files(Path(path)):
        findings = scan_file(file)
        if findings:
            found[file] = findings
    return found


def ensure_no_secrets(text: str, *, path: str | os.PathLike[str] | None = None) -> None:
    """Raise :class:`~memdir.errors.SecretDetected` if ``text`` holds a likely secret.

    The message names each rule and the lines it fired on, never the value.
    """
    findings = scan_text(text)
    if not findings:
        return
    raise SecretDetected(
        _refusal_message(findings),
        path=os.fspath(path) if path is not None else None,
        labels=labels_of(findings),
        hint=(
            "remove the value and name where it lives instead (an environment variable "
            "or a secret manager); if it was ever shared, rotate it"
        ),
    )


def redact(text: str) -> str:
    """``text`` with every likely secret replaced by ``[REDACTED:<rule_id>]``."""
    data = _encode(text)
    parts: list[bytes] = []
    position = 0
    for hit in _hits(data):
        if hit.start < position:  # overlaps a span already redacted
            position = max(position, hit.end)
            continue
        parts += [data[position : hit.start], f"[REDACTED:{hit.rule.id}]".encode()]
        position = hit.end
    parts.append(data[position:])
    return b"".join(parts).decode("utf-8", errors="surrogatepass")


def _encode(text: str) -> bytes:
    # surrogatepass: a lone surrogate (from a broken JSON escape) must not make
    # scanning fail, and redact() decodes it back unchanged.
    return text.encode("utf-8", errors="surrogatepass")


def _scan(data: bytes) -> list[Finding]:
    findings = []
    line, counted_to = 1, 0
    for hit in _hits(data):  # in order of position, so newlines are counted once
        line += data.count(b"\n", counted_to, hit.start)
        counted_to = hit.start
        findings.append(_finding(data, hit, line))
    return findings


def _hits(data: bytes) -> list[_Hit]:
    runs = _TokenRuns(data)
    whole = _Occurrences(data)
    hits: list[_Hit] = []
    for rule in RULES:
        starts = whole.starts(rule) if rule.whole_text else runs.starts(rule)
        hits += _confirm(data, rule, starts)
    return _drop_contained(hits)


class _Occurrences:
    """Anchor positions in one text, each anchor searched once per scan."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._lowered: bytes | None = None
        self._found: dict[tuple[bytes, bool], list[int]] = {}

    def starts(self, rule: Rule) -> list[int]:
        """Where a match of ``rule`` could begin: each anchor occurrence minus its offset."""
        starts: set[int] = set()
        for anchor in rule.anchors:
            for index in self._positions(anchor.encode(), rule.ignore_case):
                if index >= rule.anchor_at:
                    starts.add(index - rule.anchor_at)
        return sorted(starts)

    def _positions(self, anchor: bytes, ignore_case: bool) -> list[int]:
        key = (anchor.lower() if ignore_case else anchor, ignore_case)
        if key not in self._found:
            text = self._text(ignore_case)
            found = []
            index = text.find(key[0])
            while index != -1:
                found.append(index)
                index = text.find(key[0], index + 1)
            self._found[key] = found
        return self._found[key]

    def _text(self, ignore_case: bool) -> bytes:
        if not ignore_case:
            return self._data
        if self._lowered is None:
            self._lowered = self._data.lower()  # ASCII only: offsets stay the same
        return self._lowered


class _TokenRuns:
    """The runs of at least ``MIN_TOKEN_RUN`` token characters, joined into one blob.

    Prose has few such runs (links, hashes, paths), so looking for a token
    rule's anchors in the blob instead of the whole text saves most of the
    work; a mask made with ``bytes.translate`` lets ``bytes.find`` locate the
    runs, skipping ``MIN_TOKEN_RUN`` bytes at a time.
    """

    def __init__(self, data: bytes) -> None:
        mask = data.translate(_RUN_MASK)
        self.run_starts: list[int] = []  # where each run starts in data
        self.offsets: list[int] = []  # where it starts in the blob
        pieces: list[bytes] = []
        offset = 0
        index = mask.find(_LONG_RUN)
        while index != -1:
            end = mask.find(b" ", index + MIN_TOKEN_RUN)
            end = len(data) if end == -1 else end
            self.run_starts.append(index)
            self.offsets.append(offset)
            pieces.append(data[index:end])
            offset += end - index + 1
            index = mask.find(_LONG_RUN, end)
        self._blob = _Occurrences(b" ".join(pieces))

    def starts(self, rule: Rule) -> list[int]:
        """Where a match of ``rule`` could begin in the text, from its anchors in the blob."""
        found = []
        for offset in self._blob.starts(rule):
            run = bisect.bisect_right(self.offsets, offset) - 1
            found.append(self.run_starts[run] + offset - self.offsets[run])
        return found


def _confirm(data: bytes, rule: Rule, starts: list[int]) -> Iterator[_Hit]:
    has_secret_group = "secret" in rule.regex.groupindex
    for start in starts:
        match = rule.regex.match(data, start)
        if match is None:
            continue
        begin, end = match.span("secret") if has_secret_group else match.span()
        token = data[begin:end]
        if rule.allow_regex is not None and rule.allow_regex.search(token):
            continue
        if rule.placeholder_check and _MADE_UP.search(token):
            continue
        yield _Hit(start=begin, end=end, rule=rule)


def _drop_contained(hits: list[_Hit]) -> list[_Hit]:
    # A key inside a service-account file is one secret, not two: keep the
    # widest match (the first rule on a tie) and drop those it contains.
    kept: list[_Hit] = []
    reach = -1
    for hit in sorted(hits, key=lambda h: (h.start, -h.end)):
        if hit.end <= reach:
            continue
        kept.append(hit)
        reach = hit.end
    return kept


def _finding(data: bytes, hit: _Hit, line: int) -> Finding:
    line_start = data.rfind(b"\n", 0, hit.start) + 1
    before = data[line_start : hit.start].decode("utf-8", errors="replace")
    return Finding(rule_id=hit.rule.id, label=hit.rule.label, line=line, column=len(before) + 1)


def _refusal_message(findings: list[Finding]) -> str:
    lines_by_rule: dict[tuple[str, str], list[int]] = {}
    for finding in findings:
        lines = lines_by_rule.setdefault((finding.label, finding.rule_id), [])
        if finding.line not in lines:
            lines.append(finding.line)
    described = "; ".join(
        f"{label} ({rule_id}) on line{'s' if len(lines) > 1 else ''} " + ", ".join(map(str, lines))
        for (label, rule_id), lines in lines_by_rule.items()
    )
    count = len(findings)
    return f"refused: {count} likely secret{'s' if count > 1 else ''} found: {described}"


def _walk_files(root: Path) -> Iterator[Path]:
    if root.is_file() and not root.is_symlink():
        yield root
        return
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIPPED_DIRS)
        for name in sorted(filenames):
            file = Path(directory, name)
            if file.is_file() and not file.is_symlink():
                yield file
