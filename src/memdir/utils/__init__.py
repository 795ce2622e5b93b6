"""Small helpers that import nothing of memdir's, most cheap enough for the per-call hooks.

``records`` gives frozen, keyword-only value classes without ``dataclasses``;
``json_text`` reads and writes JSON without the ``json`` package; ``inputs``
notes which files a computation read, so its answer can be reused until one
of them changes; ``processes`` ends a child process memdir started.
"""
