"""Consolidation ("dream"): daily logs distilled into topic files and the index.

``gates`` decides whether a run may start (cheapest gate first) and holds the
lock; ``tools`` are what the consolidating agent may do; ``run`` drives it.
"""
