"""Secret scanning for team memory: find, refuse, redact — never echo.

Team memory is shared through git, so every write to it, every sync and every
push is scanned with the rules of :mod:`memdir.team.secret_rules` (token
formats of cloud, AI, git-host, secret-manager, messaging, SaaS and payment
services, private keys, connection strings, and context rules for generic
passwords, secrets and tokens). A :class:`Finding` says which rule fired and
where (line, column), never what it matched; :func:`ensure_no_secrets` turns
findings into :class:`~memdir.errors.SecretDetected`; :func:`redact` replaces
the values.

How it stays fast (``benchmarks/secret_coverage.py``): the text is lowered once and
two combined linear-time patterns (RE2: the rules' literal keywords, then
their triggers) find every place a rule could match; a rule's own regex runs
only there. Ordinary prose has few such places, so a scan costs about one pass of
RE2 over the bytes.

Bytes in any encoding (:func:`scan_bytes`): UTF-8 (with or without BOM) is
scanned as it is; UTF-16/UTF-32 with a BOM, or UTF-16 recognised by its NUL
pattern, is decoded first; anything else is scanned as raw bytes (as
Latin-1 would read them), and NUL bytes never make a file "binary" and
unscanned: bytes holding NULs are also scanned with the NULs removed.

Trigger: SPEC §13 suggests ``detect-secrets`` where its plugins cover a family.
Why not: measured with detect-secrets 1.5.0 on 100 KB of markdown, its
default plugins take 1.0-1.5 s (0.1 MB/s); its family plugins miss most of
the families here and flag documented examples (the AWS documentation key,
the Slack documentation webhook). Outcome: memdir keeps its own table, in the
core install.
"""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import re2

from memdir.errors import SecretDetected
from memdir.team.secret_rules import RULES, Rule, entropy

__all__ = [
    "RULES",
    "Finding",
    "Rule",
    "ensure_no_secrets",
    "labels_of",
    "redact",
    "scan_bytes",
    "scan_commit_message",
    "scan_file",
    "scan_name",
    "scan_text",
    "scan_tree",
]

# Where NULs are looked for to recognise UTF-16 without a BOM.
_SNIFF = 8192
_SKIPPED_DIRS = frozenset({".git"})
_CLOSING = frozenset(b".:!?)")
# A lookback rule's match ends within this many bytes of its keyword.
_LOOKAHEAD = 512

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
    order: int


class _Prefilter:
    """Every rule's keywords and triggers, found in two RE2 passes over the lowered text.

    Plain keywords go in one alternation of literals, whose automaton stays
    small whatever the text; triggers (context rules, shapes without a fixed
    keyword) go in a second, smaller one. Keeping them apart keeps each
    automaton within its memory budget on hostile input, where RE2 would
    otherwise fall back to its much slower NFA.
    """

    def __init__(self, rules: tuple[Rule, ...]) -> None:
        self.order = {rule.id: i for i, rule in enumerate(rules)}
        # keyword's first two bytes -> (keyword, rule), for rules found by keyword
        # alone (literal pass) and for rules with a trigger (trigger pass).
        self.plain: dict[bytes, list[tuple[bytes, Rule]]] = {}
        self.triggered: dict[bytes, list[tuple[bytes, Rule]]] = {}
        self.trigger_only: list[tuple[re.Pattern[bytes], Rule]] = []
        literals: dict[str, None] = {}
        triggers: dict[str, None] = {}
        for rule in rules:
            buckets = self.plain if rule.trigger is None else self.triggered
            for keyword in rule.keywords:
                lowered = keyword.lower().encode()
                buckets.setdefault(lowered[:2], []).append((lowered, rule))
                if rule.trigger is None:
                    literals[re.escape(keyword.lower())] = None
            if rule.trigger is not None:
                triggers[rule.trigger] = None
                if not rule.keywords:
                    self.trigger_only.append((re.compile(rule.trigger.encode()), rule))
        options = re2.Options()
        options.max_mem = 32 << 20
        self.literals = re2.compile("|".join(literals).encode(), options)
        self.triggers = re2.compile("|".join(triggers).encode(), options)

    def candidates(self, lowered: bytes) -> Iterator[tuple[Rule, int, int]]:
        """(rule, keyword position, keyword length) for every place a rule could match."""
        yield from self._literal_candidates(lowered)
        yield from self._trigger_candidates(lowered)

    def _literal_candidates(self, lowered: bytes) -> Iterator[tuple[Rule, int, int]]:
        # Matches do not overlap, so a keyword that starts inside another one
        # is looked for at each position of the match.
        for match in self.literals.finditer(lowered):
            for at in range(match.start(), match.end()):
                for keyword, rule in self.plain.get(lowered[at : at + 2], ()):
                    if lowered.startswith(keyword, at):
                        yield rule, at, len(keyword)

    def _trigger_candidates(self, lowered: bytes) -> Iterator[tuple[Rule, int, int]]:
        # A trigger spans a name, an assignment and a value's start; another
        # may start inside it, so the search resumes one byte after each start.
        search = self.triggers.search
        position = 0
        while True:
            match = search(lowered, position)
            if match is None:
                return
            at = match.start()
            for keyword, rule in self.triggered.get(lowered[at : at + 2], ()):
                if lowered.startswith(keyword, at):
                    yield rule, at, len(keyword)
            for trigger, rule in self.trigger_only:
                if trigger.match(lowered, at):
                    yield rule, at, 0
            position = at + 1


