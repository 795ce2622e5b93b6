"""Tombstones: what a person forgot, so that no agent learns it again unseen.

``memdir forget`` deletes a memory (kept in the history, as every delete) and
leaves a :class:`Tombstone`: the memory's name, description and file, when and
by whom it was forgotten and why, and a fingerprint of its content. An agent's
write that matches a tombstone is held for review (:mod:`memdir.history.review`)
instead of written: the same fact is not re-learned from an old transcript or
daily log without a person's say.

Where they live (durable state, never under the derived ``.memdir/``): the
private scope's in ``<project dir>/history/forgotten.jsonl``, the team's in
``team/FORGOTTEN.jsonl``, which team sync carries like a memory, so every
clone learns what the team forgot (:mod:`memdir.team.incoming` holds a pulled
memory that matches one). Both are JSON lines, one tombstone a line, so two
clones' concurrent additions merge as the union of their lines (a tombstone
one of them removed meanwhile comes back: forgetting errs on the side of
asking), and a line that is not a tombstone is passed over.

The fingerprint (:func:`fingerprint`): the memory's words folded to one plain
form (:func:`memdir.screening.normalize.fold`), stop words dropped, lightly
stemmed, and each kept as a short hash, so the file says what was forgotten
by its name and description but keeps no other text of it (a secret in the
body does not live on in a tombstone, nor reach a team remote through one).
Where the embeddings extra is installed, the vector of its description and
body too, quantised to a byte a dimension (a paraphrase of the same fact is
near it). The vector needs search's embedder, a layer above this one: the
facade hands one in (:class:`Embeds`); without it matching is by terms alone.

A memory matches a tombstone (:func:`match`) when their term sets are close
(Dice coefficient, or most of the tombstone's terms inside a longer memory,
or the same name with some overlap), or, with vectors of the same model, when
the cosine reaches :data:`MEANING_FLOOR`. A false match costs a person one
review, a missed one a forgotten fact back in every prompt: the floors lean
to matching. Forgetting each memory of the four recall corpora
(``benchmarks/data/recall``, 129 memories) in turn holds none of the 4,040
other memories of its corpus by terms, and 4 (two pairs on one subject, at
cosine 0.60-0.61) by meaning with the bundled MiniLM model. Of ten
hand-written rewordings of five forgotten facts, none matches by terms and five
reach the floor (0.61-0.72; the others 0.47-0.56). A check against 1,000
tombstones by terms takes about a millisecond. ``benchmarks/forgetting.py``
reproduces these (``--meaning`` for the vectors).
"""

from __future__ import annotations

import base64
import datetime as dt
import functools
import hashlib
import json
import math
import os
import re
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from memdir.errors import LimitExceeded
from memdir.kinds import Scope
from memdir.model import Memory
from memdir.screening.normalize import fold
from memdir.storage.fs import atomic_write, ensure_dir
from memdir.utils.records import record
from memdir.utils.stop_words import ENGLISH_STOP_WORDS

__all__ = [
    "FORGOTTEN_NAME",
    "MAX_FILE_BYTES",
    "MEANING_FLOOR",
    "PRIVATE_NAME",
    "Embeds",
    "Tombstone",
    "TombstoneFile",
    "fingerprint",
    "match",
    "meaning_text",
    "relearn_reason",
    "tombstone_of",
]

FORGOTTEN_NAME = "FORGOTTEN.jsonl"
"""The team's tombstones, at the root of the team folder (team sync carries it)."""
PRIVATE_NAME = "forgotten.jsonl"
"""The private scope's tombstones, in the project's history folder."""
# A team file bigger than a memory may be is left out by a teammate's sync
# (memdir.team.remote_tree): the file stays under the default max_memory_bytes.
MAX_FILE_BYTES = 256 * 1024
MAX_TERMS = 64  # the fingerprint's terms, in order of first appearance
MEANING_FLOOR = 0.6  # cosine from which a memory says what a tombstone's said
_DICE_FLOOR = 0.5  # term sets this alike say the same thing
_COVER_FLOOR = 0.75  # share of a tombstone's terms found in a longer memory...
_COVER_MIN_TERMS = 6  # ...when the tombstone has at least this many
_SAME_NAME_DICE = 0.25  # the same name needs only this much overlap besides
_MAX_LINE_CHARS = 16_384  # a longer line in a teammate's file is not a tombstone
_MAX_TEXT = 500  # name, description, reason, by: bounded like a description

