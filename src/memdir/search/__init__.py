"""Search: the derived SQLite/FTS5 catalog and the one ranker over it.

``catalog`` opens a project's index and answers queries, ``refresh`` keeps it
in step with the files, ``documents`` says what each file is indexed as;
``engine`` ranks (one BM25, one weight table); ``relevance`` judges whether a
match is strong enough to show; ``terms`` tokenises and stems; ``embeddings`` adds the
optional dense half of hybrid ranking, ``vectors`` keeps the documents' vectors
in the catalog and ``vector_index`` (on the file format of ``vector_file``) the
nearest of them a matrix product away; ``query`` is ranked search and grep.
"""