_PREFILTER = _Prefilter(RULES)


def scan_text(text: str) -> list[Finding]:
    """Every likely secret in ``text``, in order of position; ``[]`` when clean."""
    return _scan(_encode(text))


def scan_bytes(data: bytes) -> list[Finding]:
    """Every likely secret in a file's content, whatever its encoding.

    UTF-8 (with or without BOM) is scanned as it is; UTF-16 and UTF-32 with a
    BOM, and UTF-16 recognised by its NUL bytes, are decoded first; any other
    bytes are scanned raw, and again without their NUL bytes, so no file is
    skipped as binary. Line numbers are those of the file.
    """
    findings: dict[tuple[str, int], Finding] = {}
    for text in _readings(data):
        for finding in _scan(text):
            findings.setdefault((finding.rule_id, finding.line), finding)
    return sorted(findings.values(), key=lambda f: (f.line, f.column))


def scan_file(path: str | os.PathLike[str]) -> list[Finding]:
    """Scan one file's bytes with :func:`scan_bytes`; an unreadable file raises ``OSError``."""
    return scan_bytes(Path(path).read_bytes())


def scan_name(name: str | bytes) -> list[Finding]:
    """Likely secrets in a file name or path (a token used as a name is still a token).

    Path separators count as spaces, so a token between them is found.
    """
    raw = name if isinstance(name, bytes) else _encode(name)
    return scan_bytes(raw.replace(b"/", b" ").replace(b"\\", b" "))


def scan_commit_message(message: str | bytes) -> list[Finding]:
    """Likely secrets in a commit message; lines are the message's own."""
    return scan_bytes(message if isinstance(message, bytes) else _encode(message))


def labels_of(findings: Iterable[Finding]) -> tuple[str, ...]:
    """The labels of the rules that fired, each once, in the order first found."""
    return tuple(dict.fromkeys(f.label for f in findings))