# Snowball's English stop list, plus words nearly every memory has.
_STOP = ENGLISH_STOP_WORDS | {*"also us let use used uses using via per how apply".split()}
_WORD = re.compile(r"[^\W_]+")


class Embeds(Protocol):
    """An embedding model: what search's embedders are (``name`` keys the vectors)."""

    name: str

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


@record
class Tombstone:
    """One forgotten memory: what it was, when, by whom, why, and its fingerprint.

    ``forgotten`` is an ISO 8601 time; ``terms`` the hashed terms of
    :func:`fingerprint`; ``vector`` the base64 of its quantised vector and
    ``model`` the embedder that made it (both None without the extra).
    """

    id: str
    name: str
    description: str
    file: str
    scope: str
    forgotten: str
    by: str | None = None
    reason: str | None = None
    terms: tuple[str, ...] = ()
    vector: str | None = None
    model: str | None = None

    @property
    def date(self) -> str:
        """The day it was forgotten (``YYYY-MM-DD``)."""
        return self.forgotten[:10]

    def answers_to(self, ref: str) -> bool:
        """Whether ``ref`` names this tombstone: its id, name or file."""
        wanted = " ".join(ref.split()).casefold()
        names = (self.id, self.name.casefold(), self.file.casefold())
        return wanted in names or f"{wanted}.md" == self.file.casefold()

    def to_line(self) -> str:
        """The tombstone as one JSON line (keys sorted: the same tombstone, the same line)."""
        data: dict[str, Any] = self._identity() | {"terms": " ".join(self.terms)}
        optional = {"by": self.by, "reason": self.reason, "vector": self.vector}
        data |= {key: value for key, value in optional.items() if value}
        if self.vector and self.model:
            data["model"] = self.model
        return json.dumps(data, ensure_ascii=False, sort_keys=True)

    def json_fields(self) -> dict[str, object]:
        """What ``--json`` shows: everything but the fingerprint's bytes."""
        return self._identity() | {
            "by": self.by,
            "reason": self.reason,
            "by_meaning": self.vector is not None,
        }

    def _identity(self) -> dict[str, Any]:
        """What both the stored line and ``--json`` say first: which memory, forgotten when."""
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "file": self.file,
            "scope": self.scope,
            "forgotten": self.forgotten,
        }


def relearn_reason(tombstone: Tombstone) -> str:
    """Why an agent's write waits: it says again what a person forgot."""
    return f"re-learns a forgotten memory (forgotten on {tombstone.date}: {tombstone.name})"


# -- the fingerprint ------------------------------------------------------------------


def _stem(word: str) -> str:
    """A light stem: plurals, -ing and -ed, a final e and a doubled consonant dropped.

    Not a full stemmer: only the forms a memory takes when it is written again
    (use, uses, used, using) need to meet.
    """
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ed"):
        word = word[:-2]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]
    return word


def _words(text: str) -> Iterable[str]:
    for word in _WORD.findall(fold(text).text):
        if word not in _STOP and (len(word) > 1 or word.isdigit()):
            yield word


@functools.lru_cache(maxsize=8192)
def _hashed_term(word: str) -> str:
    """A word's stem as a short hash (a store's vocabulary repeats: each is made once)."""
    return hashlib.blake2b(_stem(word).encode("utf-8"), digest_size=4).hexdigest()


