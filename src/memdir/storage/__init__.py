"""Storage: the files on disk and the rules for touching them.

Paths and confinement (``paths``, ``fs``), the frontmatter codec (``codec``),
the ``MEMORY.md`` index (``memory_index``), the locked, atomic memory store
(``store``), daily logs, transcripts, and the project's stores as one value
(``project``). Nothing here ranks, recalls or calls a model.
"""