def scan_tree(path: str | os.PathLike[str]) -> dict[Path, list[Finding]]:
    """Scan every regular file under ``path``; only files with findings are keys.

    ``.git`` directories and symbolic links (which may point out of the tree)
    are skipped; every other file is scanned whatever its bytes. Keys are
    ``path`` joined with the relative path, in sorted order.
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


_UTF32_BOMS = {codecs.BOM_UTF32_LE: "utf-32", codecs.BOM_UTF32_BE: "utf-32"}
_UTF16_BOMS = {codecs.BOM_UTF16_LE: "utf-16", codecs.BOM_UTF16_BE: "utf-16"}


def _readings(data: bytes) -> list[bytes]:
    """The byte strings to scan for ``data``: itself, or its decoded text, or both."""
    for boms in (_UTF32_BOMS, _UTF16_BOMS):
        for bom, codec in boms.items():
            if data.startswith(bom):
                return [_reencode(data, codec)]
    if data.startswith(codecs.BOM_UTF8):
        return [data[len(codecs.BOM_UTF8) :]]
    if b"\x00" not in data:
        return [data]
    guessed = _utf16_by_nuls(data[:_SNIFF])
    if guessed is not None:
        return [_reencode(data, guessed)]
    # Binary, or text with stray NULs: the bytes as they are, and without the
    # NULs in case they hold UTF-16 text among other bytes.
    return [data, data.replace(b"\x00", b"")]


def _utf16_by_nuls(head: bytes) -> str | None:
    # ASCII text in UTF-16 has a NUL in every other byte: the high byte, at
    # odd offsets in little-endian, even offsets in big-endian.
    half = len(head) // 2
    if half == 0:
        return None
    odd = head[1::2].count(0)
    even = head[0::2].count(0)
    if odd >= 0.3 * half and even < 0.05 * half:
        return "utf-16-le"
    if even >= 0.3 * half and odd < 0.05 * half:
        return "utf-16-be"
    return None


def _reencode(data: bytes, codec: str) -> bytes:
    return data.decode(codec, errors="replace").encode("utf-8", errors="surrogatepass")


def _scan(data: bytes) -> list[Finding]:
    findings = []
    line, counted_to = 1, 0
    for hit in _hits(data):  # in order of position, so newlines are counted once
        line += data.count(b"\n", counted_to, hit.start)
        counted_to = hit.start
        findings.append(_finding(data, hit, line))
    return findings


def _hits(data: bytes) -> list[_Hit]:
    candidates = list(_PREFILTER.candidates(data.lower()))
    hits: dict[tuple[int, int, str], _Hit] = {}
    # Token rules first: a context rule's value that a token rule already
    # covers is dropped before its (costlier) plausibility checks run.
    for rule, at, length in candidates:
        if not rule.generic:
            hit = _confirm(data, rule, at, length, taken=())
            if hit is not None:
                hits.setdefault((hit.start, hit.end, rule.id), hit)
    taken = [(hit.start, hit.end) for hit in hits.values()]
    for rule, at, length in candidates:
        if rule.generic:
            hit = _confirm(data, rule, at, length, taken=taken)
            if hit is not None:
                hits.setdefault((hit.start, hit.end, rule.id), hit)
    return _resolve(list(hits.values()))


def _confirm(
    data: bytes, rule: Rule, at: int, length: int, *, taken: Iterable[tuple[int, int]]
) -> _Hit | None:
    match = _match(data, rule, at, length)
    if match is None:
        return None
    if "secret" in rule.regex.groupindex and match.start("secret") >= 0:
        begin, end = match.span("secret")
    else:
        begin, end = match.span()
    if rule.generic:
        # "the token is X." ends a sentence; the full stop is not part of X.
        while end > begin and data[end - 1] in _CLOSING:
            end -= 1
    if any(begin < other_end and other_start < end for other_start, other_end in taken):
        return None
    if not _plausible(rule, data[begin:end]):
        return None
    if rule.name_allow_regex is not None and rule.name_allow_regex.search(
        data[match.start() : begin]
    ):
        return None
    return _Hit(start=begin, end=end, rule=rule, order=_PREFILTER.order[rule.id])


def _match(data: bytes, rule: Rule, at: int, length: int) -> re.Match[bytes] | None:
    if rule.lookback:
        # The match starts up to `lookback` bytes before its keyword.
        low = max(0, at - rule.lookback)
        match = rule.regex.search(data, low, at + length + _LOOKAHEAD)
        if match is None or match.start() > at:
            return None
        # A match that needs more than the window is retried without one.
        return rule.regex.match(data, match.start())
    start = at - rule.keyword_at
    return rule.regex.match(data, start) if start >= 0 else None


def _plausible(rule: Rule, token: bytes) -> bool:
    if rule.allow_regex is not None and rule.allow_regex.search(token):
        return False
    if rule.placeholder_check and _MADE_UP.search(token):
        return False
    if rule.entropy and entropy(token) < rule.entropy:
        return False
    return rule.check is None or rule.check(token)


def _resolve(hits: list[_Hit]) -> list[_Hit]:
    """One hit per secret: token rules first, widest span first; context rules fill gaps."""
    specific = _drop_contained([h for h in hits if not h.rule.generic])
    kept = list(specific)
    for hit in sorted((h for h in hits if h.rule.generic), key=_by_span):
        if not any(hit.start < other.end and other.start < hit.end for other in kept):
            kept.append(hit)
    return sorted(kept, key=_by_span)


def _by_span(hit: _Hit) -> tuple[int, int, int]:
    return (hit.start, -hit.end, hit.order)


def _drop_contained(hits: list[_Hit]) -> list[_Hit]:
    # A key inside a service-account file is one secret, not two: keep the
    # widest match (the first rule on a tie) and drop those it contains.
    kept: list[_Hit] = []
    reach = -1
    for hit in sorted(hits, key=_by_span):
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