def fingerprint(memory: Memory) -> tuple[str, ...]:
    """The hashed terms of ``memory``'s name, description and body (first :data:`MAX_TERMS`)."""
    text = f"{memory.name}\n{memory.description}\n{memory.body}"
    seen: dict[str, None] = {}
    for word in dict.fromkeys(_words(text)):
        seen.setdefault(_hashed_term(word), None)
        if len(seen) == MAX_TERMS:
            break
    return tuple(seen)


def meaning_text(memory: Memory) -> str:
    """What of a memory is embedded: its description and body (its name without them)."""
    text = f"{memory.description}\n{memory.body}".strip()
    return text or memory.name


def _packed(vector: Sequence[float]) -> str:
    """A vector as base64 of one signed byte a dimension (normalised first)."""
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    quantised = array("b", (max(-127, min(127, round(x / norm * 127))) for x in vector))
    return base64.b64encode(quantised.tobytes()).decode("ascii")


def _unpacked(text: str) -> array[int] | None:
    try:
        return array("b", base64.b64decode(text.encode("ascii"), validate=True))
    except (ValueError, UnicodeEncodeError):
        return None


def tombstone_of(
    memory: Memory,
    *,
    file: str,
    scope: Scope,
    by: str | None,
    reason: str | None,
    vector: Sequence[float] | None = None,
    model: str | None = None,
    now: dt.datetime | None = None,
) -> Tombstone:
    """The tombstone ``memory`` (at ``file`` in ``scope``) leaves when it is forgotten."""
    when = (now or dt.datetime.now().astimezone()).isoformat(timespec="seconds")
    key = f"{scope.value}\0{file}\0{memory.name}\0{when}"
    return Tombstone(
        id=hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=5).hexdigest(),
        name=memory.name[:_MAX_TEXT],
        description=memory.description[:_MAX_TEXT],
        file=file,
        scope=scope.value,
        forgotten=when,
        by=by[:_MAX_TEXT] if by else None,
        reason=" ".join(reason.split())[:_MAX_TEXT] if reason else None,
        terms=fingerprint(memory),
        vector=_packed(vector) if vector is not None and model else None,
        model=model if vector is not None else None,
    )


# -- matching -------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _term_set(terms: tuple[str, ...]) -> frozenset[str]:
    """A tombstone's terms as a set, made once per tombstone rather than once per write."""
    return frozenset(terms)


def _terms_match(tombstone: Tombstone, terms: frozenset[str], name: str) -> bool:
    gone = _term_set(tombstone.terms)
    if not gone or not terms:
        return False
    shared = len(gone & terms)
    dice = 2 * shared / (len(gone) + len(terms))
    if dice >= _DICE_FLOOR:
        return True
    if len(gone) >= _COVER_MIN_TERMS and shared / len(gone) >= _COVER_FLOOR:
        return True  # the forgotten memory, merged into a longer one
    return dice >= _SAME_NAME_DICE and name == tombstone.name.casefold()


def _cosine(stored: array[int], vector: Sequence[float]) -> float:
    if len(stored) != len(vector):
        return 0.0
    dot = sum(a * b for a, b in zip(stored, vector, strict=True))
    norm = math.sqrt(sum(a * a for a in stored)) * math.sqrt(sum(b * b for b in vector))
    return dot / norm if norm else 0.0


def match(
    tombstones: Sequence[Tombstone], memory: Memory, *, embedder: Embeds | None = None
) -> Tombstone | None:
    """The tombstone ``memory`` says again, or None.

    By terms first; then, when ``embedder`` is given and some tombstone holds a
    vector of its model, by meaning (the memory is embedded once).
    """
    if not tombstones:
        return None
    terms = frozenset(fingerprint(memory))
    name = " ".join(memory.name.split()).casefold()
    for tombstone in tombstones:
        if _terms_match(tombstone, terms, name):
            return tombstone
    if embedder is None:
        return None
    by_meaning = [t for t in tombstones if t.vector and t.model == embedder.name]
    if not by_meaning:
        return None
    (vector,) = embedder.embed([meaning_text(memory)])
    best, best_score = None, MEANING_FLOOR
    for tombstone in by_meaning:
        stored = _unpacked(tombstone.vector or "")
        score = _cosine(stored, vector) if stored is not None else 0.0
        if score >= best_score:
            best, best_score = tombstone, score
    return best


