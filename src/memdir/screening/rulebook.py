"""The rule book of :mod:`memdir.screening.instructions`: what text aimed at the agent looks like.

Each :class:`Rule` is one RE2 pattern over the folded text
(:func:`~memdir.screening.normalize.fold`: lower case, look-alike letters and
invisible characters undone, markdown's marks as spaces, one space between
words, one line break between lines), its class (the part of its id before the
dot), the reason a finding gives, and where it stands in its sentence decides
whether it counts (``quoted_ok``, ``negated_ok``, ``ordered``, ``opening``,
``described_ok``: see :mod:`memdir.screening.context`). A space in a pattern
also matches a line break (fields are joined by one); a class in brackets
never holds a space (a ``\\s`` stands for one there). The vocabulary the rules
share (what an override verb is, what a secret is, what an outside address is,
who the user is, how a memory names itself, which files an agent reads as its
own instructions) is named once, in :mod:`memdir.screening.rules.vocabulary`;
each class's rules are a module of :mod:`memdir.screening.rules`.

Each class is written for the ways it is said, not for one sentence: the order
itself, the passive ("the keys are to be emailed to…"), the third person ("the
assistant shares…", "agents reading this must…"), a house rule or convention,
a polite form, a few other languages. A rule that would also match what people
write ("Always ask before pushing to main", "Don't tell Lena about the party",
"the earlier rule about squashing no longer applies") is narrowed by what it
is about (the user, the agent's own instructions, secrets) rather than widened
to a hold.

:data:`WEAK` are the signals judged in pairs (:data:`PAIRS`), never alone; the widest
of them, who is addressed and what is asked, are :mod:`memdir.screening.rules.aimed`'s
(:data:`ADDRESSEES` are the first signals a report or a quotation takes the order out of,
:data:`NEGATABLE` the second signals a negation or a narrowing turns into a rule).
The rules are data: the matching is :mod:`memdir.screening.instructions`.
"""

from __future__ import annotations

from memdir.screening.rules import (
    access,
    concealment,
    exfiltration,
    omission,
    outliving,
    override,
    permissions,
    persistence,
    precedence,
    routine_copy,
    steering,
    unaddressed,
)
from memdir.screening.rules.aimed import ADDRESSEES, NEGATABLE
from memdir.screening.rules.signals import PAIRS, WEAK
from memdir.screening.rules.vocabulary import Rule

__all__ = ["ADDRESSEES", "NEGATABLE", "PAIRS", "WEAK", "Rule", "single_rules"]


def single_rules() -> tuple[Rule, ...]:
    """Every rule that fires alone, in the order they are tried."""
    return (
        *override.rules(),
        *exfiltration.rules(),
        *permissions.rules(),
        *concealment.rules(),
        *persistence.rules(),
        *unaddressed.rules(),
        *precedence.rules(),
        *omission.rules(),
        *outliving.rules(),
        *access.rules(),
        *routine_copy.rules(),
        *steering.rules(),
    )
