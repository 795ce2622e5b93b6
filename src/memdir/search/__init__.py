"""Search: the derived SQLite/FTS5 catalog and the one ranker over it.

``catalog`` keeps the index in step with the files; ``engine`` ranks (one BM25,
one weight table); ``terms`` tokenises and stems; ``embeddings`` adds the
optional dense half of hybrid ranking; ``query`` is ranked search and grep.
"""