# -- the files ------------------------------------------------------------------------


def _parsed(line: str) -> Tombstone | None:
    """A tombstone from one line of a file, or None for a line that is not one."""
    if not line.strip() or len(line) > _MAX_LINE_CHARS:
        return None
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    texts = {key: data.get(key) for key in ("id", "name", "description", "file", "forgotten")}
    if not all(isinstance(value, str) and value for value in texts.values()):
        return None
    optional = {key: data.get(key) for key in ("by", "reason", "vector", "model")}
    if any(value is not None and not isinstance(value, str) for value in optional.values()):
        return None
    terms = data.get("terms", "")
    scope = data.get("scope")
    if not isinstance(terms, str) or scope not in ("private", "team"):
        return None
    return Tombstone(
        id=str(texts["id"])[:40],
        name=str(texts["name"])[:_MAX_TEXT],
        description=str(texts["description"])[:_MAX_TEXT],
        file=str(texts["file"])[:_MAX_TEXT],
        scope=scope,
        forgotten=str(texts["forgotten"])[:40],
        by=optional["by"],
        reason=optional["reason"],
        terms=tuple(terms.split()[:MAX_TERMS]),
        vector=optional["vector"],
        model=optional["model"],
    )


def _lines(text: str) -> list[Tombstone]:
    found = (_parsed(line) for line in text.splitlines())
    return list({t.id: t for t in found if t is not None}.values())


def _render(tombstones: Sequence[Tombstone]) -> str:
    ordered = sorted(tombstones, key=lambda t: (t.forgotten, t.id))
    return "".join(f"{t.to_line()}\n" for t in ordered)


class TombstoneFile:
    """One scope's tombstones on disk, read again only when the file changed.

    The caller holds the scope's lock around :meth:`add` and :meth:`remove`
    (the file is rewritten whole, atomically); a line that is not a
    tombstone (a teammate's, hand-edited) is passed over when read and dropped
    at the next rewrite.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int, int] | None = None
        self._read: tuple[Tombstone, ...] = ()

    def read(self) -> tuple[Tombstone, ...]:
        """The tombstones in the file (none when it is missing or unreadable)."""
        try:
            st = os.stat(self.path)
        except OSError:
            self._stamp, self._read = None, ()
            return ()
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        if stamp != self._stamp:
            try:
                data = self.path.read_bytes()[: MAX_FILE_BYTES * 4]
            except OSError:
                return ()
            self._read = tuple(_lines(data.decode("utf-8", "replace")))
            self._stamp = stamp
        return self._read

    def add(self, tombstone: Tombstone) -> None:
        """Add ``tombstone``; refused when the file would outgrow :data:`MAX_FILE_BYTES`."""
        text = _render([*self.read(), tombstone])
        if len(text.encode("utf-8")) > MAX_FILE_BYTES:
            raise LimitExceeded(
                f"{self.path} holds {len(self.read())} tombstones: one more would pass the "
                f"{MAX_FILE_BYTES:,}-byte limit a team sync carries",
                path=self.path,
                hint="let agents learn some old ones again with `memdir unforget NAME` "
                "(`memdir forget --list` shows them)",
            )
        self._write(text)

    def remove(self, ref: str) -> list[Tombstone]:
        """Remove the tombstones ``ref`` names (id, name or file); returns them."""
        present = self.read()
        gone = [t for t in present if t.answers_to(ref)]
        if gone:
            self._write(_render([t for t in present if t not in gone]))
        return gone

    def _write(self, text: str) -> None:
        ensure_dir(self.path.parent)
        atomic_write(self.path, text.encode("utf-8"))
        self._stamp = None
