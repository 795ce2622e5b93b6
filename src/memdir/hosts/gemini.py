"""Gemini CLI: where it keeps a project's settings, as it reads them.

Gemini CLI reads the project's ``.gemini/settings.json`` (shared with the
team) and the user's ``~/.gemini/settings.json``; its MCP servers are JSON
under ``mcpServers`` (:mod:`memdir.hosts.mcp_servers` writes memdir's entry).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["PROJECT_SETTINGS"]

PROJECT_SETTINGS = Path(".gemini") / "settings.json"
