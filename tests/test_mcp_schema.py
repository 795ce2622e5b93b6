"""The tools' input schemas, pinned by a snapshot: a change to what models see is deliberate.

Set ``MEMDIR_UPDATE_SNAPSHOTS=1`` to rewrite ``tests/snapshots/mcp_tools.json``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client

from memdir.mcp import TOOL_NAMES, build_server

SNAPSHOT = Path(__file__).parent / "snapshots" / "mcp_tools.json"
# Names models guess, accepted by the tools; ``file`` is only a real argument of write.
ALIASES = {"file_path", "filename", "q", "pattern", "content", "title", "summary",
           "old_string", "new_string", "memory_type", "entry"}  # fmt: skip


def schemas(project: Path) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        async with Client(build_server(project)) as client:
            tools = (await client.list_tools()).tools
            return {t.name: t.input_schema for t in sorted(tools, key=lambda t: t.name)}

    return anyio.run(main)


def test_the_input_schemas_match_the_snapshot(project: Path) -> None:
    current = schemas(project)
    if os.environ.get("MEMDIR_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n")
    assert SNAPSHOT.is_file(), "run with MEMDIR_UPDATE_SNAPSHOTS=1 to create the snapshot"
    assert current == json.loads(SNAPSHOT.read_text())


def test_the_snapshot_covers_every_tool() -> None:
    assert set(json.loads(SNAPSHOT.read_text())) == set(TOOL_NAMES)


def test_aliases_are_accepted_but_never_published(project: Path) -> None:
    for name, schema in schemas(project).items():
        published = set(schema["properties"])
        assert not published & ALIASES, (name, published & ALIASES)
