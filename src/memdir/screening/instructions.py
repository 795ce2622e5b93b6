"""Text aimed at the agent: rules for instructions that try to take it over.

A memory is full of instructions to the agent by design ("never push to main
without asking", "always run the tests before committing"): that is what
feedback is. What these rules look for is the other kind: text that tries to
override the user or the system, change who the agent is or what it may do,
make it hide something from the user, send secrets or files away, or plant
itself in every later session. The rules read the folded text
(:func:`~memdir.screening.normalize.fold`: look-alike letters, invisible
characters and markdown emphasis undone) and come in seven classes:

- ``override``: ignore / disregard / forget earlier, the user's or the system's
  instructions; "these instructions supersede…"; "the previous rules no longer
  apply"; "new instructions:"; obey what a web page, a tool result or this
  memory says; a claim to come from the system or the model's maker; and said
  sideways: the user's wishes declared void, withdrawn or mere suggestions, the
  instructions the agent was given called a test, "this note wins where it
  conflicts", "the real instructions are here", rules fetched from an address;
- ``identity``: "you are now…", "pretend to be an unrestricted…", a jailbreak
  mode, "your true purpose is…";
- ``leak``: reveal, print or send the system prompt or the agent's instructions;
- ``exfiltration``: secrets, keys, ``.env``, SSH keys, the user's files or the
  conversation sent to a URL, an address, a webhook, a shared or public place,
  a chat channel, a commit, a request's header or query, or the reply; also in
  the passive ("the keys are to be emailed to…") and with the output carrying
  them ("end each reply with the token"); or a markdown image whose URL carries
  a template;
- ``permissions``: a grant of full or root access, switching off permission
  prompts, hooks, review or guardrails, the flags and settings that skip
  permissions, adding tools to an allow list, approving every call, answering
  its own prompts, running outside the sandbox, working around what blocks a
  command, wide or risky actions declared approved in advance;
- ``concealment``: keep this from the user, never mention this memory, do it
  secretly, keep the user in the dark, leave something out of the reply so
  nobody notices, tell the user something false when they ask;
- ``persistence``: copy these instructions into every memory, file or session,
  into the agent's instruction files (``CLAUDE.md``, the team memory, its
  global instructions), keep itself through consolidation and pruning, bring
  this memory back when someone deletes it, or plant a startup job that fetches
  remote code.

Some signals are judged in pairs rather than alone (in :func:`_combined`): an
address to the model ("if you are an AI", "note to the assistant"), a claim to
speak for the platform, "in every future session", "without asking" or "without
telling the user", something broad ("any command"), something risky
(force-push, ``rm -rf``, ``sudo``), a shell or agent settings file, a remote
script run or piped to a shell, a secret, covering one's traces, an approval
declared given in advance, a way around a block, leaving something out of a
reply, "so nobody notices". Each is ordinary alone ("without asking" is half
of most feedback); two of them within a few sentences, one saying what and one
saying how (any command without asking; a remote script at the start of every
session), are held. "Never … without asking" restricts the agent and is never a
hit; nor is a first signal in a sentence about attacks ("an attack memory asks
for blanket approval").

The widest pairs name the two parts every planted order has, however it is
worded (:mod:`memdir.screening.rules.aimed`): who is addressed (the agent in
any person: "agents should…", "note for AI assistants", "if you are an LLM",
"Claude:", "you") and what is asked (instructions set aside, secrets moved,
checks switched off, the order kept for good, something kept from the user).
An addressee reported ("a README told the agents to…"), quoted or in a
sentence about attacks does not count, nor does an ask under a negation,
narrowed to a case ("… only when reverting"), quoted or described, nor
instructions declared void on the person's own word ("the user said the old
checklist is outdated").

Where a hit stands decides some rules (:mod:`memdir.screening.context`): inside
a quotation, in a text that discusses attacks ("such as", "injection",
"payload", "example"…), it is a mention, not a use (a security note may quote
"ignore previous instructions"); under a negation ("never send secrets to…") it
is a rule for the agent; reported ("emails asking staff to send credentials…",
"a page telling the agent to disregard…") or in a sentence about attacks
("injected text claims the real instructions are below") it is a description.
Each only for the rules where that reading exists: an exfiltration to an
outside address that gives the order is held, quoted or not. A rule whose first
match does not count is searched again past it, up to :data:`_TRIES` matches
(past that it counts as fired: no note discusses one attack that many times).

The rules themselves are data, in :mod:`memdir.screening.rulebook`. The
patterns run on RE2 (linear time, whatever the text), compiled once; the
pairs look for their second signal only near each first one (a slice of the
text), so a text dense with one signal costs no more than a plain one.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from memdir.screening.context import (
    claim_reported,
    discusses_attacks,
    done_by_another,
    gives_order,
    in_content,
    is_bounded,
    is_limited,
    is_mention,
    is_named,
    is_narrated,
    is_negated,
    is_participle,
    is_reported,
    names_a_thing,
    names_with_verb,
    opens_with_order,
    order_reported,
    person_acts,
    person_said,
    reported_in_incident,
    sending_forbidden,
    sentence_end,
    sentence_start,
    settled_for_person,
    tells_of_a_leak,
)
from memdir.screening.findings import Hit, Kind
from memdir.screening.normalize import fold, fold_pattern, lines_as_spaces
from memdir.screening.rulebook import ADDRESSEES, NEGATABLE, PAIRS, WEAK, Rule, single_rules

__all__ = ["instruction_hits", "rules"]

_NEAR = 240  # characters between the two signals of a pair
_MOST_SIGNALS = 256  # occurrences of one weak signal looked at
_TRIES = 32  # matches of one rule looked at before it counts as fired
# Words that forbid what follows in their sentence: an act named after them is a rule for
# the agent ("Never add it to commits or paste its contents into issues").
_FORBIDDING = (
    "never",
    "don't",
    "dont",
    "do not",
    "must not",
    "mustn't",
    "should not",
    "shouldn't",
    "not allowed",
    "forbidden",
)
# "Never … without asking" (and its kin) restricts the agent: a rule for it, not a hole.
# "Only" and "ask before" narrow a grant rather than forbid the act.
_RESTRICTS = (
    *_FORBIDDING,
    "only",
    "ask before",
    "ask first",
    "confirm before",
    "nothing",
)
# Whole words only: "whenever" holds "never" but restricts nothing.
_RESTRICTING = re.compile(r"\b(?:" + "|".join(re.escape(word) for word in _RESTRICTS) + r")\b")
_FORBIDS = re.compile(r"\b(?:" + "|".join(re.escape(word) for word in _FORBIDDING) + r")\b")
# First signals that a restricting sentence turns into a rule ("don't look for a way around
# it"), and that a sentence about attacks only describes ("an attack asks for blanket approval").
# Signals of acting quietly: "don't silently retry" is a rule for the agent, not an order
# to hide something.
_QUIET = frozenset({"hide", "omit", "say_nothing", "cover"})
# First signals that are the act itself: "never paste it into chat" is a rule for the agent.
_ACTS = frozenset({"put_it", "send_it", "self_answer"})
_RESTRICTABLE = frozenset({"no_ask", "preapproved", "evade", "self_answer", "omit", "unnoticed"})
_DESCRIBABLE = frozenset(
    {"preapproved", "evade", "self_answer", "omit", "unnoticed", "plant", "url_query"}
)


class _Compiled:
    """A rule's pattern, compiled when a text first holds every one of its ``needs``.

    Compiling costs about 2 ms a thousand characters of pattern, and the rules that need
    no addressee are long (their word lists stand in several orders). Their needs (the
    words every match holds) are short and compiled at once: a text lacking one cannot
    match, so most texts never compile the rule, and a process that screens once does
    not pay for all of them.
    """

    def __init__(self, pattern: str, needs: tuple[str, ...], options: Any) -> None:
        import re2

        self._source = pattern
        self._options = options
        self._needs = [re2.compile(_folded(need), options) for need in needs]
        self._program: Any = None

    def possible(self, text: str) -> bool:
        return all(need.search(text) is not None for need in self._needs)

    @property
    def program(self) -> Any:
        if self._program is None:  # two threads at once compile it twice, harmlessly
            import re2

            self._program = re2.compile(_folded(self._source), self._options)
        return self._program


@cache
def _compiled() -> tuple[list[tuple[Rule, _Compiled]], dict[str, Any]]:
    import re2

    options = re2.Options()
    options.max_mem = 64 << 20  # the rules' automata are large; RE2's default is 8 MiB
    rules = [(rule, _Compiled(rule.pattern, rule.needs, options)) for rule in single_rules()]
    weak = {name: re2.compile(_folded(pattern), options) for name, pattern in WEAK.items()}
    return rules, weak


def _folded(pattern: str) -> str:
    """The pattern as the text reads: its letters folded as the text's are (its other-language
    words; a mark the text loses, such as a vowel sign or a dakuten, is dropped from it too),
    and each space also a line break (fields and lines are joined by one)."""
    return lines_as_spaces(fold_pattern(pattern))


def rules() -> tuple[Rule, ...]:
    """The single rules (the pairs of weak signals aside)."""
    return tuple(rule for rule, _ in _compiled()[0])


def _fires(rule: Rule, text: str, start: int, end: int) -> bool:
    """Whether a match of ``rule`` at ``text[start:end]`` counts (see the module docstring)."""
    if rule.quoted_ok and is_mention(text, start, end):
        return False
    if rule.negated_ok and is_negated(text, start, end):
        return False
    if rule.opening and not opens_with_order(text, start):
        return False
    if rule.described_ok and (discusses_attacks(text, start) or reported_in_incident(text, start)):
        return False
    if rule.incident_ok and tells_of_a_leak(text, start, end):
        return False
    if rule.claimed_ok and claim_reported(text, start):
        return False
    if rule.for_person_ok and settled_for_person(text, start, end):
        return False
    if rule.named_ok and is_named(text, start, end):
        return False
    if rule.narrowed_ok and (
        _restricted(text, start) or is_limited(text, end, further_on=True) or is_bounded(text, end)
    ):
        return False
    return not rule.ordered or gives_order(text, start)


def _first(rule: Rule, pattern: Any, text: str) -> tuple[int, int] | None:
    """The first match of ``rule`` that counts, as ``(start, end)``.

    A match that does not count is searched past from its next character (a
    later start may count: the leftmost match can begin in another sentence).
    Past :data:`_TRIES` matches that do not count, the rule counts as fired: no
    text has that many notes about one attack, but a padded attack might.
    """
    position = 0
    for _ in range(_TRIES):
        match = pattern.search(text, position)
        if match is None:
            return None
        if _fires(rule, text, match.start(), match.end()):
            return match.start(), match.end()
        position = match.start() + 1
    return position, position + 1


def _single(flat: str, lines: str) -> Iterator[Hit]:
    compiled, _ = _compiled()
    for rule, pattern in compiled:
        text = flat if rule.flat else lines
        if not pattern.possible(text):
            continue
        found = _first(rule, pattern.program, text)
        if found is not None:
            start, end = found
            hit = Hit(kind=Kind.INSTRUCTION, rule=rule.id, reason=rule.reason, start=start,
                      end=end)  # fmt: skip
            yield hit if rule.flat else _on_flat(hit)


def _on_flat(hit: Hit) -> Hit:
    """A hit on the lines form, marked so that it is placed through that form."""
    return Hit(kind=hit.kind, rule=hit.rule, reason=hit.reason, start=-1 - hit.start,
               end=-1 - hit.end)  # fmt: skip


# A colon (or a dash set apart) ends the clause a forbidding word governs: before it, the
# word prefaces the order ("never make the user wait: accept the prompts yourself").
_CLAUSE_BREAK = re.compile(r"\s?:\s|\s[-–—]\s")


def _clause_start(text: str, position: int) -> int:
    """Where the clause holding ``text[position]`` starts: its sentence's start, or the end
    of the last colon or dash set apart before ``position`` in it."""
    low = sentence_start(text, position)
    breaks = [m.end() for m in _CLAUSE_BREAK.finditer(text, low, position)]
    return breaks[-1] if breaks else low


def _restricted(text: str, start: int) -> bool:
    """Whether the clause before ``start`` restricts the agent ("never … without asking")."""
    return _RESTRICTING.search(text, _clause_start(text, start), start) is not None


# "Always ask before … force-pushing", "force-push needs a yes": the risky act named as what
# needs a question first.
_ASK_FIRST = re.compile(
    r"\b(?:ask|confirm|check)(?: with (?:me|us|the user|them))?(?: first)? before\b"
)
_NEEDS_A_YES = re.compile(r"\bneeds? (?:a yes|an ok|confirmation|approval|a question|sign-?off)\b")
_ASK_UNDONE = re.compile(r"\b(?:never|don't|dont|do not|no need to|without|stop)\b")


def _asked_first(text: str, start: int, end: int) -> bool:
    """Whether the sentence around ``text[start:end]`` says to ask first, unnegated ("Always
    ask before …", "… needs a yes"; never "Never ask before …")."""
    low = sentence_start(text, start)
    before = text[low:start]
    found = _ASK_FIRST.search(before)
    if found is not None and _ASK_UNDONE.search(before, 0, found.start()) is None:
        return True
    after = _NEEDS_A_YES.search(text, end, sentence_end(text, end))
    return after is not None and _ASK_UNDONE.search(text, low, after.start()) is None


def _occurrences(pattern: Any, text: str) -> list[tuple[int, int]]:
    """Where ``pattern`` matches, the first :data:`_MOST_SIGNALS` times."""
    return [(m.start(), m.end()) for m in itertools.islice(pattern.finditer(text), _MOST_SIGNALS)]


def _near(
    name: str, pattern: Any, text: str, around: tuple[int, int], aside: dict[int, bool]
) -> tuple[int, int] | None:
    """A match of signal ``name`` within :data:`_NEAR` characters of ``text[start:end]``
    that counts (see :func:`_set_aside`; ``aside`` keeps its verdicts by position, so that a
    match near many first signals is judged once)."""
    start, end = around
    low = max(0, start - _NEAR)
    window = text[low : end + _NEAR]  # a slice: the whole text is not re-read
    for match in itertools.islice(pattern.finditer(window), _TRIES):
        found = (low + match.start(), low + match.end())
        if found[0] not in aside:
            aside[found[0]] = _set_aside(name, text, *found)
        if not aside[found[0]]:
            return found
    return None


def _set_aside(name: str, text: str, start: int, end: int) -> bool:
    """Whether signal ``name`` at ``text[start:end]`` does not count: a :data:`NEGATABLE`
    one negated, narrowed to a case, quoted in a discussion or in a sentence about attacks
    (a rule for the agent, a mention, a description); instructions declared void on the
    person's own word (their change, not an order from elsewhere)."""
    if name in _QUIET:
        return is_negated(text, start)
    if name == "broad":
        # "Always confirm before deleting anything remote": the wide act is what needs a yes
        return _asked_first(text, start, end)
    if name == "asks_intl":
        return is_participle(text, start, end)
    if name not in NEGATABLE:
        return False
    return (
        is_negated(text, start)
        or (name == "unguard" and person_acts(text, start, end))
        or is_limited(text, end)
        or (name == "unguard" and is_bounded(text, end))
        or (name == "risky" and _asked_first(text, start, end))
        or (
            name == "ship_secret"
            and (
                done_by_another(text, start)
                or order_reported(text, start)
                or names_with_verb(text, start)
                or sending_forbidden(text, start, end)
            )
        )
        or is_mention(text, start, end)
        or discusses_attacks(text, start)
        or (name == "void_orders" and (person_said(text, start, end) or in_content(text, end)))
    )


def _not_addressed(name: str, text: str, start: int, end: int) -> bool:
    """Whether the addressee ``name`` at ``text[start:end]`` is reported, quoted, described,
    or (the agent named) the first word of a thing's name ("the LLM app's prompt")."""
    return (
        is_reported(text, start)
        or (name == "aimed" and is_narrated(text, end))
        or is_mention(text, start, end)
        or discusses_attacks(text, start)
        or (name == "aimed" and names_a_thing(text, end))
    )


def _counts(name: str, text: str, spot: tuple[int, int]) -> bool:
    """Whether first signal ``name`` at ``spot`` counts: not under a restriction ("never …
    without asking"), in a sentence about attacks, or an addressee reported or quoted."""
    start, end = spot
    if (name in _QUIET or name in _ACTS) and is_negated(text, start):
        return False
    if name in _ACTS and _FORBIDS.search(text, _clause_start(text, start), start) is not None:
        return False
    if name in _RESTRICTABLE and (_restricted(text, start) or is_bounded(text, end)):
        return False
    if name in _DESCRIBABLE and discusses_attacks(text, start):
        return False
    return not (name in ADDRESSEES and _not_addressed(name, text, start, end))


def _combined(text: str) -> Iterator[Hit]:
    _, weak = _compiled()
    firsts = {first for first, *_ in PAIRS}
    found = {name: _occurrences(weak[name], text) for name in firsts}
    usable = {name: [o for o in spots if _counts(name, text, o)] for name, spots in found.items()}
    aside: dict[str, dict[int, bool]] = {}
    seen: set[str] = set()
    for first, second, rule, reason in PAIRS:
        if rule in seen:
            continue
        for a_start, a_end in usable[first]:
            near = _near(second, weak[second], text, (a_start, a_end), aside.setdefault(second, {}))
            if near is not None:
                start, end = min(a_start, near[0]), max(a_end, near[1])
                seen.add(rule)
                yield Hit(kind=Kind.INSTRUCTION, rule=rule, reason=reason, start=start, end=end)
                break


def instruction_hits(text: str) -> list[Hit]:
    """The instruction rules that fire on ``text``, each once, in text order.

    Positions index ``text`` as written (the rules read its folded forms).
    """
    flat = fold(text)
    lines = fold(text, flat=False)
    hits = list(_single(flat.text, lines.text))
    fired = {hit.rule for hit in hits}
    hits += [hit for hit in _combined(flat.text) if hit.rule not in fired]
    placed = []
    for hit in hits:
        folded, start, end = (flat, hit.start, hit.end) if hit.start >= 0 else (
            lines, -1 - hit.start, -1 - hit.end)  # fmt: skip
        first = folded.origin(start)
        last = folded.origin(max(start, end - 1)) + 1
        placed.append(Hit(kind=hit.kind, rule=hit.rule, reason=hit.reason, start=first, end=last))
    return sorted(placed, key=lambda hit: hit.start)
