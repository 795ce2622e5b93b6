"""Shared fixtures: every test runs against a fresh memory home and a fresh project."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from gitutil import committed_repo
from memdir.api import Memdir

# The team and private sync fixtures (git_home, remote, opened, clone, private_remote),
# for the modules that ask for them.
pytest_plugins = ["teamutil"]

# `make check` runs property tests with fewer examples (`--hypothesis-profile quick`);
# `make test` and CI run the default.
settings.register_profile("quick", max_examples=15)

# Tests never reach a hosted model: real providers refuse unless the endpoint is loopback.
os.environ.setdefault("MEMDIR_BLOCK_REAL_PROVIDERS", "1")


@pytest.fixture(autouse=True, scope="session")
def hook_server_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The hook server's socket folder for this test run; its servers stopped at the end.

    Hook processes the tests start (and Claude Code's) find the server there; one
    started by a hook whose environment lacks the folder is stopped at the end too.
    """
    import time

    from memdir.hooks.server import server_status, stop_server

    began = time.time()
    folder = tmp_path_factory.mktemp("run", numbered=False)
    saved = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = str(folder)
    yield folder
    for env in ({"XDG_RUNTIME_DIR": str(folder)}, {}):
        status = server_status(env)
        if status.running and (status.started or 0) >= began - 1:
            stop_server(env)
    if saved is None:
        os.environ.pop("XDG_RUNTIME_DIR", None)
    else:
        os.environ["XDG_RUNTIME_DIR"] = saved


@pytest.fixture(autouse=True)
def memdir_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point MEMDIR_HOME at a temp folder and clear variables that change behaviour."""
    home = tmp_path / "memdir-home"
    monkeypatch.setenv("MEMDIR_HOME", str(home))
    for var in (
        "MEMDIR_PROFILE",
        "MEMDIR_DISABLE",
        "MEMDIR_TEAM",
        "MEMDIR_DAILY_LOG",
        "MEMDIR_EXTRA_GUIDELINES",
        "MEMDIR_CONFIG",
        "CLAUDE_CONFIG_DIR",
    ):
        monkeypatch.delenv(var, raising=False)
    # The embedded local model is the default when no key is set; tests that want it
    # say so, the rest see "no model configured" whatever this machine has installed.
    monkeypatch.setenv("MEMDIR_LOCAL_MODEL", str(tmp_path / "no-local-model.gguf"))
    # Likewise hybrid search, the default wherever the embeddings extra is installed:
    # the tests of it turn it on, the rest rank by BM25 alone, with or without the extra.
    monkeypatch.setenv("MEMDIR_EMBEDDINGS", "off")
    yield home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository with one commit."""
    return committed_repo(tmp_path / "project", "README.md", "hello\n")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throwaway HOME, so user-scope files and Claude Code's folder are the test's own."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.fixture
def mem(project: Path, memdir_home: Path) -> Memdir:
    """An opened Memdir for ``project``."""
    return Memdir.open(project)


@pytest.fixture
def project_path_mem(project: Path) -> Memdir:
    """A Memdir whose index is limited to 10 lines, to exercise truncation."""
    return Memdir.open(project, max_index_lines=10)
