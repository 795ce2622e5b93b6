"""Search: the derived SQLite/FTS5 catalog and the one ranker over it.

``catalog`` opens a project's index and answers queries, ``refresh`` keeps it
in step with the files, ``documents`` says what each file is indexed as;
``engine`` ranks (one BM25, one weight table); ``relevance`` judges whether a
match is strong enough to show; ``terms`` tokenises and stems; the ``vectors``
package is the optional dense half of hybrid ranking (embeddings, the documents'
vectors in the catalog, and the vector index that finds the nearest of them a
matrix product away); ``query`` is ranked search and grep.
"""
