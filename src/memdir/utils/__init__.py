"""Utilities cheap enough for the hooks that start a process on every call.

``records`` gives frozen, keyword-only value classes without ``dataclasses``;
``json_text`` reads and writes JSON without the ``json`` package; ``inputs``
notes which files a computation read, so its answer can be reused until one
of them changes. None imports anything of memdir's.
"""
