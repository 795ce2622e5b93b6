"""The consolidation the page tests review: two CI memories, and a model that merges them.

Shared by the HTTP and browser tests of ``memdir ui`` and the consolidation and history
tests (``from proposalutil import ...``).
"""

from __future__ import annotations

from memdir.api import Memdir
from memdir.llm import Completion
from memdir.testing import ScriptedProvider, tool_use


def write_ci_memories(mem: Memdir) -> None:
    """Two memories that say where CI runs: what :func:`consolidation_run` merges."""
    mem.write(name="CI runs on GitHub", description="Where CI runs", type="project", body="GHA")
    mem.write(name="CI host", description="The CI service", type="project", body="GHA too")


def rewrite_ci(**why: object) -> Completion:
    """The model's call that rewrites a CI memory to say Buildkite; ``why``: reason, sources."""
    rewrite = {
        "file": "ci_runs_on_github.md",
        "name": "CI runs on Buildkite",
        "description": "CI host: Buildkite",
        "type": "project",
        "body": "CI moved to Buildkite.",
    }
    return tool_use("write_memory", {**rewrite, **why})


def consolidation_run() -> ScriptedProvider:
    """The model: rewrite one CI memory, delete its duplicate."""
    return ScriptedProvider(
        rewrite_ci(reason="the log says CI moved", sources=["ci_host.md"]),
        tool_use("delete_memory", {"file": "ci_host.md", "reason": "a duplicate"}),
        "Merged the CI memories.",
    )
