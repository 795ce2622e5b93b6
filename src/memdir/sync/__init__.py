"""Private memory across one person's machines: a git remote its owner keeps.

Beside team sync and built from its machinery (:mod:`memdir.team`: the
isolated git wrapper, recovery, conflict copies, the index union, the
outgoing secret check): ``tree`` is the private folder as a git work tree,
``run`` the order of a sync (init, sync, status). A room of its own rather
than modules inside ``team/``: private memory is not team memory, and what
team sync does to untrusted teammates' pushes (quarantine, held rules) has no
place on a remote only its owner writes. Screening for review stays: what
reaches that remote from another of the owner's machines may be an agent's
write that no gate there saw.
"""

__all__: list[str] = []
