"""Screening a memory: every field, and the fields read one after another.

:func:`screen_memory` checks a memory's name, description, body and its other
frontmatter fields (source, anchors, supersedes, and every text held in its
extra fields, ``enforce`` rules included). Hidden characters are looked for in
each field, look-alike letters in the name and the description. Frames and
instructions are looked for in the fields joined in the order a recalled
memory shows them (name, description, body, the rest), one line break apart,
so that an instruction split across the name and the body is read whole; a hit
names the field it starts in, or the fields it spans (``name+body``).

:func:`screen_text` checks a text that is not a parsed memory (a teammate's
file that does not parse) as a body.

Encoded text is read as well, as an agent would decode it
(:mod:`memdir.screening.decoding`): each field's base64, hexadecimal, escapes and
the like, and its lines read in ROT13 or backwards where it asks for that; a
frame or an instruction in a decoded part is a finding named ``encoded.*`` that
says the encoding, placed where the encoded run (or the line) stands.

Text no rule holds as an instruction is read once more by a learned model of
attacks (:mod:`memdir.screening.learned`), over all the fields joined, above a
threshold that one benign probe in a hundred it was checked on reaches, and
none of memdir's own memories; then a long body passage by passage, above the
passages' own threshold, so that one order buried in a long, otherwise ordinary
note is not diluted by it. :func:`rule_findings` is what the rules alone find.

The model also has a say the other way, on the loosest findings only: an
instruction found only by pairs of weak signals (who is addressed beside what is
asked, :data:`~memdir.screening.rulebook.PAIRS`), never by a rule of its own, is
set aside when the model scores the memory below its veto
(:attr:`~memdir.screening.learned.Model.pair_veto`), as plainly benign. Long
technical notes about agents ("the agent's token may not ignore branch
protection") pair those signals often and read as nothing like an attack.
The veto is the lowest out-of-fold score of a probe attack held by pairs alone,
less a margin of 0.3. Training moves the scores, so the script that trains a
model (``benchmarks/screening_model.py``) sets the veto by this rule and writes
it into the model's file beside the weights; it reports that lowest score and
what the veto costs and frees.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import cache

from memdir.model import Memory
from memdir.screening.context import order_turned_down, talks_about_attacks
from memdir.screening.decoding import Decoded, decoded_parts
from memdir.screening.findings import Finding, Hit, Kind
from memdir.screening.frames import frame_hits
from memdir.screening.hidden import hidden_characters, mixed_scripts
from memdir.screening.instructions import instruction_hits
from memdir.screening.learned import Model, load_model, sentences
from memdir.screening.rulebook import PAIRS, single_rules

__all__ = [
    "DECODED_MARGIN",
    "held_decoded",
    "memory_fields",
    "model_reads",
    "pair_rules",
    "pairs_alone",
    "rule_findings",
    "screen_fields",
    "screen_memory",
    "screen_text",
]

_LOOKED_AT = ("name", "description")  # where a look-alike word poses as another
DECODED_MARGIN = 0.5  # how much lower a decoded part's score may be to be held


def _strings(value: object) -> Iterable[str]:
    """Every text inside a frontmatter value (lists and mappings walked)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def memory_fields(memory: Memory) -> list[tuple[str, str]]:
    """``(field, text)`` for each text a memory holds, in the order a reader meets them."""
    fields = [("name", memory.name), ("description", memory.description), ("body", memory.body)]
    if memory.source:
        fields.append(("source", memory.source))
    fields += [("anchors", anchor) for anchor in memory.anchors]
    fields += [("supersedes", entry) for entry in memory.supersedes]
    for key, value in memory.extra.items():
        fields += [(f"field {key!r}", text) for text in _strings(value)]
    return [(field, text) for field, text in fields if text]


def screen_memory(memory: Memory) -> tuple[Finding, ...]:
    """What screening finds in ``memory`` (empty: nothing)."""
    return screen_fields(memory_fields(memory))


def screen_text(text: str) -> tuple[Finding, ...]:
    """What screening finds in ``text`` read as a memory's body."""
    return screen_fields([("body", text)])


def screen_fields(
    fields: Sequence[tuple[str, str]], *, model: Model | None = None
) -> tuple[Finding, ...]:
    """What screening finds in these ``(field, text)`` pairs, read in this order, with
    ``model`` as the learned model (None: the shipped one, when it is installed)."""
    findings = rule_findings(fields)
    model = load_model() if model is None else model
    if model is None:
        return tuple(findings)
    joined = "\n".join(text for _, text in fields)
    if not any(f.kind is Kind.INSTRUCTION for f in findings):
        return tuple(findings + _learned(fields, joined, model))
    if not pairs_alone(findings):
        return tuple(findings)
    score = model.score(joined)
    if score >= model.pair_veto:  # not plainly benign: the pairs' findings stand
        return tuple(findings)
    kept = [f for f in findings if f.kind is not Kind.INSTRUCTION]
    return tuple(kept + _learned(fields, joined, model, score))


@cache
def pair_rules() -> frozenset[str]:
    """The rules only a pair of weak signals makes (never a rule of their own)."""
    return frozenset(rule for _, _, rule, _ in PAIRS) - {rule.id for rule in single_rules()}


def pairs_alone(findings: Sequence[Finding]) -> bool:
    """Whether ``findings`` hold instructions, and pairs of weak signals made them all (the
    findings the model's veto may set aside, :attr:`.Model.pair_veto`)."""
    orders = {f.rule for f in findings if f.kind is Kind.INSTRUCTION}
    return bool(orders) and orders <= pair_rules()


