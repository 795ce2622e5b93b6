"""Vectors: the dense half of hybrid search, beside the catalog's text.

``embeddings`` turns text into vectors (the bundled model run by ``bert_encoder``
with numpy, sentence-transformers, or an OpenAI-compatible API) and holds the
vector helpers (packing, cosine, rank fusion); ``vector_table`` keeps the
documents' vectors in the catalog (the embedding pass, the change log the index
reads); ``vector_index`` keeps them in a file beside it (format: ``vector_file``),
brought up to date by ``page_edits`` and searched by ``scoring``, the nearest a
matrix product away.

Importing this package loads nothing: each module is imported where it is used
(numpy and the models only for a catalog that has an embedder).
"""

__all__: list[str] = []
