"""Screening: what a memory's text is checked for before an agent's write may apply.

A memory an agent writes is read again in every later session, so its text must
not carry instructions to the agent, hidden characters or forged frames.
``findings`` holds what a check reports (a kind, the field, a short reason, never
the text); ``normalize`` folds the text to one plain form (compatibility forms,
invisible characters and look-alike letters undone) so that a rule sees through
the disguises; ``hidden`` finds invisible and look-alike characters; ``frames``
finds role markers and memdir's own fences; ``instructions`` matches text aimed
at the agent against the rules of ``rulebook``, and ``context`` tells an order
from a quotation, a negation or a report of one; ``screen`` runs them all over a memory's fields.
``fences`` is the other half of the fence check: it writes memdir's fence tag
harmlessly wherever a prompt quotes memory text.

The checks are pure and import only the value layer: what a hit does (hold the
write for review, refuse it, hold a teammate's file) is decided by
:mod:`memdir.history.review` and :mod:`memdir.team.incoming`.
"""

__all__: list[str] = []
