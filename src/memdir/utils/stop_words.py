"""The English stop list the word matchers start from.

Snowball's English stop words, the words a fingerprint or an index of terms
drops because nearly every sentence has them. Each matcher adds the words its
own texts are full of: search the contractions split at the apostrophe
(:data:`memdir.search.terms.STOP_WORDS`), tombstones the verbs every memory
uses (:mod:`memdir.history.tombstones`). A value module: it imports nothing.
"""

from __future__ import annotations

__all__ = ["ENGLISH_STOP_WORDS"]

ENGLISH_STOP_WORDS: frozenset[str] = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is
    it its itself just me more most my myself no nor not now of off on once only or other
    ought our ours ourselves out over own same shall she should so some such than that the
    their theirs them themselves then there these they this those through to too under until
    up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves
    """.split()
)
