"""Recall: what an agent is shown of its memory.

``prompt`` builds the memory section of the system prompt; ``manifest`` lists
memories; ``relevant`` picks the few that help with a query (``selector`` asks
a model to); ``age`` and ``drift`` attach staleness and drift notes;
``doctor`` finds and fixes what agents break, drift included.
"""
