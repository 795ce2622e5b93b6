"""`memdir recall --model` against the real local model server (plumbing, not quality)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from llm_local import LocalServer, local_llm_server
from memdir import Memdir

__all__ = ["local_llm_server"]  # the fixture, imported so pytest finds it here

pytestmark = pytest.mark.slow  # a real model server


def test_recall_with_the_local_model_returns_a_known_memory_or_falls_back(
    mem: Memdir, local_llm_server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem.write(
        name="Database tests", description="Integration tests hit a real database", type="feedback"
    )
    mem.write(name="Gardening", description="Tomatoes need full sun", type="user")
    monkeypatch.setenv("MEMDIR_PROVIDER", "local")
    monkeypatch.setenv("MEMDIR_LOCAL_BASE_URL", local_llm_server.base_url)
    monkeypatch.setenv("MEMDIR_MODEL", local_llm_server.model_name)
    done = subprocess.run(
        [sys.executable, "-m", "memdir", "recall", "how should integration tests use the "
         "database", "--model", "--json", "--project", str(mem.layout.project_root)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    files = [item["file"] for item in result["items"]]
    # The model chooses (an empty choice is a valid answer), or a bad answer falls
    # back to the lexical selector: only real memories ever come back.
    assert set(files) <= {"database_tests.md", "gardening.md"}
    assert files or result["skipped"] == "none-selected"
    lexical = mem.recall("how should integration tests use the database")
    assert [item.file for item in lexical.items] == ["database_tests.md"]
