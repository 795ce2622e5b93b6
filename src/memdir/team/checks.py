"""The checks team content passes before it is committed, sent or taken in.

* Blobs are scanned whatever their bytes (:func:`scan_blob`): UTF-8 (with or
  without BOM), UTF-16 (BOM, or the NUL pattern of ASCII text saved as
  UTF-16 without one) are decoded; anything else is read as latin-1, one
  character per byte, so an ASCII token inside binary data still matches and
  line numbers stay right.
  Many blobs go through one scan (:func:`scan_blobs`); 1,000 new memories
  are checked in about 0.3 s (``benchmarks/team.py``). The decoding here is
  the one place to change when the rule table's own byte scanner learns
  every encoding.
* Names must be safe memory names (:func:`is_memory_name`): ``*.md``, no
  control or format characters, no ``..``, no part starting with a dot, no
  backslash or angle bracket, bounded length. Anything else is refused: only
  text memory files belong in team memory. One other file is carried: the
  team's tombstones, ``FORGOTTEN.jsonl`` at the folder's root
  (:mod:`memdir.history.tombstones`), whose content is scanned as a memory's.
  Names are scanned for secrets too.
* A :class:`Problem` names the file (:func:`display_name`: control
  characters escaped, a secret in the name redacted), the line, the rule and
  the commit, never the value.

A push is checked by :mod:`memdir.team.outgoing`, a commit by the pre-commit
hook (:func:`memdir.team.git.scan_staged`); teammates' files arrive through
the same names check, entry by entry before any merge
(:mod:`memdir.team.remote_tree`, with :func:`is_plain_part` for each folder
and file name) and on what was committed (:mod:`memdir.team.quarantine`), so a
hostile name is never checked out nor reaches an index line.
"""

from __future__ import annotations

import bisect
import codecs
import posixpath
import unicodedata
from dataclasses import dataclass, replace

from memdir.history.tombstones import FORGOTTEN_NAME
from memdir.storage.memory_index import INDEX_NAME
from memdir.team.secrets import Finding, redact, scan_bytes, scan_text

__all__ = [
    "MAX_NAME_CHARS",
    "Problem",
    "decode_blob",
    "display_name",
    "is_memory_name",
    "is_plain_part",
    "name_problems",
    "names_problems",
    "scan_blob",
    "scan_blobs",
]

MAX_NAME_CHARS = 100  # a whole relative path: it has to fit a 150-character index line
_MAX_PART_CHARS = 80
_FORBIDDEN = frozenset("<>\\`|")
_SNIFF = 8192
_NOT_MEMORY = "not a memory file (only *.md memories with plain names belong in team memory)"


@dataclass(frozen=True, kw_only=True)
class Problem:
    """One reason not to push: where it is and which rule, never the value.

    ``file`` is display-safe (see :func:`display_name`); ``line`` is 0 for a
    problem with the name itself; ``commit`` is an abbreviated id or "".
    """

    file: str
    line: int
    rule: str
    commit: str = ""

    def describe(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        commit = f" (commit {self.commit})" if self.commit else ""
        return f"{where}: {self.rule}{commit}"


def decode_blob(data: bytes) -> str:
    """``data`` as text: UTF-8/UTF-16 by BOM or NUL pattern, else UTF-8, else latin-1."""
    for bom, codec in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if data.startswith(bom):
            return data[len(bom) :].decode(codec, "replace")
    head = data[:512]
    if len(head) >= 4 and b"\x00" in head:
        # ASCII saved as UTF-16 without a BOM: every other byte is NUL.
        odd, even = head[1::2], head[0::2]
        if odd.count(0) * 4 >= len(odd) * 3 and even.count(0) * 4 < len(even):
            return data.decode("utf-16-le", "replace")
        if even.count(0) * 4 >= len(even) * 3 and odd.count(0) * 4 < len(odd):
            return data.decode("utf-16-be", "replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # never fails; ASCII tokens keep their bytes


def scan_blob(data: bytes) -> list[Finding]:
    """Likely secrets in a file's bytes, whatever their encoding (binary included)."""
    return scan_bytes(data)


def scan_blobs(blobs: list[bytes]) -> list[list[Finding]]:
    """:func:`scan_blob` of each blob, with one scan over all the text ones.

    Text blobs are joined by a blank line and scanned once (a scan costs about
    half a millisecond before its first byte, so 1,000 small memories scanned
    one by one cost far more than their bytes); findings are mapped back to
    their blob and line.
    """
    results: list[list[Finding]] = [[] for _ in blobs]
    texts: list[str] = []
    owners: list[int] = []
    starts: list[int] = []
    line = 1
    for n, data in enumerate(blobs):
        if b"\x00" in data[:_SNIFF] and not data.startswith(
            (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
        ):
            results[n] = scan_blob(data)
            continue
        text = decode_blob(data)
        texts.append(text)
        owners.append(n)
        starts.append(line)
        line += text.count("\n") + 2  # the text's own lines, then the blank separator
    for finding in scan_text("\n\n".join(texts)):
        at = bisect.bisect_right(starts, finding.line) - 1
        results[owners[at]].append(replace(finding, line=finding.line - starts[at] + 1))
    return results


def is_memory_name(rel: str) -> bool:
    """Whether ``rel`` is a safe relative path for a team memory file (or the index, or
    the team's tombstones: that one name, at the root only)."""
    if rel == FORGOTTEN_NAME:
        return True
    if not rel or len(rel) > MAX_NAME_CHARS or not rel.endswith(".md"):
        return False
    if not all(is_plain_part(part) for part in rel.split("/")):
        return False
    return posixpath.basename(rel) != INDEX_NAME or rel == INDEX_NAME


def is_plain_part(part: str) -> bool:
    """Whether ``part`` may name a folder or file of a memory path (one part, no slash).

    Not empty, no leading dot (``.``, ``..``, ``.git`` in any case, ``.gitattributes``
    and every hidden name), not ``git~1``, no slash, backslash, angle bracket,
    control or format character, bounded length.
    """
    if not part or part.startswith(".") or "/" in part or len(part) > _MAX_PART_CHARS:
        return False
    if part.casefold().startswith("git~"):
        return False  # NTFS's short name of .git: git refuses to check it out
    if not _FORBIDDEN.isdisjoint(part):
        return False
    if part.isascii():  # the common case: only ASCII's control characters are C or Z
        return part.isprintable()
    # Control, format, private use, line and paragraph separators; a plain space is fine.
    return not any(unicodedata.category(char)[0] in "CZ" and char != " " for char in part)


def display_name(rel: str) -> str:
    """``rel`` safe to show or log: secrets redacted, unprintable characters escaped."""
    shown = redact(rel)
    escaped = "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in shown
    )
    return escaped if len(escaped) <= 200 else escaped[:199] + "…"


def name_problems(rel: str, commit: str = "") -> list[Problem]:
    """Problems with a file's name: a secret in it, or not a memory file name."""
    return names_problems([rel], commit)[0]


def names_problems(paths: list[str], commit: str = "") -> list[list[Problem]]:
    """:func:`name_problems` of each path, the plain ones scanned in one pass."""
    found = scan_blobs([p.encode("utf-8", "surrogatepass") for p in paths])
    results = []
    for rel, findings in zip(paths, found, strict=True):
        rules = [f.label for f in findings]
        if not is_memory_name(rel):
            rules.append(_NOT_MEMORY)
        shown = display_name(rel) if rules else rel
        results.append([Problem(file=shown, line=0, rule=r, commit=commit) for r in rules])
    return results
