"""The facade's parts: the verbs of :class:`memdir.api.Memdir`, grouped by capability.

:class:`~memdir.api.Memdir` is one object with every verb memdir has; its methods
are thin (each hands the object to the layer that does the work), and they are
written here in groups a reader can take in at once: ``searching`` (search, grep,
embedding, the catalog), ``history_verbs`` (versions, undo, pins, what a session
used, review), ``forgetting`` (tombstones) and ``model_verbs`` (the verbs that take
the caller's provider); ``guarded`` turns storage failures into memdir's errors.
Each group is a :class:`~memdir.history.project.ProjectMemory` that
:class:`~memdir.api.Memdir` inherits; only :mod:`memdir.api` imports them.
"""

__all__: list[str] = []
