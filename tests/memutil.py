"""Memories the tests write again and again, each written one way.

A feedback memory that carries tool-call rules (``extra.enforce``) is what the
enforcement, hook and installer tests start from; only its name, its rules and, where
a test reads them back, its description and body differ from test to test.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memdir.api import Memdir

__all__ = ["NPM_INSTALL", "USE_PNPM", "save_ledger_notes", "save_rule"]

NPM_INSTALL = {"tool": "Bash", "match": r"\bnpm install\b", "action": "deny"}
USE_PNPM = "Use pnpm.\n**Why:** npm broke the lockfile.\n"


def save_ledger_notes(
    mem: Memdir, count: int, description: str = "How payments batch {i} retries at night"
) -> None:
    """``count`` project memories alike but for their number ``i``: a store of many
    topics. ``description`` is formatted with ``i``."""
    for i in range(count):
        mem.write(
            name=f"Ledger note {i}",
            description=description.format(i=i),
            type="project",
            body=f"Batch {i} retries three times, then pages the billing on-call.",
        )


def save_rule(
    mem: Memdir,
    name: str,
    *rules: Mapping[str, Any],
    description: str = "",
    body: str = "",
    scope: str = "private",
) -> None:
    """A feedback memory ``name`` whose rules are ``rules``. ``description`` defaults to
    ``"<name>: a rule"`` and ``body`` to the name and a reason."""
    mem.write(
        name=name,
        description=description or f"{name}: a rule",
        type="feedback",
        body=body or f"{name}.\n**Why:** it rewrote the lockfile.\n",
        scope=scope,
        extra={"enforce": [dict(rule) for rule in rules]},
    )