def rule_findings(fields: Sequence[tuple[str, str]]) -> list[Finding]:
    """What the rules alone find in these ``(field, text)`` pairs (the learned model
    reads only what they let by)."""
    findings: list[Finding] = []
    for field, text in fields:
        findings += hidden_characters(field, text)
        if field in _LOOKED_AT:
            findings += mixed_scripts(field, text)
        findings += [_decoded_finding(field, part, hit) for part, hit in _read_decoded(text)]
    joined = "\n".join(text for _, text in fields)
    starts, at = [], 0
    for _, text in fields:
        starts.append(at)
        at += len(text) + 1
    for hit in [*frame_hits(joined), *instruction_hits(joined)]:
        findings.append(_placed(hit, fields, starts))
    return findings


def model_reads(joined: str) -> bool:
    """Whether the learned model reads ``joined`` (a memory's fields joined) once no rule
    held it: not a note about attacks, which quotes them (the rules judge it sentence by
    sentence), nor the history of an order told of and turned down."""
    return not talks_about_attacks(joined) and not order_turned_down(joined)


def _learned(
    fields: Sequence[tuple[str, str]], joined: str, model: Model, score: float | None = None
) -> list[Finding]:
    """The learned model's finding on text no rule held (:mod:`memdir.screening.learned`);
    ``score`` is the model's score of ``joined`` when it was worked out already. A note
    about attacks is not read whole, but what it hides in an encoding still is: a sample
    of an attack kept for a lesson needs no hiding, and the rules read it there too."""
    if not model_reads(joined):
        return _learned_decoded(fields, model)
    if (model.score(joined) if score is None else score) > model.threshold:  # Model.holds
        names = "+".join(dict.fromkeys(field for field, _ in fields))
        reason = "reads like the attacks the screening model learned"
        return [Finding(kind=Kind.INSTRUCTION, field=names, rule="learned.aimed", reason=reason)]
    body = "\n".join(text for field, text in fields if field == "body")
    first = model.held_passage(body)
    if first is None:
        return _learned_decoded(fields, model)
    at = _sentence_start(body, first) + 1
    reason = "a passage of it reads like the attacks the screening model learned"
    return [
        Finding(kind=Kind.INSTRUCTION, field="body", rule="learned.passage", reason=reason, at=at)
    ]


def _read_decoded(text: str) -> Iterator[tuple[Decoded, Hit]]:
    """Each part of ``text`` that decodes to writing (:mod:`memdir.screening.decoding`)
    and holds a frame or an instruction, with the first rule that fires on it."""
    for part in decoded_parts(text):
        hits = [*frame_hits(part.text), *instruction_hits(part.text)]
        if hits:
            yield part, min(hits, key=lambda hit: hit.start)


def _decoded_finding(field: str, part: Decoded, hit: Hit) -> Finding:
    reason = f"{part.scheme}, decoded: {hit.reason}"
    at = part.origin(hit.start, hit.end) + 1
    return Finding(kind=hit.kind, field=field, rule=f"encoded.{hit.kind}", reason=reason, at=at)


def _learned_decoded(fields: Sequence[tuple[str, str]], model: Model) -> list[Finding]:
    """The learned model's finding on the first decoded part no rule held that reads like
    an attack (:mod:`memdir.screening.decoding`, :func:`_model_holds`)."""
    for field, text in fields:
        for part in decoded_parts(text):
            if _model_holds(part, model):
                reason = f"{part.scheme}, decoded: reads like the attacks the model learned"
                at = part.origin(0, len(part.text)) + 1
                kind, rule = Kind.INSTRUCTION, "encoded.learned"
                return [Finding(kind=kind, field=field, rule=rule, reason=reason, at=at)]
    return []


def _model_holds(part: Decoded, model: Model) -> bool:
    """Whether the model holds a decoded part. A part whose letters were hidden from the
    person reading the file (base64, a reversed line) is held :data:`DECODED_MARGIN` below
    the model's threshold, the hiding being a sign in itself; a run whose letters were
    mostly written plainly (a link's ``%20``) at the threshold."""
    threshold = model.threshold - (DECODED_MARGIN if part.hidden else 0.0)
    return model_reads(part.text) and model.score(part.text) > threshold


def held_decoded(text: str) -> list[Decoded]:
    """The decoded parts of ``text`` that screening holds: what an agent would read there,
    for the person who reviews it (``memdir review``)."""
    held = [part for part, _ in _read_decoded(text)]
    model = load_model()
    if model is not None:
        held += [p for p in decoded_parts(text) if p not in held and _model_holds(p, model)]
    return held


def _sentence_start(body: str, index: int) -> int:
    """Where the ``index``-th of ``body``'s sentences starts (each found after the one
    before, so that a sentence said twice is placed where it stands)."""
    parts, at = sentences(body), 0
    for part in parts[:index]:
        at = body.index(part, at) + len(part)
    return body.index(parts[index], at)


def _field_at(starts: list[int], position: int) -> int:
    index = 0
    for number, start in enumerate(starts):
        if start <= position:
            index = number
    return index


def _placed(hit: Hit, fields: Sequence[tuple[str, str]], starts: list[int]) -> Finding:
    """A hit on the joined text, as a finding in the field (or fields) it covers."""
    first = _field_at(starts, hit.start)
    last = _field_at(starts, max(hit.start, hit.end - 1))
    names = list(dict.fromkeys(fields[i][0] for i in range(first, last + 1)))
    return Finding(
        kind=hit.kind,
        field="+".join(names),
        rule=hit.rule,
        reason=hit.reason,
        at=hit.start - starts[first] + 1,
    )
