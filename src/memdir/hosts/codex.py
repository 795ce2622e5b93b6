"""Codex CLI: where it keeps its settings, as it reads them.

Codex reads one per-user ``config.toml`` in ``$CODEX_HOME`` (default
``~/.codex``); its MCP servers are ``[mcp_servers.<name>]`` tables there,
which :mod:`memdir.hosts.mcp_servers` edits as text (the user's comments and
layout stay). Codex reads the project's ``AGENTS.md`` itself
(:mod:`memdir.hosts.agents_md`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

__all__ = ["MCP_TABLE", "codex_config_path", "codex_home"]

MCP_TABLE = "mcp_servers"  # config.toml's table of MCP servers


def codex_home(env: Mapping[str, str]) -> Path:
    """Codex's per-user folder: ``CODEX_HOME`` or ``~/.codex``."""
    configured = env.get("CODEX_HOME")
    if configured:
        return Path(configured)
    return Path(env.get("HOME") or Path.home()) / ".codex"


def codex_config_path(env: Mapping[str, str]) -> Path:
    """Codex's ``config.toml``."""
    return codex_home(env) / "config.toml"
