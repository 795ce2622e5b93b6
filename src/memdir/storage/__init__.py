"""Storage: the files on disk and the rules for touching them.

Paths and confinement (``paths``, ``fs``), the frontmatter codec (``codec``),
the ``MEMORY.md`` index (``memory_index``), the locked, atomic memory store
(``store``) and daily logs. Nothing here ranks, recalls or calls a model; the
history a store records into and the rules it checks a memory's ``enforce:``
field with are handed to it (:mod:`memdir.history.project`).
"""
